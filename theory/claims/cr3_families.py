"""Structured instances that attack the weak step of Theorem 5.4's proof.

The proof charges SOLAR at most τ + λ per epoch: its accumulated miss cost reaches τ, then
one change.  But the gate fires only once the accumulated cost is *at least* τ, so the
epoch's miss cost L_j can reach τ + ℓ_max less a little: the last miss overshoots.  The
**overshoot** family makes every epoch do that while OPT pays only λ per epoch:

- a first step of weight 0 brings a topic-0 item, so OPT starts phase 0 holding it;
- phase j (of ``phases``) queries topic j, whose centre is orthogonal to the others;
- every arrival of phase j is an item of topic j, except the last step of phase j − 1,
  which already brings a topic-j item, so OPT switches just before phase j starts and never
  misses (one λ per phase);
- the weights of phase j's first steps sum to just under τ = 2λ (ones, then a remainder),
  and the next step misses in full: SOLAR's gate fires there with L_j ≈ 2λ + 1, and it
  admits that step's topic-j arrival; ``tail`` steps of weight 1 follow, which both hit.

SOLAR's epochs each contain OPT's switch, so Definition 5.3 (ii) is vacuous for them, and
(i) holds with orthogonal topics; the ratio tends to (3λ + 1)/λ = 3 + 1/λ.  The grid
covers every sub-range of the claim (K = 1 and 2, k < K and k ≥ K, small and large λ, short
and long traces, each quality), so each is attacked, not only sampled at random.

The **P-phase** family (:func:`phases`) is the same construction scaled by its number of
phases P at K = k = 1 with one tail step: each phase costs SOLAR (2λ − 0.001) + 1 + λ and OPT
λ, so SOLAR − 3·OPT = 0.999·P exactly, for every λ: the excess over 3·OPT is no constant, and
even "cost ≤ 3·OPT + b for some b" fails.  (The tail step matters: without it the step that
fires SOLAR's gate is the one bringing the next topic's item, SOLAR admits it early and hits
the whole next phase.)

>>> inst = overshoot(1, 1, 0.5, "hit", phases=2, tail=1)
>>> inst.steps, inst.trace.weights.tolist()
(7, [0.0, 0.999, 1.0, 1.0, 0.999, 1.0, 1.0])
>>> phases(3, 0.25).labels["scale"]
3
"""

from __future__ import annotations

import math

import numpy as np

from simulator.instance import Instance
from simulator.trace import Trace

SHORT = 1e-3  # how far under τ the first steps of a phase stay


def _phase_weights(lam: float, tail: int) -> list:
    fill = max(2 * lam - SHORT, 0.0)
    ones = math.floor(fill)
    rest = round(fill - ones, 9)
    return [1.0] * ones + ([rest] if rest > 0 else []) + [1.0] + [1.0] * tail


def overshoot(K: int, top_k: int, lam: float, quality: str, phases: int = 3,
              tail: int = 1) -> Instance:
    """One overshoot instance (the module docstring), labelled with its phases and tail."""
    weights = _phase_weights(lam, tail)
    n = len(weights)
    topic = np.repeat(np.arange(phases), n)
    arrive = topic.copy()
    arrive[n - 1::n] = np.minimum(topic[n - 1::n] + 1, phases)  # next phase's item, early
    topic, arrive = np.r_[0, topic], np.r_[0, arrive]  # the weight-0 first step
    centres = np.eye(phases + 1, dtype=np.float32)
    trace = Trace.from_arrays(queries=centres[topic], items=centres[arrive],
                              query_topics=topic, item_topics=arrive,
                              weights=np.r_[0.0, np.tile(weights, phases)])
    return Instance(trace, dict(capacity=K, top_k=top_k, switch_cost=lam, quality=quality),
                    dict(family="overshoot", phases=phases, tail=tail))


def phases(P: int, lam: float) -> Instance:
    """The P-phase instance (the module docstring): K = k = 1, hit quality, one tail step;
    ``labels["scale"]`` is P, the scale a growth fit reads."""
    inst = overshoot(1, 1, lam, "hit", phases=P, tail=1)
    return Instance(inst.trace, inst.options, dict(inst.labels, family="P-phase", scale=P))


def grid(quick: bool) -> list:
    """The instances of the claim's structured search."""
    lams = (0.05, 0.5, 2.0) if quick else (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)
    out = []
    for K in (1, 2):
        for k in sorted({1, K, K + 1}):
            for lam in lams:
                for quality in ("hit", "precision", "similarity"):
                    for phases, tail in ((2, 0), (3, 1)):
                        if quick and (phases, tail) == (2, 0) and lam > 0.05:
                            continue
                        out.append(overshoot(K, k, lam, quality, phases, tail))
    return out
