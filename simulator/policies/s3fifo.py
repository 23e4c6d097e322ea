"""S3-FIFO (Yang et al., SOSP 2023): a small FIFO, a main FIFO and a ghost FIFO.

This is libCacheSim 0.3.5's ``S3FIFO`` variant with its defaults (``small_ratio`` 0.1,
``ghost_ratio`` 0.9, ``move_threshold`` 2).  Queues are measured in *sizes*: with a budget
B (docs/model.md §1.8) the cache size is c = B and an item weighs its size, as in
libCacheSim's byte-sized caches; without one, c = K and every item weighs 1.  |Q| is the
total weight in queue Q and w the arriving item's weight.  The small queue's share is
S = ``floor(small_ratio·c)`` (at least 1), main's c − S, the ghost's
G = ``floor(ghost_ratio·c)``; the ghost remembers keys with the weight their items had,
up to G in total.  Each cached item has a counter ``freq``, 0 on admission.

* A request for a cached item adds 1 to ``freq`` (no cap here; the cap applies below).
* An arriving item whose key is in the ghost leaves the ghost (whether or not it is then
  admitted).  It is admitted iff w <= S (``S3FIFO_can_insert``; always, with unit sizes).
  A ghost hit enters main; any other item enters small, except that until the first
  eviction an arrival that finds |small| >= S enters main (libCacheSim's ``S3FIFO.c``,
  not the paper's S3FIFOv0).
* To evict: if |main| exceeds its share or small is empty, walk main from its oldest item:
  an item with ``freq >= 1`` is moved to the newest end with ``freq = min(freq, 3) - 1``
  (a 2-bit clock), the first with ``freq = 0`` is evicted.  Otherwise walk small from its
  oldest item: an item with ``freq >= move_threshold`` moves to the newest end of main with
  ``freq = 0``; the first other item is evicted and its key joins the ghost (first
  forgetting the oldest keys until it fits; a key heavier than G is not remembered).  If
  small empties without an eviction, evict from main as above.  Each victim the engine
  asks for is chosen this way, so an arrival may evict several items (§1.8).

Requests in semantic mode (as in ``arc``): a retrieval into R_t and a re-arrival of a cached
item (``item_keys``) are requests.  Every arriving item that is not cached is a miss; it is
a ghost hit only when ``item_keys`` streams an evicted key again.  A removal the policy did
not choose (a deletion) leaves no ghost.

Where libCacheSim differs:

* Unit sizes: paging mode equals libCacheSim 0.3.5 hit for hit for K >= 20
  (``tests/test_paging_oracles_more.py``).  Below that libCacheSim has no usable small
  queue: it aborts when ``floor(0.1·K) = 0`` (K < 10) and, since ``S3FIFO_insert`` refuses
  an object whose size is >= the small queue's, caches nothing when the small queue holds
  one object (10 <= K < 20).  Here the small queue holds at least one item, so every
  K >= 1 works.
* Sizes: on libCacheSim's CloudPhysics trace at budgets of 128 MiB to 1 GiB the misses
  and the byte miss ratio equal libCacheSim's (``tests/test_budget.py``).  Two cases that
  trace never meets differ: an arrival with w = S exactly that is not a ghost hit is
  admitted into small here, where libCacheSim evicts to make room and then refuses it
  (the unit-size case above, with S = 1); and an arrival larger than the budget never
  reaches the policy (§1.8), so its ghost entry stays, where libCacheSim drops it.

Hooks: ``admit`` notes the arrival's weight, consumes a ghost hit and refuses an item
heavier than S; ``victim`` runs the walks (moving items between the queues) and names the
victim; ``on_evict`` puts a small-queue victim's key into the ghost.  Every walk step
either evicts or lowers a counter that a request raised, so eviction is amortised O(1).
"""

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy, arriving_size
from simulator.policies.parts import sized_ghosts
from simulator.policies.parts.linked_rows import push_back, unlink

PARAMS = {"small_ratio": 0.1, "ghost_ratio": 0.9, "move_threshold": 2}

# One int64 table of (prev, next, list, freq-or-key, weight) rows; queues are circular
# doubly linked lists through a sentinel (sentinel.next = oldest, sentinel.prev = newest):
#   rows 0 .. S-1            cached slots (list 1 = small, 2 = main; column 3 = freq)
#   rows S, S+1              sentinels of small and main
#   rows S+2 .. S+1+G        ghost nodes (column 3 = key; unused ones form a free list
#                            through `next`), G = min(the ghost's share, the keys): a
#                            ghost is a key not cached, of weight >= 1
#   row S+2+G                sentinel of the ghost
#   last three rows          counters (below); _N_* are total weights
# A second array maps each key to its ghost node, or -1.
_PREV, _NEXT, _LIST, _FREQ_OR_KEY, _WT = 0, 1, 2, 3, 4
# counters, as (row, column) from the end of the table: the weights in small, main and the
# ghost, the top of the free node stack, 1 if items weigh their sizes (a budget) else 0;
_N_SMALL, _N_MAIN, _N_GHOST, _FREE, _SIZED = (-3, 0), (-3, 1), (-3, 2), (-3, 3), (-3, 4)
# the shares of small, main and the ghost, move_threshold, the arriving item's weight;
_CAP_SMALL, _CAP_MAIN, _CAP_GHOST, _THRESHOLD, _ARRIVAL_WEIGHT = \
    (-2, 0), (-2, 1), (-2, 2), (-2, 3), (-2, 4)
# 1 once an item was evicted, 1 if the arrival was a ghost hit, 1 if the victim goes to the
# ghost, S (the slots)
_EVICTED, _GHOST_HIT, _TO_GHOST, _SLOTS = (-1, 0), (-1, 1), (-1, 2), (-1, 3)


def _check(params):
    if not 0.0 <= params["small_ratio"] <= 1.0:
        return f"parameter 'small_ratio' must be in [0, 1], got {params['small_ratio']}"
    # K (or the budget) <= 2**53 times at most 1000 keeps the ghost's size within int64
    if not 0.0 <= params["ghost_ratio"] <= 1000.0:
        return f"parameter 'ghost_ratio' must be in [0, 1000], got {params['ghost_ratio']}"
    if params["move_threshold"] < 1:
        return f"parameter 'move_threshold' must be >= 1, got {params['move_threshold']}"
    return None


def sizes(capacity, small_ratio=0.1, ghost_ratio=0.9):
    """(small, main, ghost) shares of a cache of size ``capacity``: libCacheSim's
    truncations, small at least 1.

    Examples
    --------
    >>> sizes(1000), sizes(25), sizes(1), sizes(128 << 20)
    ((100, 900, 900), (2, 23, 22), (1, 0, 0), (13421772, 120795956, 120795955))
    """
    small = max(1, int(capacity * small_ratio))
    return small, capacity - small, int(capacity * ghost_ratio)


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
_TABLE = 0  # the rows and counters above
_GHOST_OF = 1  # per key: its ghost node, or -1 (int32)


def _init(ctx):
    k, p = ctx.slots, ctx.params
    sized = ctx.budget is not None
    small, main, ghost = sizes(ctx.budget if sized else ctx.capacity, p["small_ratio"],
                               p["ghost_ratio"])
    pool = min(ghost, ctx.n_keys)
    table = np.zeros((k + pool + 6, 5), np.int64)
    for head in (k, k + 1, k + 2 + pool):
        table[head, _PREV] = table[head, _NEXT] = head
    table[k + 2:k + 2 + pool, _NEXT] = np.arange(k + 3, k + 3 + pool)
    if pool:
        table[k + 1 + pool, _NEXT] = -1
    table[_FREE] = k + 2 if pool else -1
    table[_CAP_SMALL], table[_CAP_MAIN], table[_CAP_GHOST] = small, main, ghost
    table[_THRESHOLD] = p["move_threshold"]
    table[_SLOTS], table[_SIZED], table[_ARRIVAL_WEIGHT] = k, sized, 1
    return (table, np.full(ctx.n_keys, -1, np.int32))


@njit
def _on_hit(state, slot, t, relevant):
    state[_TABLE][slot, _FREQ_OR_KEY] += 1


@njit
def _on_rearrival(state, slot, t):
    state[_TABLE][slot, _FREQ_OR_KEY] += 1


@njit
def _admit(state, t, key, x, cache):
    table = state[_TABLE]
    # the arrival's weight: its size with a budget, else 1 (branch-free: a conditional
    # read of the cache view made the unit-size loop up to twice as slow, measured)
    table[_ARRIVAL_WEIGHT] = 1 + (arriving_size(cache) - 1) * table[_SIZED]
    node = state[_GHOST_OF][key]
    table[_GHOST_HIT] = 0
    if node >= 0:  # a ghost hit: the key leaves the ghost and will enter main
        sized_ghosts.forget(table, state[_GHOST_OF], node, _FREQ_OR_KEY, _WT, _N_GHOST, _FREE)
        table[_GHOST_HIT] = 1
    return table[_ARRIVAL_WEIGHT] <= table[_CAP_SMALL]


@njit
def _victim(state, t, key, x, cache):
    table = state[_TABLE]
    k = table[_SLOTS]
    table[_EVICTED] = 1
    while True:
        if table[_N_MAIN] > table[_CAP_MAIN] or table[_N_SMALL] == 0:
            while True:  # main: a 2-bit clock over a FIFO
                o = table[k + 1, _NEXT]
                f = table[o, _FREQ_OR_KEY]
                if f == 0:
                    table[_TO_GHOST] = 0
                    return o
                unlink(table, o)
                push_back(table, k + 1, o, 2)
                table[o, _FREQ_OR_KEY] = min(f, 3) - 1
        while table[_N_SMALL] > 0:
            o = table[k, _NEXT]
            if table[o, _FREQ_OR_KEY] < table[_THRESHOLD]:
                table[_TO_GHOST] = 1  # to the ghost
                return o
            unlink(table, o)
            push_back(table, k + 1, o, 2)
            table[o, _FREQ_OR_KEY] = 0
            table[_N_SMALL] -= table[o, _WT]
            table[_N_MAIN] += table[o, _WT]


@njit
def _on_evict(state, slot, key, t):
    table = state[_TABLE]
    if table[slot, _LIST] == 1:
        table[_N_SMALL] -= table[slot, _WT]
    else:
        table[_N_MAIN] -= table[slot, _WT]
    unlink(table, slot)
    to_ghost = table[_TO_GHOST]
    table[_TO_GHOST] = 0  # a deletion not chosen by victim() leaves no ghost
    if to_ghost == 1 and table[_CAP_GHOST] > 0:
        # row shape[0] - 4 is the ghost sentinel
        sized_ghosts.remember(table, state[_GHOST_OF], table.shape[0] - 4, key, table[slot, _WT],
                              _FREQ_OR_KEY, _WT, 3, _N_GHOST, table[_CAP_GHOST], _FREE)


@njit
def _on_insert(state, slot, key, t):
    table = state[_TABLE]
    k = table[_SLOTS]
    w = table[_ARRIVAL_WEIGHT]
    table[slot, _WT] = w
    if table[_GHOST_HIT] == 1 or (table[_EVICTED] == 0
                                   and table[_N_SMALL] >= table[_CAP_SMALL]):
        push_back(table, k + 1, slot, 2)
        table[_N_MAIN] += w
    else:
        push_back(table, k, slot, 1)
        table[_N_SMALL] += w
    table[slot, _FREQ_OR_KEY] = 0
    table[_GHOST_HIT] = 0


POLICY = Policy(name="s3fifo",
                summary="S3-FIFO (small, main and ghost FIFO queues); admits what fits small",
                init=_init, victim=_victim, on_hit=_on_hit, on_rearrival=_on_rearrival,
                admit=_admit, on_insert=_on_insert, on_evict=_on_evict, params=PARAMS,
                check_params=_check, modes=("semantic", "paging"))
