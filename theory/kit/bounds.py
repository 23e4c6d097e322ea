"""Bounds a claim states about one run: what :func:`theory.check` holds each instance to.

A bound judges one instance from the policy's run (:class:`simulator.RunResult`) and, when
it needs one, the offline optimum (:class:`theory.opt.OptResult`, exact or certified
bounds), so a verdict never says more than the evidence: a ratio against a certified lower
bound on OPT is an upper bound on the ratio, so it can clear a limit (or show a ratio
falls short); it breaks a limit (or reaches one) only against OPT's feasible upper bound.

Each bound has a **quantifier** (:data:`QUANTIFIERS`), what the statement says of the
instances, and the answers its judge gives (:data:`STATUSES_OF`):

- ``every`` (``ratio_at_most``, ``regret_at_most``, ``modifications_at_most``,
  ``predicate``): each instance is ``ok``, ``broken`` or ``undecided`` (OPT known only
  within bounds that straddle the limit); one broken instance violates the claim.
- ``some`` (``ratio_reaches``, ``predicate(..., quantifier="some")``): each instance is a
  ``witness``, ``no`` witness, or ``undecided``; one witness makes the claim hold.
- ``growth`` (the rates and additive forms): each instance's numbers are measured, and the
  bound's ``conclude(rows, scope)`` judges the whole family at once.

What your functions give is checked where it enters, so no bad value becomes a verdict: a
constructor's own arguments when it is called (``c`` and ``additive`` finite numbers, ``f``
and ``fn`` callables), and at each instance what ``f`` returns (a finite number: not a bool,
not NaN or infinite) and what a predicate returns (a bool, numpy's too, or the pair
``(holds, numbers)`` of a bool and a dict of names to numbers).  A bad one, or an exception
of your function, is one :class:`~simulator.errors.InputError` that keeps your message;
:func:`theory.check` prefixes the claim and the bound (docs/extending.md, a claim).

>>> b = ratio_at_most(3)
>>> b.describe()
'cost ≤ 3·OPT'
>>> b.judge_costs(cost=5.0, lower=2.0, upper=2.0)[0]
'ok'
>>> b.judge_costs(cost=7.0, lower=2.0, upper=2.0)[0]
'broken'
>>> b.judge_costs(cost=7.0, lower=2.0, upper=3.0)[0]
'undecided'
>>> r = ratio_reaches(1.5)
>>> r.quantifier, r.judge_costs(cost=6.0, lower=3.0, upper=4.0)[0]
('some', 'witness')
>>> r.judge_costs(cost=6.0, lower=3.0, upper=5.0)[0]
'undecided'
>>> ratio_at_most(2, additive=float("nan"))
Traceback (most recent call last):
...
simulator.errors.InputError: ratio_at_most: additive must be a finite number, got nan
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

from simulator.errors import InputError
from simulator.instance import OPTION_NAMES
from theory.claims.verdicts import EVERY, QUANTIFIERS, RATE, SOME
from theory.kit.user_code import call, is_bool, is_finite, is_nan, is_number, shown

OK, BROKEN, UNDECIDED = "ok", "broken", "undecided"
STATUSES = (OK, BROKEN, UNDECIDED)
WITNESS, NO = "witness", "no"  # an instance on which an existential statement is (not) shown
# the answers a judge may give, by quantifier
STATUSES_OF = {EVERY: STATUSES, SOME: (WITNESS, NO, UNDECIDED), RATE: STATUSES}
EPS = 1e-9
# a row of theory.check's measured["rows"] holds these beside a bound's numbers
ROW_FIELDS = ("index", "status", "steps", "labels", *OPTION_NAMES)


@dataclasses.dataclass(frozen=True)
class Bound:
    """One bound: ``judge(run, opt, instance) -> (status, numbers)``; ``needs_opt`` says
    whether :func:`theory.check` must compute OPT for it; ``text`` states it.

    ``quantifier`` (:data:`QUANTIFIERS`) says what the statement says of the instances,
    and so which statuses ``judge`` answers (:data:`STATUSES_OF`).  ``conclude`` is for a
    ``growth`` bound only (and required there): ``conclude(rows, scope) -> dict`` with
    ``verdict``, ``basis`` (:func:`theory.claims.verdicts.basis`) and ``evidence``, and
    optionally ``would_decide``, ``form``, ``measured`` (merged into the result's) and
    ``witness`` (the index of the row whose instance is saved when violated); ``rows`` are
    :func:`theory.check`'s per-instance rows.  ``score`` names one of the judge's numbers
    that a ``some`` bound's witness makes large: where a whole range has no witness, the
    instance where it is largest is saved (the nearest miss).

    Use the constructors below; a ``judge`` of your own is your code, so :meth:`apply`
    checks its answer and turns its exceptions into one line.
    """

    text: str
    judge: Callable
    needs_opt: bool = False
    quantifier: str = EVERY
    conclude: Callable | None = None
    score: str | None = None

    def __post_init__(self):
        if not isinstance(self.text, str) or not self.text.strip():
            raise InputError(f"Bound: text must be a non-empty string stating the bound, "
                             f"got {shown(self.text)}", "text")
        if not callable(self.judge):
            raise InputError(f"bound '{self.text}': judge must be a function "
                             f"judge(run, opt, instance), got {shown(self.judge)}", "judge")
        if not isinstance(self.needs_opt, bool):
            raise InputError(f"bound '{self.text}': needs_opt must be True or False, got "
                             f"{shown(self.needs_opt)}", "needs_opt")
        if self.quantifier not in QUANTIFIERS:
            raise InputError(f"bound '{self.text}': quantifier must be one of "
                             f"{', '.join(QUANTIFIERS)}, got {shown(self.quantifier)}",
                             "quantifier")
        if (self.quantifier == RATE) != callable(self.conclude):
            raise InputError(f"bound '{self.text}': a growth bound needs conclude(rows, scope) "
                             "and no other bound takes one, got "
                             f"quantifier={self.quantifier!r}, conclude={shown(self.conclude)}",
                             "conclude")
        if self.score is not None and not (isinstance(self.score, str) and self.score):
            raise InputError(f"bound '{self.text}': score must be None or the name of one of "
                             f"the judge's numbers, got {shown(self.score)}", "score")

    def describe(self) -> str:
        return self.text

    def judge_costs(self, cost: float, lower: float, upper: float) -> tuple:
        """The verdict of a cost-versus-OPT bound from numbers alone (for tests and docs)."""
        return self.judge(_Costs(cost), _Opt(lower, upper), None)

    def apply(self, run, opt, instance) -> tuple:
        """``judge``'s (status, numbers), checked: status one of the quantifier's
        (:data:`STATUSES_OF`) and numbers a dict of names to numbers (or text) none of
        which names a field of :func:`theory.check`'s rows; InputError otherwise."""
        if getattr(self.judge, "__module__", None) == __name__:
            said = self.judge(run, opt, instance)  # the constructors' judges check for you
        else:
            said = call(self.judge, "judge(run, opt, instance)", run, opt, instance)
        statuses = STATUSES_OF[self.quantifier]
        if not (isinstance(said, tuple) and len(said) == 2 and said[0] in statuses):
            raise InputError(f"judge(run, opt, instance) returned {shown(said)}; it must "
                             f"return (status, numbers), status one of {', '.join(statuses)}")
        return said[0], _checked_numbers(said[1], "judge(run, opt, instance)", text=True)


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
    if not (is_finite(c) and c > 0):
        raise InputError(f"ratio_at_most: c must be a finite number > 0, got {shown(c)}", "c")
    if not is_finite(additive):
        raise InputError(f"ratio_at_most: additive must be a finite number, got "
                         f"{shown(additive)}", "additive")
    c, additive = float(c), float(additive)

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


def ratio_reaches(c: float) -> Bound:
    """For some instance, cost ≥ c·OPT: the ratio reaches c (a lower bound on a policy's
    competitive ratio, which one instance shows).

    An instance is a ``witness`` only when cost ≥ c·OPT's feasible upper bound (a real
    schedule, or the exact OPT), so its ratio is certified; ``no`` when cost < c·OPT's
    lower bound; ``undecided`` in between.  A ratio against a lower bound on OPT (a
    relaxation) is an upper bound on the ratio, so it never shows the ratio reaches c.
    """
    if not (is_finite(c) and c > 0):
        raise InputError(f"ratio_reaches: c must be a finite number > 0, got {shown(c)}", "c")
    c = float(c)

    def judge(run, opt, instance):
        cost = float(run.summary()["cost"])
        low, high = float(opt.lower_bound), float(opt.upper_bound)
        numbers = dict(cost=cost, opt_lower=low, opt_upper=high, limit=c,
                       ratio_upper=_ratio(cost, low), ratio_lower=_ratio(cost, high))
        if numbers["ratio_lower"] >= c - EPS:
            return WITNESS, numbers
        if numbers["ratio_upper"] < c - EPS:
            return NO, numbers
        return UNDECIDED, numbers

    return Bound(f"cost ≥ {c:g}·OPT on some instance", judge, needs_opt=True,
                 quantifier=SOME, score="ratio_lower")


def _ratio(cost: float, opt: float) -> float:
    """cost/OPT, with 0/0 = 1 (an instance nobody pays for is met exactly)."""
    if opt > 0:
        return cost / opt
    return 1.0 if cost <= 0 else math.inf


def modifications_at_most(f: Callable) -> Bound:
    """N ≤ f(T): the run changes its cache at most f(T) times (f returns a finite number)."""
    _check_callable("modifications_at_most", "f", f, "f(T)")

    def judge(run, opt, instance):
        s = run.summary()
        limit = _limit_of(f, "f(T)", f"T = {s['steps']}", s["steps"])
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
    _check_callable("regret_at_most", "f", f, "f(K, T)")

    def judge(run, opt, instance):
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
        T, K = instance.trace.steps, run.summary()["capacity"]
        value = r.pseudo(T)
        limit = _limit_of(f, "f(K, T)", f"K = {K}, T = {T}", K, T)
        numbers = dict(regret=value, limit=limit, comparator=comparator)
        if value > limit + EPS:
            return BROKEN, numbers
        return (OK if comparator == "exact" else UNDECIDED), numbers

    return Bound(f"R_T ≤ f(K, T) ({_name(f)})", judge)


def predicate(fn: Callable, text: str, needs_opt: bool = False,
              quantifier: str = EVERY) -> Bound:
    """Any statement about one run: ``fn(run, opt, instance)`` is True when it holds.

    With ``quantifier="every"`` the claim is that it holds on every instance; with
    ``"some"``, that it holds on at least one (True marks a witness).

    ``run`` is the policy's :class:`simulator.RunResult`, ``opt`` the
    :class:`theory.opt.OptResult` of the instance (None unless ``needs_opt``) and
    ``instance`` the :class:`simulator.instance.Instance` (docs/extending.md, a claim).
    ``fn`` returns a bool (numpy's too), or ``(holds, numbers)``: a bool and a dict of
    names to numbers, reported with the instance.
    """
    _check_callable("predicate", "fn", fn, "fn(run, opt, instance)")
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"predicate: text must be a non-empty string stating the bound, "
                         f"got {shown(text)}", "text")
    if not isinstance(needs_opt, bool):
        raise InputError(f"predicate '{text}': needs_opt must be True or False, got "
                         f"{shown(needs_opt)}", "needs_opt")
    if quantifier not in (EVERY, SOME):
        raise InputError(f"predicate '{text}': quantifier must be 'every' or 'some', got "
                         f"{shown(quantifier)}", "quantifier")
    yes, no = (OK, BROKEN) if quantifier == EVERY else (WITNESS, NO)

    def judge(run, opt, instance):
        said = call(fn, "the predicate", run, opt, instance)
        if is_bool(said):
            return (yes if said else no), {}
        if isinstance(said, tuple) and len(said) == 2 and is_bool(said[0]):
            return (yes if said[0] else no), _checked_numbers(said[1], "the predicate")
        raise InputError(f"the predicate returned {shown(said)}; it must return a bool "
                         "(numpy's too) or a pair (holds, numbers) of a bool and a dict of "
                         "names to numbers")

    return Bound(text, judge, needs_opt=needs_opt, quantifier=quantifier)



def _limit_of(f: Callable, what: str, where: str, *args) -> float:
    """The limit ``f(*args)`` (``what`` names the call, ``where`` its arguments), which
    must be a finite number (not a bool)."""
    value = call(f, f"{what} at {where}", *args)
    if not is_finite(value):
        raise InputError(f"{what} returned {shown(value)} at {where}; it must return a "
                         "finite number (not a bool, NaN or infinity)")
    return float(value)



def _checked_numbers(found, what: str, text: bool = False) -> dict:
    """``found`` as a dict of names to numbers (no NaN; ``text`` allows strings too), no
    name a field of the kit's rows (:data:`ROW_FIELDS`); InputError otherwise."""
    if not isinstance(found, dict):
        raise InputError(f"{what} returned numbers {shown(found)}; they must be a dict of "
                         "names to numbers")
    for key, value in found.items():
        if not isinstance(key, str) or key in ROW_FIELDS:
            raise InputError(f"{what} returned a number named {key!r}; names are strings "
                             f"other than {', '.join(ROW_FIELDS)}")
        if not ((is_number(value) and not is_nan(value))
                or (text and isinstance(value, str))):
            raise InputError(f"{what} returned {key}={shown(value)}; each number must be "
                             "an int or a float, not NaN")
    return dict(found)


def _check_callable(where: str, name: str, fn, signature: str) -> None:
    if not callable(fn):
        raise InputError(f"{where}: {name} must be a function, {signature}, got {shown(fn)}",
                         name)


def _name(f) -> str:
    return getattr(f, "__name__", "f")



# statements about a family's growth; their measurement and judgement: theory.kit.growth
from theory.kit.fit import growth_fit  # noqa: E402, F401 (theory.bounds.growth_fit)
from theory.kit import growth  # noqa: E402


def rate_at_most(f: Callable, of="regret", needs_opt: bool = False) -> Bound:
    """The quantity ``of`` is O(f(K, T)), judged by its growth over the family
    (:mod:`theory.kit.growth`: slopes with bootstrap intervals and the margin rule).

    ``of``: ``"regret"`` (as :func:`regret_at_most` measures it: traces with latent
    utilities), ``"cost"``, ``"modifications"``, ``"excess"`` (cost − OPT), or a function
    ``of(run, opt, instance)`` returning a finite number (``needs_opt=True`` if it reads
    ``opt``).
    """
    return _growth(growth.rate(f, of, needs_opt, upper=True))


def rate_at_least(f: Callable, of="regret", needs_opt: bool = False) -> Bound:
    """The quantity ``of`` is Ω(f(K, T)) (as :func:`rate_at_most`, the other direction)."""
    return _growth(growth.rate(f, of, needs_opt, upper=False))


def competitive_at_most(c: float, scale: Callable | None = None) -> Bound:
    """cost ≤ c·OPT + b for some constant b, judged along a scaled family by the growth of
    cost − c·OPT (:mod:`theory.kit.growth`); each instance's scale is
    ``labels["scale"]``, or ``scale(instance)``."""
    return _growth(growth.additive(c, scale))


def _growth(parts: dict) -> Bound:
    measure = parts.pop("measure")

    def judge(run, opt, instance):  # a growth bound measures; its conclude judges
        return OK, measure(run, opt, instance)

    return Bound(judge=judge, quantifier=RATE, **parts)
