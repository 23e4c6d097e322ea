"""2Q (Johnson and Shasha, VLDB 1994): always admit; A1in FIFO, A1out ghost FIFO, Am LRU.

This is libCacheSim 0.3.5's ``TwoQ`` with its defaults: A1in holds ``floor(in_ratio·K)``
items (0.25), A1out remembers ``floor(out_ratio·K)`` keys (0.5), Am gets the rest.

* A request for an item in Am moves it to Am's most recent end; a request for an item in
  A1in changes nothing (the "correlated reference" period).
* An arriving item whose key is in A1out leaves A1out and enters Am (most recent end);
  any other enters A1in.
* To evict: if A1in holds more than its size (or Am is empty), its oldest item goes and
  its key joins A1out (dropping A1out's oldest key when full); otherwise Am's least recent
  item goes, leaving no ghost.

Requests in semantic mode (as in ``arc``): a retrieval into R_t and a re-arrival of a cached
item (``item_keys``) are requests (R_t worst match first, so the best ends most recent).
An arriving item that is not cached is a miss; it is a ghost hit only when ``item_keys``
streams an evicted key again.  A removal the policy did not choose leaves no ghost.

Paging mode equals libCacheSim 0.3.5 hit for hit for K >= 4
(``tests/test_paging_oracles_more.py``).  For K <= 3 libCacheSim's A1in has size 0 and
``TwoQ_can_insert`` refuses every object, so it caches nothing; here A1in holds at least
one item.  libCacheSim inserts a ghost hit through ``Am->get``, which could evict a second
item if Am were over its own size; in paging mode that never happens (A1in never holds
fewer than its size once the cache is full), so one victim per admission is exact.  With
deletions (semantic mode) there is still exactly one victim per admission.  Every hook is
O(1).
"""

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy
from simulator.policies.parts.linked_rows import push_back, remember_ghost, unlink

PARAMS = {"in_ratio": 0.25, "out_ratio": 0.5}

# One int64 table of (prev, next, list, key) rows; lists are circular doubly linked lists
# through a sentinel (sentinel.next = oldest / least recent, sentinel.prev = newest):
#   rows 0 .. S-1            cached slots (list 1 = A1in, 2 = Am)
#   rows S, S+1              sentinels of A1in and Am
#   rows S+2 .. S+1+G        A1out nodes (column 3 = key; unused ones form a free list
#                            through `next`), G = the A1out size or the number of keys
#   row S+2+G                sentinel of A1out
#   last three rows          counters (below)
# A second array maps each key to its A1out node, or -1.
_PREV, _NEXT, _LIST, _KEY = 0, 1, 2, 3
_N_IN, _N_M, _N_OUT, _FREE = (-2, 0), (-2, 1), (-2, 2), (-2, 3)
_CAP_IN, _CAP_OUT, _ARRIVAL, _DEST = (-1, 0), (-1, 1), (-1, 2), (-1, 3)
_S = (-3, 0)


def _check(params):
    if not 0.0 <= params["in_ratio"] <= 1.0:
        return f"parameter 'in_ratio' must be in [0, 1], got {params['in_ratio']}"
    if params["out_ratio"] < 0.0:
        return f"parameter 'out_ratio' must be >= 0, got {params['out_ratio']}"
    return None


def sizes(capacity, in_ratio=0.25, out_ratio=0.5):
    """(A1in, A1out) sizes: libCacheSim's truncations, A1in at least 1.

    Examples
    --------
    >>> sizes(1000), sizes(7), sizes(1)
    ((250, 500), (1, 3), (1, 0))
    """
    return max(1, int(capacity * in_ratio)), int(capacity * out_ratio)


def _init(ctx):
    k = ctx.slots
    a_in, a_out = sizes(ctx.capacity, ctx.params["in_ratio"], ctx.params["out_ratio"])
    pool = min(a_out, ctx.n_keys)  # ghosts are keys not cached: never more than the keys
    table = np.zeros((k + pool + 6, 4), np.int64)
    for head in (k, k + 1, k + 2 + pool):
        table[head, _PREV] = table[head, _NEXT] = head
    table[k + 2:k + 2 + pool, _NEXT] = np.arange(k + 3, k + 3 + pool)
    table[_FREE] = k + 2 if pool else -1
    table[_CAP_IN], table[_CAP_OUT], table[_S] = a_in, a_out, k
    return (table, np.full(ctx.n_keys, -1, np.int32))


@njit
def _request(table, slot):
    if table[slot, _LIST] == 2:
        unlink(table, slot)
        push_back(table, table[_S] + 1, slot, 2)


@njit
def _on_hit(state, slot, t, relevant):
    _request(state[0], slot)


@njit
def _on_rearrival(state, slot, t):
    _request(state[0], slot)


@njit
def _admit(state, t, key, x, cache):
    table = state[0]
    node = state[1][key]
    table[_ARRIVAL] = 0
    if node >= 0:  # a ghost hit: the key leaves A1out and will enter Am
        unlink(table, node)
        table[node, _NEXT] = table[_FREE]
        table[_FREE] = node
        table[_N_OUT] -= 1
        state[1][key] = -1
        table[_ARRIVAL] = 1
    return True


@njit
def _victim(state, t, key, x, cache):
    table = state[0]
    k = table[_S]
    if table[_N_IN] > table[_CAP_IN] or table[_N_M] == 0:
        table[_DEST] = 1  # to A1out
        return table[k, _NEXT]
    table[_DEST] = 0
    return table[k + 1, _NEXT]


@njit
def _on_evict(state, slot, key, t):
    table = state[0]
    if table[slot, _LIST] == 1:
        table[_N_IN] -= 1
    else:
        table[_N_M] -= 1
    unlink(table, slot)
    to_ghost = table[_DEST]
    table[_DEST] = 0  # a deletion not chosen by victim() leaves no ghost
    if to_ghost == 1 and table[_CAP_OUT] > 0:
        # row shape[0] - 4 is the A1out sentinel
        remember_ghost(table, state[1], table.shape[0] - 4, key, _KEY, 3, _N_OUT,
                       table[_CAP_OUT], _FREE)


@njit
def _on_insert(state, slot, key, t):
    table = state[0]
    k = table[_S]
    if table[_ARRIVAL] == 1:
        push_back(table, k + 1, slot, 2)
        table[_N_M] += 1
    else:
        push_back(table, k, slot, 1)
        table[_N_IN] += 1
    table[_ARRIVAL] = 0


POLICY = Policy(name="twoq", summary="always admit; 2Q (A1in FIFO, A1out ghost, Am LRU)",
                init=_init, victim=_victim, on_hit=_on_hit, on_rearrival=_on_rearrival,
                admit=_admit, on_insert=_on_insert, on_evict=_on_evict, params=PARAMS,
                check_params=_check)
