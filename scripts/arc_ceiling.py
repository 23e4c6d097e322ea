"""How fast can paging ARC be here?  The engine's ARC against a hand-written ARC loop.

    .venv/bin/python scripts/arc_ceiling.py [--steps 1000000] [--objects 100000]
        [--capacity 1000] [--alpha 0.9] [--seed 0] [--json]

``semcache bench`` asks paging ARC for 5× libCacheSim's rate.  This script measures what
the hook interface costs and what ARC's own bookkeeping costs, on the benchmark's trace:

* ``engine``: ``run(trace, "arc")``, the policy's hooks inlined into the engine's loop;
* ``inlined``: the fastest ARC loop we could write: one function, ARC's four lists as
  sentinel-free rings in flat int32 arrays (so the commonest miss is two rotations, see
  below), every list head and counter (|T1|, |T2|, |B1|, |B2|, p) in a local variable;
* ``no ghosts``: the same loop without the ghost lists B1 and B2 (so p never moves).  It is
  not ARC: the difference between the two rows is what ARC's ghost bookkeeping costs;
* ``libCacheSim``: ``libcachesim.ARC`` reading the trace from an oracleGeneral file.

Each timing is the best of seven rounds in which the four loops take turns, after a
compiling run.  The script checks that the engine, the inlined loop and libCacheSim count
the same hits, and prints the time per request that 5× libCacheSim needs.  The inlined ARC
follows :mod:`simulator.policies.arc` (libCacheSim's ARC.c).  These are measurements of
the loops we wrote, not a bound on every possible ARC loop.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np

from simulator.bench import libcachesim_run, write_oracle_general
from simulator.config import njit
from simulator.runner import run
from simulator.trace import PagingTrace
from workloads.zipf_paging import zipf_requests

REPEATS = 7
T1, T2, B1, B2 = 1, 2, 3, 4  # list tags


# Each list is a ring with no sentinel, given by its most recent node (-1: empty); the
# least recent is prv[head].  Evicting a list's LRU and putting the same node back at its
# MRU end is then a rotation, head = tail, which is ARC's commonest miss: T1's LRU slot
# refilled by the arriving key, and B1's LRU ghost node reused for the evicted key.
@njit(inline="always")
def _cut(prv, nxt, x):
    """Take node ``x`` out of its ring (not the last one); return its successor."""
    a, b = prv[x], nxt[x]
    nxt[a] = b
    prv[b] = a
    return b


@njit(inline="always")
def _link(prv, nxt, x, head):
    """Put node ``x`` at the MRU end of the ring whose MRU is ``head``; ``x`` is its head."""
    if head < 0:
        prv[x] = nxt[x] = x
    else:
        tail = prv[head]
        prv[x], nxt[x] = tail, head
        nxt[tail] = x
        prv[head] = x
    return x


@njit
def inlined_arc(req, n_keys, c, ghosts):
    """Hits of ARC (``ghosts``) or of its ghost-free skeleton over requests ``req``.

    Nodes 0 .. c-1 are cache slots (in T1 or T2), nodes c .. 2c are ghost nodes (in B1 or
    B2, or on the ``free`` stack); ``where[key]`` is a key's node or -1.
    """
    m = 2 * c + 1
    prv = np.empty(m, np.int32)
    nxt = np.empty(m, np.int32)
    lst = np.zeros(m, np.int8)
    node_key = np.full(m, -1, np.int64)
    where = np.full(n_keys, -1, np.int32)
    free = np.arange(2 * c, c - 1, -1).astype(np.int32)
    n_free = c + 1
    h1 = h2 = h3 = h4 = -1  # the MRU node of T1, T2, B1, B2
    t1 = t2 = b1 = b2 = size = hits = 0
    p = 0.0
    for t in range(req.shape[0]):
        key = req[t]
        s = where[key]
        g = 0
        if s >= 0:
            tag = lst[s]
            if tag == T2:  # a hit in T2: to its MRU end
                hits += 1
                if s != h2:
                    if s != prv[h2]:
                        _cut(prv, nxt, s)
                        _link(prv, nxt, s, h2)
                    h2 = s
                continue
            if tag == T1:  # a hit in T1: to the MRU end of T2
                hits += 1
                if t1 == 1:
                    h1 = -1
                else:
                    after = _cut(prv, nxt, s)
                    if h1 == s:
                        h1 = after
                t1 -= 1
                h2 = _link(prv, nxt, s, h2)
                lst[s] = T2
                t2 += 1
                continue
            if tag == B1:  # a ghost hit: adapt p, forget the ghost
                g = 1
                p = min(p + max(b2 / b1, 1.0), c)
                if b1 == 1:
                    h3 = -1
                else:
                    after = _cut(prv, nxt, s)
                    if h3 == s:
                        h3 = after
                b1 -= 1
            else:
                g = 2
                p = max(p - max(b1 / b2, 1.0), 0.0)
                if b2 == 1:
                    h4 = -1
                else:
                    after = _cut(prv, nxt, s)
                    if h4 == s:
                        h4 = after
                b2 -= 1
            free[n_free] = s
            n_free += 1
        if size < c:
            slot = size
            size += 1
            node_key[slot] = key
            where[key] = slot
            if g == 0:
                h1 = _link(prv, nxt, slot, h1)
                lst[slot] = T1
                t1 += 1
            else:
                h2 = _link(prv, nxt, slot, h2)
                lst[slot] = T2
                t2 += 1
            continue
        drop = -1  # case IV: the LRU ghost to trim, reused below for the evicted key
        no_ghost = False
        if g == 0 and ghosts:
            if t1 + b1 >= c:
                if b1 == 0:
                    no_ghost = True  # T1 is the whole cache: evict its LRU, no ghost
                else:
                    drop = prv[h3]
            elif t1 + t2 + b1 + b2 >= 2 * c and b2 > 0:
                drop = prv[h4]
        # REPLACE: the victim's slot takes the arriving key (T1 on a miss, T2 on a ghost hit)
        if no_ghost or (t1 > 0 and (t1 > p or (t1 == p and g == 2))) or t2 == 0:
            slot = prv[h1]
            if g == 0:
                h1 = slot  # rotation of T1
            else:
                if t1 == 1:
                    h1 = -1
                else:
                    _cut(prv, nxt, slot)
                t1 -= 1
                h2 = _link(prv, nxt, slot, h2)
                lst[slot] = T2
                t2 += 1
            dest = B1
        else:
            slot = prv[h2]
            if g != 0:
                h2 = slot  # rotation of T2
            else:
                if t2 == 1:
                    h2 = -1
                else:
                    _cut(prv, nxt, slot)
                t2 -= 1
                h1 = _link(prv, nxt, slot, h1)
                lst[slot] = T1
                t1 += 1
            dest = B2
        old = node_key[slot]
        node_key[slot] = key
        where[key] = slot
        if no_ghost or not ghosts:
            where[old] = -1
            continue
        if drop >= 0:
            where[node_key[drop]] = -1
            if lst[drop] == dest:  # rotation: the dropped LRU ghost is the new MRU
                if dest == B1:
                    h3 = drop
                else:
                    h4 = drop
                node_key[drop] = old
                where[old] = drop
                continue
            if dest == B1:  # the drop left B2
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
            node = free[n_free]
        node_key[node] = old
        where[old] = node
        lst[node] = dest
        if dest == B1:
            h3 = _link(prv, nxt, node, h3)
            b1 += 1
        else:
            h4 = _link(prv, nxt, node, h4)
            b2 += 1
    return hits


def _clocked(fn):
    """``(hits, seconds)`` of ``fn()``, which returns a hit count."""
    t0 = time.perf_counter()
    hits = fn()
    return int(hits), time.perf_counter() - t0


def measure(steps=1_000_000, objects=100_000, capacity=1000, alpha=0.9, seed=0) -> list:
    """Rows ``{"name", "hits", "ns_per_request"}``; raises if the ARC hit counts differ.

    Every loop runs once untimed (compiling), then the four take turns for ``REPEATS``
    rounds and each keeps its best time, so that a burst of host load slows all of them.
    """
    req = zipf_requests(steps, objects, alpha, seed)
    trace = PagingTrace.from_requests(req)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "trace.oracleGeneral")
        write_oracle_general(req, path)

        def engine():
            result = run(trace, "arc", capacity=capacity)
            return int(result.summary()["hits"]), result.elapsed_s

        loops = {"engine": engine,
                 "inlined": lambda: _clocked(lambda: inlined_arc(req, objects, capacity, True)),
                 "no ghosts": lambda: _clocked(lambda: inlined_arc(req, objects, capacity,
                                                                   False)),
                 "libCacheSim": lambda: libcachesim_run(path, "arc", capacity, steps)}
        hits = {name: loop()[0] for name, loop in loops.items()}
        best = dict.fromkeys(loops, float("inf"))
        for _ in range(REPEATS):
            for name, loop in loops.items():
                best[name] = min(best[name], loop()[1])
    arc_hits = {name: h for name, h in hits.items() if name != "no ghosts"}
    if len(set(arc_hits.values())) != 1:
        raise RuntimeError(f"ARC hit counts differ: {arc_hits}")
    return [{"name": name, "hits": hits[name], "ns_per_request": best[name] / steps * 1e9}
            for name in loops]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for flag, default in (("steps", 1_000_000), ("objects", 100_000), ("capacity", 1000),
                          ("seed", 0)):
        ap.add_argument(f"--{flag}", type=int, default=default)
    ap.add_argument("--alpha", type=float, default=0.9)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    rows = measure(a.steps, a.objects, a.capacity, a.alpha, a.seed)
    base = rows[-1]["ns_per_request"]
    for row in rows:
        row["ratio_to_libcachesim"] = base / row["ns_per_request"]
    if a.json:
        print(json.dumps({"rows": rows, "needed_for_5x_ns": base / 5}, indent=2))
        return 0
    for row in rows:
        print(f"{row['name']:12s} {row['ns_per_request']:7.2f} ns/request  "
              f"{row['ratio_to_libcachesim']:5.2f}x libCacheSim  hits {row['hits']}")
    print(f"5x libCacheSim needs {base / 5:.2f} ns/request")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
