"""The workload interface: a named, seeded trace generator with documented parameters."""

from __future__ import annotations

import dataclasses
from typing import Callable

from simulator import policies
from simulator.engine import memory_estimate
from simulator.errors import InputError
from simulator.params import resolve
from simulator.rng import check_seed
from workloads.data import item_sizes


@dataclasses.dataclass(frozen=True)
class Workload:
    """One workload: ``make(params, seed)`` returns a Trace or PagingTrace.

    ``params`` maps every parameter name to its default; ``check_params(params)`` returns a
    problem sentence or ``None``.  ``footprint(params)``, when declared, is the rough
    number of bytes generating the trace takes (:mod:`simulator.engine.memory_estimate`'s
    model); :meth:`build` refuses a trace that cannot fit in memory before generating it.
    A synthetic workload declares ``sized=True`` and takes the size parameters of
    :mod:`workloads.data.item_sizes` as well (``params`` then lists them); ``make`` sees only
    its own parameters, and the sizes are added to its trace.
    """

    name: str
    summary: str
    make: Callable
    params: dict
    check_params: Callable | None = None
    # whether the workload can generate here (False for data that is not on this machine)
    available: Callable = lambda: True
    sized: bool = False
    # a paging workload's requests in chunks, for files larger than memory:
    # ``stream(params, seed, chunk_requests)`` yields ``(ids, sizes)`` as libCacheSim's
    # files hold them (uint64 ids = the trace's ids + 1, since 0 is reserved; sizes or None)
    stream: Callable | None = None
    footprint: Callable | None = None

    def __post_init__(self):
        if self.sized:
            object.__setattr__(self, "params", dict(self.params, **item_sizes.PARAMS))

    def resolve_params(self, given: dict | None) -> dict:
        out = resolve("workload", self.name, self.params, given)
        problems = [self.check_params(out) if self.check_params is not None else None,
                    item_sizes.check(out) if self.sized else None]
        for problem in filter(None, problems):
            raise InputError(f"workload '{self.name}': {problem}")
        return out

    def check_memory(self, params: dict, chunk: int | None = None) -> None:
        """Refuse resolved ``params`` whose trace cannot fit in this machine's memory; the
        error names the count parameters changed from their defaults.  ``chunk``: the
        trace is streamed (:attr:`stream`) that many steps at a time."""
        if self.footprint is None:
            return
        held = dict(params) if chunk is None else dict(params, steps=min(params["steps"], chunk))
        nbytes = self.footprint(held)
        if self.sized and held["sizes"] != "none":  # one size per step or object
            nbytes += 8 * (held.get("steps", 0) + held.get("objects", 0))
        changed = [f"{k}={memory_estimate.power(v)}" for k, v in params.items()
                   if type(v) is int and v != self.params[k]]
        what = f"workload '{self.name}'" + (f" with {', '.join(changed)}" if changed else "")
        memory_estimate.require(nbytes, what, "trace memory")

    def build(self, params: dict, seed: int):
        """The trace of resolved ``params`` and ``seed``: ``make``'s, with sizes added."""
        self.check_memory(params)
        if not self.sized:
            return self.make(params, seed)
        own = {k: v for k, v in params.items() if k not in item_sizes.PARAMS}
        return item_sizes.with_sizes(self.make(own, seed), params, seed)

    def generate(self, params: dict | None = None, seed: int = 0):
        """Validate ``params`` and build the trace for ``seed`` (in [0, 2**63 - 1])."""
        return self.build(self.resolve_params(params), check_seed(seed))


def policy_params(p: dict, param: str, policy: str, defaults: dict | None = None) -> dict:
    """The workload parameter ``p[param]`` (``"key=value,key=value"``) as the resolved
    parameters of the policy ``policy``; ``defaults`` fill the keys the policy has and the
    text does not give.

    >>> policy_params({"target_params": "alpha=0.2"}, "target_params", "solar_a")["alpha"]
    0.2
    """
    pol = policies.get(policy)
    given = {}
    for item in filter(None, (s.strip() for s in p[param].split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"parameter '{param}' expects key=value[,key=value], "
                             f"got {p[param]!r}")
        given[key.strip()] = value.strip()
    for key, value in (defaults or {}).items():
        if key in pol.params:
            given.setdefault(key, value)
    try:
        return pol.resolve_params(given)
    except InputError as exc:
        raise InputError(f"parameter '{param}': {exc}") from None
