"""``semcache search``: the worst case of a policy against the exact optimum, found by
:func:`theory.search.worst_case`, shrunk, grown, saved and replayable (docs/search.md).

Prints the best (shrunk) instance's score, steps and replay commands, the grown family's
verdict ("bounded" with its fitted limit, or "grows") and the evaluations and their rate;
``--json`` prints ``{"best": {"score", "steps", "reproduce", …}, "grown": {"verdict",
"limit", "scores", …}, "evaluations", "evaluations_per_s", …}``.  With several
capacities (``--capacity 2,3,4,5``) it searches at each and fits the grown limits on K
(:func:`theory.search.across_capacity`); ``--json`` then prints ``{"capacities": [...],
"limit_fit": {"slope", "intercept", "capacities"}}``.  While a terminal watches, a
progress bar runs on stderr.
"""

from __future__ import annotations

import argparse
import sys

from simulator.cli import args as cli_args
from simulator.cli import output as out
from simulator.errors import InputError

FLAGS = {"c": "--c", "policy": "--policy", "exhaustive_below": "--exhaustive-below",
         "pages": "--pages", "topics": "--topics", "max_steps": "--max-steps",
         "min_steps": "--max-steps"}


def cmd_search(args) -> int:
    from theory.search import across_capacity, worst_case

    check_c = args.c if args.score == "excess" or args.c is not None else None
    cli_args.check_seed(args.seed)
    capacities = _capacities(args.capacity)
    out.check_folder(args.out)
    given = dict(
        mode=args.mode, top_k=args.top_k, switch_cost=args.switch_cost,
        params=cli_args.pairs("--param", args.param), score=args.score, c=check_c,
        budget=args.budget, seed=args.seed, exhaustive_below=args.exhaustive_below,
        engine=args.engine, progress=True if sys.stderr.isatty() and not args.json else None,
        out_dir=args.out, pages=args.pages, topics=args.topics, max_steps=args.max_steps)
    try:
        if len(capacities) == 1:
            docs = [worst_case(args.policy, capacity=capacities[0], grow=args.grow,
                               **given).to_dict()]
            fit = None
        else:
            if not args.grow:
                raise InputError("--no-grow: several capacities are compared by their grown "
                                 "limits; give one --capacity, or grow")
            scaled = across_capacity(args.policy, capacities, **given)
            docs, fit = [r.to_dict() for r in scaled["results"]], scaled["limit_fit"]
    except InputError as exc:
        raise InputError(_flagged(exc)) from None
    if args.json:
        out.emit_json(docs[0] if len(docs) == 1 else {"capacities": docs, "limit_fit": fit})
        return 0
    for doc in docs:
        _print(doc)
    if fit is not None:
        out.print_line(f"grown limits on K ({', '.join(map(str, fit['capacities']))}): "
                       f"{fit['slope']:.3f}·K {fit['intercept']:+.3f}")
    return 0


def _capacities(text: str) -> list:
    """``--capacity 3`` or ``--capacity 2,3,4,5``: distinct integers >= 1."""
    parts = [p.strip() for p in str(text).split(",")]
    if not all(p.isdigit() and int(p) >= 1 for p in parts) or len(set(parts)) < len(parts):
        raise InputError(f"--capacity must be an integer >= 1 or distinct ones separated by "
                         f"commas (2,3,4,5), got {text!r}")
    return [int(p) for p in parts]


def _flagged(exc: InputError) -> str:
    """The error with the parameter it names written as this command's flag."""
    text, param = str(exc), exc.param
    if param in FLAGS and text.startswith(param):
        return FLAGS[param] + text[len(param):]
    return cli_args.flagged(exc)


def _print(doc: dict) -> None:
    best, grown = doc["best"], doc["grown"]
    what = "cost/OPT" if doc["score"] == "ratio" else doc["score"]
    out.print_line(f"{doc['policy']} ({doc['mode']}, {_options(doc['options'])}): worst "
                   f"{what} {best['score']:.6g} on {best['steps']} steps (cost "
                   f"{best['cost']:g}, OPT {best['opt']:g}; before shrinking "
                   f"{best['found']['score']:.6g} on {best['found']['steps']})")
    if grown is not None:
        tail = (f"fitted limit {grown['limit']:.6g}" if grown["verdict"] == "bounded"
                else "no sign of a limit")
        out.print_line(f"grown: block {tuple(grown['block'])} repeated "
                       f"{grown['repeats'][0]}…{grown['repeats'][-1]} times: {what} "
                       f"{grown['scores'][0]:.6g} → {grown['scores'][-1]:.6g}, "
                       f"{grown['verdict']} ({tail})")
    out.print_line(f"{doc['evaluations']} evaluations by {doc['engine']} (seed "
                   f"{doc['seed']}), {doc['evaluations_per_s']:.0f} per second; "
                   f"{doc['evaluations_total']} with shrinking and growing")
    for line in best["reproduce"] + (grown or {}).get("reproduce", []):
        out.print_line(f"  {line}")


def _options(options: dict) -> str:
    names = {"capacity": "K", "top_k": "k", "switch_cost": "λ"}
    return ", ".join(f"{names[k]} = {v:g}" for k, v in options.items() if k in names)


def add_arguments(p) -> None:
    """The arguments of ``semcache search`` on its parser ``p`` (its one-line help is in
    :data:`simulator.cli.commands.COMMANDS`)."""
    p.add_argument("--policy", required=True, help="a registered policy (or a plugin's)")
    p.add_argument("--mode", choices=("paging", "semantic"), default="paging",
                   help="paging: against Belady; semantic: against the exact OPT")
    p.add_argument("--capacity", required=True,
                   help="K, or several (2,3,4,5): one search each, and their grown limits "
                        "fitted on K")
    p.add_argument("--top-k", type=int, default=1, help="k (semantic)")
    p.add_argument("--switch-cost", type=float, default=0.0, help="λ (semantic)")
    p.add_argument("--param", metavar="NAME=VALUE", action="append", default=[],
                   help="a policy parameter (repeatable), e.g. tau=1.0")
    p.add_argument("--score", choices=("ratio", "excess"), default="ratio",
                   help="cost/OPT, or cost − c·OPT")
    p.add_argument("--c", type=float, default=None, help="the c of --score excess")
    p.add_argument("--grow", action=argparse.BooleanOptionalAction, default=True,
                   help="grow the worst case by block repetition (default; --no-grow: not)")
    p.add_argument("--budget", type=int, default=2000, help="evaluations of the engine")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--engine", choices=("anneal", "hypothesis", "random"), default="anneal")
    p.add_argument("--exhaustive-below", type=int, default=0,
                   help="first score every instance shorter than this")
    p.add_argument("--pages", type=int, default=None, help="pages (paging; default K + 1)")
    p.add_argument("--topics", type=int, default=None,
                   help="topics (semantic; default K + 1)")
    p.add_argument("--max-steps", type=int, default=None,
                   help="longest candidate (default 6(K + 1) paging, 12 semantic)")
    p.add_argument("--out", default="search-out",
                   help="folder for the best and the grown instance (default search-out)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_search)

