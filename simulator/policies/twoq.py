"""2Q (Johnson and Shasha, VLDB 1994): A1in FIFO, A1out ghost FIFO, Am LRU.

This is libCacheSim 0.3.5's ``TwoQ`` with its defaults (``in_ratio`` 0.25, ``out_ratio``
0.5).  Queues are measured in *sizes*: with a budget B (docs/model.md §1.8) the cache size
is c = B and an item weighs its size, as in libCacheSim's byte-sized caches; without one,
c = K and every item weighs 1.  |Q| is the total weight in queue Q and w the arriving
item's weight.  A1in's share is I = ``floor(in_ratio·c)`` (at least 1), Am's c − I, and
A1out remembers keys with the weight their items had, up to ``floor(out_ratio·c)``.

* A request for an item in Am moves it to Am's most recent end; a request for an item in
  A1in changes nothing (the "correlated reference" period).
* An arriving item whose key is in A1out leaves A1out (whether or not it is then
  admitted).  It is admitted iff w <= I (``TwoQ_can_insert``; always, with unit sizes).
  A ghost hit enters Am (most recent end); any other item enters A1in.
* To evict: if |A1in| > I (or Am is empty), A1in's oldest item goes and its key joins
  A1out (first forgetting A1out's oldest keys until it fits; a key heavier than A1out's
  share is not remembered); otherwise Am's least recent item goes, leaving no ghost.
  Each victim the engine asks for is chosen this way (an arrival may evict several).
* A ghost hit enters Am as libCacheSim's ``Am->get`` does: while |Am| + w > c − I, Am's
  least recent item leaves Am, although the arrival already fits the cache.  The engine
  evicts only to make room (§1.8), so such an item is *deferred*: it leaves Am (and the
  policy's accounts) at once but stays cached until the engine next asks for a victim,
  and deferred items are then the first victims, oldest first, without a ghost.  A
  request for a deferred item changes nothing.  With unit sizes and one limit (K, or a
  budget alone) no item is ever deferred: no key is a ghost before A1in first holds
  more than I, and from then on |A1in| >= I (it loses items only while above I), so
  |Am| + 1 <= c − I.

Requests in semantic mode (as in ``arc``): a retrieval into R_t and a re-arrival of a cached
item (``item_keys``) are requests (R_t worst match first, so the best ends most recent).
An arriving item that is not cached is a miss; it is a ghost hit only when ``item_keys``
streams an evicted key again.  A removal the policy did not choose leaves no ghost.

Where libCacheSim differs:

* Unit sizes: paging mode equals libCacheSim 0.3.5 hit for hit for K >= 4
  (``tests/test_paging_oracles_more.py``).  For K <= 3 libCacheSim's A1in has size 0 and
  ``TwoQ_can_insert`` refuses every object, so it caches nothing; here A1in holds at
  least one item.
* Sizes: a request for a deferred item hits here and misses in libCacheSim, which evicted
  it at the ghost hit.  On libCacheSim's CloudPhysics trace at budgets of 128 MiB to 1 GiB
  that never happens (items are deferred at 512 MiB and 1 GiB, and always evicted before
  they are requested again), and the misses and the byte miss ratio equal libCacheSim's
  (``tests/test_budget.py``).  An arrival larger than the budget never reaches the policy
  (§1.8), so its A1out entry stays, where libCacheSim drops it.  A ghost hit heavier
  than Am's share (possible only when ``in_ratio`` > 0.5) enters Am here, where
  libCacheSim's ``Am->get`` refuses it after the cache has evicted for it.

Every hook is O(1), but for the deferrals of a ghost hit (each item is deferred once).
"""

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy, arriving_size
from simulator.policies.parts import sized_ghosts
from simulator.policies.parts.linked_rows import push_back, unlink

PARAMS = {"in_ratio": 0.25, "out_ratio": 0.5}

# One int64 table of (prev, next, list, key, weight) rows; lists are circular doubly linked
# lists through a sentinel (sentinel.next = oldest / least recent, sentinel.prev = newest):
#   rows 0 .. S-1            cached slots (list 1 = A1in, 2 = Am, 3 = deferred)
#   rows S, S+1, S+2         sentinels of A1in, Am and the deferred items
#   rows S+3 .. S+2+G        A1out nodes (column 3 = key; unused ones form a free list
#                            through `next`), G = min(A1out's share, the keys): a ghost is
#                            a key not cached, of weight >= 1
#   row S+3+G                sentinel of A1out
#   last three rows          counters (below); _N_IN, _N_AM, _N_OUT are total weights
# A second array maps each key to its A1out node, or -1.
_PREV, _NEXT, _LIST, _KEY, _WT = 0, 1, 2, 3, 4
# counters, as (row, column) from the end of the table: the weights in A1in, Am and A1out,
# the top of the free node stack, the number of deferred items;
_N_IN, _N_AM, _N_OUT, _FREE, _N_DEFER = (-3, 0), (-3, 1), (-3, 2), (-3, 3), (-3, 4)
# the shares of A1in, A1out and Am, 1 if items weigh their sizes (a budget) else 0, the
# arriving item's weight;
_CAP_IN, _CAP_OUT, _CAP_AM, _SIZED, _ARRIVAL_WEIGHT = (-2, 0), (-2, 1), (-2, 2), (-2, 3), (-2, 4)
# 1 if the arrival was in A1out, 1 if the victim goes to A1out, S (the slots), the
# deferred items evicted so far (a statistic)
_GHOST_HIT, _TO_GHOST, _SLOTS, _DEFERRALS = (-1, 0), (-1, 1), (-1, 2), (-1, 3)


def _check(params):
    if not 0.0 <= params["in_ratio"] <= 1.0:
        return f"parameter 'in_ratio' must be in [0, 1], got {params['in_ratio']}"
    # K (or the budget) <= 2**53 times at most 1000 keeps A1out's size within int64
    if not 0.0 <= params["out_ratio"] <= 1000.0:
        return f"parameter 'out_ratio' must be in [0, 1000], got {params['out_ratio']}"
    return None


def sizes(capacity, in_ratio=0.25, out_ratio=0.5):
    """(A1in, A1out) shares of a cache of size ``capacity``: libCacheSim's truncations,
    A1in at least 1.

    Examples
    --------
    >>> sizes(1000), sizes(7), sizes(1), sizes(128 << 20)
    ((250, 500), (1, 3), (1, 0), (33554432, 67108864))
    """
    return max(1, int(capacity * in_ratio)), int(capacity * out_ratio)


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
_TABLE = 0  # the rows and counters above
_GHOST_OF = 1  # per key: its A1out node, or -1 (int32)


def _init(ctx):
    k = ctx.slots
    sized = ctx.budget is not None
    c = ctx.budget if sized else ctx.capacity
    a_in, a_out = sizes(c, ctx.params["in_ratio"], ctx.params["out_ratio"])
    pool = min(a_out, ctx.n_keys)
    table = np.zeros((k + pool + 7, 5), np.int64)
    for head in (k, k + 1, k + 2, k + 3 + pool):
        table[head, _PREV] = table[head, _NEXT] = head
    table[k + 3:k + 3 + pool, _NEXT] = np.arange(k + 4, k + 4 + pool)
    table[_FREE] = k + 3 if pool else -1
    table[_CAP_IN], table[_CAP_OUT], table[_CAP_AM] = a_in, a_out, c - a_in
    table[_SLOTS], table[_SIZED], table[_ARRIVAL_WEIGHT] = k, sized, 1
    return (table, np.full(ctx.n_keys, -1, np.int32))


def deferrals(state):
    """How many deferred items the engine has evicted so far (a statistic for tests)."""
    return int(state[_TABLE][_DEFERRALS])


@njit
def _request(table, slot):
    if table[slot, _LIST] == 2:
        unlink(table, slot)
        push_back(table, table[_SLOTS] + 1, slot, 2)


@njit
def _on_hit(state, slot, t, relevant):
    _request(state[_TABLE], slot)


@njit
def _on_rearrival(state, slot, t):
    _request(state[_TABLE], slot)


@njit
def _admit(state, t, key, x, cache):
    table = state[_TABLE]
    # the arrival's weight: its size with a budget, else 1 (branch-free: a conditional
    # read of the cache view made the unit-size loop up to twice as slow, measured)
    table[_ARRIVAL_WEIGHT] = 1 + (arriving_size(cache) - 1) * table[_SIZED]
    node = state[_GHOST_OF][key]
    table[_GHOST_HIT] = 0
    if node >= 0:  # a ghost hit: the key leaves A1out and will enter Am
        sized_ghosts.forget(table, state[_GHOST_OF], node, _KEY, _WT, _N_OUT, _FREE)
        table[_GHOST_HIT] = 1
    return table[_ARRIVAL_WEIGHT] <= table[_CAP_IN]


@njit
def _victim(state, t, key, x, cache):
    table = state[_TABLE]
    k = table[_SLOTS]
    table[_TO_GHOST] = 0
    if table[_N_DEFER] > 0:  # deferred items first (see the docstring)
        return table[k + 2, _NEXT]
    if table[_N_IN] > table[_CAP_IN] or table[_N_AM] == 0:
        table[_TO_GHOST] = 1  # to A1out
        return table[k, _NEXT]
    return table[k + 1, _NEXT]


@njit
def _on_evict(state, slot, key, t):
    table = state[_TABLE]
    lst = table[slot, _LIST]
    if lst == 1:
        table[_N_IN] -= table[slot, _WT]
    elif lst == 2:
        table[_N_AM] -= table[slot, _WT]
    else:  # counted here, not when deferred: a count there slowed unit-size runs 20%
        table[_N_DEFER] -= 1
        table[_DEFERRALS] += 1
    unlink(table, slot)
    to_ghost = table[_TO_GHOST]
    table[_TO_GHOST] = 0  # a deletion not chosen by victim() leaves no ghost
    if to_ghost == 1 and table[_CAP_OUT] > 0:
        # row shape[0] - 4 is the A1out sentinel
        sized_ghosts.remember(table, state[_GHOST_OF], table.shape[0] - 4, key, table[slot, _WT],
                              _KEY, _WT, 3, _N_OUT, table[_CAP_OUT], _FREE)


@njit
def _defer_from_am(table, w):
    """Am's least recent items leave Am until an arrival of weight ``w`` fits its share."""
    k = table[_SLOTS]
    while table[_N_AM] > 0 and table[_N_AM] + w > table[_CAP_AM]:
        o = table[k + 1, _NEXT]
        unlink(table, o)
        push_back(table, k + 2, o, 3)
        table[_N_AM] -= table[o, _WT]
        table[_N_DEFER] += 1


@njit
def _on_insert(state, slot, key, t):
    table = state[_TABLE]
    k = table[_SLOTS]
    w = table[_ARRIVAL_WEIGHT]
    table[slot, _WT] = w
    if table[_GHOST_HIT] == 1:
        if table[_N_AM] + w > table[_CAP_AM]:
            _defer_from_am(table, w)
        push_back(table, k + 1, slot, 2)
        table[_N_AM] += w
    else:
        push_back(table, k, slot, 1)
        table[_N_IN] += w
    table[_GHOST_HIT] = 0


POLICY = Policy(name="twoq", summary="2Q (A1in FIFO, A1out ghost, Am LRU); admits what fits A1in",
                init=_init, victim=_victim, on_hit=_on_hit, on_rearrival=_on_rearrival,
                admit=_admit, on_insert=_on_insert, on_evict=_on_evict, params=PARAMS,
                check_params=_check, modes=("semantic", "paging"))
