"""How fast can paging ARC be here?  The engine's ARC against a hand-inlined ARC loop.

    .venv/bin/python scripts/arc_ceiling.py [--steps 1000000] [--objects 100000]
        [--capacity 1000] [--alpha 0.9] [--seed 0] [--json]

``semcache bench`` asks paging ARC for 5× libCacheSim's rate.  This script measures what
the hook interface costs and what ARC's own bookkeeping costs, on the benchmark's trace:

* ``engine``: ``run(trace, "arc")``, the policy's hooks inlined into the engine's loop;
* ``inlined``: one hand-written loop with ARC's lists in flat int32 arrays and every
  counter (|T1|, |T2|, |B1|, |B2|, p) in a local variable, the best case for ARC here;
* ``no ghosts``: the same loop without the ghost lists B1 and B2 (so p never moves).  It is
  not ARC, only the part of ARC's work that every request pays: a floor for any ARC loop;
* ``libCacheSim``: ``libcachesim.ARC`` reading the trace from an oracleGeneral file.

Each timing is the best of five, after a compiling run.  The script checks that the engine,
the inlined loop and libCacheSim count the same hits, and prints the rate each one would
need for 5×.  The inlined ARC follows :mod:`simulator.policies.arc` (libCacheSim's ARC.c).
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

REPEATS = 5
T1, T2, B1, B2 = 1, 2, 3, 4  # list tags; list l's sentinel is node c + l - 1


@njit
def _unlink(prv, nxt, i):
    nxt[prv[i]] = nxt[i]
    prv[nxt[i]] = prv[i]


@njit
def _push_mru(prv, nxt, lst, head, i, tag):
    first = nxt[head]
    prv[i], nxt[i], lst[i] = head, first, tag
    prv[first] = i
    nxt[head] = i


@njit
def inlined_arc(req, n_keys, c, ghosts):
    """Hits of ARC (``ghosts``) or of its ghost-free skeleton over requests ``req``."""
    n = c + 4 + c + 1  # slots, 4 sentinels, ghost pool
    prv = np.empty(n, np.int32)
    nxt = np.empty(n, np.int32)
    lst = np.zeros(n, np.int32)
    node_key = np.zeros(n, np.int64)
    for h in range(c, c + 4):
        prv[h] = nxt[h] = h
    for i in range(c + 4, n - 1):
        nxt[i] = i + 1  # the free ghost nodes
    free = c + 4
    where = np.full(n_keys, -1, np.int32)  # a key's slot or ghost node
    t1 = t2 = b1 = b2 = size = hits = 0
    p = 0.0
    for t in range(req.shape[0]):
        key = req[t]
        s = where[key]
        g = 0
        if s >= 0:
            tag = lst[s]
            if tag <= T2:  # a hit: to the MRU end of T2
                hits += 1
                _unlink(prv, nxt, s)
                _push_mru(prv, nxt, lst, c + 1, s, T2)
                if tag == T1:
                    t1 -= 1
                    t2 += 1
                continue
            g = tag - 2  # a ghost hit: adapt p, forget the ghost
            if g == 1:
                p = min(p + max(b2 / b1, 1.0), c)
                b1 -= 1
            else:
                p = max(p - max(b1 / b2, 1.0), 0.0)
                b2 -= 1
            _unlink(prv, nxt, s)
            nxt[s] = free
            free = s
        if size < c:
            slot = size
            size += 1
        else:
            dest = -1
            if g == 0 and ghosts:  # case IV: trim the ghost lists first
                drop = -1
                if t1 + b1 >= c:
                    if b1 == 0:
                        dest = 0  # T1 is the whole cache: evict its LRU, no ghost
                    else:
                        drop = prv[c + 2]
                        b1 -= 1
                elif t1 + t2 + b1 + b2 >= 2 * c and b2 > 0:
                    drop = prv[c + 3]
                    b2 -= 1
                if drop >= 0:
                    where[node_key[drop]] = -1
                    _unlink(prv, nxt, drop)
                    nxt[drop] = free
                    free = drop
            if dest == 0 or (t1 > 0 and (t1 > p or (t1 == p and g == 2))) or t2 == 0:
                slot = prv[c]  # REPLACE from T1
                t1 -= 1
                dest = 0 if dest == 0 else T1
            else:
                slot = prv[c + 1]
                t2 -= 1
                dest = T2
            _unlink(prv, nxt, slot)
            old = node_key[slot]
            where[old] = -1
            if ghosts and dest != 0:
                node = free
                free = nxt[node]
                node_key[node] = old
                _push_mru(prv, nxt, lst, c + dest + 1, node, dest + 2)
                where[old] = node
                if dest == T1:
                    b1 += 1
                else:
                    b2 += 1
        node_key[slot] = key
        where[key] = slot
        tag = T1 if g == 0 else T2
        _push_mru(prv, nxt, lst, c + tag - 1, slot, tag)
        if tag == T1:
            t1 += 1
        else:
            t2 += 1
    return hits


def _best(fn):
    fn()
    best, value = float("inf"), None
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t0)
    return value, best


def measure(steps=1_000_000, objects=100_000, capacity=1000, alpha=0.9, seed=0) -> list:
    """Rows ``{"name", "hits", "ns_per_request"}``; raises if the ARC hit counts differ."""
    req = zipf_requests(steps, objects, alpha, seed)
    trace = PagingTrace.from_requests(req)
    rows = []
    run(trace, "arc", capacity=capacity)  # compiles (or loads) the engine's loop
    res = [run(trace, "arc", capacity=capacity) for _ in range(REPEATS)]
    rows.append(("engine", int(res[0].summary()["hits"]), min(r.elapsed_s for r in res)))
    for name, ghosts in (("inlined", True), ("no ghosts", False)):
        hits, sec = _best(lambda g=ghosts: inlined_arc(req, objects, capacity, g))
        rows.append((name, int(hits), sec))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "trace.oracleGeneral")
        write_oracle_general(req, path)
        runs = [libcachesim_run(path, "arc", capacity, steps) for _ in range(REPEATS)]
    rows.append(("libCacheSim", runs[0][0], min(sec for _, sec in runs)))
    arc_hits = {name: hits for name, hits, _ in rows if name != "no ghosts"}
    if len(set(arc_hits.values())) != 1:
        raise RuntimeError(f"ARC hit counts differ: {arc_hits}")
    return [{"name": name, "hits": hits, "ns_per_request": sec / steps * 1e9}
            for name, hits, sec in rows]


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
