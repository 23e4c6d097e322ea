"""Instance families: the instances a claim quantifies over (:mod:`theory.kit`).

A family is a named, finite, reproducible list of :class:`simulator.instance.Instance`
with the basis it supports (docs/claims.md): a sample of a large space is a ``search``;
an enumeration of a whole finite range may declare itself ``exhaustive``.

Examples
--------
>>> fam = grid("cycling", params={"topics": lambda K: K + 1, "items_per_topic": 1, "dim": 8},
...            capacity=[1, 2], steps=[6])
>>> [(i.options["capacity"], i.labels["params"]["topics"]) for i in fam]
[(1, 2), (2, 3)]
>>> fam.kind
'search'
"""

from __future__ import annotations

import dataclasses
import itertools

from simulator.instance import Instance


@dataclasses.dataclass(frozen=True)
class Family:
    """A list of instances, the basis kind it supports and the scope it names."""

    instances: tuple
    scope: str
    kind: str = "search"

    def __iter__(self):
        return iter(self.instances)

    def __len__(self):
        return len(self.instances)

    def __add__(self, other: "Family") -> "Family":
        kind = self.kind if self.kind == other.kind else "search"
        return Family(self.instances + other.instances, f"{self.scope}; {other.scope}", kind)


def _values(v):
    return list(v) if isinstance(v, (list, tuple, range)) else [v]


def grid(workload: str, params: dict | None = None, capacity=(10,), top_k=(3,),
         switch_cost=(0.0,), steps=(None,), quality=("hit",), seeds=(0,)) -> Family:
    """Every combination of the given values, one trace of ``workload`` each.

    A parameter in ``params`` may be a list (one more axis of the grid) or a function of K
    (``topics=lambda K: K + 1``); ``steps`` sets the workload's ``steps`` parameter.
    """
    import workloads

    w = workloads.get(workload)
    params = dict(params or {})
    axes = {k: _values(v) for k, v in params.items() if not callable(v)}
    derived = {k: v for k, v in params.items() if callable(v)}
    out = []
    for K, k, lam, T, q, seed in itertools.product(_values(capacity), _values(top_k),
                                                   _values(switch_cost), _values(steps),
                                                   _values(quality), _values(seeds)):
        for combo in itertools.product(*axes.values()):
            given = dict(zip(axes, combo))
            given.update({name: fn(K) for name, fn in derived.items()})
            if T is not None:
                given["steps"] = T
            resolved = w.resolve_params(given)
            trace = w.build(resolved, seed)
            out.append(Instance(trace, dict(capacity=K, top_k=k, switch_cost=lam, quality=q),
                                dict(workload=workload, params=given, seed=seed)))
    scope = (f"grid of {len(out)} {workload} instances: K ∈ {_values(capacity)}, k ∈ "
             f"{_values(top_k)}, λ ∈ {_values(switch_cost)}, seeds {_values(seeds)}")
    return Family(tuple(out), scope)


def sample(strategy, n: int = 100, seed: int = 0, name: str = "strategy") -> Family:
    """``n`` instances drawn from a hypothesis strategy of instances, reproducibly."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

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

    out = tuple(Instance(load(p), dict(options), dict(trace=str(p))) for p in _values(paths))
    return Family(out, f"{len(out)} {name}")
