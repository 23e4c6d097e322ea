"""``semcache ratio``: one policy's cost against the offline optimum, and their ratio.

Runs ``--policy`` (a registered policy, or one of a ``--plugin``) on the trace of
``--workload``/``--param`` or ``--trace`` under the model options of ``semcache run``, and
prints the policy's cost, OPT and the ratio cost / OPT:

- a semantic trace: OPT of docs/model.md §4 (:func:`theory.opt.opt_with`), exact when a
  method finishes within ``--time-limit`` (default and ``none`` as ``semcache opt``), else
  its certified bounds [lower, upper], and then the ratio is the interval
  [cost / upper, cost / lower];
- a paging trace: Belady's MIN, the optimum among demand-paging schedules (every miss
  admitted), the OPT of the classical competitive-ratio theorems; a policy that skips
  admissions may cost less (a ratio below 1).  With sizes Belady is no optimum, so a
  sized paging trace (or ``--budget``) is refused: ``--ignore-sizes`` reads it unit-sized.

A ratio with OPT (or its lower bound) 0 follows :func:`theory.ratio.ratio_of`: 0/0 = 1 and
c/0 is infinite, printed ``inf`` and ``null`` in JSON.  ``--seed`` seeds the workload and
the policy.  ``--json`` prints one object: ``workload`` (as ``semcache run``), ``policy``,
``policy_params``, ``options`` (``capacity``, ``top_k``, ``switch_cost``, ``quality``,
``budget``, ``seed``), ``cost``, ``run`` (the policy's run record but ``elapsed_s``, so
the same seed prints the same document), ``opt`` (``cost``, null unless exact; ``exact``;
``lower_bound``; ``upper_bound``; ``method``; ``time_limit``) and ``ratio`` (``exact``;
``value``, null unless exact; ``lower``; ``upper``).
"""

from __future__ import annotations

import math

from simulator.cli import args as cli_args
from simulator.cli import output as out
from simulator.cli.opt import time_limit
from simulator.cli.sources import mode_of, source
from simulator.errors import InputError


def cmd_ratio(args) -> int:
    from simulator import policies
    from simulator.run_options import RunOptions
    from simulator.runner import run

    capacity = cli_args.capacity(args)
    if capacity is None and args.budget is None:
        raise InputError("--capacity K is required: the count limit the policy and OPT share")
    shared = RunOptions.build(capacity=capacity, top_k=args.top_k,
                              switch_cost=args.switch_cost, quality=args.quality,
                              budget=args.budget, seed=args.seed)
    limit = time_limit(args.time_limit, "auto")
    policy = policies.get(args.policy.strip())
    params = cli_args.pairs("--policy-param", args.policy_param)
    trace, record = source(args)
    mode = mode_of(trace)
    cli_args.policies_in(mode, [policy])
    options = shared.with_policy(policy, params)
    if mode == "paging":
        if shared.budget is not None or trace.sized:
            raise InputError("a paging ratio is against Belady's MIN, optimal with unit sizes "
                             "only: drop --budget, and read a sized trace with --ignore-sizes")
        summary = run(trace, options=options).summary()
        best = run(trace, options=shared.with_policy(policies.get("belady"), {})).summary()
        opt = dict(cost=best["cost"], exact=True, lower_bound=best["cost"],
                   upper_bound=best["cost"], method="belady (demand paging)",
                   time_limit=None)
    else:
        from theory.opt import opt_with

        summary = run(trace, options=options).summary()
        found = opt_with(trace, shared, time_limit=limit)
        upper = summary["cost"] if found.upper_bound is None else float(found.upper_bound)
        opt = dict(cost=float(found.opt_cost) if found.exact else None,
                   exact=bool(found.exact), lower_bound=float(found.lower_bound),
                   upper_bound=upper, method=found.method, time_limit=limit)
    doc = {"workload": record, "policy": policy.name, "policy_params": dict(options.params),
           "options": dict(capacity=shared.capacity, top_k=shared.top_k,
                           switch_cost=shared.switch_cost, quality=shared.quality,
                           budget=shared.budget, seed=shared.seed),
           # the run record but its wall-clock seconds: the same seed prints the same
           "cost": summary["cost"], "opt": opt,
           "run": {k: v for k, v in summary.items() if k != "elapsed_s"},
           "ratio": _ratio(summary["cost"], opt)}
    if args.json:
        out.emit_json(doc)
    else:
        _print(doc, trace.steps, mode)
    return 0


def _ratio(cost: float, opt: dict) -> dict:
    """The ratio, exact or as the interval its OPT bounds give (inf as None)."""
    from theory.ratio import ratio_of

    def finite(x):
        return None if math.isinf(x) else x

    low, high = ratio_of(cost, opt["upper_bound"]), ratio_of(cost, opt["lower_bound"])
    return dict(exact=opt["exact"], value=finite(high) if opt["exact"] else None,
                lower=finite(low), upper=finite(high))


def _print(doc: dict, steps: int, mode: str) -> None:
    o, opt, ratio = doc["options"], doc["opt"], doc["ratio"]
    limits = "no count limit" if o["capacity"] is None else f"K = {o['capacity']}"
    if o["budget"] is not None:
        limits += f", budget B = {o['budget']}"
    model = "" if mode == "paging" else f", k = {o['top_k']}, quality {o['quality']}"
    out.print_line(f"{doc['policy']} on a {mode} trace of {steps} steps: {limits}{model}, "
                   f"λ = {o['switch_cost']:g}")
    out.print_line(f"  cost   {doc['cost']:g}")
    if opt["exact"]:
        out.print_line(f"  OPT    {opt['cost']:g} (exact, {opt['method']})")
        out.print_line(f"  ratio  {_shown(ratio['value'])}")
    else:
        out.print_line(f"  OPT    in [{opt['lower_bound']:g}, {opt['upper_bound']:g}] "
                       f"(certified bounds, {opt['method']}; a larger --time-limit may make "
                       "it exact)")
        out.print_line(f"  ratio  in [{_shown(ratio['lower'])}, {_shown(ratio['upper'])}]")


def _shown(x) -> str:
    return "inf" if x is None else f"{x:.4g}"


def add_arguments(p) -> None:
    """The arguments of ``semcache ratio`` on its parser ``p`` (its one-line help is in
    :data:`simulator.cli.commands.COMMANDS`)."""
    from simulator.cli.opt import DEFAULT_TIME_LIMIT

    p.description = ("A policy's cost against the offline optimum (docs/model.md §4; Belady's "
                     "MIN on a paging trace) and their ratio, exact or as the interval "
                     "OPT's certified bounds give.")
    cli_args.add_source(p)
    p.add_argument("--policy", metavar="NAME", required=True, help="the policy to measure")
    p.add_argument("--policy-param", metavar="KEY=VALUE", action="append", default=[],
                   help="a parameter of the policy (repeatable)")
    cli_args.add_model(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the workload and the policy")
    p.add_argument("--time-limit", metavar="SECONDS|none",
                   help=f"OPT's time limit, as semcache opt's (default "
                        f"{DEFAULT_TIME_LIMIT:g}; none: no limit); past it, certified bounds")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_ratio)
