"""ARC's own paging loop: the whole trace in one function, equal to ARC's hooks.

The fast engine runs a paging trace through this loop instead of its hook loop
(``Policy.paging_loop``, see :mod:`simulator.policies.base`).  It is the same ARC as
:mod:`simulator.policies.arc` (libCacheSim 0.3.5's ``ARC.c``: float p, case IV trimming,
REPLACE's B2 tie), hit for hit, but laid out as the hook interface cannot be:

* each of the lists T1, T2, B1, B2 is a ring with no sentinel, given by its most recent
  node (the least recent is ``prv[head]``).  Evicting a list's LRU node and putting the
  same node back at its MRU end is a rotation, ``head = lru``.  ARC's commonest miss is
  two of them: T1's LRU slot takes the arriving key, and B1's LRU ghost node, trimmed by
  case IV, takes the evicted key.  That miss has a branch of its own, written out;
* every head and counter (|T1|, |T2|, |B1|, |B2|, p) is a local variable;
* ``where[key]`` holds ``node << 3 | list`` (0: in no list), so a request learns its list
  from one load;
* indices are unsigned and the loop prefetches ``where`` a few requests ahead
  (:mod:`simulator.engine.fast_index`).

Split into hooks the same design grew past what numba inlines into the engine's loop (a
hook that is called rather than inlined cost 10 ns or more a request).  On the benchmark's
trace (10^6 Zipf(0.9) requests over 10^5 objects, capacity 1000) this loop takes about 8
ns a request and the hook loop about 17 (``scripts/arc_loops.py`` measures both).  Tests
hold the two equal request for request.
"""

import numpy as np

from simulator.config import njit
from simulator.engine.fast_index import at, prefetch

T1, T2, B1, B2 = 1, 2, 3, 4  # list tags, the low 3 bits of where[key]
# ``where`` is int32 while every code fits: node < 2K + 1, code < 8 (2K + 1)
_INT32_CAPACITY = (2 ** 31 // 8 - 1) // 2
_AHEAD = 3  # requests prefetched ahead (2 to 6 measured alike; none: 1 ns slower)


@njit(inline="always")
def _cut(prv, nxt, x):
    """Take node ``x`` out of its ring (not its last node); return its successor."""
    a = prv[at(x)]
    b = nxt[at(x)]
    nxt[at(a)] = b
    prv[at(b)] = a
    return b


@njit(inline="always")
def _link(prv, nxt, x, head):
    """Put node ``x`` at the MRU end of the ring whose MRU is ``head`` (-1: empty ring);
    return ``x``, the ring's new head."""
    if head < 0:
        prv[at(x)] = x
        nxt[at(x)] = x
    else:
        tail = prv[at(head)]
        prv[at(x)] = tail
        nxt[at(x)] = head
        nxt[at(tail)] = x
        prv[at(head)] = x
    return x


@njit
def rings(requests, capacity, where, out_hit):
    """ARC over ``requests``; ``where`` is zeros, one entry per key.

    Nodes 0 .. K-1 are cache slots (T1, T2), nodes K .. 2K ghost nodes (B1, B2, or the
    ``free`` stack).  Returns ``(hits, admissions, evictions)`` and fills ``out_hit``.
    """
    c = capacity
    m = 2 * c + 1
    prv = np.empty(m, np.int32)
    nxt = np.empty(m, np.int32)
    node_key = np.empty(m, np.int64)
    free = np.arange(2 * c, c - 1, -1).astype(np.int32)
    n_free = c + 1
    h1 = h2 = h3 = h4 = -1  # the MRU node of T1, T2, B1, B2
    t1 = t2 = b1 = b2 = size = hits = 0
    p = 0.0
    n = requests.shape[0]
    for t in range(n):
        if t + _AHEAD < n:
            prefetch(where, requests[at(t + _AHEAD)])
        key = requests[at(t)]
        code = where[at(key)]
        tag = code & 7
        s = code >> 3
        if tag == T2:  # a hit in T2: to its MRU end (a rotation if s is its LRU)
            hits += 1
            out_hit[at(t)] = 1
            if s != h2:
                if s != prv[at(h2)]:
                    _cut(prv, nxt, s)
                    _link(prv, nxt, s, h2)
                h2 = s
            continue
        if tag == T1:  # a hit in T1: to the MRU end of T2
            hits += 1
            out_hit[at(t)] = 1
            if t1 == 1:
                h1 = -1
            else:
                after = _cut(prv, nxt, s)
                if h1 == s:
                    h1 = after
            t1 -= 1
            h2 = _link(prv, nxt, s, h2)
            t2 += 1
            where[at(key)] = (s << 3) | T2
            continue
        out_hit[at(t)] = 0
        if tag == 0 and size == c and b1 > 0 and t1 + b1 >= c and t1 > p:
            # ARC's commonest miss, written out (7.8 instead of 9.2 ns a request): case
            # IV forgets B1's LRU ghost and REPLACE evicts T1's LRU, so T1's LRU slot
            # takes the key (a rotation of T1) and B1's LRU node the evicted key (of B1)
            slot = prv[at(h1)]
            h1 = slot
            drop = prv[at(h3)]
            h3 = drop
            old = node_key[at(slot)]
            node_key[at(slot)] = key
            where[at(key)] = (slot << 3) | T1
            where[at(node_key[at(drop)])] = 0
            node_key[at(drop)] = old
            where[at(old)] = (drop << 3) | B1
            continue
        g = 0  # the ghost list the key was in (1: B1, 2: B2)
        if tag == B1:  # case II: p grows; the ratio uses |B1| before the key leaves
            g = 1
            p = min(p + max(b2 / b1, 1.0), c)
            if b1 == 1:
                h3 = -1
            else:
                after = _cut(prv, nxt, s)
                if h3 == s:
                    h3 = after
            b1 -= 1
            free[at(n_free)] = s
            n_free += 1
        elif tag == B2:  # case III: p shrinks
            g = 2
            p = max(p - max(b1 / b2, 1.0), 0.0)
            if b2 == 1:
                h4 = -1
            else:
                after = _cut(prv, nxt, s)
                if h4 == s:
                    h4 = after
            b2 -= 1
            free[at(n_free)] = s
            n_free += 1
        lst = T1 if g == 0 else T2  # where the arriving key goes
        if size < c:
            slot = size
            size += 1
            node_key[at(slot)] = key
            where[at(key)] = (slot << 3) | lst
            if g == 0:
                h1 = _link(prv, nxt, slot, h1)
                t1 += 1
            else:
                h2 = _link(prv, nxt, slot, h2)
                t2 += 1
            continue
        drop = -1  # case IV: the LRU ghost to forget, reused below for the evicted key
        drop_from = 0
        no_ghost = False
        if g == 0:
            if t1 + b1 >= c:
                if b1 == 0:
                    no_ghost = True  # T1 is the whole cache: evict its LRU, no ghost
                else:
                    drop = prv[at(h3)]
                    drop_from = B1
            elif t1 + t2 + b1 + b2 >= 2 * c and b2 > 0:
                drop = prv[at(h4)]
                drop_from = B2
        # REPLACE: the victim's slot takes the arriving key.  The two branches mirror each
        # other on purpose: as one helper returning the new heads they cost 0.5 ns a request
        if no_ghost or (t1 > 0 and (t1 > p or (t1 == p and g == 2))) or t2 == 0:
            slot = prv[at(h1)]
            if g == 0:
                h1 = slot  # rotation of T1
            else:
                if t1 == 1:
                    h1 = -1
                else:
                    _cut(prv, nxt, slot)
                t1 -= 1
                h2 = _link(prv, nxt, slot, h2)
                t2 += 1
            dest = B1
        else:
            slot = prv[at(h2)]
            if g != 0:
                h2 = slot  # rotation of T2
            else:
                if t2 == 1:
                    h2 = -1
                else:
                    _cut(prv, nxt, slot)
                t2 -= 1
                h1 = _link(prv, nxt, slot, h1)
                t1 += 1
            dest = B2
        where[at(key)] = (slot << 3) | lst
        old = node_key[at(slot)]
        node_key[at(slot)] = key
        if no_ghost:
            where[at(old)] = 0
            continue
        if drop >= 0:
            where[at(node_key[at(drop)])] = 0
            if drop_from == dest:  # rotation: the forgotten LRU ghost is the new MRU
                if dest == B1:
                    h3 = drop
                else:
                    h4 = drop
                node_key[at(drop)] = old
                where[at(old)] = (drop << 3) | dest
                continue
            if drop_from == B2:
                if b2 == 1:
                    h4 = -1
                else:
                    _cut(prv, nxt, drop)
                b2 -= 1
            else:
                if b1 == 1:
                    h3 = -1
                else:
                    _cut(prv, nxt, drop)
                b1 -= 1
            node = drop
        else:
            n_free -= 1
            node = free[at(n_free)]
        node_key[at(node)] = old
        where[at(old)] = (node << 3) | dest
        if dest == B1:
            h3 = _link(prv, nxt, node, h3)
            b1 += 1
        else:
            h4 = _link(prv, nxt, node, h4)
            b2 += 1
    return hits, n - hits, n - hits - size


@njit
def paging_loop(requests, n_keys, capacity, state, out_hit):
    """ARC's paging run, as the engine's hook loop (``state``, the hooks' state, unused)."""
    if capacity <= _INT32_CAPACITY:
        return rings(requests, capacity, np.zeros(n_keys, np.int32), out_hit)
    return rings(requests, capacity, np.zeros(n_keys, np.int64), out_hit)
