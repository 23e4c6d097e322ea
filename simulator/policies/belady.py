"""Belady's MIN (offline, paging mode only): evict the item requested again farthest ahead.

``init`` reads the whole request sequence (``ctx.trace.requests``) and precomputes, for
every request, when the same object is requested next; an object never requested again
counts as requested at infinity.  Among several such objects the victim is the one in the
lowest slot; which one goes cannot change the hit count, since none of them is hit again.
This equals libCacheSim's ``Belady`` hit for hit.

With unit sizes this is Belady's MIN: no schedule that admits every miss (demand paging,
the classic setting and libCacheSim's) has more hits.  (Not admitting, which the model
allows, can do better even then: a, b, a with K = 1.)  With sizes and a budget
(docs/model.md §1.8) the rule, admit every miss that fits and evict the farthest next use
until it fits, ignores sizes and is a heuristic, not an optimum.  Three requests show it:
a (size 1), b (size 2), a, budget 2.  Belady admits b, which evicts a, and misses all
three; not admitting b keeps a and hits the last request (2 misses).  The victim rule
loses even when every miss is admitted: x (1), y (2), z (2), y, x, budget 3.  For z
Belady evicts x (farthest) and then y, 5 misses; evicting y alone gives 4 (and not
admitting z, 3).  So a sized Belady run is a reference cost, an upper bound on the
fewest misses, not the optimum.

State is a max segment tree over slots keyed on the next request time: O(log K) per hit and
insertion (repair stops as soon as a node is unchanged), O(1) to find the victim.
"""

import numpy as np

from simulator.config import njit
from simulator.errors import InputError
from simulator.policies.base import Policy, Traits


def next_requests(requests):
    """``out[t]`` = the next step after t that requests ``requests[t]``, else ``len(requests)``.

    Examples
    --------
    >>> next_requests(np.array([5, 7, 5, 5, 7])).tolist()
    [2, 4, 3, 5, 5]
    """
    requests = np.asarray(requests)
    out = np.full(requests.shape[0], requests.shape[0], np.int64)
    order = np.argsort(requests, kind="stable")
    same = requests[order[1:]] == requests[order[:-1]]
    out[order[:-1][same]] = order[1:][same]
    return out


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
_NEXT_USE = 0  # per step t: the next step that requests the same object (next_requests)
_TREE = 1  # the max segment tree over slots (in _init)


def _init(ctx):
    requests = getattr(ctx.trace, "requests", None)
    if requests is None:
        raise InputError("policy 'belady' needs the whole paging trace (requests)")
    size = 1
    while size < ctx.slots:
        size *= 2
    # tree rows are (next request, slot); leaf size + s holds slot s, and a node holds the
    # later of its children (ties: the lower slot).  Free slots carry -1 and never win.
    tree = np.zeros((2 * size, 2), np.int64)
    tree[:, 0] = -1
    tree[size:, 1] = np.arange(size)
    for i in range(size - 1, 0, -1):
        tree[i] = tree[2 * i]
    return (next_requests(requests), tree)


@njit
def _set(tree, slot, when):
    """Give ``slot`` a new next-request time and repair its path to the root."""
    i = (tree.shape[0] >> 1) + slot
    tree[i, 0] = when
    i >>= 1
    while i >= 1:
        w = 2 * i
        if tree[w + 1, 0] > tree[w, 0]:  # equal: the left child has the lower slot
            w += 1
        if tree[i, 0] == tree[w, 0] and tree[i, 1] == tree[w, 1]:
            return  # unchanged here, so unchanged above
        tree[i, 0] = tree[w, 0]
        tree[i, 1] = tree[w, 1]
        i >>= 1


@njit
def _on_hit(state, slot, t, relevant):
    _set(state[_TREE], slot, state[_NEXT_USE][t])


@njit
def _on_insert(state, slot, key, t):
    _set(state[_TREE], slot, state[_NEXT_USE][t])


@njit
def _on_evict(state, slot, key, t):
    _set(state[_TREE], slot, -1)


@njit
def _victim(state, t, key, x, cache):
    return state[_TREE][1, 1]  # the root's slot


POLICY = Policy(name="belady", summary="offline: evict the item requested again farthest ahead",
                init=_init, victim=_victim, on_hit=_on_hit, on_insert=_on_insert,
                on_evict=_on_evict, modes=("paging",),
                traits=Traits(offline=True))
