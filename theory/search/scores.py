"""Scoring a candidate: the policy's exact cost against an exact optimum.

Every candidate is certified: its score comes from the policy's cost, measured by
:func:`simulator.run`, and an **exact** optimum.

- **paging**: Belady's MIN (the ``belady`` policy; optimal among demand-paging policies,
  which is what the classical competitive ratios of LRU, FIFO and LFU are stated against),
  both caches starting empty; a cost is a miss count.
- **semantic**: the model's exact OPT (:func:`theory.opt.opt_with`, docs/model.md §4).  A
  candidate whose OPT is not exact is not scored (``None``), so an uncertified ratio never
  enters the search.

Scores (:data:`SCORES`): ``"ratio"`` = cost / OPT; ``"excess"`` = cost − c·OPT; or a
function ``score(run, opt, instance) -> float`` (``opt.opt_cost`` is the optimum's
cost, ``run`` the policy's :class:`~simulator.run_result.RunResult`).  An instance whose
OPT is 0 has no ratio and is not scored under ``"ratio"`` (a competitive ratio's additive
constant covers it).
"""

from __future__ import annotations

import dataclasses
import time

from simulator.errors import InputError
from simulator.runner import run
from theory.kit.user_code import call, is_finite, is_number, shown

SCORES = ("ratio", "excess")


@dataclasses.dataclass(frozen=True)
class Optimum:
    """The exact optimum of a paging candidate: Belady's misses."""

    opt_cost: float
    exact: bool = True
    method: str = "belady"


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One scored candidate: its genotype, score, the policy's cost and OPT's."""

    genotype: tuple
    score: float
    cost: float
    opt: float

    @property
    def steps(self) -> int:
        return len(self.genotype)


class Evaluator:
    """Scores genotypes of one :class:`~theory.search.space.Space`, once each (a cache by
    genotype), counting the candidates it scored and the seconds it took."""

    def __init__(self, space, policy: str, params: dict, score, c: float, seed: int):
        self.space, self.policy, self.params = space, policy, dict(params)
        self.score, self.c, self.seed = score, c, seed
        self.seen: dict = {}
        self.count = 0
        self.seconds = 0.0

    def __call__(self, g: tuple) -> Candidate | None:
        """The scored candidate, or None when it has no certified score."""
        if g in self.seen:
            return self.seen[g]
        t0 = time.perf_counter()
        found = self.measure(g)
        self.seconds += time.perf_counter() - t0
        self.count += 1
        self.seen[g] = found
        return found

    def measure(self, g: tuple) -> Candidate | None:
        """Score ``g`` without the cache (the grown instances, which are scored once)."""
        if not g:
            return None
        instance = self.space.instance(g)
        result, opt = self.costs(instance)
        if opt is None:
            return None
        cost = self.cost_of(result)
        value = self.value(result, opt, instance, cost)
        if value is None:
            return None
        return Candidate(g, value, cost, float(opt.opt_cost))

    def costs(self, instance) -> tuple:
        """(the policy's run, the exact optimum or None when it is not exact)."""
        opts = instance.options
        if self.space.mode == "paging":
            result = run(instance.trace, self.policy, capacity=opts["capacity"],
                         seed=self.seed, params=self.params)
            belady = run(instance.trace, "belady", capacity=opts["capacity"]).summary()
            return result, Optimum(float(belady["steps"] - belady["hits"]))
        from simulator.run_options import RunOptions
        from theory.opt import opt_with

        result = run(instance.trace, self.policy, seed=self.seed, params=self.params,
                     **opts)
        best = opt_with(instance.trace, RunOptions.build(**opts))
        return result, (best if best.exact else None)

    def cost_of(self, result) -> float:
        s = result.summary()
        if self.space.mode == "paging":
            return float(s["steps"] - s["hits"])
        return float(s["cost"])

    def value(self, result, opt, instance, cost: float) -> float | None:
        best = float(opt.opt_cost)
        if self.score == "ratio":
            return cost / best if best > 0 else None
        if self.score == "excess":
            return cost - self.c * best
        value = call(self.score, "score(run, opt, instance)", result, opt, instance)
        if not is_number(value):
            raise InputError(f"score(run, opt, instance) must return a number, got "
                             f"{shown(value)}", "score")
        return float(value) if is_finite(value) else None
