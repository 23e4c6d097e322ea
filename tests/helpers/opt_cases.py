"""Instances for the OPT tests: exhaustive-search-sized traces, a pinned case, a comparison.

:func:`tiny` draws ``(trace, K, k, λ, quality)`` small enough for :mod:`naive_opt`;
:func:`soft_topk_case` is the instance where only a deletion is optimal;
:func:`random_trace` is a seeded trace with topics, weights and unscored steps; ``POLICIES``
are the bounded semantic policies OPT must not exceed; :func:`close` compares costs to
``TOL``.  Used by ``test_opt``, ``test_opt_bounds``, ``test_opt_sized`` and ``test_opt_flow``.
"""

from __future__ import annotations

import numpy as np

from simulator.policies import REGISTRY
from simulator.testing import instances
from simulator.trace import Trace

TOL = 1e-9


def close(a, b):
    return abs(a - b) <= TOL * max(1.0, abs(a), abs(b))


def tiny(qualities=("hit", "precision", "similarity"), evidence=True, max_steps=6,
         sized=False):
    """:func:`simulator.testing.instances` as ``(trace, K, k, λ, quality)`` (sized: and B):
    T <= max_steps, coarse integer vectors (ties happen), topics with -1, any weights,
    sometimes re-streamed keys that keep their vector and topic, sometimes unscored steps
    and explicit evidence (unless ``evidence`` is False); K, k in 1..3, λ in {0, ½, 2}.
    ``sized``: sizes 1..4 per key, B in 1..7, and sometimes no count limit."""
    return instances(max_steps=max_steps, qualities=qualities, evidence=evidence,
                     vectors=("grid",), keys=("fresh", "same"), n_topics=3,
                     sized=sized).map(_as_tuple)


def _as_tuple(inst):
    o = inst.options
    return (inst.trace, o["capacity"], o["top_k"], o["switch_cost"], o["quality"],
            *((o["budget"],) if "budget" in o else ()))


def soft_topk_case():
    """k = 1 < K = 2: an irrelevant item that is more similar pushes the relevant one out.

    A (topic 0) arrives at step 0, B (topic 1) at 1, C (no topic, B's vector) at 2.  B answers
    step 2; step 3 asks topic 0 with a query nearer B than A, so A is retrieved only if B has
    been *deleted*: admitting C instead (a swap) is as bad as keeping B.  With λ < 1/2 the
    optimum (1 + 3λ) needs that deletion.
    """
    A, B, D = [1, 0, 0], [0, 1, 0], [0, 0, 1]
    tr = Trace.from_arrays(
        queries=np.array([D, A, B, [1, 2, 0]], np.float32),
        items=np.array([A, B, B, D], np.float32),
        query_topics=np.array([0, 0, 1, 0]), item_topics=np.array([0, 1, -1, -1]))
    return tr, 2, 1, 0.25, "hit"


def random_trace(seed, T=36):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(4, 6))
    qt, it = rng.integers(-1, 4, T), rng.integers(-1, 4, T)
    def noisy(tp):
        return centres[np.maximum(tp, 0)] + rng.normal(scale=0.8, size=(T, 6))
    return Trace.from_arrays(queries=noisy(qt).astype(np.float32),
                             items=noisy(it).astype(np.float32), query_topics=qt,
                             item_topics=it, weights=rng.integers(0, 2, T) * 1.0,
                             scored=rng.random(T) < 0.9)


POLICIES = [name for name, p in REGISTRY.items()
            if not p.unbounded and "semantic" in p.modes]
