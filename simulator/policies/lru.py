"""Least recently used: always admit; evict the item least recently retrieved.

An item never retrieved counts as used at its admission.  Retrieval reports R_t worst
match first, so among items retrieved in one step the best match is the most recent.
State is a doubly linked list over slots (O(1) per hook), most recent at the head.
"""

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy


def _init(ctx):
    # prev / next per slot; index `capacity` is the sentinel (next = MRU, prev = LRU)
    head = ctx.capacity
    prev = np.full(ctx.capacity + 1, head, np.int32)
    nxt = np.full(ctx.capacity + 1, head, np.int32)
    return (prev, nxt)


# Hooks index ``state[i]`` in place: holding an array in a local across calls costs
# reference counting on every request (see fifo.py).
@njit
def _on_hit(state, slot, t, relevant):
    head = state[0].shape[0] - 1
    if state[1][head] == slot:
        return  # already the most recent
    p, n = state[0][slot], state[1][slot]  # unlink ...
    state[1][p] = n
    state[0][n] = p
    first = state[1][head]  # ... and push at the MRU end (written out: no call, no refcount)
    state[0][slot] = head
    state[1][slot] = first
    state[0][first] = slot
    state[1][head] = slot


@njit
def _on_insert(state, slot, key, t):
    head = state[0].shape[0] - 1  # push at the MRU end
    first = state[1][head]
    state[0][slot] = head
    state[1][slot] = first
    state[0][first] = slot
    state[1][head] = slot


@njit
def _on_evict(state, slot, key, t):
    p, n = state[0][slot], state[1][slot]
    state[1][p] = n
    state[0][n] = p


@njit
def _victim(state, t, key, x, cache):
    return state[0][state[0].shape[0] - 1]


POLICY = Policy(name="lru", summary="always admit; evict the least recently retrieved item",
                init=_init, victim=_victim, on_hit=_on_hit, on_insert=_on_insert,
                on_evict=_on_evict)
