"""``semcache bench``: measured speed against reference implementations, as ratios.

Runs :func:`simulator.experiments.bench.run_all` and prints one row per benchmark (or, with
``--json``, ``{"benchmarks": [...]}``); ``--quick`` is a smoke run on small traces.
"""

from __future__ import annotations

from simulator.cli import output as out


def cmd_bench(args) -> int:
    from simulator.experiments import bench  # heavy (reference implementations): on demand

    rows = bench.run_all(quick=args.quick)
    if args.json:
        out.emit_json({"benchmarks": rows})
    else:
        out.print_benchmarks(rows, quick=args.quick)
    return 0


def add_arguments(p) -> None:
    """The arguments of ``semcache bench`` on its parser ``p`` (its one-line help is
    in :data:`simulator.cli.commands.COMMANDS`)."""
    p.add_argument("--quick", action="store_true", help="small inputs, for a smoke test")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_bench)
