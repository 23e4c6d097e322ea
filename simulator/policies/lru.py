"""Least recently used: always admit; evict the item least recently retrieved.

An item never retrieved counts as used at its admission.  Retrieval reports R_t worst
match first, so among items retrieved in one step the best match is the most recent.
State is a doubly linked list over slots (O(1) per hook), most recent at the head.
"""

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy


def _init(ctx):
    # prev/next per slot, plus a sentinel node at index `capacity`
    nodes = np.full((ctx.capacity + 1, 2), -1, np.int64)
    nodes[ctx.capacity] = ctx.capacity
    return (nodes,)


@njit
def _unlink(nodes, s):
    p, n = nodes[s, 0], nodes[s, 1]
    nodes[p, 1] = n
    nodes[n, 0] = p


@njit
def _push_front(nodes, s):
    head = nodes.shape[0] - 1
    first = nodes[head, 1]
    nodes[s, 0] = head
    nodes[s, 1] = first
    nodes[first, 0] = s
    nodes[head, 1] = s


@njit
def _on_hit(state, slot, t, relevant):
    nodes = state[0]
    _unlink(nodes, slot)
    _push_front(nodes, slot)


@njit
def _on_insert(state, slot, key, t):
    _push_front(state[0], slot)


@njit
def _on_evict(state, slot, key, t):
    _unlink(state[0], slot)


@njit
def _victim(state, t, key, x, cache):
    nodes = state[0]
    return nodes[nodes.shape[0] - 1, 0]


POLICY = Policy(name="lru", summary="always admit; evict the least recently retrieved item",
                init=_init, victim=_victim, on_hit=_on_hit, on_insert=_on_insert,
                on_evict=_on_evict)
