"""SOLAR-A as the authors' code runs it: their IG gate + their multi-score eviction.

This is ``SolarARunner`` of ysunbp/SOLAR ``synthetic_workloads/runners.py``.  Admission is
:mod:`~simulator.policies.parts.authors_gate` (its docstring lists how it differs from Alg. 1).  To
evict, go through the cached items in admission order and take the first lowest

    w_recency · exp(−(t − u_i) / age_scale) + w_use · r_i / n + w_novelty · d_i

u_i = the last step i was retrieved (its admission step if never), r_i = the steps in which
i was retrieved, n = the candidates the gate has seen (this arrival and re-arrivals
included), d_i = clip01(1 − highest cosine of i to another cached item), 1 if i is alone.
Defaults 0.4, 0.3, 0.3, 100.  Against our ``solar_a`` (the paper leaves this rule open):
age since last use, not since admission; frequency per candidate seen, not per step cached;
d_i clipped to [0, 1].  Deterministic; semantic mode only.  The agent
(``src/agent/solar_a.py``) counts ages in candidates, not steps, and takes
d_i = 1 − exp(−d²_nn / (2·dim)) from FAISS squared L2 distances.

Sizes (docs/model.md §2.5; ours, the runner has none): the gate counts items, not sizes
(see ``authors_gate``).  When an arrival needs room for more than one victim, each is
chosen by the rule above over the items still cached: d_i follows the departures, while
u_i, r_i and n do not change within the step.  Sizes do not enter the score.
"""

import numpy as np

from simulator.config import njit
from simulator.policies.parts import authors_gate, authors_views
from simulator.policies.base import Policy, slot_vectors

PARAMS = {**authors_gate.PARAMS, "w_recency": 0.4, "w_use": 0.3, "w_novelty": 0.3,
          "age_scale": 100.0}


def _check(params):
    if params["age_scale"] <= 0:
        return f"parameter 'age_scale' must be > 0, got {params['age_scale']}"
    return authors_gate.check(params)


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
_GATE = 0  # the authors' gate's state
_LAST_USE = 1  # per slot: the step it was last retrieved, or admitted
_HITS = 2  # per slot: the steps that retrieved it
_WEIGHTS = 3  # w_recency, w_use, w_novelty, age_scale
_SCRATCH = 4  # authors_views.scratch(slots)


def _init(ctx):
    p, k = ctx.params, ctx.slots
    weights = np.array([p["w_recency"], p["w_use"], p["w_novelty"], p["age_scale"]])
    return (authors_gate.new_state(p, ctx.capacity, k), np.zeros(k, np.int64),
            np.zeros(k, np.int64), weights, authors_views.scratch(k))


@njit
def _on_hit(state, slot, t, relevant):
    state[_LAST_USE][slot] = t
    state[_HITS][slot] += 1


@njit
def _admit(state, t, key, x, cache):
    return authors_gate.admit(state[_GATE], x, cache)


@njit
def _on_rearrival(state, slot, t):
    authors_gate.rearrival(state[_GATE])


@njit
def _on_insert(state, slot, key, t):
    authors_gate.on_insert(state[_GATE])
    state[_LAST_USE][slot] = t
    state[_HITS][slot] = 0


@njit
def _on_evict(state, slot, key, t):
    authors_gate.on_evict(state[_GATE])


@njit
def _victim(state, t, key, x, cache):
    last, hits, w = state[_LAST_USE], state[_HITS], state[_WEIGHTS]
    order, sims32, vals, _ = state[_SCRATCH]
    n = authors_views.admission_order(cache, order)
    seen = max(authors_gate.candidates(state[_GATE]), 1.0)
    best = -1
    best_score = np.inf
    for i in range(n):
        s = order[i]
        diversity = 1.0
        if n > 1:
            authors_views.sims_in_order(slot_vectors(cache)[:, s], cache, order, n, sims32, vals)
            nn = -np.inf
            for j in range(n):
                if j != i:
                    nn = max(nn, vals[j])
            diversity = authors_views.clip01(1.0 - nn)
        score = (w[0] * np.exp(-(t - last[s]) / w[3]) + w[1] * hits[s] / seen
                 + w[2] * diversity)
        if score < best_score:
            best_score = score
            best = s
    return best


POLICY = Policy(name="solar_a_ref", summary="the authors' code: information-gain gate + "
                "recency/frequency/diversity eviction", init=_init, victim=_victim,
                on_hit=_on_hit, admit=_admit, on_rearrival=_on_rearrival, on_insert=_on_insert,
                on_evict=_on_evict, params=PARAMS, check_params=_check, modes=("semantic",),
                state_bytes=lambda p, s, n: authors_gate.state_bytes(p, s, n) + 48 * s)
