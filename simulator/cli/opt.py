"""``semcache opt``: the offline optimum of one trace or workload (docs/model.md §4, §7).

Takes the model options of ``semcache run`` and prints OPT's cost when it is exact, else
its bounds, the method used and the schedule (admissions and evictions per step, by item
key): optimal when exact, else the feasible schedule that achieves the upper bound.
``--json`` prints one object with ``opt_cost`` (null when not exact), ``exact``,
``lower_bound``, ``upper_bound``, ``method``, ``schedule``, the options and the
``workload`` record of ``semcache run``.  An instance too big for every exact method gets
bounds (:mod:`theory.opt.bounds`); ``--method bounds`` asks for them directly.

``--budget B`` limits the total size cached (docs/model.md §1.8; without ``--capacity``
there is then no count limit).  When every set of the items B can hold fits, B is a count
limit and every method is exact; when sizes bind, only ``--method items`` is exact and
beyond its limits the bounds of :mod:`theory.opt.sized` are printed, marked not exact.
The JSON adds ``budget``, ``count_limit`` and ``budget_binds``, and a step's
``schedule["evicted"]`` lists every key it evicted.  Without ``--budget`` a trace's sizes
play no part (the unit-size optimum is the optimum).  Paging traces are refused: Belady's
policy is their optimum with unit sizes (among schedules that admit every miss), and only
a heuristic with sizes (its docstring).

``--time-limit SECONDS`` stops starting new phases after SECONDS (wall clock), the time
spent compiling the policies' loops included: the result is then the best certified bounds
found so far (lower <= OPT <= upper, ``exact`` false unless an exact method finished in
time), and the JSON adds ``time_limit``, ``stopped_early`` and ``not_tried`` (the upper
bound's candidates left out, :mod:`theory.opt.upper`); the phase under way at the limit
finishes first (:mod:`theory.opt.clock`).  The default is :data:`DEFAULT_TIME_LIMIT` (60 s;
``none``: no limit).  A forced exact ``--method`` is one phase, which no limit can cut: no
default applies to it, and a limit given is recorded but cuts nothing.  Before the work,
stderr says what will run (the exact methods to try, the bounds, the policies' loops the
upper bound would compile, the time limit), terminal or not; each phase is named as it
starts when stderr is a terminal, or always with ``--progress``.  Nothing of it touches
stdout.  ``--out FILE`` also writes the JSON document to FILE, atomically.
"""

from __future__ import annotations

import math
import sys

from simulator.cli import args as cli_args
from simulator.cli import output as out
from simulator.cli.sources import source
from simulator.errors import InputError
from simulator.trace import Trace

# Seconds.  Every exact method within its documented limits, and the certified bounds of a
# large instance with a warm kernel cache, take seconds; what runs longer is compiling the
# policies' loops for the upper bound (several seconds each, 24 policies, tried last) or a
# large LP, by when the flow or trivial lower bound and one schedule are already certified.
DEFAULT_TIME_LIMIT = 60.0


def time_limit(text: str | None, method: str) -> float | None:
    """``--time-limit`` as seconds, None for none; not given (``text`` None), the default,
    except for a forced exact method (one phase: no limit can cut it)."""
    from theory.opt import EXACT

    if text is None:
        return None if method in EXACT else DEFAULT_TIME_LIMIT
    if text.strip().lower() == "none":
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise InputError(f"--time-limit must be a number of seconds > 0, or none for no "
                         f"limit, got {text[:40]!r}")
    return seconds


def _limit_line(limit: float | None, given: bool, forced: bool) -> str:
    """The time limit, said before the work."""
    if forced:
        return ("no time limit applies to a forced method" if limit is None else
                f"--time-limit {limit:g} cannot cut a forced method")
    if limit is None:
        return "no time limit (--time-limit none): every phase runs"
    which = "" if given else " (the default; --time-limit none: no limit)"
    return f"time limit {limit:g} s{which}, then the best certified bounds found by then"


def cmd_opt(args) -> int:
    from simulator.run_options import DEFAULT_CAPACITY, RunOptions
    from theory.opt import opt_with

    capacity = cli_args.capacity(args)
    if capacity is None and args.budget is None:  # as a run of the same options has
        capacity = DEFAULT_CAPACITY
    # the seed is the workload's; OPT itself has none
    options = RunOptions.build(capacity=capacity, top_k=args.top_k,
                               switch_cost=args.switch_cost, quality=args.quality,
                               budget=args.budget, seed=args.seed)
    budget = options.budget
    limit = time_limit(args.time_limit, args.method)
    if args.out is not None:
        out.check_writable(args.out)
    trace, record = source(args)
    if not isinstance(trace, Trace):
        raise InputError("semcache opt needs a semantic trace; for a paging trace run the "
                         "'belady' policy (optimal with unit sizes when every miss is admitted; "
                         "with sizes a heuristic)")
    shown = args.progress or sys.stderr.isatty()
    forced = args.method not in ("auto", "bounds")
    limit_line = _limit_line(limit, args.time_limit is not None, forced)
    with _Progress(sys.stderr) as progress:
        result = opt_with(trace, options, method=args.method, time_limit=limit,
                          progress=progress if shown else None,
                          plan=lambda lines: progress.plan([*lines, limit_line]))
    doc = {"workload": record, **result.to_dict()}
    if args.out is not None:
        out.write_atomic(args.out, out.to_json(doc))
    if args.json:
        out.emit_json(doc)
        return 0
    if result.exact:
        head = f"OPT = {result.opt_cost:g}, exact"
    else:
        head = (f"OPT: bounds [{result.lower_bound:g}, {result.upper_bound:g}] (gap "
                f"{result.upper_bound - result.lower_bound:.3g}), not exact")
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
        skipped = result.config["not_tried"]
        which = f"; the upper bound's candidates not tried: {', '.join(skipped)}" \
            if skipped else ""
        out.print_line(f"the time limit ({limit:g} s) cut the search short{which} "
                       "(--time-limit none runs every phase)")
    if not result.exact:
        out.print_line("schedule achieving the upper bound:")
    sched = result.schedule
    for t, (a, ev) in enumerate(zip(sched["admitted"], sched["evicted"])):
        if a >= 0 or ev:
            admit = f"admit {a}" if a >= 0 else "no admission"
            gone = f", evict {', '.join(map(str, ev))}" if ev else ""
            out.print_line(f"  step {t}: {admit}{gone}")
    return 0


def add_arguments(p) -> None:
    """The arguments of ``semcache opt`` on its parser ``p`` (its one-line help is
    in :data:`simulator.cli.commands.COMMANDS`)."""
    p.description = ("The offline optimum of docs/model.md §4 (min Σ ℓ_t + λ·N over all cache "
                     "schedules): exact by min-cost flow or dynamic programming where one fits, "
                     "else a certified lower bound and a feasible upper bound.")
    cli_args.add_source(p)
    cli_args.add_model(p)
    p.add_argument("--method", default="auto", metavar="auto|flow|topics|counts|items|bounds",
                   help="force one exact method, or bounds (default: the first exact method "
                        "that applies and fits, else bounds)")
    p.add_argument("--seed", type=int, default=0, help="workload seed")
    p.add_argument("--time-limit", metavar="SECONDS|none",
                   help=f"start no new phase after SECONDS (compiling policies' loops "
                        f"included) and return the best certified "
                        f"bounds found so far (exact false unless an exact method finished; "
                        f"the phase under way finishes first); default "
                        f"{DEFAULT_TIME_LIMIT:g}, none: no limit; a forced exact --method "
                        f"runs to the end")
    p.add_argument("--progress", action="store_true",
                   help="name each phase on stderr as it starts (default: only when stderr "
                        "is a terminal)")
    p.add_argument("--out", metavar="FILE", help="also write the JSON to FILE (atomically)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_opt)


class _Progress:
    """What the command will run, then each phase as it starts (if called), on ``stream``.

    The plan stays, one line each; a phase is rewritten in place on a terminal (and
    cleared at the end, so an error line that follows is alone), one line each elsewhere.
    """

    def __init__(self, stream):
        self.stream = stream
        self.tty = stream.isatty()
        self.start = None

    def __enter__(self):
        import time

        self.clock = time.monotonic
        self.start = self.clock()
        return self

    def plan(self, lines: list) -> None:
        clear = "\r\x1b[K" if self.tty else ""
        self.stream.write(clear + "".join(f"semcache opt: {line}\n" for line in lines))
        self.stream.flush()

    def __call__(self, text: str) -> None:
        line = f"semcache opt: {self.clock() - self.start:6.1f} s  {text}"
        self.stream.write(f"\r\x1b[K{line}" if self.tty else line + "\n")
        self.stream.flush()

    def __exit__(self, *exc):
        if self.tty:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
        return False
