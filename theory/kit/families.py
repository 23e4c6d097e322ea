"""Instance families: the instances a claim quantifies over (:mod:`theory.kit`).

A family (:class:`~theory.kit.family.Family`) is a named, finite, reproducible list of
:class:`simulator.instance.Instance` with the basis it supports (docs/claims.md): a grid,
a sample or saved traces are a ``search``; :func:`exhaustive` enumerates every instance
of a declared tiny space (:mod:`theory.kit.exhaustive`), the one source of the
``exhaustive`` basis.  A ``Family(..., kind="exhaustive")`` built by hand is its author's
declaration, reported as such (basis ``declared``; docs/extending.md, a claim).

Examples
--------
>>> fam = grid("cycling", params={"topics": lambda K: K + 1, "items_per_topic": 1, "dim": 8},
...            capacity=[1, 2], steps=[6])
>>> [(i.options["capacity"], i.labels["params"]["topics"]) for i in fam]
[(1, 2), (2, 3)]
>>> fam.kind
'search'
>>> every = exhaustive("paging", length=3, pages=2, capacity=[1])
>>> len(every), every.kind
(7, 'exhaustive')
"""

from __future__ import annotations

import itertools
import os

from simulator.errors import InputError
from simulator.instance import Instance
from theory.kit.exhaustive import Enumeration, exhaustive, exhaustive_count
from theory.kit.family import KINDS, Family, as_family
from theory.kit.user_code import shown

__all__ = ["KINDS", "Enumeration", "Family", "as_family", "exhaustive", "exhaustive_count",
           "grid", "sample", "saved"]


def _values(v):
    return list(v) if isinstance(v, (list, tuple, range)) else [v]


def grid(workload: str, params: dict | None = None, capacity=(10,), top_k=(3,),
         switch_cost=(0.0,), steps=(None,), quality=("hit",), seeds=(0,)) -> Family:
    """Every combination of the given values, one trace of ``workload`` each.

    A parameter in ``params`` may be a list (one more axis of the grid) or a function of K
    (``topics=lambda K: K + 1``); ``steps`` sets the workload's ``steps`` parameter.  Each
    combination of run options is checked as :func:`simulator.run` checks them, before any
    trace is made.
    """
    import workloads
    from simulator.run_options import RunOptions

    try:
        w = workloads.get(workload)
    except InputError as exc:
        raise InputError(f"grid: {exc}", "workload") from None
    if params is not None and not isinstance(params, dict):
        raise InputError(f"grid: params must be a dict of workload parameters, got "
                         f"{type(params).__name__}", "params")
    params = dict(params or {})
    axes = {k: _values(v) for k, v in params.items() if not callable(v)}
    derived = {k: v for k, v in params.items() if callable(v)}
    runs = list(itertools.product(_values(capacity), _values(top_k), _values(switch_cost),
                                  _values(quality)))
    for K, k, lam, q in runs:  # before any trace: a bad value fails at once
        try:
            RunOptions.build(capacity=K, top_k=k, switch_cost=lam, quality=q)
        except InputError as exc:
            raise InputError(f"grid: {exc}", exc.param) from None
    for seed in _values(seeds):
        _seed(seed, "grid", "seeds")
    out = []
    for (K, k, lam, q), T, seed in itertools.product(runs, _values(steps), _values(seeds)):
        for combo in itertools.product(*axes.values()):
            given = dict(zip(axes, combo))
            given.update({name: _derived(name, fn, K) for name, fn in derived.items()})
            if T is not None:
                given["steps"] = T
            resolved = w.resolve_params(given)
            trace = w.build(resolved, seed)
            out.append(Instance(trace, dict(capacity=K, top_k=k, switch_cost=lam, quality=q),
                                dict(workload=workload, params=given, seed=seed)))
    scope = (f"grid of {len(out)} {workload} instances: K ∈ {_values(capacity)}, k ∈ "
             f"{_values(top_k)}, λ ∈ {_values(switch_cost)}, seeds {_values(seeds)}")
    return Family(tuple(out), scope)


def _derived(name: str, fn, K):
    try:
        return fn(K)
    except Exception as exc:  # noqa: BLE001 (your function: one line, your message kept)
        raise InputError(f"grid: params['{name}'] raised {type(exc).__name__} at K = {K}: "
                         f"{' '.join(str(exc).split())}") from None


def _seed(seed, where: str, name: str) -> None:
    from simulator.rng import check_seed

    try:
        check_seed(seed, name)
    except InputError as exc:
        raise InputError(f"{where}: {exc}", name) from None


def sample(strategy, n: int = 100, seed: int = 0, name: str = "strategy") -> Family:
    """``n`` instances drawn from a hypothesis strategy of instances, reproducibly."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis.strategies import SearchStrategy

    if not isinstance(strategy, SearchStrategy):
        raise InputError(f"sample: strategy must be a hypothesis strategy of instances "
                         f"(simulator.testing.instances()), got {type(strategy).__name__}",
                         "strategy")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"sample: n must be an integer >= 1, got {n!r}", "n")
    _seed(seed, "sample", "seed")
    drawn = []

    @hypothesis_seed(seed)
    @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(instance):
        drawn.append(instance)

    collect()
    return Family(tuple(drawn[:n]), f"{min(n, len(drawn))} instances drawn from {name} "
                                    f"(seed {seed})")


def saved(paths, name: str = "saved traces", **options) -> Family:
    """Trace files (any format :func:`simulator.load` reads), each run with ``options``."""
    from simulator.trace_formats import load

    for p in _values(paths):
        if not isinstance(p, (str, os.PathLike)):
            raise InputError(f"saved: paths must be a trace file's path or a list of them, "
                             f"got {shown(p)}", "paths")
    out = tuple(Instance(load(p), dict(options), dict(trace=str(p))) for p in _values(paths))
    return Family(out, f"{len(out)} {name}")
