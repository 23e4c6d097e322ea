"""W-TinyLFU (Einziger, Friedman and Manes, 2017): window LRU, main SLRU, sketch admission.

This is libCacheSim 0.3.5's ``WTinyLFU`` with its defaults (``main-cache=SLRU``,
``window-size=0.01``), step for step:

* Sizes: the window holds W = ``floor(window_ratio·K)`` items (at least 1), the main
  cache M = K − W, split into a probation segment of P = ``floor(M/5)`` items (at least 1
  if M >= 1) and a protected segment of M − P (SLRU ``seg-size=1:4``).
* Sketch: libCacheSim's ``minimalIncrementCBF`` sized for M entries at error 0.001, i.e.
  ``ceil(bpe·M)`` counters (bpe = −ln 0.001 / ln² 2) and 10 hash functions: cell i of a key
  is ``(a + i·b) mod 2³² mod n`` with a and b the low 32 bits of XXH64 of the key's 8
  little-endian bytes under seeds 0x12345678 and 0x12344321.  An update adds 1 to all 10
  cells (the code's minimal-increment branch is empty, so it is a plain count-min
  sketch); an estimate is their minimum.  Aging: every 32·M requests that hit the main
  cache, all counters are halved.  There is no doorkeeper (libCacheSim leaves it
  unimplemented).
* A request for an item in the window moves it to the window's most recent end and is
  not counted.  A request for an item in main is counted in the sketch and promotes it:
  probation → most recent end of protected (if protected overflows, its least recent
  item returns to the most recent end of probation); protected → its most recent end.
* An arriving item enters the window's most recent end and is counted.
* To evict, repeat: take the window's least recent item w.  If main has room, w moves
  into main (probation if it has room, else protected) and is counted; go on.  Otherwise
  let m be main's victim (least recent of probation, or of protected if probation is
  empty).  If estimate(w) > estimate(m), m is evicted and w moves into main; else w is
  evicted (ties keep m).  Either way w is then counted once more.  With an empty window,
  main's victim is evicted.

Semantic mode: this is the admission filter of docs/model.md §2.3 — every arriving item enters the
window, and when the window overflows the sketch decides whether its oldest item enters
main or leaves the cache.  A retrieval into R_t (worst match first) and a re-arrival of a
cached item (``item_keys``) are requests; each arriving uncached item is a miss.

Hash inputs: the sketch hashes ``key + 1`` (libCacheSim reserves object id 0), so a paging
trace written for libCacheSim with ids = dense key + 1 (as ``tests/test_paging_oracles.py``
writes them) is hashed identically.

Where libCacheSim differs:

* Paging mode equals it hit for hit when ``floor(M/5) + floor(4M/5) = M`` (M a multiple
  of 5, e.g. K = 500, 1000, 1500; ``tests/test_paging_oracles_more.py``).  Otherwise its
  two truncated segment sizes leave one slot of main in no segment: an insertion then
  overfills probation, and a later promotion makes libCacheSim evict probation's least
  recent item *during a hit*, which no paging policy here can do.  Here protected gets
  M − P, so the segments always fill main; hits agree up to libCacheSim's first such
  hit-time eviction (asserted for K = 100, 200).
* For K < 100 libCacheSim's window has size 0 and it caches nothing (K < 5 aborts); here
  the window holds at least one item and probation at least one when M >= 1.  With M = 0
  (K = 1) the window's victim is always evicted.

Hooks: ``victim`` runs the loop above (moving items, updating the sketch) and names the
victim; when it admitted w it already took m out of main, and the following ``on_evict``
only acknowledges it.  Hits and insertions are O(1) plus 10 sketch cells; aging costs
O(M) every 32·M main hits.
"""

import math

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy
from simulator.policies.parts.linked_rows import push_back, unlink

PARAMS = {"window_ratio": 0.01}
ERROR = 0.001
BITS_PER_ENTRY = -math.log(ERROR) / 0.480453013918201  # libCacheSim's ln(2)^2
HASHES = int(math.ceil(0.693147180559945 * BITS_PER_ENTRY))  # = 10
SEEDS = (0x12345678, 0x12344321)
AGING = 32  # halve the sketch every AGING * M main hits

# One int64 table of (prev, next, list, key) rows; lists are circular doubly linked lists
# through a sentinel (sentinel.next = least recent, sentinel.prev = most recent):
#   rows 0 .. S-1        cached slots (list 1 = window, 2 = probation, 3 = protected)
#   rows S, S+1, S+2     sentinels of the window, probation and protected (S: the slots)
#   last three rows      counters (below)
_PREV, _NEXT, _LIST, _KEY = 0, 1, 2, 3
_DONE, _N_W, _N_P, _N_Q = (-3, 0), (-3, 1), (-3, 2), (-3, 3)  # _N_W + lst - 1 = count
_CAP_W, _CAP_M, _CAP_P, _CAP_Q = (-2, 0), (-2, 1), (-2, 2), (-2, 3)
_HITS, _PERIOD, _K = (-1, 0), (-1, 1), (-1, 2)

_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)
_PRIME = [np.uint64(p) for p in (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                                 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)]


def _check(params):
    if not 0.0 <= params["window_ratio"] < 1.0:
        return f"parameter 'window_ratio' must be in [0, 1), got {params['window_ratio']}"
    return None


def _rotl(x, r):
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


def xxh64_u64(values, seed):
    """XXH64 of each value's 8 little-endian bytes (one lane, no stripes), vectorised.

    Examples
    --------
    >>> int(xxh64_u64(np.array([5], np.uint64), 0x12345678)[0])
    8639530770649877703
    """
    p1, p2, p3, p4, p5 = _PRIME
    v = np.asarray(values, np.uint64)
    with np.errstate(over="ignore"):
        h = np.full(v.shape, np.uint64(seed) + p5 + np.uint64(8), np.uint64)
        h ^= _rotl(v * p2, 31) * p1
        h = _rotl(h, 27) * p1 + p4
        h ^= h >> np.uint64(33)
        h *= p2
        h ^= h >> np.uint64(29)
        h *= p3
        h ^= h >> np.uint64(32)
    return h


def sizes(capacity, window_ratio=0.01):
    """(window, probation, protected) sizes.

    Examples
    --------
    >>> sizes(1000), sizes(100), sizes(1)
    ((10, 198, 792), (1, 19, 80), (1, 0, 0))
    """
    window = max(1, int(capacity * window_ratio))
    main = capacity - window
    probation = max(1, int(1.0 / 5 * main)) if main else 0
    return window, probation, main - probation


def sketch_width(main):
    """Counters of libCacheSim's sketch for ``main`` entries (at least 2·HASHES)."""
    n = int(math.ceil(BITS_PER_ENTRY * main))
    return 2 * HASHES if n < HASHES else n


def _init(ctx):
    k = ctx.slots
    window, probation, protected = sizes(ctx.capacity, ctx.params["window_ratio"])
    main = probation + protected
    table = np.zeros((k + 6, 4), np.int64)
    for head in (k, k + 1, k + 2):
        table[head, _PREV] = table[head, _NEXT] = head
    table[_DONE] = -1
    table[_CAP_W], table[_CAP_M], table[_CAP_P], table[_CAP_Q] = window, main, probation, \
        protected
    table[_PERIOD] = AGING * main
    table[_K] = k
    ids = np.arange(1, ctx.n_keys + 1, dtype=np.uint64)
    cells = np.empty((ctx.n_keys, 2), np.int64)  # (a, b) per key
    for j, seed in enumerate(SEEDS):
        cells[:, j] = (xxh64_u64(ids, seed) & np.uint64(0xFFFFFFFF)).astype(np.int64)
    return (table, np.zeros(sketch_width(main), np.int64), cells)


@njit
def _push_recent(table, lst, i):
    push_back(table, table[_K] + lst - 1, i, lst)


@njit
def _estimate(state, key):
    n = state[1].shape[0]
    a = state[2][key, 0]
    b = state[2][key, 1]
    best = state[1][a % n]
    for i in range(1, HASHES):
        v = state[1][((a + i * b) & 0xFFFFFFFF) % n]
        if v < best:
            best = v
    return best


@njit
def _count(state, key):
    n = state[1].shape[0]
    a = state[2][key, 0]
    b = state[2][key, 1]
    for i in range(HASHES):
        state[1][((a + i * b) & 0xFFFFFFFF) % n] += 1


@njit
def _main_insert(table, i):
    if table[_N_P] < table[_CAP_P]:
        lst = 2
    elif table[_N_Q] < table[_CAP_Q]:
        lst = 3
    else:
        lst = 2
    _push_recent(table, lst, i)
    table[-3, lst] += 1


@njit
def _request(state, slot):
    table = state[0]
    lst = table[slot, _LIST]
    unlink(table, slot)
    if lst == 1:
        _push_recent(table, 1, slot)
        return
    _count(state, table[slot, _KEY])
    table[_HITS] += 1
    if table[_HITS] >= table[_PERIOD]:
        table[_HITS] = 0
        for i in range(state[1].shape[0]):
            state[1][i] >>= 1
    _push_recent(table, 3, slot)
    if lst == 2:
        table[_N_P] -= 1
        table[_N_Q] += 1
        if table[_N_Q] > table[_CAP_Q]:
            old = table[table[_K] + 2, _NEXT]
            unlink(table, old)
            _push_recent(table, 2, old)
            table[_N_Q] -= 1
            table[_N_P] += 1


@njit
def _on_hit(state, slot, t, relevant):
    _request(state, slot)


@njit
def _on_rearrival(state, slot, t):
    _request(state, slot)


@njit
def _on_insert(state, slot, key, t):
    table = state[0]
    table[slot, _KEY] = key
    _push_recent(table, 1, slot)
    table[_N_W] += 1
    _count(state, key)


@njit
def _main_victim(table):
    k = table[_K]
    return table[k + 1, _NEXT] if table[_N_P] > 0 else table[k + 2, _NEXT]


@njit
def _victim(state, t, key, x, cache):
    table = state[0]
    k = table[_K]
    while table[_N_W] > 0:
        w = table[k, _NEXT]
        wkey = table[w, _KEY]
        if table[_N_P] + table[_N_Q] < table[_CAP_M]:  # main has room: w moves in
            unlink(table, w)
            table[_N_W] -= 1
            _main_insert(table, w)
            _count(state, wkey)
            continue
        if table[_CAP_M] > 0:
            m = _main_victim(table)
            if _estimate(state, wkey) > _estimate(state, table[m, _KEY]):
                unlink(table, m)
                table[-3, table[m, _LIST]] -= 1
                unlink(table, w)
                table[_N_W] -= 1
                _main_insert(table, w)
                _count(state, wkey)
                table[_DONE] = m  # already out of main: on_evict only acknowledges
                return m
        _count(state, wkey)
        return w
    return _main_victim(table)


@njit
def _on_evict(state, slot, key, t):
    table = state[0]
    if table[_DONE] == slot:
        table[_DONE] = -1
        return
    table[-3, table[slot, _LIST]] -= 1
    unlink(table, slot)


POLICY = Policy(name="tinylfu",
                summary="always admit to a window LRU; a count-min sketch admits into main SLRU",
                init=_init, victim=_victim, on_hit=_on_hit, on_rearrival=_on_rearrival,
                on_insert=_on_insert, on_evict=_on_evict, params=PARAMS, check_params=_check)
