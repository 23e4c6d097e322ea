"""The ``semcache`` command line (SPEC §7).

``semcache run``            one workload or trace file, one or more policies
``semcache workload list``  the registered workloads and their parameters
``semcache workload make``  write a workload's trace to an ``.npz`` file
``semcache workload show``  a workload's parameters and measured statistics of its trace
``semcache opt``            the exact offline optimum of a trace (SPEC §4)
``semcache claims``         a verdict for every claim of the SOLAR paper
``semcache reproduce``      a table or figure of the SOLAR paper's synthetic experiments
``semcache bench``          measured speed against the reference implementations
``semcache delay-study``    hit rate as feedback is delayed or lost (SimPy engine)

With ``--json`` a command prints exactly one JSON object on stdout and nothing else.
Bad input of any kind (an option, a parameter, a trace file) ends the command with exit
code 2 and one line on stderr, ``semcache: error: ...``; Ctrl-C exits with 130.

``--seed`` seeds both the workload generator and the policies' random streams; with
``--trace`` it seeds the policies only.  Setting ``SEMCACHE_REPORT_CACHE=1`` adds
``compiled_from_cache`` to every run record: whether the compiled loop was loaded from
numba's on-disk cache rather than compiled in this process.
"""

from __future__ import annotations

import argparse
import os
import sys

from simulator import cli_output as out
from simulator import (cli_args, cli_claims, cli_delay, cli_opt, cli_reproduce, engine_fast,
                       policies, runner)
from simulator import cli_sweep
from simulator import cli_trace
from simulator.errors import InputError
from simulator.trace import PagingTrace, load, save

ENGINES = runner.ENGINES


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error becomes an InputError (one line, exit code 2)."""

    def error(self, message):
        command = self.prog.removeprefix("semcache").strip()
        raise InputError(f"{command}: {message}" if command else message)


def _pairs(option: str, items: list) -> dict:
    """``["a=1", "b=x"]`` → ``{"a": "1", "b": "x"}``; values are coerced later."""
    result = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"{option} expects KEY=VALUE, got {item!r}")
        if key in result:
            raise InputError(f"{option} gives '{key}' twice")
        result[key] = value.strip()
    return result


def _check_seed(seed: int) -> None:
    if seed < 0:
        raise InputError(f"--seed must be an integer >= 0, got {seed}")


def _check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise InputError(f"--engine must be one of: {', '.join(ENGINES)}; got {engine!r}")


def _mode(trace) -> str:
    return "paging" if isinstance(trace, PagingTrace) else "semantic"


def _describe(trace, source: dict) -> dict:
    source.update(mode=_mode(trace), steps=trace.steps)
    if isinstance(trace, PagingTrace):
        source.update(objects=trace.n_keys)
    else:
        source.update(dim=trace.dim, items=trace.n_keys)
    report = getattr(trace, "meta", {}).get("report")
    if report:  # a workload's own facts about its trace (locomo: data quirks, embeddings)
        source["report"] = report
    return source


def _generate(name: str, given: dict, seed: int):
    """Build a registered workload's trace and its JSON description."""
    import workloads  # imported here so `semcache --help` stays light

    workload = workloads.get(name)
    params = workload.resolve_params(given)
    trace = workload.make(params, seed)
    return trace, _describe(trace, {"name": workload.name, "params": params, "seed": seed})


def _source(args):
    """The trace of ``semcache run`` and the ``workload`` record of its JSON."""
    if args.trace is not None:
        if args.param:
            raise InputError("--param sets workload parameters; it cannot be used with --trace")
        trace = load(args.trace)
        return trace, _describe(trace, {"trace": args.trace})
    return _generate(args.workload, _pairs("--param", args.param), args.seed)


def _policy_names(text: str | None, mode: str) -> list:
    """The ``--policy`` list, or every registered policy defined in ``mode``."""
    if text is None:
        return [name for name, pol in policies.REGISTRY.items() if mode in pol.modes]
    names = [name.strip() for name in text.split(",")]
    for name in names:
        if not name:
            raise InputError(f"--policy has an empty name in {text!r}; give names like fifo,lru")
        if names.count(name) > 1:
            raise InputError(f"--policy names '{name}' twice")
        policies.get(name)
    return names


def _check_policies(names: list, mode: str, params: dict) -> None:
    """Every selected policy runs in ``mode`` and accepts every ``--policy-param``."""
    for name in names:
        pol = policies.get(name)
        if mode not in pol.modes:
            raise InputError(f"--policy {name}: not defined in {mode} mode; it runs in: "
                             + ", ".join(pol.modes))
        pol.resolve_params(params)


def _from_cache(name: str, mode: str, engine: str) -> bool:
    pol = policies.get(name)
    kernel = (engine_fast.steps_for(pol, mode) if engine == "simpy"
              else engine_fast.kernel_for(pol, mode))
    return sum(kernel.stats.cache_hits.values()) > 0


def cmd_run(args) -> int:
    runner.check_options(args.capacity, args.top_k, args.switch_cost, args.quality)
    _check_engine(args.engine)
    engine_options = runner.check_engine(args.engine, cli_delay.engine_options(args))
    _check_seed(args.seed)
    if args.out is not None:
        out.check_writable(args.out)
    pol_params = _pairs("--policy-param", args.policy_param)
    if args.policy is not None:
        _policy_names(args.policy, "semantic")  # names are checked before any work
    trace, source = _source(args)
    mode = _mode(trace)
    if args.paging and mode != "paging":
        raise InputError("--paging needs a paging trace (an .npz with a 'requests' array) or "
                         f"a paging workload; this one is {mode}")
    names = _policy_names(args.policy, mode)
    _check_policies(names, mode, pol_params)
    report_cache = os.environ.get("SEMCACHE_REPORT_CACHE", "") not in ("", "0")
    runs = []
    # A workload may suggest parameters (agent: warmup = its initial-memory prefix), given to
    # the policies that have them; --policy-param overrides.
    hints = getattr(trace, "meta", {}).get("policy_hints", {})
    for name in names:
        params = {k: v for k, v in hints.items() if k in policies.get(name).params}
        params.update(pol_params)
        result = runner.run(trace, name, capacity=args.capacity, top_k=args.top_k,
                            switch_cost=args.switch_cost, quality=args.quality,
                            seed=args.seed, params=params, engine=args.engine,
                            engine_options=engine_options)
        record = result.summary()
        if report_cache:
            record["compiled_from_cache"] = _from_cache(name, mode, args.engine)
        runs.append(record)
    doc = {"workload": source, "runs": runs}
    if args.out is not None:
        out.write_atomic(args.out, out.to_json(doc))
    if args.json:
        out.emit_json(doc)
    else:
        out.print_runs(doc)
    return 0


def cmd_workload_list(args) -> int:
    import workloads

    rows = [{"name": w.name, "summary": w.summary, "params": dict(w.params)}
            for w in workloads.REGISTRY.values()]
    if args.json:
        out.emit_json({"workloads": rows})
    else:
        out.print_workloads(rows)
    return 0


def cmd_workload_make(args) -> int:
    _check_seed(args.seed)
    out.check_writable(args.out)
    trace, source = _generate(args.name, _pairs("--param", args.param), args.seed)
    try:
        save(trace, args.out)
    except OSError as exc:
        raise InputError(f"cannot write --out '{args.out}': {exc.strerror}") from None
    if args.json:
        out.emit_json({"written": args.out, "workload": source})
    else:
        out.print_line(f"wrote {args.out}: {out.describe_source(source)}")
    return 0


def cmd_workload_show(args) -> int:
    from workloads.topic_space import trace_statistics

    _check_seed(args.seed)
    trace, source = _generate(args.name, _pairs("--param", args.param), args.seed)
    doc = {"workload": source, "statistics": trace_statistics(trace)}
    if args.json:
        out.emit_json(doc)
    else:
        out.print_line(out.describe_source(source))
        params = source["params"].items()
        out.print_line("parameters: " + ", ".join(f"{k}={v}" for k, v in params))
        for key, value in doc["statistics"].items():
            out.print_line(f"  {key:<36} {'—' if value is None else value}")
        for key, value in source.get("report", {}).items():
            out.print_line(f"{key}: {value}")
    return 0


def cmd_bench(args) -> int:
    from simulator import bench  # heavy (reference implementations); load only when asked

    rows = bench.run_all(quick=args.quick)
    if args.json:
        out.emit_json({"benchmarks": rows})
    else:
        out.print_benchmarks(rows, quick=args.quick)
    return 0


def _add_run(sub) -> None:
    p = sub.add_parser("run", help="run policies over one workload or trace file",
                       description="Run one or more policies over one workload or trace file "
                                   "(SPEC §1) and report the SPEC §7 counters.")
    cli_args.add_source(p)
    p.add_argument("--paging", action="store_true",
                   help="require a paging trace (object ids in 'requests')")
    p.add_argument("--policy", metavar="A,B,C",
                   help="policies to run (default: every policy defined for the trace's mode)")
    p.add_argument("--policy-param", metavar="KEY=VALUE", action="append", default=[],
                   help="parameter passed to every selected policy (repeatable)")
    cli_args.add_model(p)
    p.add_argument("--seed", type=int, default=0, help="seed of workload and policies")
    p.add_argument("--engine", default="fast", metavar="|".join(ENGINES), help="engine")
    cli_delay.add_engine_flags(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", metavar="FILE", help="also write the JSON to FILE (atomically)")
    p.set_defaults(func=cmd_run)


def _add_workload(sub) -> None:
    p = sub.add_parser("workload", help="list workloads, write one to a trace file, or show one")
    wsub = p.add_subparsers(dest="workload_command", metavar="{list,make,show}", required=True)
    lst = wsub.add_parser("list", help="the registered workloads and their parameters")
    lst.add_argument("--json", action="store_true", help="print one JSON object")
    lst.set_defaults(func=cmd_workload_list)
    mk = wsub.add_parser("make", help="write a workload's trace to an .npz file")
    mk.add_argument("name", metavar="NAME", help="a registered workload")
    mk.add_argument("--out", metavar="FILE", required=True, help="the .npz file to write")
    mk.add_argument("--param", metavar="KEY=VALUE", action="append", default=[],
                    help="workload parameter (repeatable)")
    mk.add_argument("--seed", type=int, default=0, help="workload seed")
    mk.add_argument("--json", action="store_true", help="print one JSON object")
    mk.set_defaults(func=cmd_workload_make)
    sh = wsub.add_parser("show", help="a workload's parameters and measured trace statistics")
    sh.add_argument("name", metavar="NAME", help="a registered workload")
    sh.add_argument("--param", metavar="KEY=VALUE", action="append", default=[],
                    help="workload parameter (repeatable)")
    sh.add_argument("--seed", type=int, default=0, help="workload seed")
    sh.add_argument("--json", action="store_true", help="print one JSON object")
    sh.set_defaults(func=cmd_workload_show)


def _add_bench(sub) -> None:
    p = sub.add_parser("bench", help="measure speed against reference implementations")
    p.add_argument("--quick", action="store_true", help="small inputs, for a smoke test")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_bench)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="semcache", description="Semantic-cache simulator (see README.md).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_run(sub)
    _add_workload(sub)
    _add_bench(sub)
    cli_delay.add_parser(sub)
    cli_opt.add_parser(sub)
    cli_claims.add_parser(sub)
    cli_sweep.add_parser(sub)
    cli_reproduce.add_parser(sub)
    cli_trace.add_parser(sub)
    return parser


def _error(message: str) -> int:
    sys.stderr.write("semcache: error: " + " ".join(str(message).split()) + "\n")
    return 2


def main(argv: list | None = None) -> int:
    """Run the command line; returns the exit code (0, 2 on bad input, 130 on Ctrl-C)."""
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help and --version exit through argparse
            return exc.code if isinstance(exc.code, int) else 0
        return args.func(args)
    except InputError as exc:
        return _error(str(exc))
    except KeyboardInterrupt:
        sys.stderr.write("semcache: interrupted\n")
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
