"""W-TinyLFU (Einziger, Friedman and Manes, 2017): window LRU, main SLRU, sketch admission.

This is libCacheSim 0.3.5's ``WTinyLFU`` with its defaults (``main-cache=SLRU``,
``window-size=0.01``), step for step.  Queues are measured in *sizes*: with a budget B
(docs/model.md §1.8) the cache size is c = B and an item weighs its size, as in
libCacheSim's byte-sized caches; without one, c = K and every item weighs 1.  |Q| is the
total weight in queue Q.

* Shares: the window W = ``floor(window_ratio·c)`` (at least 1), the main cache
  M = c − W, split into a probation segment of P = ``floor(M/5)`` (at least 1 if M >= 1)
  and a protected segment (SLRU ``seg-size=1:4``).  In paging mode protected gets
  ``floor(4M/5)``, libCacheSim's share, so that when M is not a multiple of 5 the two
  segments leave part of main to neither; in semantic mode it gets M − P.  An arrival
  heavier than W is not admitted (``WTinyLFU_can_insert``; never, with unit sizes).
* Sketch: libCacheSim's ``minimalIncrementCBF`` sized for M entries
  (:mod:`simulator.policies.parts.count_min`: a count-min sketch of 10 hashes, stored
  sparsely, with the same estimates).  Aging: every 32·M requests that hit the main
  cache, all counters are halved.  There is no doorkeeper (libCacheSim leaves it
  unimplemented).
* A request for an item in the window moves it to the window's most recent end and is
  not counted.  A request for an item in main is counted in the sketch and promotes it:
  probation → most recent end of protected, protected → its most recent end.  While
  protected is over its share its least recent item returns to the most recent end of
  probation, and after each such return, while |probation| > P, probation's least recent
  item is *deferred* (below).
* An arriving item enters the window's most recent end and is counted.
* To evict, repeat: take the window's least recent item w.  If |main| + |w| <= M, w
  moves into main and is counted; go on.  Otherwise let m be main's victim (least recent
  of probation, or of protected if probation is empty).  If estimate(w) > estimate(m), m
  is evicted and w moves into main; else w is evicted (ties keep m).  Either way w is
  then counted once more.  With an empty window (or an empty main), main's victim or w is
  evicted.  An item moves into main as into libCacheSim's SLRU: into probation if it fits
  there, else protected if it fits there, else probation, after deferring main's victims
  while |main| + |w| > M.
* Deferred items: libCacheSim evicts them at once, at a moment when the engine asks for
  no victim (during a hit, or beyond what an arrival needs, docs/model.md §1.8).  A
  deferred item leaves the policy's queues at once.  In paging mode the ``delete`` hook
  names it right after the request, so it leaves the cache then, as in libCacheSim.  In
  semantic mode it stays cached until the engine next asks for a victim; deferred items
  are then the first victims, oldest first, and a retrieval or re-arrival of one changes
  nothing.  Semantic mode with unit sizes never defers (its segments fill main).

Semantic mode: this is the admission filter of docs/model.md §2.3 — every arriving item enters the
window, and when the window overflows the sketch decides whether its oldest item enters
main or leaves the cache.  A retrieval into R_t (worst match first) and a re-arrival of a
cached item (``item_keys``) are requests; each arriving uncached item is a miss.

Hash inputs: the sketch hashes the trace's own object id of a key (``Context.object_ids``:
a paging trace's ids, as libCacheSim hashes the ids of the file it reads) and, where a
trace has none (semantic mode, an adversary's requests), ``key + 1`` (libCacheSim
reserves object id 0).

Paging runs equal libCacheSim's request for request: on Zipf traces from K = 100
(``tests/test_paging_oracles_more.py``), on its CloudPhysics trace with unit sizes at
K = 100, 1000 and 5000 (``tests/test_cloud_physics_unit.py``) and with budgets of
128 MiB to 1 GiB (``tests/test_budget_queues.py``).  Where libCacheSim differs: for
c < 100 its window has size 0 and it caches nothing (c < 5 aborts); here the window holds
at least one item and probation at least one when M >= 1.  With M = 0 (K = 1) the
window's victim is always evicted.

Hooks: ``admit`` notes the arrival's weight and refuses one heavier than W; ``victim``
runs the loop above (moving items, updating the sketch) and names the victim; when it
admitted w it already took m out of main, and the following ``on_evict`` only
acknowledges it; ``delete`` names the deferred items in paging mode.  Hits and insertions
are O(1) plus 10 sketch cells (deferrals aside: each item is deferred at most once);
aging costs O(sketch) every 32·M main hits.
"""

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy, arriving_size
from simulator.policies.parts import count_min
from simulator.policies.parts.linked_rows import push_back, unlink

PARAMS = {"window_ratio": 0.01}
AGING = 32  # halve the sketch every AGING * M main hits

# One int64 table of (prev, next, list, key, weight) rows; lists are circular doubly
# linked lists through a sentinel (sentinel.next = least recent, sentinel.prev = most
# recent):
#   rows 0 .. S-1          cached slots (list 1 = window, 2 = probation, 3 = protected,
#                          4 = deferred)
#   rows S .. S+3          sentinels of the window, probation, protected and deferred
#   last four rows         counters (below)
_PREV, _NEXT, _LIST, _KEY, _WT = 0, 1, 2, 3, 4
# counters, as (row, column) from the end of the table:
_PAGING = (-4, 0)  # 1 in paging mode: deferred items leave through delete
_TAKEN = (-3, 0)  # the slot victim() took out of main itself (on_evict acknowledges; -1)
_LIST_WEIGHTS = -3  # (_LIST_WEIGHTS, lst): the total weight in list lst, 1 to 4
_N_WINDOW, _N_PROBATION, _N_PROTECTED, _N_DEFERRED = (-3, 1), (-3, 2), (-3, 3), (-3, 4)
# the shares W, M, P and protected's
_CAP_WINDOW, _CAP_MAIN, _CAP_PROBATION, _CAP_PROTECTED = (-2, 0), (-2, 1), (-2, 2), (-2, 3)
_SIZED = (-2, 4)  # 1 if items weigh their sizes (a budget), else 0
_MAIN_HITS = (-1, 0)  # requests that hit main since the sketch was last halved
_AGING_PERIOD = (-1, 1)  # AGING * M: the main hits between two halvings
_SLOTS = (-1, 2)  # S, the number of slots (the sentinels' first row)
_ARRIVAL_WEIGHT = (-1, 3)  # the arriving item's weight
_DEFERRALS = (-1, 4)  # the items deferred so far (a statistic)


def _check(params):
    if not 0.0 <= params["window_ratio"] < 1.0:
        return f"parameter 'window_ratio' must be in [0, 1), got {params['window_ratio']}"
    return None


def sizes(capacity, window_ratio=0.01, paging=False):
    """(window, probation, protected) shares of a cache of size ``capacity``; ``paging``:
    protected's share as libCacheSim truncates it.

    Examples
    --------
    >>> sizes(1000), sizes(100), sizes(1), sizes(128 << 20)
    ((10, 198, 792), (1, 19, 80), (1, 0, 0), (1342177, 26575110, 106300441))
    >>> sizes(100, paging=True), sizes(1000, paging=True)
    ((1, 19, 79), (10, 198, 792))
    """
    window = max(1, int(capacity * window_ratio))
    main = capacity - window
    probation = max(1, int(1.0 / 5 * main)) if main else 0
    return window, probation, int(4.0 / 5 * main) if paging else main - probation


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
_TABLE = 0  # the rows and counters above
_COUNTERS = 1  # the count-min sketch's counters (count_min.build)
_CELLS = 2  # each key's sketch cells (count_min.build)


def _init(ctx):
    k = ctx.slots
    sized = ctx.budget is not None
    paging = ctx.mode == "paging"
    c = ctx.budget if sized else ctx.capacity
    window, probation, protected = sizes(c, ctx.params["window_ratio"], paging)
    main = c - window
    table = np.zeros((k + 8, 5), np.int64)
    for head in range(k, k + 4):
        table[head, _PREV] = table[head, _NEXT] = head
    table[_TAKEN] = -1
    table[_CAP_WINDOW], table[_CAP_MAIN] = window, main
    table[_CAP_PROBATION], table[_CAP_PROTECTED] = probation, protected
    table[_AGING_PERIOD] = AGING * main
    table[_SLOTS], table[_SIZED], table[_ARRIVAL_WEIGHT], table[_PAGING] = k, sized, 1, paging
    ids = ctx.object_ids
    if ids is None or len(ids) < ctx.n_keys:  # no ids of its own (or an empty trace)
        ids = np.arange(1, ctx.n_keys + 1, dtype=np.uint64)
    counters, cells = count_min.build(np.asarray(ids).astype(np.uint64), main)
    return (table, counters, cells)


def deferrals(state):
    """How many items this run's policy has deferred so far (in paging mode: dropped);
    a statistic for tests."""
    return int(state[_TABLE][_DEFERRALS])


@njit
def _push_recent(table, lst, i):
    push_back(table, table[_SLOTS] + lst - 1, i, lst)


@njit
def _defer(table, i):
    """Item ``i`` leaves its queue for the deferred list (see the docstring)."""
    lst = table[i, _LIST]
    table[_LIST_WEIGHTS, lst] -= table[i, _WT]
    unlink(table, i)
    _push_recent(table, 4, i)
    table[_N_DEFERRED] += table[i, _WT]
    table[_DEFERRALS] += 1


@njit
def _main_victim(table):
    k = table[_SLOTS]
    return table[k + 1, _NEXT] if table[_N_PROBATION] > 0 else table[k + 2, _NEXT]


@njit
def _trim_main(table, w):
    """Defer main's victims while main cannot take an item of weight ``w``."""
    while (table[_N_PROBATION] + table[_N_PROTECTED] > 0
           and table[_N_PROBATION] + table[_N_PROTECTED] + w > table[_CAP_MAIN]):
        _defer(table, _main_victim(table))


@njit
def _main_insert(table, i):
    w = table[i, _WT]
    if table[_N_PROBATION] + w <= table[_CAP_PROBATION]:
        lst = 2
    elif table[_N_PROTECTED] + w <= table[_CAP_PROTECTED]:
        lst = 3
    else:
        lst = 2
        if table[_N_PROBATION] + table[_N_PROTECTED] + w > table[_CAP_MAIN]:
            _trim_main(table, w)
    _push_recent(table, lst, i)
    table[_LIST_WEIGHTS, lst] += w


@njit
def _trim_probation(table):
    k = table[_SLOTS]
    while table[_N_PROBATION] > table[_CAP_PROBATION]:
        _defer(table, table[k + 1, _NEXT])


@njit
def _request(state, slot):
    table = state[_TABLE]
    lst = table[slot, _LIST]
    if lst == 4:
        return  # deferred: waits for the engine's next victim
    unlink(table, slot)
    if lst == 1:
        _push_recent(table, 1, slot)
        return
    count_min.add(state[_COUNTERS], state[_CELLS], table[slot, _KEY])
    table[_MAIN_HITS] += 1
    if table[_MAIN_HITS] >= table[_AGING_PERIOD]:
        table[_MAIN_HITS] = 0
        count_min.halve(state[_COUNTERS])
    _push_recent(table, 3, slot)
    if lst == 2:
        w = table[slot, _WT]
        table[_N_PROBATION] -= w
        table[_N_PROTECTED] += w
        while table[_N_PROTECTED] > table[_CAP_PROTECTED]:
            old = table[table[_SLOTS] + 2, _NEXT]
            unlink(table, old)
            _push_recent(table, 2, old)
            w = table[old, _WT]
            table[_N_PROTECTED] -= w
            table[_N_PROBATION] += w
            if table[_N_PROBATION] > table[_CAP_PROBATION]:
                _trim_probation(table)


@njit
def _on_hit(state, slot, t, relevant):
    _request(state, slot)


@njit
def _on_rearrival(state, slot, t):
    _request(state, slot)


@njit
def _admit(state, t, key, x, cache):
    table = state[_TABLE]
    # the arrival's weight: its size with a budget, else 1 (branch-free: a conditional
    # read of the cache view made the unit-size loop up to twice as slow, measured)
    table[_ARRIVAL_WEIGHT] = 1 + (arriving_size(cache) - 1) * table[_SIZED]
    return table[_ARRIVAL_WEIGHT] <= table[_CAP_WINDOW]


@njit
def _on_insert(state, slot, key, t):
    table = state[_TABLE]
    table[slot, _KEY] = key
    w = table[_ARRIVAL_WEIGHT]
    table[slot, _WT] = w
    _push_recent(table, 1, slot)
    table[_N_WINDOW] += w
    count_min.add(state[_COUNTERS], state[_CELLS], key)


@njit
def _victim(state, t, key, x, cache):
    table = state[_TABLE]
    k = table[_SLOTS]
    if table[_N_DEFERRED] > 0:  # deferred items first
        return table[k + 3, _NEXT]
    while table[_N_WINDOW] > 0:
        w = table[k, _NEXT]
        wkey = table[w, _KEY]
        main = table[_N_PROBATION] + table[_N_PROTECTED]
        if main + table[w, _WT] <= table[_CAP_MAIN]:  # main has room: w moves in
            unlink(table, w)
            table[_N_WINDOW] -= table[w, _WT]
            _main_insert(table, w)
            count_min.add(state[_COUNTERS], state[_CELLS], wkey)
            continue
        if main > 0:
            m = _main_victim(table)
            if (count_min.estimate(state[_COUNTERS], state[_CELLS], wkey)
                    > count_min.estimate(state[_COUNTERS], state[_CELLS], table[m, _KEY])):
                unlink(table, m)
                table[_LIST_WEIGHTS, table[m, _LIST]] -= table[m, _WT]
                unlink(table, w)
                table[_N_WINDOW] -= table[w, _WT]
                _main_insert(table, w)
                count_min.add(state[_COUNTERS], state[_CELLS], wkey)
                table[_TAKEN] = m  # already out of main: on_evict only acknowledges
                return m
        count_min.add(state[_COUNTERS], state[_CELLS], wkey)
        return w
    return _main_victim(table)


@njit
def _delete(state, t, cache):
    table = state[_TABLE]
    if table[_PAGING] and table[_N_DEFERRED] > 0:  # paging: a deferred item leaves now
        return table[table[_SLOTS] + 3, _NEXT]
    return -1


@njit
def _on_evict(state, slot, key, t):
    table = state[_TABLE]
    if table[_TAKEN] == slot:
        table[_TAKEN] = -1
        return
    table[_LIST_WEIGHTS, table[slot, _LIST]] -= table[slot, _WT]
    unlink(table, slot)


POLICY = Policy(name="tinylfu",
                summary="a window LRU takes what fits it; a count-min sketch admits into main SLRU",
                init=_init, victim=_victim, on_hit=_on_hit, on_rearrival=_on_rearrival,
                admit=_admit, on_insert=_on_insert, on_evict=_on_evict, delete=_delete,
                params=PARAMS, check_params=_check, modes=("semantic", "paging"))
