"""Adaptive Replacement Cache (Megiddo and Modha, FAST 2003): always admit.

The cache is T1 (seen once since admission) and T2 (seen again), each in LRU order; the
ghost lists B1 and B2 remember the keys recently evicted from T1 and T2, and the target
size p of T1 adapts on ghost hits.

Requests in semantic mode
    A retrieval into R_t (``on_hit``) is a request hit for that item: T1 moves it to the
    MRU end of T2, T2 to its MRU end.  A re-arrival of a cached item (``on_rearrival``)
    counts as a hit the same way.  Every arriving item that is not cached is a request
    miss.  It is a *ghost hit* only when its key is in B1 or B2, which can happen only
    when a trace streams an evicted item again with ``item_keys``; a never-seen item is
    never a ghost hit and enters T1.  A ghost hit adapts p and enters T2, as in paging.

Paging mode is classic ARC, exactly as libCacheSim 0.3.5 implements it (``ARC.c``), so hit
counts agree request for request.  Every quantity below is a *size*: |L| is the total size
of the items (or remembered keys) in list L, c the cache size, w the size of the arriving
item.  With a budget B (docs/model.md §1.8), c = B and an item weighs its size, as in
libCacheSim's byte-sized caches (metadata size 0); without one, c = K and every item
weighs 1, which is classic ARC.  A ghost keeps the size its item had when evicted.

* p is a float: a B1 hit adds max(|B2|/|B1|, 1) (capped at c), a B2 hit subtracts
  max(|B1|/|B2|, 1) (floored at 0), both ratios taken before the key leaves its ghost list;
* REPLACE evicts the LRU of T1 into B1 iff |T1| > 0 and (|T1| > p, or |T1| = p and the key
  is a B2 hit), or T2 is empty; otherwise the LRU of T2 into B2;
* a miss in all four lists (case IV), for each victim asked of it: if |T1| + |B1| + w > c,
  drop the LRU of B1 and REPLACE, or, when B1 is empty, evict the LRU of T1 without a
  ghost; otherwise, when |T1| + |T2| + |B1| + |B2| >= 2c, drop the LRU of B2 (if any),
  then REPLACE.  A ghost hit's victims are all chosen by REPLACE.

With unit sizes the case IV test reads |T1| + |B1| = c, the textbook's.  On libCacheSim's
CloudPhysics trace at budgets of 128 MiB to 1 GiB the misses and the byte miss ratio equal
libCacheSim's (``tests/test_budget.py``).  One difference remains, which that trace never
meets: an arrival larger than the budget never reaches the policy (§1.8), so its ghost
entry stays and p does not move, where libCacheSim consumes the ghost hit (and adapts p)
before it finds the object too large.

The fast engine runs a unit-size paging trace through ARC's own loop
(:mod:`simulator.policies.parts.arc_paging_loop`), which gives the same hits as these
hooks (tests hold them equal) at about twice the speed; sized runs use the hooks.

Hooks: ``admit`` notes the arriving item's weight, detects the ghost hit (it sees the
arriving key first) and adapts p; ``victim`` performs the ghost-list trimming and
REPLACE's choice and remembers which ghost list the victim joins; ``on_evict`` puts the
victim's key there with its size.  Every hook is O(1).
"""

import numpy as np

from simulator.config import njit
from simulator.policies.parts import arc_paging_loop
from simulator.policies.base import Policy, arriving_size
from simulator.policies.parts.linked_rows import free_row, push_front, unlink

# Layout.  The four lists are circular doubly linked lists through a sentinel row
# (sentinel.next = MRU end, sentinel.prev = LRU end) in one int64 table of
# (prev, next, list, key, size) rows:
#   rows 0 .. S-1              cached slots (list 1 = T1, 2 = T2; key unused)
#   rows S, S+1                sentinels of T1 and T2
#   rows S+2 .. S+2+G          ghost nodes (list 1 = B1, 2 = B2; unused ones form a
#                              free list through `next`).  G: min(K, keys) with unit
#                              weights (|B1| + |B2| <= K always: once the cache is full
#                              a miss adds a ghost without dropping one only while
#                              |T1| + |T2| + |B1| + |B2| < 2K); with a budget, the number
#                              of keys, since a ghost is a key not cached
#   rows S+3+G, S+4+G          sentinels of B1 and B2
#   last three rows            counters (below)
# A second int64 array holds the per-key state: a bitmap of the keys that are ghosts
# (words 0 .. W-1) and then each key's ghost node (word W + key, valid while its bit is
# set).  A miss tests one bit of a bitmap small enough to stay in cache, and reads the
# node only on a ghost hit.
#
# The hooks hold at most one array in a local variable and index the others in place:
# a local array that lives across a branch keeps a reference-count increment and
# decrement per call, which once cost more than the whole ARC step.
#
# Why sentinels and not lru.py's sentinel-free ring: with rings, ARC's commonest miss is
# two rotations (T1's LRU slot refilled at T1's MRU end, B1's LRU ghost node reused at
# B1's).  Hooks written that way grew past what numba inlines into the engine, and a hook
# that is called instead of inlined cost 10 ns or more a request (measured: 27 to 68 ns
# against 17.7).  The rings live in ARC's own paging loop instead
# (parts/arc_paging_loop.py, this policy's ``paging_loop``), which the fast engine runs
# for unit-size paging traces; these hooks serve semantic mode, sized runs, the SimPy
# engine and phase-by-phase runs.
_PREV, _NEXT, _LIST, _KEY, _SIZE = 0, 1, 2, 3, 4
# counters, as (row, column) from the end of the table: the ghost bitmap's words, S, the
# row of B1's sentinel (B2's follows), 1 if items weigh their sizes (a budget) else 0;
_WORDS, _SLOTS, _B1_SENTINEL, _SIZED = (-3, 0), (-3, 1), (-3, 2), (-3, 3)
# |T1|, |T2|, |B1| and |B2|, total sizes;
_T1, _T2, _B1, _B2 = (-2, 0), (-2, 1), (-2, 2), (-2, 3)
# the ghost list the arrival was found in and the one the victim joins (0: none), the top
# of the free node stack, c, and w, the arrival's weight
_GHOST_HIT, _TO_GHOST, _FREE = (-1, 0), (-1, 1), (-1, 2)
_CACHE_SIZE, _ARRIVAL_WEIGHT = (-1, 3), (-1, 4)


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
_TABLE = 0  # the rows and counters above
_BY_KEY = 1  # the ghost bitmap, then each key's ghost node (above)
_TARGET = 2  # [p], T1's adaptive target size (a float, as in libCacheSim)


def _init(ctx):
    # rows: S slots, the T1 and T2 sentinels, a pool of ghost nodes, the B1 and B2
    # sentinels, counters.  _CACHE_SIZE is c: the budget when there is one, else K.
    k, s = ctx.capacity, ctx.slots
    sized = ctx.budget is not None
    pool = (ctx.n_keys if sized else min(k, ctx.n_keys)) + 1
    table = np.zeros((s + pool + 7, 5), np.int64)
    for head in (s, s + 1, s + 2 + pool, s + 3 + pool):
        table[head, _PREV] = table[head, _NEXT] = head
    table[s + 2:s + 2 + pool, _NEXT] = np.arange(s + 3, s + 3 + pool)  # free list
    table[_FREE] = s + 2
    table[_CACHE_SIZE] = ctx.budget if sized else k
    table[_SLOTS], table[_B1_SENTINEL], table[_SIZED] = s, s + 2 + pool, sized
    table[_ARRIVAL_WEIGHT] = 1
    words = (ctx.n_keys + 63) // 64
    table[_WORDS] = words
    keys = np.zeros(words + ctx.n_keys, np.int64)
    # p, the adaptive target size of T1 (a float, as in libCacheSim)
    return (table, keys, np.zeros(1, np.float64))


@njit
def _to_t2(table, slot):
    if table[slot, _LIST] == 1:
        w = table[slot, _SIZE]
        table[_T1] -= w
        table[_T2] += w
    unlink(table, slot)
    push_front(table, table[_SLOTS] + 1, slot, 2)


@njit
def _on_hit(state, slot, t, relevant):
    _to_t2(state[_TABLE], slot)


@njit
def _on_rearrival(state, slot, t):
    _to_t2(state[_TABLE], slot)


@njit
def _admit(state, t, key, x, cache):
    table = state[_TABLE]
    # the arrival's weight: its size with a budget, else 1 (branch-free: a conditional
    # read of the cache view made the unit-size loop up to twice as slow, measured)
    table[_ARRIVAL_WEIGHT] = 1 + (arriving_size(cache) - 1) * table[_SIZED]
    if not (state[_BY_KEY][key >> 6] >> (key & 63)) & 1:
        return True  # a miss in all four lists (_GHOST_HIT is 0 between admissions)
    node = state[_BY_KEY][table[_WORDS] + key]
    g = table[node, _LIST]
    # p is read and written on the straight-line path (see the layout note)
    p = state[_TARGET][0]
    b1 = table[_B1]
    b2 = table[_B2]
    if g == 1:  # case II: towards a larger T1; the ratio uses |B1| before the key leaves
        p = min(p + max(b2 / b1, 1.0), table[_CACHE_SIZE])
        b1 -= table[node, _SIZE]
    elif g == 2:  # case III: towards a larger T2
        p = max(p - max(b1 / b2, 1.0), 0.0)
        b2 -= table[node, _SIZE]
    free_row(table, node, _FREE)
    state[_BY_KEY][key >> 6] &= ~(1 << (key & 63))
    state[_TARGET][0] = p
    table[_B1] = b1
    table[_B2] = b2
    table[_GHOST_HIT] = g
    return True


@njit
def _drop_ghost(state, node):
    """Forget the ghost in ``node`` (a list's LRU, trimmed by case IV)."""
    table = state[_TABLE]
    old = table[node, _KEY]
    table[_B1 if table[node, _LIST] == 1 else _B2] -= table[node, _SIZE]
    state[_BY_KEY][old >> 6] &= ~(1 << (old & 63))
    free_row(table, node, _FREE)


@njit
def _victim(state, t, key, x, cache):
    table = state[_TABLE]
    k, s = table[_CACHE_SIZE], table[_SLOTS]
    b1_head = table[_B1_SENTINEL]
    g = table[_GHOST_HIT]
    if g == 0:  # case IV: a miss in all four lists
        if table[_T1] + table[_B1] + table[_ARRIVAL_WEIGHT] > k:
            if table[_B1] == 0:  # T1 holds the whole cache: evict without a ghost
                table[_TO_GHOST] = 0
                return table[s, _PREV]
            _drop_ghost(state, table[b1_head, _PREV])
        elif (table[_T1] + table[_T2] + table[_B1] + table[_B2] >= 2 * k
              and table[_B2] > 0):
            _drop_ghost(state, table[b1_head + 1, _PREV])
    # REPLACE
    t1 = table[_T1]
    p = state[_TARGET][0]
    if (t1 > 0 and (t1 > p or (t1 == p and g == 2))) or table[_T2] == 0:
        table[_TO_GHOST] = 1
        return table[s, _PREV]
    table[_TO_GHOST] = 2
    return table[s + 1, _PREV]


@njit
def _on_evict(state, slot, key, t):
    table = state[_TABLE]
    lst = table[slot, _LIST]
    w = table[slot, _SIZE]
    table[_T1 if lst == 1 else _T2] -= w
    unlink(table, slot)
    dest = table[_TO_GHOST]
    table[_TO_GHOST] = 0  # a deletion not chosen by victim() leaves no ghost
    if dest != 0:
        node = table[_FREE]
        table[_FREE] = table[node, _NEXT]
        table[node, _KEY] = key
        table[node, _SIZE] = w
        table[_B1 if dest == 1 else _B2] += w
        push_front(table, table[_B1_SENTINEL] + dest - 1, node, dest)
        state[_BY_KEY][key >> 6] |= 1 << (key & 63)
        state[_BY_KEY][table[_WORDS] + key] = node


@njit
def _on_insert(state, slot, key, t):
    table = state[_TABLE]
    lst = 2 if table[_GHOST_HIT] != 0 else 1  # a ghost hit enters T2
    table[_GHOST_HIT] = 0
    w = table[_ARRIVAL_WEIGHT]
    table[slot, _SIZE] = w
    table[_T1 if lst == 1 else _T2] += w
    push_front(table, table[_SLOTS] + lst - 1, slot, lst)


POLICY = Policy(name="arc", summary="always admit; adaptive replacement cache (ARC)",
                init=_init, victim=_victim, on_hit=_on_hit, on_rearrival=_on_rearrival,
                admit=_admit, on_insert=_on_insert, on_evict=_on_evict,
                paging_loop=arc_paging_loop.paging_loop, modes=("semantic", "paging"))
