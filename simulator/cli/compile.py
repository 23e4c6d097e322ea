"""``semcache compile``: compile policies' loops into numba's disk cache, in parallel.

``semcache compile [--policy A,B] [--mode semantic|paging] [--sized] [--jobs N] [--json]``
runs each selected policy once on a tiny trace of each mode it is defined in (or of
``--mode``), ``--jobs`` processes at a time (default: one a core), so that every later
process loads the loops from disk instead of compiling them (numba compiles a loop at its
first call: about five seconds a policy and mode).  ``make`` runs it for the demo's
policies while it installs, so the first ``make demo`` prints its table within seconds.
``--sized`` compiles the copies that track sizes and a budget (docs/model.md §1.8).
Says on stderr each loop as it is done (``semcache: compiling fifo (semantic)… 12.3 s``)
and prints how many are ready (``--json``: ``{"compiled": [{"policy", "mode", "sized",
"from_cache", "seconds"}], "jobs", "seconds"}``).
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import sys
import time

from simulator import policies
from simulator.cli import args as cli_args
from simulator.cli import output as out
from simulator.errors import InputError

MODES = ("semantic", "paging")


def _tiny_trace(mode: str):
    import numpy as np

    from simulator.trace import PagingTrace, Trace

    if mode == "paging":
        return PagingTrace.from_requests([0, 1, 2, 0, 1, 3, 0])
    eye = np.eye(3, dtype=np.float32)
    picks = [0, 1, 2, 0, 1, 2, 0]
    return Trace.from_arrays(queries=eye[picks], items=eye[picks[1:] + [1]],
                             query_topics=np.array(picks), item_topics=np.array(picks[1:] + [1]))


def compile_one(name: str, mode: str, sized: bool, plugin_specs: list) -> dict:
    """Run ``name`` once on a tiny trace of ``mode`` (in a worker process) and note its
    loops as cached (:mod:`simulator.engine.compile_marks`)."""
    from simulator import runner
    from simulator.engine import compile_marks
    from simulator.engine import fast as engine_fast
    from simulator.experiments import plugins

    plugins.ensure(plugin_specs)
    policy = policies.get(name)
    start = time.perf_counter()
    runner.run(_tiny_trace(mode), policy, capacity=2, top_k=1, budget=2 if sized else None)
    compile_marks.remember(policy, mode, sized)
    return {"policy": name, "mode": mode, "sized": sized,
            "from_cache": engine_fast.loaded_from_disk(policy, mode, sized),
            "seconds": round(time.perf_counter() - start, 2)}


def _tasks(args) -> list:
    """``(policy, mode)`` pairs: ``--policy`` checked as ``semcache run`` checks it."""
    named = cli_args.named_policies(args.policy) if args.policy else None
    if args.mode:
        return [(pol.name, args.mode) for pol in cli_args.policies_in(args.mode, named)]
    return [(pol.name, mode) for pol in (named or policies.REGISTRY.values())
            for mode in pol.modes]


def cmd_compile(args) -> int:
    from simulator.experiments import plugins

    if args.jobs is not None and args.jobs < 1:
        raise InputError(f"--jobs must be an integer >= 1, got {args.jobs}", "jobs")
    tasks = _tasks(args)
    jobs = min(args.jobs or os.cpu_count() or 1, len(tasks)) or 1
    start = time.perf_counter()
    names = ", ".join(dict.fromkeys(n for n, _ in tasks))
    print(f"semcache: compiling {len(tasks)} loop{'s' if len(tasks) > 1 else ''} ({names}) on "
          f"{jobs} process{'es' if jobs > 1 else ''}", file=sys.stderr, flush=True)
    # fresh interpreters: a forked numba is not safe, and each worker loads the plugins
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
        futures = [pool.submit(compile_one, name, mode, args.sized, plugins.loaded())
                   for name, mode in tasks]
        for future in concurrent.futures.as_completed(futures):  # each loop as it is done
            _said(future.result())
        done = [f.result() for f in futures]
    doc = {"compiled": done, "jobs": jobs, "seconds": round(time.perf_counter() - start, 2)}
    if args.json:
        out.emit_json(doc)
    else:
        loaded = sum(row["from_cache"] for row in done)
        out.print_line(f"{len(done)} loop{'s' if len(done) > 1 else ''} ready in "
                       f"{doc['seconds']:.1f} s ({len(done) - loaded} compiled, {loaded} "
                       "loaded from the disk cache)")
    return 0


def _said(row: dict) -> None:
    """One line on stderr for a loop just done: a long compilation is seen to move."""
    what = f"{row['policy']} ({row['mode']}{', sized' if row['sized'] else ''})"
    how = f"loading {what} from the disk cache" if row["from_cache"] else f"compiling {what}"
    print(f"semcache: {how}… {row['seconds']:.1f} s", file=sys.stderr, flush=True)


def add_arguments(p) -> None:
    """The arguments of ``semcache compile`` on its parser ``p`` (its one-line help is
    in :data:`simulator.cli.commands.COMMANDS`)."""
    p.description = ("Compile each policy's loops once, in parallel, into numba's disk cache, so "
                     "later runs load them.")
    p.add_argument("--policy", metavar="A,B,C",
                   help="policies (default: every registered policy)")
    p.add_argument("--mode", choices=MODES, default=None,
                   help="only this mode (default: every mode a policy is defined in)")
    p.add_argument("--sized", action="store_true",
                   help="the copies that track sizes and a budget")
    p.add_argument("--jobs", metavar="N", type=int, default=None,
                   help="processes at a time (default: one a core)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_compile)
