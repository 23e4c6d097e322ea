"""Paging ARC three ways: ARC's own loop, the engine's hook loop, and libCacheSim's ARC.

    .venv/bin/python scripts/arc_loops.py [--steps 1000000] [--objects 100000]
        [--capacity 1000] [--alpha 0.9] [--seed 0] [--json]

``semcache bench`` asks paging ARC for 5× libCacheSim's rate, and ``run(trace, "arc")``
reaches it through ARC's own whole-trace loop (``Policy.paging_loop``,
:mod:`simulator.policies.parts.arc_paging_loop`).  This script shows what that loop buys
over the hook loop that every other policy runs in, on the benchmark's trace:

* ``own loop``: ``run(trace, "arc")`` (the engine's time, ``elapsed_s``);
* ``hook loop``: the engine's paging step function with ARC's hooks inlined, over the
  whole trace (``LiveRun.step(0, T)``), which the SimPy engine runs a request at a time;
* ``libCacheSim``: ``libcachesim.ARC`` reading the trace from an oracleGeneral file.

Each timing is the best of seven rounds in which the three loops take turns, after a
compiling run.  The script checks that the three count the same hits, and prints the
time per request that 5× libCacheSim needs.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time


from simulator.experiments.bench import libcachesim_run, write_oracle_general
from simulator.live_run import LiveRun
from simulator.runner import run
from simulator.trace import PagingTrace
from workloads.zipf_paging import zipf_requests

REPEATS = 7


def hook_loop(trace, capacity):
    """``(hits, seconds)`` of the engine's hook loop with ARC's hooks."""
    live = LiveRun(trace, "arc", capacity=capacity)
    live.compile()
    t0 = time.perf_counter()
    live.step(0, trace.steps)
    return live.hits, time.perf_counter() - t0


def measure(steps=1_000_000, objects=100_000, capacity=1000, alpha=0.9, seed=0) -> list:
    """Rows ``{"name", "hits", "ns_per_request"}``; raises if the hit counts differ.

    Every loop runs once untimed (compiling), then the three take turns for ``REPEATS``
    rounds and each keeps its best time, so that a burst of host load slows all of them.
    """
    req = zipf_requests(steps, objects, alpha, seed)
    trace = PagingTrace.from_requests(req)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "trace.oracleGeneral")
        write_oracle_general(req, path)

        def own():
            result = run(trace, "arc", capacity=capacity)
            return int(result.summary()["hits"]), result.elapsed_s

        loops = {"own loop": own,
                 "hook loop": lambda: hook_loop(trace, capacity),
                 "libCacheSim": lambda: libcachesim_run(path, "arc", capacity, steps)}
        hits = {name: loop()[0] for name, loop in loops.items()}
        best = dict.fromkeys(loops, float("inf"))
        for _ in range(REPEATS):
            for name, loop in loops.items():
                best[name] = min(best[name], loop()[1])
    if len(set(hits.values())) != 1:
        raise RuntimeError(f"ARC hit counts differ: {hits}")
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
