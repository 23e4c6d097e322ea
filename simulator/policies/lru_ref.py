"""LRU as the SOLAR authors' synthetic runner implements it (``LRURunner``): always admit.

Evict the item with the smallest last-use step (the step it was last retrieved into R_t, or
its admission step), ties to the earliest admission.  This is ``lru`` except inside one
step: the runner stamps every item of R_t with the same step, so among items last used
together the oldest admission goes first, where ``lru`` evicts the worst match first.
Admission at step t still counts as later than any retrieval at t (the runner's dict
order).  In paging mode (one request per step) it is exactly ``lru``.  O(K) per eviction.
"""

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy, admission_steps, slot_keys


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
_LAST_USE = 0  # per slot: the step of its last retrieval, or of its admission


def _init(ctx):
    return (np.zeros(ctx.slots, np.int64),)


@njit
def _on_hit(state, slot, t, relevant):
    state[_LAST_USE][slot] = t


@njit
def _on_insert(state, slot, key, t):
    state[_LAST_USE][slot] = t


@njit
def _victim(state, t, key, x, cache):
    last, slot_key, slot_adm = state[_LAST_USE], slot_keys(cache), admission_steps(cache)
    best = -1
    for s in range(slot_key.shape[0]):
        if slot_key[s] >= 0 and (best < 0 or last[s] < last[best] or (
                last[s] == last[best] and slot_adm[s] < slot_adm[best])):
            best = s
    return best


POLICY = Policy(name="lru_ref", summary="always admit; LRU as the authors' runner has it "
                "(ties within a step to the oldest admission)",
                init=_init, victim=_victim, on_hit=_on_hit, on_insert=_on_insert,
                modes=("semantic", "paging"))
