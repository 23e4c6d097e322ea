"""Evict the cached item most similar to the arrival (a redundancy rule)."""
import simulator
from simulator.policies.base import empty_state


@simulator.njit
def _victim(state, t, key, x, cache):
    slot_key, slot_vec = cache[0], cache[1]
    best, best_sim = -1, -2.0
    for s in range(slot_key.shape[0]):
        if slot_key[s] >= 0:
            sim = 0.0
            for j in range(x.shape[0]):
                sim += x[j] * slot_vec[j, s]
            if sim > best_sim:
                best, best_sim = s, sim
    return best


POLICY = simulator.Policy(name="redundancy", summary="evict the most similar item",
                          init=lambda ctx: empty_state(), victim=_victim,
                          modes=("semantic",))
