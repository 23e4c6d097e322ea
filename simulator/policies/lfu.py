"""Least frequently used: always admit; evict the item with the fewest retrievals.

A retrieval is an ``on_hit``: the item was retrieved into R_t (semantic mode) or requested
(a paging hit).  Counts start at zero on admission and are forgotten on eviction.  A
re-arrival of a cached item (``item_keys``) is not a retrieval and changes nothing.

Ties between equally frequent items are broken by the ``tie`` parameter:

``"auto"`` (default, docs/model.md §2.1)
    ``"admission"`` in semantic mode, the rule of the SOLAR paper's reproductions, and
    ``"bucket"`` in paging mode, the classical LFU that libCacheSim and cachetools
    implement.
``"admission"``
    the oldest admission goes first (smallest ``slot_adm``; admission times are unique, so
    the model's second tie-break, the smaller key, never decides).
``"bucket"``
    the item that reached its current count earliest goes first.  This is libCacheSim's
    LFU (``LFU.c``): each frequency is a FIFO list, a hit appends the item to the tail of
    the next list, and the victim is the head of the lowest non-empty list.  The two rules
    differ only when a tie involves an item that was hit: admission order ranks it by when
    it entered the cache, libCacheSim by when it was last hit (requests A B B A C A with
    capacity 2 evict A at C by admission, B by bucket).  cachetools' ``LFUCache`` uses the
    same rule.  Paging runs (``"auto"`` there) equal libCacheSim 0.3.5 hit for hit
    (``tests/test_paging_oracles.py``; on its CloudPhysics trace at K = 100, 1000 and
    5000, ``tests/test_cloud_physics_unit.py``, where ``"admission"`` would differ by one
    hit at K = 1000).

State is a min segment tree over slots keyed on (count, tie order): O(log K) per hit and
insertion (repair stops as soon as a node is unchanged), O(1) to find the victim.
"""

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy

TIES = ("auto", "admission", "bucket")
_NEVER = np.iinfo(np.int64).max


def _check(params):
    if params["tie"] not in TIES:
        return f"parameter 'tie' must be one of {', '.join(TIES)}, got {params['tie']!r}"
    return None


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
_TREE = 0  # the min segment tree over slots (in _init)
_META = 1  # [_BUCKET, _EVENTS] below
_BUCKET = 0  # in meta: the tie code, 0 admission, 1 bucket
_EVENTS = 1  # in meta: hits and insertions so far (the tie order)


def _init(ctx):
    size = 1
    while size < ctx.slots:
        size *= 2
    # tree rows are (count, tie order, slot); leaf size + s holds slot s, and a node holds
    # the smaller of its children.  Free slots carry (NEVER, NEVER) and never win.
    tree = np.zeros((2 * size, 3), np.int64)
    tree[:, :2] = _NEVER
    tree[size:, 2] = np.arange(size)
    for i in range(size - 1, 0, -1):
        tree[i] = tree[2 * i]
    tie = ctx.params["tie"]
    if tie == "auto":
        tie = "bucket" if ctx.mode == "paging" else "admission"
    meta = np.array([int(tie == "bucket"), 0], np.int64)
    return (tree, meta)


@njit
def _set(tree, slot, count, order):
    """Give ``slot`` a new (count, order) and repair its path to the root."""
    i = (tree.shape[0] >> 1) + slot
    tree[i, 0] = count
    tree[i, 1] = order
    i >>= 1
    while i >= 1:
        w = 2 * i
        if tree[w + 1, 0] < tree[w, 0] or (tree[w + 1, 0] == tree[w, 0]
                                           and tree[w + 1, 1] < tree[w, 1]):
            w += 1
        if tree[i, 0] == tree[w, 0] and tree[i, 1] == tree[w, 1] and tree[i, 2] == tree[w, 2]:
            return  # unchanged here, so unchanged above
        tree[i, 0] = tree[w, 0]
        tree[i, 1] = tree[w, 1]
        tree[i, 2] = tree[w, 2]
        i >>= 1


@njit
def _on_hit(state, slot, t, relevant):
    tree, meta = state[_TREE], state[_META]
    leaf = (tree.shape[0] >> 1) + slot
    meta[_EVENTS] += 1
    # "bucket" re-enters the item at the tail of its new count's list
    order = tree[leaf, 1] + (meta[_EVENTS] - tree[leaf, 1]) * meta[_BUCKET]
    _set(tree, slot, tree[leaf, 0] + 1, order)


@njit
def _on_insert(state, slot, key, t):
    tree, meta = state[_TREE], state[_META]
    meta[_EVENTS] += 1
    # admission order and bucket-entry order coincide for a newly admitted item
    _set(tree, slot, 0, meta[_EVENTS])


@njit
def _on_evict(state, slot, key, t):
    _set(state[_TREE], slot, _NEVER, _NEVER)


@njit
def _victim(state, t, key, x, cache):
    return state[_TREE][1, 2]  # the root's slot


POLICY = Policy(name="lfu", summary="always admit; evict the least frequently retrieved item",
                init=_init, victim=_victim, on_hit=_on_hit, on_insert=_on_insert,
                on_evict=_on_evict, params={"tie": "auto"}, check_params=_check,
                modes=("semantic", "paging"))
