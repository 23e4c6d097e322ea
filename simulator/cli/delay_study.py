"""``semcache delay-study``: hit rate as feedback is delayed or lost (SimPy engine).

Runs :func:`simulator.experiments.delay_study.study` and prints a table (or, with
``--json``, its document); ``--plot FILE`` writes the PNG.
"""

from __future__ import annotations

import sys

from simulator.engine import memory_estimate
from simulator.cli import args as cli_args
from simulator.cli import output as out
from simulator.errors import InputError
from simulator.rng import MAX_SEED
from simulator.experiments import delay_study


def _numbers(flag: str, text: str) -> tuple:
    values = []
    for item in text.split(","):
        try:
            value = float(item)
        except ValueError:
            raise InputError(f"{flag} expects comma-separated numbers like 0,1,5; "
                             f"got {item.strip()!r}") from None
        values.append(int(value) if value.is_integer() and "." not in item else value)
    return tuple(values)


def _check_seeds(args) -> None:
    """``--seed`` and ``--seeds``: every seed in range, and one trace per seed in memory."""
    import workloads

    cli_args.check_seed(args.seed)
    if not 2 <= args.seeds <= MAX_SEED - args.seed + 1:
        raise InputError(f"--seeds must be an integer >= 2 (points are mean ± std over seeds) "
                         f"with --seed + --seeds - 1 <= 2**63 - 1, got {args.seeds}")
    wl = workloads.get(args.workload)
    given = dict(delay_study.WORKLOAD_PARAMS.get(args.workload, {}))
    if args.quick and "steps" in wl.params:
        given["steps"] = delay_study.QUICK_STEPS
    given.update(cli_args.pairs("--param", args.param))
    if wl.footprint is not None:  # the study keeps every seed's trace
        memory_estimate.require(args.seeds * wl.footprint(wl.resolve_params(given)),
                                f"--seeds {memory_estimate.power(args.seeds)}",
                                "traces (one per seed)")


def cmd_delay_study(args) -> int:
    args.capacity = cli_args.capacity(args)
    _check_seeds(args)
    if args.plot is not None:
        out.check_writable(args.plot, "--plot")
    names = None
    if args.policy is not None:
        names = [n.strip() for n in args.policy.split(",")]
        if not all(names):
            raise InputError(f"--policy has an empty name in {args.policy!r}; give names "
                             "like fifo,solar")
    doc = delay_study.study(
        workload=args.workload, params=cli_args.pairs("--param", args.param), policies=names,
        delays=_numbers("--delays", args.delays), losses=_numbers("--losses", args.losses),
        seeds=args.seeds, first_seed=args.seed, capacity=args.capacity, top_k=args.top_k,
        switch_cost=args.switch_cost, quality=args.quality,
        latency=0.0 if args.latency is None else args.latency,
        sessions=1 if args.sessions is None else args.sessions, quick=args.quick,
        budget=args.budget)
    doc["plot"] = args.plot
    if args.plot is not None:
        delay_study.plot(doc, args.plot)
    if args.json:
        out.emit_json(doc)
    else:
        _print(doc)
    return 0


def _print(doc: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=sys.stdout)
    if not console.is_terminal:  # a pipe or a file: no width to fit, keep rows on one line
        console = Console(file=sys.stdout, width=120)
    w, o = doc["workload"], doc["options"]
    console.print(f"workload {w['name']} ({', '.join(f'{k}={v}' for k, v in w['params'].items())})"
                  f", seeds {w['seeds'][0]}..{w['seeds'][-1]}; K = {o['capacity']}, "
                  f"k = {o['top_k']}, λ = {o['switch_cost']:g}, latency {o['latency']:g}, "
                  f"sessions {o['sessions']}; hit rate, mean ± std over seeds", soft_wrap=True)
    for sweep, title in (("feedback_delay", "feedback delay (steps), no loss"),
                         ("feedback_loss", "feedback loss probability, no delay")):
        table = Table(title=title)
        table.add_column("policy", no_wrap=True)
        for v in doc["sweeps"][sweep]["values"]:
            table.add_column(f"{v:g}", justify="right", no_wrap=True)
        for name in doc["policies"]:
            table.add_row(name, *(f"{r['hit_rate_mean']:.3f}±{r['hit_rate_std']:.3f}"
                                  for r in doc["rows"]
                                  if r["sweep"] == sweep and r["policy"] == name))
        console.print(table)
    if doc.get("plot"):
        console.print(f"wrote {doc['plot']}")


def add_arguments(p) -> None:
    """The arguments of ``semcache delay-study`` on its parser ``p`` (its one-line help is
    in :data:`simulator.cli.commands.COMMANDS`)."""
    p.description = ("Hit rate of each policy as feedback delay grows and as feedback loss grows, "
                     "on the SimPy engine, mean ± std over seeds.")
    p.add_argument("--workload", metavar="NAME", default=delay_study.WORKLOAD,
                   help=f"a semantic workload (default {delay_study.WORKLOAD}, "
                        "with steps=2000 topics=40)")
    p.add_argument("--param", metavar="KEY=VALUE", action="append", default=[],
                   help="workload parameter (repeatable)")
    p.add_argument("--policy", metavar="A,B,C",
                   help="policies (default: every policy defined in semantic mode)")
    cli_args.add_model(p, capacity=20)
    p.add_argument("--seeds", metavar="N", type=int, default=3,
                   help="seeds per point, N >= 2 (default 3)")
    p.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    p.add_argument("--delays", metavar="D,D,…", default=",".join(map(str, delay_study.DELAYS)),
                   help="feedback delays in steps (default 0,1,5,20,100)")
    p.add_argument("--losses", metavar="P,P,…", default=",".join(map(str, delay_study.LOSSES)),
                   help="feedback loss probabilities (default 0,0.1,0.3,0.5,0.9)")
    p.add_argument("--latency", metavar="X", type=float, default=None,
                   help="response latency in steps, fixed in both sweeps (default 0)")
    p.add_argument("--sessions", metavar="N", type=int, default=None,
                   help="sessions sharing the cache, fixed in both sweeps (default 1)")
    p.add_argument("--quick", action="store_true",
                   help=f"a {delay_study.QUICK_STEPS}-step trace, for CI")
    p.add_argument("--plot", metavar="FILE", help="write the plot as a PNG file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_delay_study)
