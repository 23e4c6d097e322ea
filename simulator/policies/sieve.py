"""SIEVE (Zhang et al., NSDI 2024): always admit; a FIFO queue, a visited bit and a hand.

New items enter at the head of the queue, unvisited.  A request for a cached item sets its
visited bit; nothing moves.  To evict, the hand walks from where it stopped last time (the
tail, i.e. the oldest item, the first time) towards the head, clearing visited bits, and
evicts the first unvisited item; past the head it wraps round to the tail.  The hand then
rests on the next newer item (none, if the victim was the head: the next walk starts at the
tail).  An item removed by anything else while the hand rests on it moves the hand the same
way.

Requests in semantic mode (as in ``arc``): a retrieval into R_t and a re-arrival of a
cached item (``item_keys``) are requests and set the visited bit.

Paging mode equals libCacheSim 0.3.5's ``Sieve`` hit for hit (its visited bit is
``sieve.freq``, set to 1 on a hit; ``tests/test_paging_oracles_more.py``).  The walk clears
one bit per step, and each bit was set by one request, so eviction is amortised O(1).
"""

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy

# table rows: slot s (0 .. K-1) and the sentinel K; columns:
_NEWER, _OLDER, _VISITED = 0, 1, 2
# The queue is circular through the sentinel: sentinel.NEWER is the tail (oldest item),
# sentinel.OLDER the head (newest).


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
_TABLE = 0  # the rows above
_HAND = 1  # [the slot the hand rests on, or -1: the tail]


def _init(ctx):
    k = ctx.slots
    table = np.zeros((k + 1, 3), np.int64)
    table[k, _NEWER] = table[k, _OLDER] = k
    return (table, np.full(1, -1, np.int64))


@njit
def _on_hit(state, slot, t, relevant):
    state[_TABLE][slot, _VISITED] = 1


@njit
def _on_rearrival(state, slot, t):
    state[_TABLE][slot, _VISITED] = 1


@njit
def _on_insert(state, slot, key, t):
    table = state[_TABLE]
    s = table.shape[0] - 1
    head = table[s, _OLDER]
    table[slot, _NEWER] = s
    table[slot, _OLDER] = head
    table[slot, _VISITED] = 0
    table[head, _NEWER] = slot
    table[s, _OLDER] = slot


@njit
def _on_evict(state, slot, key, t):
    table = state[_TABLE]
    newer = table[slot, _NEWER]
    older = table[slot, _OLDER]
    if state[_HAND][0] == slot:
        state[_HAND][0] = -1 if newer == table.shape[0] - 1 else newer
    table[older, _NEWER] = newer
    table[newer, _OLDER] = older


@njit
def _victim(state, t, key, x, cache):
    table = state[_TABLE]
    s = table.shape[0] - 1
    h = state[_HAND][0]
    if h < 0:
        h = table[s, _NEWER]
    while table[h, _VISITED] != 0:
        table[h, _VISITED] = 0
        h = table[h, _NEWER]
        if h == s:
            h = table[s, _NEWER]
    state[_HAND][0] = h  # on_evict moves the hand on to the next newer item
    return h


POLICY = Policy(name="sieve", summary="always admit; SIEVE (FIFO queue, visited bit, hand)",
                init=_init, victim=_victim, on_hit=_on_hit, on_rearrival=_on_rearrival,
                on_insert=_on_insert, on_evict=_on_evict, modes=("semantic", "paging"))
