"""``semcache sweep``: a grid of runs on Dask, appended to a resumable Parquet store.

List options take comma-separated values: ``--policy fifo,solar``, ``--capacity 5,10,20``
(``none``: no count limit), ``--budget 64MiB,1GiB`` (``none``: no budget),
``--top-k``, ``--switch-cost``, ``--quality``, and ``--param topics=10,15`` (repeatable,
one key each; ``\\,`` is a literal comma inside a value).  ``--seeds`` takes integers
and inclusive ranges, ``0-4,10``.  A grid of more than
:data:`~simulator.experiments.sweep.checks.MAX_TASKS` (10⁶) runs is refused before any
work.  ``--workers 0`` runs in this process without Dask.
``--json`` prints ``{"path", "rows_total", "rows_written", "rows_skipped",
"duplicates_dropped", "chunks",
"workers", "scheduler", "cluster_start_s", "first_chunk_s", "median_chunk_s",
"elapsed_s"}``; the progress bar goes to stderr, and only when it is a terminal.
"""

from __future__ import annotations

import re

from simulator.cli import output as out
from simulator.cli.args import pairs
from simulator.errors import InputError


def _split(option: str, text: str) -> list:
    """``"a,b\\,c"`` → ``["a", "b,c"]``; an empty item or a repeated one is an error."""
    items = [s.strip().replace("\\,", ",") for s in re.split(r"(?<!\\),", text)]
    seen = set()  # not items.count: a list of n values must not take n² steps
    for item in items:
        if not item:
            raise InputError(f"{option} has an empty value in {text[:60]!r}; give values "
                             "like a,b,c")
        if item in seen:
            raise InputError(f"{option} gives '{item[:40]}' twice")
        seen.add(item)
    return items


def _number(option: str, item: str, kind):
    try:
        return kind(item)
    except ValueError:
        noun = "integers" if kind is int else "numbers"
        raise InputError(f"{option} expects {noun} separated by commas, got "
                         f"{item!r}") from None


def _numbers(option: str, text: str, kind) -> list:
    return [_number(option, item, kind) for item in _split(option, text)]


def seeds(text: str) -> list:
    """``"0-2,7"`` → ``[0, 1, 2, 7]``: integers in [0, 2**63 - 1] and inclusive ranges,
    each seed once, at most :data:`~simulator.experiments.sweep.checks.MAX_TASKS` in all.

    The count is summed from the ranges before any is expanded, and duplicates are found
    with a set, so any text is answered in time linear in what it names, or refused.

    >>> seeds("0-2,7")
    [0, 1, 2, 7]
    """
    from simulator.experiments.sweep.checks import MAX_SEED, MAX_TASKS

    ranges = []
    for item in _split("--seeds", text):
        match = re.fullmatch(r"(\d{1,30})(?:\s*-\s*(\d{1,30}))?", item)
        if match is None:
            raise InputError(f"--seeds expects integers >= 0 or ranges like 0-4, got "
                             f"{item[:40]!r}")
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) is not None else low
        if high < low:
            raise InputError(f"--seeds range '{item}' is empty (it must read low-high)")
        if high > MAX_SEED:
            raise InputError(f"--seeds: {high} is larger than 2**63 - 1; give smaller seeds")
        ranges.append((low, high))
    count = sum(high - low + 1 for low, high in ranges)
    if count > MAX_TASKS:
        raise InputError(f"--seeds names {count} seeds, more than a sweep takes "
                         f"({MAX_TASKS} runs); split it into several sweeps")
    found, seen = [], set()
    for low, high in ranges:
        for seed in range(low, high + 1):
            if seed in seen:
                raise InputError(f"--seeds gives seed {seed} twice")
            seen.add(seed)
            found.append(seed)
    return found


def grid_from(args):
    """The :class:`simulator.experiments.sweep.Grid` of the parsed options."""
    from simulator.experiments.sweep import Grid

    params = {key: _split(f"--param {key}", value) if value else []
              for key, value in pairs("--param", args.param).items()}
    return Grid(
        workload=args.workload, params=params, seeds=seeds(args.seeds),
        policies=None if args.policy is None else _split("--policy", args.policy),
        capacities=[None if c.lower() == "none" else _number("--capacity", c, int)
                    for c in _split("--capacity", args.capacity)],
        budgets=[None if b.lower() == "none" else b for b in _split("--budget", args.budget)],
        top_ks=_numbers("--top-k", args.top_k, int),
        switch_costs=_numbers("--switch-cost", args.switch_cost, float),
        qualities=_split("--quality", args.quality),
        policy_params=pairs("--policy-param", args.policy_param))


def cmd_sweep(args) -> int:
    from simulator.experiments.sweep import sweep

    out.check_given(args.out)
    result = sweep(grid_from(args), args.out, resume=args.resume, workers=args.workers,
                   scheduler=args.scheduler, progress=None)
    if args.json:
        out.emit_json(result.to_dict())
        return 0
    where = args.scheduler or ("this process" if args.workers == 0
                               else f"{result.workers} local workers")
    out.print_line(f"{result.path}: wrote {result.rows_written} rows, skipped "
                   f"{result.rows_skipped} already there ({result.rows_total} in the grid), "
                   + (f"dropped {result.duplicates_dropped} stored twice, "
                      if result.duplicates_dropped else "") +
                   f"{result.chunks} chunks on {where}, {result.elapsed_s:.1f} s")
    return 0


def add_arguments(p) -> None:
    """The arguments of ``semcache sweep`` on its parser ``p`` (its one-line help is
    in :data:`simulator.cli.commands.COMMANDS`)."""
    p.description = ("Run every combination of workload parameters, seeds, policies and model "
                     "options (docs/model.md §7) on a Dask cluster, appending one Parquet part "
                     "file per finished chunk.")
    p.add_argument("--workload", metavar="NAME", required=True, help="a registered workload")
    p.add_argument("--param", metavar="KEY=V1,V2", action="append", default=[],
                   help="workload parameter values (repeatable, one key each)")
    p.add_argument("--policy", metavar="A,B,C",
                   help="policies (default: every policy defined for the workload's mode)")
    p.add_argument("--policy-param", metavar="KEY=VALUE", action="append", default=[],
                   help="parameter passed to every selected policy (repeatable)")
    p.add_argument("--capacity", metavar="K1,K2", default="10",
                   help="count limits K >= 1 (none: no count limit, with a budget)")
    p.add_argument("--budget", metavar="B1,B2", default="none",
                   help="total sizes the cache may hold: integers, or with KiB, MiB, GiB "
                        "(none: no budget)")
    p.add_argument("--top-k", metavar="k1,k2", default="3", help="retrieval depths k >= 1")
    p.add_argument("--switch-cost", metavar="λ1,λ2", default="0",
                   help="costs λ >= 0 of one cache modification")
    p.add_argument("--quality", metavar="hit,precision,similarity", default="hit",
                   help="per-step quality measures")
    p.add_argument("--seeds", metavar="0-4,10", default="0",
                   help="seeds of workload and policies: integers and inclusive ranges")
    p.add_argument("--out", metavar="DIR", required=True,
                   help="the Parquet store: a directory of part files")
    p.add_argument("--resume", action="store_true",
                   help="continue the store at --out, skipping runs it already holds "
                        "(refused when the code or the files its rows were made with "
                        "changed since)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="use a running Dask scheduler instead of a local cluster")
    p.add_argument("--workers", metavar="N", type=int,
                   help="local Dask worker processes (default: one per core; 0: no Dask, "
                        "run in this process)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_sweep)
