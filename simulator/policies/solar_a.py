"""SOLAR-A: regret-gated admission (Alg. 1) with a heuristic multi-score eviction.

The paper leaves SOLAR-A's eviction rule open; ours is the one its authors' code uses in
spirit: evict argmin of

    w_recency · exp(−age_i / age_scale) + w_use · r_i / max(1, age_i) + w_novelty · (1 − nn_i)

with age_i = t − admission step, r_i = steps in which i was retrieved, and nn_i = the
highest cosine between i and another cached item, floored at 0 (so near-duplicates go
first; an item alone in the cache has nn_i = 0).  Ties go
to the smaller key.  Defaults 0.4 / 0.3 / 0.3 and ``age_scale = 100``.  Admission
parameters as in :mod:`~simulator.policies.regret_gate`.  Deterministic.
"""

import numpy as np

from simulator.config import njit
from simulator.kernels import dot
from simulator.policies import regret_gate
from simulator.policies.base import Policy

PARAMS = {**regret_gate.PARAMS, "w_recency": 0.4, "w_use": 0.3, "w_novelty": 0.3,
          "age_scale": 100.0}


def _check(params):
    if params["age_scale"] <= 0:
        return f"parameter 'age_scale' must be > 0, got {params['age_scale']}"
    return regret_gate.check(params)


def _init(ctx):
    p = ctx.params
    weights = np.array([p["w_recency"], p["w_use"], p["w_novelty"], p["age_scale"]])
    return (regret_gate.new_state(p, ctx.switch_cost), np.zeros(ctx.capacity, np.int64), weights)


@njit
def _on_hit(state, slot, t, relevant):
    state[1][slot] += 1


@njit
def _on_insert(state, slot, key, t):
    state[1][slot] = 0


@njit
def _victim(state, t, key, x, cache):
    hits, w = state[1], state[2]
    slot_key, slot_vec, slot_adm, _ = cache
    best = -1
    best_score = np.inf
    for s in range(slot_key.shape[0]):
        if slot_key[s] < 0:
            continue
        nn = -1.0
        for o in range(slot_key.shape[0]):
            if o != s and slot_key[o] >= 0:
                nn = max(nn, dot(slot_vec[:, s], slot_vec[:, o]))
        if nn < 0.0:
            nn = 0.0  # alone in the cache (or all others opposite): no redundancy credit
        age = t - slot_adm[s]
        score = (w[0] * np.exp(-age / w[3]) + w[1] * hits[s] / max(1, age)
                 + w[2] * (1.0 - nn))
        if score < best_score or (score == best_score and slot_key[s] < slot_key[best]):
            best_score = score
            best = s
    return best


POLICY = Policy(name="solar_a", summary="regret-gated admission (Alg. 1); heuristic "
                "multi-score eviction", init=_init, victim=_victim, on_hit=_on_hit,
                on_feedback=regret_gate.on_feedback, admit=regret_gate.admit_hook,
                on_insert=_on_insert, params=PARAMS, check_params=_check)
