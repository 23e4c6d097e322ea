"""Bounds a claim states about one run: what :func:`theory.check` holds each instance to.

A bound judges one instance from the policy's run (:class:`simulator.RunResult`) and, when
it needs one, the offline optimum (:class:`theory.opt.OptResult`, exact or certified
bounds).  It answers ``ok``, ``broken`` or ``undecided`` (OPT known only within bounds
that straddle the limit), with the numbers behind the answer, so a verdict never says more
than the evidence: a ratio against a certified lower bound on OPT is an upper bound on the
ratio, so it can clear a limit; it breaks one only against OPT's feasible upper bound.

>>> b = ratio_at_most(3)
>>> b.describe()
'cost ≤ 3·OPT'
>>> b.judge_costs(cost=5.0, lower=2.0, upper=2.0)[0]
'ok'
>>> b.judge_costs(cost=7.0, lower=2.0, upper=2.0)[0]
'broken'
>>> b.judge_costs(cost=7.0, lower=2.0, upper=3.0)[0]
'undecided'
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

OK, BROKEN, UNDECIDED = "ok", "broken", "undecided"
EPS = 1e-9


@dataclasses.dataclass(frozen=True)
class Bound:
    """One bound: ``judge(run, opt, instance) -> (status, numbers)``; ``needs_opt`` says
    whether :func:`theory.check` must compute OPT for it; ``text`` states it."""

    text: str
    judge: Callable
    needs_opt: bool = False

    def describe(self) -> str:
        return self.text

    def judge_costs(self, cost: float, lower: float, upper: float) -> tuple:
        """The verdict of a cost-versus-OPT bound from numbers alone (for tests and docs)."""
        return self.judge(_Costs(cost), _Opt(lower, upper), None)


@dataclasses.dataclass(frozen=True)
class _Costs:
    cost: float

    def summary(self):
        return {"cost": self.cost}


@dataclasses.dataclass(frozen=True)
class _Opt:
    lower_bound: float
    upper_bound: float

    @property
    def exact(self):
        return self.lower_bound == self.upper_bound


def ratio_at_most(c: float, additive: float = 0.0) -> Bound:
    """cost ≤ c·OPT + additive (a competitive ratio of at most c, up to ``additive``)."""
    if not (isinstance(c, (int, float)) and math.isfinite(c) and c > 0):
        raise ValueError(f"c must be a finite number > 0, got {c!r}")

    def judge(run, opt, instance):
        cost = float(run.summary()["cost"])
        low, high = float(opt.lower_bound), float(opt.upper_bound)
        numbers = dict(cost=cost, opt_lower=low, opt_upper=high, limit=c,
                       ratio_upper=cost / low if low > 0 else (1.0 if cost <= 0 else math.inf),
                       ratio_lower=cost / high if high > 0 else (1.0 if cost <= 0 else math.inf))
        if cost <= c * low + additive + EPS:
            return OK, numbers
        if cost > c * high + additive + EPS:
            return BROKEN, numbers
        return UNDECIDED, numbers

    text = f"cost ≤ {c:g}·OPT" + (f" + {additive:g}" if additive else "")
    return Bound(text, judge, needs_opt=True)


def modifications_at_most(f: Callable) -> Bound:
    """N ≤ f(T): the run changes its cache at most f(T) times."""
    def judge(run, opt, instance):
        s = run.summary()
        limit = float(f(s["steps"]))
        return (OK if s["modifications"] <= limit + EPS else BROKEN,
                dict(modifications=s["modifications"], limit=limit, T=s["steps"]))

    return Bound(f"N ≤ f(T) ({_name(f)})", judge)


def regret_at_most(f: Callable) -> Bound:
    """R_T ≤ f(K, T): the eviction pseudo-regret of Definition 2.3
    (:func:`theory.regret.eviction_regret`) on a trace with latent utilities (``stationary``).

    The best comparator is found exactly where its dynamic programme fits; beyond that the
    ``greedy`` comparator is feasible, so the regret against it is a lower bound: it can
    break the bound but not clear it (``undecided``).
    """
    def judge(run, opt, instance):
        from simulator.errors import InputError
        from theory.regret import eviction_regret

        if "utilities" not in getattr(instance.trace, "meta", {}):
            raise InputError("regret_at_most needs traces with latent utilities "
                             "(meta['utilities'], as the stationary workload makes them)")
        try:
            r, comparator = eviction_regret(instance.trace, run, "exact"), "exact"
        except InputError as exc:
            if "exceeds" not in str(exc):
                raise
            r, comparator = eviction_regret(instance.trace, run, "greedy"), "greedy"
        T = instance.trace.steps
        value = r.pseudo(T)
        limit = float(f(instance.options["capacity"], T))
        numbers = dict(regret=value, limit=limit, comparator=comparator)
        if value > limit + EPS:
            return BROKEN, numbers
        return (OK if comparator == "exact" else UNDECIDED), numbers

    return Bound(f"R_T ≤ f(K, T) ({_name(f)})", judge)


def predicate(fn: Callable, text: str, needs_opt: bool = False) -> Bound:
    """Any statement about one run: ``fn(run, opt, instance)`` is True when it holds
    (``opt`` is None unless ``needs_opt``); it may also return ``(holds, numbers)``, the
    numbers reported with the instance."""
    def judge(run, opt, instance):
        said = fn(run, opt, instance)
        holds, numbers = said if isinstance(said, tuple) else (said, {})
        return (OK if holds else BROKEN), dict(numbers)

    return Bound(text, judge, needs_opt=needs_opt)


def _name(f) -> str:
    return getattr(f, "__name__", "f")
