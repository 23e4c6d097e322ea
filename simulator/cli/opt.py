"""``semcache opt``: the offline optimum of one trace or workload (docs/model.md §4, §7).

Takes the model options of ``semcache run`` and prints OPT's cost when it is exact, else
its bounds, the method used and the schedule (admissions and evictions per step, by item
key): optimal when exact, else the feasible schedule that achieves the upper bound.
``--json`` prints one object with ``opt_cost`` (null when not exact), ``exact``,
``lower_bound``, ``upper_bound``, ``method``, ``schedule``, the options and the
``workload`` record of ``semcache run``.  An instance too big for every exact method gets
bounds (:mod:`theory.opt_bounds`); ``--method bounds`` asks for them directly.

``--budget B`` limits the total size cached (docs/model.md §1.8; without ``--capacity``
there is then no count limit).  When every set of the items B can hold fits, B is a count
limit and every method is exact; when sizes bind, only ``--method items`` is exact and
beyond its limits the bounds of :mod:`theory.opt_sized` are printed, marked not exact.
The JSON adds ``budget``, ``count_limit`` and ``budget_binds``, and a step's
``schedule["evicted"]`` lists every key it evicted.  Without ``--budget`` a trace's sizes
play no part (the unit-size optimum is the optimum).  Paging traces are refused: Belady's
policy is their optimum with unit sizes (among schedules that admit every miss), and only
a heuristic with sizes (its docstring).

``--time-limit SECONDS`` stops starting new phases after SECONDS (wall clock): the result
is then the best certified bounds found so far (lower <= OPT <= upper, ``exact`` false
unless an exact method finished in time), and the JSON adds ``time_limit`` and
``stopped_early``; the phase under way at the limit finishes first
(:mod:`theory.opt_clock`).  The phases are named on stderr as they start when stderr is a
terminal, or always with ``--progress``; they never touch stdout.  ``--out FILE`` also
writes the JSON document to FILE, atomically.
"""

from __future__ import annotations

import math
import sys

from simulator.cli import args as cli_args
from simulator.cli import output as out
from simulator.cli.sources import source
from simulator.errors import InputError
from simulator.trace import Trace


def cmd_opt(args) -> int:
    from simulator.live_run import DEFAULT_CAPACITY, budget_value
    from simulator.runner import check_options
    from theory.opt import opt

    check_options(args.capacity, args.top_k, args.switch_cost, args.quality)
    cli_args.check_seed(args.seed)
    budget = budget_value(args.budget)
    if args.time_limit is not None and not (math.isfinite(args.time_limit)
                                            and args.time_limit > 0):
        raise InputError(f"--time-limit must be a number of seconds > 0, got "
                         f"{args.time_limit}")
    if args.out is not None:
        out.check_writable(args.out)
    trace, record = source(args)
    if not isinstance(trace, Trace):
        raise InputError("semcache opt needs a semantic trace; for a paging trace run the "
                         "'belady' policy (optimal with unit sizes when every miss is admitted; "
                         "with sizes a heuristic)")
    capacity = args.capacity
    if capacity is None and budget is None:
        capacity = DEFAULT_CAPACITY
    shown = args.progress or sys.stderr.isatty()
    with _Progress(sys.stderr if shown else None) as progress:
        result = opt(trace, capacity, args.top_k, args.switch_cost, args.quality,
                     method=args.method, budget=budget, time_limit=args.time_limit,
                     progress=progress)
    doc = {"workload": record, **result.to_dict()}
    if args.out is not None:
        out.write_atomic(args.out, out.to_json(doc))
    if args.json:
        out.emit_json(doc)
        return 0
    if result.exact:
        head = f"OPT = {result.opt_cost:g}, exact"
    else:
        head = f"OPT: bounds [{result.lower_bound:g}, {result.upper_bound:g}], not exact"
    limits = "no count limit" if capacity is None else f"K = {capacity}"
    if budget is not None:
        limits += f", budget B = {budget}"
    out.print_line(f"{head} (method {result.method}); "
                   f"{limits}, k = {args.top_k}, λ = {args.switch_cost:g}, "
                   f"quality {args.quality}, {trace.steps} steps")
    if budget is not None and not result.config["budget_binds"]:
        out.print_line(f"the budget acts as a count limit K = {result.config['count_limit']} "
                       "(every set of that many items fits)")
    elif budget is None and trace.sized:
        out.print_line("item sizes play no part without --budget")
    if result.config.get("stopped_early"):
        out.print_line(f"the time limit ({args.time_limit:g} s) cut the search short")
    if not result.exact:
        out.print_line("schedule achieving the upper bound:")
    sched = result.schedule
    for t, (a, ev) in enumerate(zip(sched["admitted"], sched["evicted"])):
        if a >= 0 or ev:
            admit = f"admit {a}" if a >= 0 else "no admission"
            gone = f", evict {', '.join(map(str, ev))}" if ev else ""
            out.print_line(f"  step {t}: {admit}{gone}")
    return 0


def add_parser(sub) -> None:
    """Register ``semcache opt`` on the subcommand set ``sub``."""
    p = sub.add_parser("opt", help="the offline optimum of one workload or trace file",
                       description="The offline optimum of docs/model.md §4 (min Σ ℓ_t + λ·N "
                                   "over all cache schedules): exact by min-cost flow or dynamic "
                                   "programming where one fits, else a certified lower bound "
                                   "and a feasible upper bound.")
    cli_args.add_source(p)
    cli_args.add_model(p)
    p.add_argument("--method", default="auto", metavar="auto|flow|topics|counts|items|bounds",
                   help="force one exact method, or bounds (default: the first exact method "
                        "that applies and fits, else bounds)")
    p.add_argument("--seed", type=int, default=0, help="workload seed")
    p.add_argument("--time-limit", metavar="SECONDS", type=float,
                   help="start no new phase after SECONDS and return the best certified "
                        "bounds found so far (exact false unless an exact method finished; "
                        "the phase under way finishes first)")
    p.add_argument("--progress", action="store_true",
                   help="name each phase on stderr as it starts (default: only when stderr "
                        "is a terminal)")
    p.add_argument("--out", metavar="FILE", help="also write the JSON to FILE (atomically)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_opt)


class _Progress:
    """The phases on ``stream``: rewritten in place on a terminal (and cleared at the end,
    so an error line that follows is alone), one line each elsewhere; None: silent."""

    def __init__(self, stream):
        self.stream = stream
        self.tty = stream is not None and stream.isatty()
        self.start = None

    def __enter__(self):
        import time

        self.clock = time.monotonic
        self.start = self.clock()
        return self if self.stream is not None else None

    def __call__(self, text: str) -> None:
        line = f"semcache opt: {self.clock() - self.start:6.1f} s  {text}"
        self.stream.write(f"\r\x1b[K{line}" if self.tty else line + "\n")
        self.stream.flush()

    def __exit__(self, *exc):
        if self.tty:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
        return False
