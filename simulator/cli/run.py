"""``semcache run``: one workload or trace file, one or more policies (docs/model.md §7).

``--seed`` seeds both the workload generator and the policies' random streams; with
``--trace`` it seeds the policies only.  Setting ``SEMCACHE_REPORT_CACHE=1`` adds
``compiled_from_cache`` to every run record: whether the compiled loop was loaded from
numba's on-disk cache rather than compiled in this process.  On a terminal, the policies
whose loops compile before their first run are named on stderr first.
"""

from __future__ import annotations

import os
import sys
import time

from simulator import runner
from simulator.engine import compile_marks
from simulator.engine import fast as engine_fast
from simulator.engine import memory_estimate
from simulator.cli import args as cli_args
from simulator.cli import output as out
from simulator.cli.sources import mode_of, source
from simulator.errors import InputError
from simulator.params import MAX_INT
from simulator.run_options import RunOptions


def _runs(shared, selected: list | None, mode: str, params: dict,
          hints: dict | None = None) -> list:
    """The options of each policy's run: ``shared`` with the policy and its parameters
    resolved once.  Every selected policy must run in ``mode`` and accept every
    ``--policy-param``; a workload's ``hints`` go to the policies that have them (agent:
    warmup = its initial-memory prefix), ``--policy-param`` overriding."""
    runs = []
    for pol in cli_args.policies_in(mode, selected):
        given = {k: v for k, v in (hints or {}).items() if k in pol.params} | params
        runs.append(shared.with_policy(pol, given))
    return runs


def cmd_run(args) -> int:
    args.capacity = cli_args.capacity(args)
    shared = RunOptions.build(capacity=args.capacity, top_k=args.top_k,
                              switch_cost=args.switch_cost, quality=args.quality,
                              budget=args.budget, seed=args.seed)
    engine_options = runner.check_engine(args.engine, cli_args.engine_options(args))
    if args.out is not None:
        out.check_writable(args.out)
    pol_params = cli_args.pairs("--policy-param", args.policy_param)
    selected = None if args.policy is None else cli_args.named_policies(args.policy)
    if args.stream:
        doc = _streamed(args, shared, selected, pol_params)
        return _report(args, doc)
    trace, record = source(args)
    mode = mode_of(trace)
    if args.paging and mode != "paging":
        raise InputError("--paging needs a paging trace (an .npz with a 'requests' array) or "
                         f"a paging workload; this one is {mode}")
    runs = _runs(shared, selected, mode, pol_params,
                 getattr(trace, "meta", {}).get("policy_hints", {}))
    for options in runs:  # every run fits in memory, checked for all before the first runs
        memory_estimate.check_run(trace, options)
    report_cache = os.environ.get("SEMCACHE_REPORT_CACHE", "") not in ("", "0")
    sized = shared.budget is not None or trace.sized
    first = _announce_compiling([options.policy for options in runs], mode, sized)
    records = []
    for options in runs:
        said = _compiling(options.policy.name, mode, first)
        try:
            result = runner.run(trace, options=options, engine=args.engine,
                                engine_options=engine_options)
        finally:  # the line ends, with the first run's seconds (mostly its compilation)
            if said is not None:
                print(f"{time.perf_counter() - said:.1f} s", file=sys.stderr, flush=True)
        summary = result.summary()
        compile_marks.remember(options.policy, mode, sized)
        if report_cache:
            summary["compiled_from_cache"] = engine_fast.loaded_from_disk(
                options.policy, mode, sized)
        records.append(summary)
    return _report(args, {"workload": record, "runs": records})


def _announce_compiling(pols: list, mode: str, sized: bool) -> list:
    """Say on a terminal which policies compile before their first run (silence for that
    long reads as a hang); `semcache compile` does it ahead of time.  Their names, if said."""
    first = compile_marks.to_compile(pols, mode, sized)
    if not (first and sys.stderr.isatty()):
        return []
    print(f"semcache: compiling {', '.join(first)} (first run only; `semcache compile` "
          "does it ahead)", file=sys.stderr, flush=True)
    return first


def _compiling(name: str, mode: str, first: list) -> float | None:
    """Start the line of a policy that compiles now (:func:`_announce_compiling`), ended by
    its seconds; the clock's start, or None when nothing is said."""
    if name not in first:
        return None
    print(f"semcache: compiling {name} ({mode})… ", end="", file=sys.stderr, flush=True)
    return time.perf_counter()


def _report(args, doc: dict) -> int:
    if args.out is not None:
        out.write_atomic(args.out, out.to_json(doc))
    if args.json:
        out.emit_json(doc)
    else:
        out.print_runs(doc)
    return 0


def _streamed(args, shared, selected: list | None, pol_params: dict) -> dict:
    """``--stream``: the trace file read in chunks (:mod:`simulator.stream_run`)."""
    from simulator.stream_run import stream_with

    from workloads.data.event_files import refuse_misnamed
    from workloads.data.events import recognised

    if args.trace is not None:
        refuse_misnamed(args.trace, args.trace_format)
    if (args.trace is None or args.trace.endswith(".npz")
            or recognised(args.trace, args.trace_format)):
        raise InputError("--stream reads a trace file in one of libCacheSim's formats "
                         "(--trace F.oracleGeneral, .csv, .txt, .zst); an .npz, agent-memory "
                         "events or a workload is read whole (drop --stream)", "stream")
    if args.engine != "fast":
        raise InputError("--stream runs on the fast engine; drop --engine", "engine")
    if args.chunk_requests > MAX_INT:  # a chunk never holds more requests than the file
        raise InputError(f"--chunk-requests must be an integer >= 1 and <= 2**53, got "
                         f"{args.chunk_requests}")
    streamed = stream_with(args.trace, _runs(shared, selected, "paging", pol_params),
                           chunk_requests=args.chunk_requests, **cli_args.trace_options(args))
    tr = streamed.trace
    record = {"trace": args.trace, "format": tr.format, "sized": tr.sized, "streamed": True,
              "mode": "paging", "steps": tr.steps, "objects": tr.objects}
    return {"workload": record, "runs": [r.summary() for r in streamed.runs]}


def add_arguments(p) -> None:
    """The arguments of ``semcache run`` on its parser ``p`` (its one-line help is
    in :data:`simulator.cli.commands.COMMANDS`)."""
    p.description = ("Run one or more policies over one workload or trace file (docs/model.md §1) "
                     "and report their run records (§7.2).")
    cli_args.add_source(p)
    p.add_argument("--paging", action="store_true",
                   help="require a paging trace (object ids in 'requests')")
    p.add_argument("--policy", metavar="A,B,C",
                   help="policies to run (default: every policy defined for the trace's mode)")
    p.add_argument("--policy-param", metavar="KEY=VALUE", action="append", default=[],
                   help="parameter passed to every selected policy (repeatable)")
    cli_args.add_model(p)
    p.add_argument("--seed", type=int, default=0, help="seed of workload and policies")
    p.add_argument("--engine", default="fast", metavar="|".join(runner.ENGINES), help="engine")
    cli_args.add_engine_flags(p)
    p.add_argument("--stream", action="store_true",
                   help="read --trace in chunks (any length; offline policies excluded)")
    p.add_argument("--chunk-requests", type=int, default=1 << 20, metavar="N",
                   help="requests a chunk with --stream (default 1048576)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", metavar="FILE", help="also write the JSON to FILE (atomically)")
    p.set_defaults(func=cmd_run)
