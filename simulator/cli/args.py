"""Options and option parsing shared by several ``semcache`` subcommands (docs/model.md §7)."""

from __future__ import annotations

import argparse
import re

from simulator.errors import InputError

# The SimPy engine's options as flags of `semcache run`; each defaults to "not given".
ENGINE_FLAGS = {"latency": "--latency", "feedback_delay": "--feedback-delay",
                "feedback_loss": "--feedback-loss", "sessions": "--sessions"}
_ENGINE_HELP = {
    "latency": "time from a query to the agent's response, in steps (simpy engine)",
    "feedback_delay": "time from the response to its feedback, in steps (simpy engine)",
    "feedback_loss": "probability that a step's feedback never arrives (simpy engine)",
    "sessions": "sessions sharing the cache; session j serves steps j, j+S, … (simpy engine)"}


# The flag that sets each Python parameter a library error can name (InputError.param).
FLAGS = {"capacity": "--capacity", "capacities": "--capacity", "top_k": "--top-k",
         "top_ks": "--top-k", "switch_cost": "--switch-cost", "switch_costs": "--switch-cost",
         "quality": "--quality", "qualities": "--quality", "engine": "--engine",
         "seed": "--seed", "first_seed": "--seed", "seeds": "--seeds", "method": "--method",
         "ids": "--only", "policies": "--policy", "params": "--param", "workload": "--workload",
         "workers": "--workers", "scheduler": "--scheduler", "out": "--out",
         "delays": "--delays", "losses": "--losses", "plot": "--plot", "trace": "--trace",
         "trace_format": "--trace-format", "trace_params": "--trace-param", "budget": "--budget",
         "budgets": "--budget", "chunk_requests": "--chunk-requests", "stream": "--stream",
         **ENGINE_FLAGS}


def flagged(error: InputError) -> str:
    """An error's message as the command line says it: the parameter it names, as its flag.

    >>> flagged(InputError("top_k must be an integer >= 1, got 0", "top_k"))
    '--top-k must be an integer >= 1, got 0'
    """
    text, param = str(error), error.param
    if getattr(error, "command_line", None):  # said otherwise on the command line
        return error.command_line
    if param in FLAGS and text.startswith(param):
        return FLAGS[param] + text[len(param):]
    return text


def add_source(p) -> None:
    """``--workload NAME`` or ``--trace FILE`` (exactly one), and repeatable ``--param``."""
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--workload", metavar="NAME", help="a registered workload")
    src.add_argument("--trace", metavar="FILE", help="a trace file: semcache's .npz, "
                     "libCacheSim's oracleGeneral, CSV or text, optionally .zst, or "
                     "agent-memory events (.jsonl, .parquet)")
    p.add_argument("--param", metavar="KEY=VALUE", action="append", default=[],
                   help="workload parameter (repeatable)")
    add_trace_format(p)


def add_trace_format(p) -> None:
    """How to read a trace file: ``--trace-format``, ``--trace-param``, ``--ignore-sizes``."""
    from simulator.trace_formats import FORMATS  # here: `semcache --help` reads no format

    p.add_argument("--trace-format", metavar="|".join((*FORMATS, "events")),
                   help="the trace file's format (default: from its name; events: "
                        "agent-memory events, JSONL, CSV or Parquet)")
    p.add_argument("--trace-param", metavar="KEY=VALUE", action="append", default=[],
                   help="a reader option, libCacheSim's names: obj-id-col, obj-size-col, "
                        "header, delimiter, obj-id-is-num; for events: model, sizes "
                        "(repeatable)")
    p.add_argument("--ignore-sizes", action="store_true",
                   help="every request size 1 (libCacheSim's --ignore-obj-size)")
    p.add_argument("--extra-fields", metavar="refuse|keep|ignore", default=None,
                   help="agent-memory events: a field that is no event field is refused "
                        "(the default), kept in the trace's meta, or ignored")


def trace_options(args) -> dict:
    """The reading options of ``--trace`` as ``trace_formats.load`` keywords (an empty
    ``--trace`` is refused here, where every reading of it starts)."""
    if getattr(args, "trace", None) == "":
        raise InputError("--trace is empty; give a path")
    params = pairs("--trace-param", args.trace_param)
    if args.extra_fields is not None:  # the events' trace parameter, as its own flag
        if "extra_fields" in params:
            raise InputError("--extra-fields and --trace-param extra_fields= are one option; "
                             "give it once")
        params["extra_fields"] = args.extra_fields
    return {"trace_format": args.trace_format, "trace_params": params,
            "ignore_sizes": args.ignore_sizes}


def add_model(p, capacity: int | None = None) -> None:
    """The model options (docs/model.md §1): ``--capacity``, ``--budget``, ``--top-k``,
    ``--switch-cost``, ``--quality``.  Without ``--capacity`` the count limit is 10, or
    none when ``--budget`` is given."""
    from simulator.engine.kernels import QUALITY_CODES  # here: `semcache --help` compiles nothing

    default = "10, or none with --budget" if capacity is None else capacity
    p.add_argument("--capacity", metavar="K", type=_capacity, default=capacity,
                   help=f"count limit K >= 1, or none: no count limit, with a --budget "
                        f"(default: {default})")
    p.add_argument("--budget", metavar="B", default=None,
                   help="total size the cache may hold, in the trace's size unit or with a "
                        "binary suffix: 4096, 128MiB, 1GiB (docs/model.md §1.8)")
    p.add_argument("--top-k", metavar="k", type=int, default=3, help="retrieval depth k >= 1")
    p.add_argument("--switch-cost", metavar="λ", type=float, default=0.0,
                   help="cost λ >= 0 of one cache modification")
    p.add_argument("--quality", default="hit", metavar="|".join(QUALITY_CODES),
                   help="per-step quality measure (default: hit)")


NO_COUNT_LIMIT = "none"  # --capacity none, told apart from "not given" until checked


def _capacity(text: str):
    """``--capacity``: an ASCII integer (checked later against its range) or ``none``."""
    text = text.strip()
    if text.lower() == NO_COUNT_LIMIT:
        return NO_COUNT_LIMIT
    if not re.fullmatch(r"-?[0-9]{1,30}", text):  # int() reads '٣' and '1_0' and more
        raise argparse.ArgumentTypeError(f"expects an integer K >= 1 or none, got "
                                         f"{text[:40]!r}")
    return int(text)


def capacity(args) -> int | None:
    """The count limit of ``--capacity``: an integer, or None for ``none`` (which needs a
    ``--budget``: a run needs some limit)."""
    if args.capacity != NO_COUNT_LIMIT:
        return args.capacity
    if args.budget is None:
        raise InputError("--capacity none (no count limit) needs a --budget; give one, or "
                         "a count limit K")
    return None


def add_engine_flags(p) -> None:
    """The SimPy engine's options (:data:`ENGINE_FLAGS`), each "not given" by default."""
    from simulator.engine.simpy import OPTIONS  # here: `semcache --help` imports no SimPy

    for name, flag in ENGINE_FLAGS.items():
        kind = int if name == "sessions" else float
        p.add_argument(flag, dest=name, type=kind, default=None,
                       metavar="N" if kind is int else "X",
                       help=f"{_ENGINE_HELP[name]}; default {OPTIONS[name]:g}")


def engine_options(args) -> dict:
    """The engine options given on the command line (for ``runner.run(engine_options=)``)."""
    return {name: getattr(args, name) for name in ENGINE_FLAGS
            if getattr(args, name) is not None}


def pairs(option: str, items: list) -> dict:
    """``["a=1", "b=x"]`` → ``{"a": "1", "b": "x"}``; values are coerced later.

    Blanks around a key or value are dropped, but a value of blanks only is kept as
    given: it is a value (a tab or space CSV ``delimiter``), not a blank.

    >>> pairs("--param", ["steps=10", "topics = 4", "delimiter= "])
    {'steps': '10', 'topics': '4', 'delimiter': ' '}
    """
    result = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"{option} expects KEY=VALUE, got {item!r}")
        if key in result:
            raise InputError(f"{option} gives '{key}' twice")
        result[key] = value.strip() or value
    return result


def named_policies(text: str) -> list:
    """The policies ``--policy`` names, looked up once: each name once, none empty, each
    registered."""
    from simulator import policies

    names = [name.strip() for name in text.split(",")]
    for name in names:
        if not name:
            raise InputError(f"--policy has an empty name in {text!r}; give names like fifo,lru")
        if names.count(name) > 1:
            raise InputError(f"--policy names '{name}' twice")
    return [policies.get(name) for name in names]


def policies_in(mode: str, selected: list | None = None) -> list:
    """``selected`` (from :func:`named_policies`), each defined in ``mode``, or every
    registered policy defined in ``mode`` when none were named."""
    from simulator import policies

    if selected is None:
        return [pol for pol in policies.REGISTRY.values() if mode in pol.modes]
    for pol in selected:
        if mode not in pol.modes:
            raise InputError(f"--policy {pol.name}: not defined in {mode} mode; it runs in: "
                             + ", ".join(pol.modes))
    return selected


def check_seed(seed: int, flag: str = "--seed") -> None:
    """``--seed`` is an integer in [0, 2**63 - 1] (:func:`simulator.rng.check_seed`)."""
    from simulator.rng import check_seed as check

    check(seed, flag)


class _Once(argparse.Action):
    """An option given at most once per command line (argparse would keep the last value)."""

    def seen(self, namespace) -> None:
        if getattr(self, "seen_in", None) is namespace:
            raise argparse.ArgumentError(self, "given twice; give it once")
        self.seen_in = namespace


class StoreOnce(_Once):
    """``action="store"``, once."""

    def __call__(self, parser, namespace, values, option_string=None):
        self.seen(namespace)
        setattr(namespace, self.dest, values)


class ConstOnce(_Once):
    """``action="store_const"`` (and the ``store_true``/``store_false`` shapes), once."""

    def __init__(self, option_strings, dest, const=None, default=None, required=False,
                 help=None):
        super().__init__(option_strings, dest, nargs=0, const=const, default=default,
                         required=required, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        self.seen(namespace)
        setattr(namespace, self.dest, self.const)


def register_single_options(parser) -> None:
    """Make ``parser``'s store-like options single-valued through argparse's public
    ``register``; ``append`` options (``--param``, ``--policy-param``, ``--trace-param``)
    still repeat."""
    parser.register("action", None, StoreOnce)
    parser.register("action", "store", StoreOnce)
    parser.register("action", "store_const", ConstOnce)
    parser.register("action", "store_true",
                    lambda *a, default=False, **k: ConstOnce(*a, const=True, default=default,
                                                             **k))
    parser.register("action", "store_false",
                    lambda *a, default=True, **k: ConstOnce(*a, const=False, default=default,
                                                            **k))
