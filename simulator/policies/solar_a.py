"""SOLAR-A: regret-gated admission (Alg. 1) with a heuristic multi-score eviction.

The paper leaves SOLAR-A's eviction rule open; ours is the one its authors' code uses in
spirit: evict argmin of

    w_recency · exp(−age_i / age_scale) + w_use · r_i / max(1, age_i) + w_novelty · (1 − nn_i)

with age_i = t − admission step, r_i = steps in which i was retrieved, and nn_i = the
highest cosine between i and another cached item, floored at 0 (so near-duplicates go
first; an item alone in the cache has nn_i = 0).  Ties go
to the smaller key.  Defaults 0.4 / 0.3 / 0.3 and ``age_scale = 100``.  Admission
parameters as in :mod:`~simulator.policies.parts.regret_gate`.  Deterministic.

nn_i is kept between evictions rather than rescanned: an eviction rescans only the slots
that changed and those whose nearest neighbour was one of them, so it costs O(K·d) in the
common case instead of O(K²·d), with the same values.

Sizes (docs/model.md §2.5; ours).  The gate decides as with unit sizes.  When an arrival
needs room for more than one victim, each victim is chosen by the rule above over the
items still cached: nn_i follows the departures (an item whose near-duplicate was just
evicted is no longer one), while age_i and r_i do not change within the step.
``evict_rank`` says how scores rank: ``"score"`` (default) by the score above;
``"per_size"`` by score / w_i, w_i the item's size (value per unit of size: of two items
of equal score the larger goes first; meant for non-negative weights, as the defaults).
With unit sizes the two are the same run.  The size of an item is recorded by the
``admit`` hook, which sees the arriving size, for ``on_insert`` to file.
"""

import numpy as np

from simulator.config import njit
from simulator.engine.kernels import similarities
from simulator.policies.parts import regret_gate
from simulator.policies.base import (Policy, Traits, admission_steps, arriving_size,
                                    slot_keys, slot_vectors)

PARAMS = {**regret_gate.PARAMS, "w_recency": 0.4, "w_use": 0.3, "w_novelty": 0.3,
          "age_scale": 100.0, "evict_rank": "score"}
RANKS = ("score", "per_size")


def _check(params):
    if params["age_scale"] <= 0:
        return f"parameter 'age_scale' must be > 0, got {params['age_scale']}"
    if params["evict_rank"] not in RANKS:
        return (f"parameter 'evict_rank' must be one of {', '.join(RANKS)}, "
                f"got {params['evict_rank']!r}")
    return regret_gate.check(params)


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
_GATE = regret_gate.GATE  # the gate's state (first: its on_feedback reads it there)
_HITS = 1  # per slot: r_i, the steps that retrieved it
_WEIGHTS = 2  # w_recency, w_use, w_novelty, age_scale, 1.0 if evict_rank is per_size
_NN = 3  # per slot: nn_i, kept up to date between evictions (see _refresh)
_NN_SLOT = 4  # per slot: the slot its nn_i comes from (-1: the floor 0)
_FLAG = 5  # per slot: 1 changed, 2 to recompute, since the last eviction
_CHANGED = 6  # the changed slots; the last entry counts them
_ROW = 7  # scratch: one slot's cosines to every slot (float32)
_SIZE = 8  # per slot: its item's size
_ARRIVING = 9  # [the arriving item's size], from admit for on_insert


def _init(ctx):
    p = ctx.params
    weights = np.array([p["w_recency"], p["w_use"], p["w_novelty"], p["age_scale"],
                        float(p["evict_rank"] == "per_size")])
    k = ctx.slots
    return (regret_gate.new_state(p, ctx.switch_cost), np.zeros(k, np.int64), weights,
            np.zeros(k), np.full(k, -1, np.int64), np.zeros(k, np.int64),
            np.zeros(k + 1, np.int64), np.zeros(k, np.float32), np.ones(k, np.int64),
            np.ones(1, np.int64))


@njit
def _on_hit(state, slot, t, relevant):
    state[_HITS][slot] += 1


@njit
def _changed(state, slot):
    if state[_FLAG][slot] != 1:
        state[_FLAG][slot] = 1
        state[_CHANGED][state[_CHANGED][-1]] = slot
        state[_CHANGED][-1] += 1


@njit
def _admit(state, t, key, x, cache):
    state[_ARRIVING][0] = arriving_size(cache)
    return regret_gate.admit(state[_GATE])


@njit
def _on_insert(state, slot, key, t):
    state[_HITS][slot] = 0
    state[_SIZE][slot] = state[_ARRIVING][0]
    _changed(state, slot)


@njit
def _on_evict(state, slot, key, t):
    _changed(state, slot)


@njit
def _row(state, s, cache):
    """``state[_ROW][o]`` = cosine of the items in slots s and o (all slots)."""
    vecs = slot_vectors(cache)
    similarities(vecs[:, s], vecs, slot_keys(cache).shape[0], state[_ROW])


@njit
def _recompute(state, s, cache):
    _row(state, s, cache)
    slot_key = slot_keys(cache)
    state[_NN][s] = 0.0
    state[_NN_SLOT][s] = -1
    for o in range(slot_key.shape[0]):
        if o != s and slot_key[o] >= 0 and state[_ROW][o] > state[_NN][s]:
            state[_NN][s] = state[_ROW][o]
            state[_NN_SLOT][s] = o


@njit
def _refresh(state, cache):
    """Bring nn up to date after the slots changed since the last eviction.

    A slot whose nearest neighbour was a changed slot is recomputed in full; a changed
    slot gets its own row, which may also raise the others' nn.  Every value is the
    float32 cosine the full pairwise scan would compute, so the result is the same.
    """
    slot_key = slot_keys(cache)
    n_changed = state[_CHANGED][-1]
    for i in range(n_changed):
        c = state[_CHANGED][i]
        for s in range(slot_key.shape[0]):
            if state[_NN_SLOT][s] == c and state[_FLAG][s] == 0:
                state[_FLAG][s] = 2
    for i in range(n_changed):
        c = state[_CHANGED][i]
        if slot_key[c] < 0:
            continue
        _recompute(state, c, cache)  # leaves c's row in state[_ROW]
        for o in range(slot_key.shape[0]):
            if state[_FLAG][o] == 0 and slot_key[o] >= 0 and state[_ROW][o] > state[_NN][o]:
                state[_NN][o] = state[_ROW][o]
                state[_NN_SLOT][o] = c
    for s in range(slot_key.shape[0]):
        if state[_FLAG][s] == 2 and slot_key[s] >= 0:
            _recompute(state, s, cache)
        state[_FLAG][s] = 0
    state[_CHANGED][-1] = 0


@njit
def _victim(state, t, key, x, cache):
    _refresh(state, cache)
    hits, w, size = state[_HITS], state[_WEIGHTS], state[_SIZE]
    per_size = w[4] != 0.0
    slot_key, slot_adm = slot_keys(cache), admission_steps(cache)
    best = -1
    best_score = np.inf
    for s in range(slot_key.shape[0]):
        if slot_key[s] < 0:
            continue
        age = t - slot_adm[s]
        score = (w[0] * np.exp(-age / w[3]) + w[1] * hits[s] / max(1, age)
                 + w[2] * (1.0 - state[_NN][s]))
        if per_size:
            score /= size[s]
        if score < best_score or (score == best_score and slot_key[s] < slot_key[best]):
            best_score = score
            best = s
    return best


POLICY = Policy(name="solar_a", summary="regret-gated admission (Alg. 1); heuristic "
                "multi-score eviction", init=_init, victim=_victim, on_hit=_on_hit,
                on_feedback=regret_gate.on_feedback, admit=_admit,
                on_insert=_on_insert, on_evict=_on_evict, params=PARAMS,
                check_params=_check, traits=Traits(regret_gated=True),
                modes=("semantic", "paging"))
