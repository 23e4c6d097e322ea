"""Statements about growth: rates O(f) and Ω(f), and the additive form cost ≤ c·OPT + b.

A rate or an additive form is not a property of one instance: a family decides it.  Each
bound here measures one number per instance (its ``judge`` always answers ``ok`` with that
number) and judges the family at once (its ``conclude``), by the rules of docs/claims.md,
"What a run may conclude", with the basis ``growth``:

**Rates** (:func:`theory.bounds.rate_at_most`, :func:`~theory.bounds.rate_at_least`). The
quantity (``of``: the eviction regret of Definition 2.3, the cost, the number of
modifications, the excess cost − OPT, or a function of yours) is divided by f(K, T) and
its growth fitted (:func:`theory.kit.fit.growth_fit`): the slope of log(value/f) on log T
within each K (replicates, e.g. seeds, at one (K, T) are averaged and bootstrapped), and
on log K within each T that has at least three K. A slope is a local rate, so it refutes a
bound only when its 95 % interval clears the bound by
:data:`~theory.claims.verdicts.MARGIN` (0.25):

- O(f) is **violated** when some slope's interval lies above +MARGIN; otherwise it is
  **not refuted** (an asymptotic upper bound: runs never confirm it);
- Ω(f) is **violated** when some slope's interval lies below −MARGIN, or when the quantity
  is 0 at every T of a K (no positive multiple of f stays below it); otherwise
  **not refuted**;
- **inconclusive** when no K has three distinct T and no T three K, or no fit is defined
  (a mean value ≤ 0 at some T); the record says what would decide.

A value known only within bounds counts on the side that can refute: O(f) is fitted on its
lower end (the regret against the feasible ``greedy`` comparator; cost − OPT's upper bound),
Ω(f) on its upper end, so an instance with no upper end (the greedy comparator) cannot
refute Ω(f).

**The additive form** (:func:`theory.bounds.competitive_at_most`). cost ≤ c·OPT + b for
some constant b is judged along a family that carries each instance's scale
(``labels["scale"]``, or a ``scale`` function of the instance). The excess e = cost −
c·OPT is measured against OPT's feasible upper bound (a lower bound on e; exact when OPT
is exact) and fitted linearly on the scale. It **grows** (violated) when three things
hold: the slope's 95 % interval lies above 0; over the larger half of the scales the
slope's interval stays above MARGIN × the whole family's slope (an excess that levels off,
bounded, has a slope near 0 there; steady growth keeps it); and the mean excess at the
largest scale is above the one at the smallest. Otherwise **not refuted**, with the
largest excess; **inconclusive** with fewer than five distinct scales, or when only the
excess against OPT's lower bound grows (exact OPT would decide).

>>> from theory.bounds import rate_at_least, rate_at_most
>>> b = rate_at_most(lambda K, T: T ** 0.5)
>>> b.describe()
'R_T = O(f(K, T)) (<lambda>)'
>>> rows = [dict(index=i, K=2, T=T, value=0.1 * T, value_upper=0.1 * T, f=T ** 0.5)
...         for i, T in enumerate((100, 200, 400, 800))]
>>> said = b.conclude(rows, "four horizons")
>>> basis = said["basis"]
>>> said["verdict"], basis["kind"], said["witness"]
('violated', 'growth', 3)
>>> rate_at_least(lambda K, T: T).conclude(rows, "four horizons")["verdict"]
'not refuted'
"""

from __future__ import annotations

from typing import Callable

from simulator.errors import InputError
from theory.claims.verdicts import (GROWTH, INCONCLUSIVE, MARGIN, NOT_REFUTED, RATE,
                                    UPPER_ASYMPTOTIC, VIOLATED, basis)
from theory.claims.verdicts import verdict as checked
from theory.kit.fit import growth_fit
from theory.kit.user_code import call, is_finite, shown

QUANTITIES = ("regret", "cost", "modifications", "excess")
SYMBOLS = dict(regret="R_T", cost="cost", modifications="N", excess="cost − OPT")
MIN_HORIZONS = 3  # distinct T within one K before a rate is fitted
MIN_SCALES = 5  # distinct scales before an additive form is judged (three in the larger half)


def rate(f: Callable, of, needs_opt: bool, upper: bool) -> dict:
    """The parts of :func:`theory.bounds.rate_at_most` (``upper``) or
    :func:`theory.bounds.rate_at_least`: ``text``, ``measure(run, opt, instance)`` (the
    numbers of one instance), ``needs_opt`` and ``conclude(rows, scope)``; the arguments
    checked (InputError naming the field)."""
    where = "rate_at_most" if upper else "rate_at_least"
    if not callable(f):
        raise InputError(f"{where}: f must be a function f(K, T), got {shown(f)}", "f")
    if not (callable(of) or of in QUANTITIES):
        raise InputError(f"{where}: of must be one of {', '.join(QUANTITIES)} or a function "
                         f"of(run, opt, instance), got {shown(of)}", "of")
    if not isinstance(needs_opt, bool):
        raise InputError(f"{where}: needs_opt must be True or False, got {shown(needs_opt)}",
                         "needs_opt")
    quantity = _MEASURES.get(of) if isinstance(of, str) else _yours(of)
    symbol = SYMBOLS.get(of) if isinstance(of, str) else getattr(of, "__name__", "of")

    def measure(run, opt, instance):
        K, T = int(run.summary()["capacity"]), int(instance.trace.steps)
        limit = call(f, f"f(K, T) at K = {K}, T = {T}", K, T)
        if not (is_finite(limit) and limit > 0):
            raise InputError(f"f(K, T) returned {shown(limit)} at K = {K}, T = {T}; it must "
                             "return a finite number > 0")
        return dict(quantity(run, opt, instance), f=float(limit), K=K, T=T)

    def conclude(rows, scope):
        return _rates(rows, scope, upper, symbol)

    text = f"{symbol} = {'O' if upper else 'Ω'}(f(K, T)) ({getattr(f, '__name__', 'f')})"
    return dict(text=text, measure=measure, needs_opt=needs_opt or of == "excess",
                conclude=conclude)


def additive(c: float, scale: Callable | None) -> dict:
    """The parts of :func:`theory.bounds.competitive_at_most` (as :func:`rate`)."""
    where = "competitive_at_most"
    if not (is_finite(c) and c > 0):
        raise InputError(f"{where}: c must be a finite number > 0, got {shown(c)}", "c")
    if scale is not None and not callable(scale):
        raise InputError(f"{where}: scale must be None (labels['scale']) or a function "
                         f"scale(instance), got {shown(scale)}", "scale")
    c = float(c)

    def measure(run, opt, instance):
        if scale is None:
            found = getattr(instance, "labels", {}).get("scale")
            what = "the instance's labels['scale']"
        else:
            found, what = call(scale, "scale(instance)", instance), "scale(instance)"
        if not is_finite(found):
            raise InputError(f"{what} is {shown(found)}; each instance of a scaled family "
                             "carries a finite number (its scale)")
        cost = float(run.summary()["cost"])
        low, high = float(opt.lower_bound), float(opt.upper_bound)
        return dict(scale=float(found), cost=cost, opt_lower=low, opt_upper=high,
                    excess=cost - c * high, excess_upper=cost - c * low)

    def conclude(rows, scope):
        return _additive(rows, scope, c)

    return dict(text=f"cost ≤ {c:g}·OPT + b for some constant b", measure=measure,
                needs_opt=True, conclude=conclude)


def _regret(run, opt, instance) -> dict:
    from theory.regret import eviction_regret

    if "utilities" not in getattr(instance.trace, "meta", {}):
        raise InputError("a regret rate needs traces with latent utilities "
                         "(meta['utilities'], as the stationary workload makes them)")
    try:
        value = eviction_regret(instance.trace, run, "exact").pseudo(instance.trace.steps)
        return dict(value=value, value_upper=value)
    except InputError as exc:
        if "exceeds" not in str(exc):
            raise
    # beyond the exact comparator's reach the greedy one is feasible: a lower bound
    value = eviction_regret(instance.trace, run, "greedy").pseudo(instance.trace.steps)
    return dict(value=value, comparator="greedy")


def _exact(name: str) -> Callable:
    def measure(run, opt, instance):
        value = float(run.summary()[name])
        return dict(value=value, value_upper=value)
    return measure


def _excess(run, opt, instance) -> dict:
    cost = float(run.summary()["cost"])
    return dict(value=cost - float(opt.upper_bound), value_upper=cost - float(opt.lower_bound))


def _yours(of: Callable) -> Callable:
    def measure(run, opt, instance):
        value = call(of, "of(run, opt, instance)", run, opt, instance)
        if not is_finite(value):
            raise InputError(f"of(run, opt, instance) returned {shown(value)}; it must "
                             "return a finite number (not a bool, NaN or infinity)")
        return dict(value=float(value), value_upper=float(value))
    return measure


_MEASURES = dict(regret=_regret, cost=_exact("cost"), modifications=_exact("modifications"),
                 excess=_excess)


def _seed_order(row) -> tuple:
    seed = row.get("labels", {}).get("seed") if isinstance(row.get("labels"), dict) else None
    return (0, seed, row["index"]) if isinstance(seed, int) else (1, 0, row["index"])


def _fit_group(rows, along: str, side: str) -> dict:
    """One growth fit of value/f on ``along`` (T or K) over ``rows``, by name."""
    rows = sorted(rows, key=lambda r: (r[along], _seed_order(r)))
    xs = [r[along] for r in rows]
    ys = [r[side] / r["f"] for r in rows]
    found = dict(along=along, distinct=len(set(xs)), zero=all(y == 0 for y in ys),
                 rows=[r["index"] for r in rows])
    if found["distinct"] >= MIN_HORIZONS and not found["zero"]:
        found["fit"] = growth_fit(xs, ys)
    return found


def _rates(rows, scope: str, upper: bool, symbol: str) -> dict:
    side = "value" if upper else "value_upper"
    usable = [r for r in rows if side in r]
    groups = []
    for K in sorted({r["K"] for r in usable}):
        groups.append(dict(_fit_group([r for r in usable if r["K"] == K], "T", side), K=K))
    for T in sorted({r["T"] for r in usable}):
        mine = [r for r in usable if r["T"] == T]
        if len({r["K"] for r in mine}) >= MIN_HORIZONS:
            groups.append(dict(_fit_group(mine, "K", side), T=T))
    fitted = [g for g in groups if "fit" in g and g["fit"].defined]
    zeros = [g for g in groups if g["zero"] and g["distinct"] >= MIN_HORIZONS]
    if upper:
        breaking = [g for g in fitted if g["fit"].low > MARGIN]
    else:
        breaking = zeros + [g for g in fitted if g["fit"].high < -MARGIN]
    rule = (f"slope of log({symbol}/f) on log T within each K (and on log K within each T "
            f"with {MIN_HORIZONS}+ K), bootstrap 95 % interval, margin {MARGIN}")
    based = basis(GROWTH, f"{scope}; {rule}")
    measured = dict(margin=MARGIN, fits=[_fit_record(g) for g in groups])
    form = UPPER_ASYMPTOTIC if upper else None
    shown_fits = "; ".join(_fit_text(g) for g in groups if "fit" in g or g["zero"])
    if breaking:
        g = breaking[0]
        pick = max if upper else min
        last = [r for r in usable if r["index"] in g["rows"] and r[g["along"]] ==
                max(r2[g["along"]] for r2 in usable if r2["index"] in g["rows"])]
        witness = pick(last, key=lambda r: r[side] / r["f"])["index"]
        way = (f"outgrows f: the slope of log({symbol}/f) lies above +{MARGIN}" if upper else
               (f"is 0 at every {g['along']}" if g["zero"] else
                f"falls behind f: the slope of log({symbol}/f) lies below −{MARGIN}"))
        return dict(_verdict(VIOLATED, based, f"{symbol} {way} ({_fit_text(g)}); "
                                              f"fits: {shown_fits}"),
                    form=form, measured=measured, witness=witness)
    if not fitted and not zeros:
        if not any(g["distinct"] >= MIN_HORIZONS for g in groups):
            decide = (f"at least {MIN_HORIZONS} distinct T within one K (the family has "
                      f"{max((g['distinct'] for g in groups), default=0)})")
            if not usable:
                decide = ("values with an upper end: the exact comparator (smaller "
                          "instances) or exact OPT" if rows else "instances to fit")
        else:
            decide = "a positive mean value at every T (longer horizons, or more seeds)"
        return dict(_verdict(INCONCLUSIVE, based, f"no rate could be fitted ({len(rows)} "
                            f"instances; fits: {shown_fits or 'none'})", would_decide=decide),
                    form=form, measured=measured)
    bound = f"+{MARGIN}" if upper else f"−{MARGIN}"
    return dict(_verdict(NOT_REFUTED, based, f"no slope of log({symbol}/f) has its interval "
                        f"{'above' if upper else 'below'} {bound}: {shown_fits}", form=form),
                form=form, measured=measured)


def _verdict(said: str, based: dict, evidence: str, **more) -> dict:
    """A verdict record checked by the rules of a rate (the quantifier ``growth``)."""
    return checked(said, based, evidence, quantifier=RATE, **more)


def _fit_record(g: dict) -> dict:
    out = {k: v for k, v in g.items() if k not in ("fit", "rows")}
    if "fit" in g:
        out["fit"] = g["fit"].as_dict()
    return out


def _fit_text(g: dict) -> str:
    where = f"K={g['K']}" if "K" in g else f"T={g['T']} (on log K)"
    return f"{where}: {'0 at every T' if g['zero'] else g['fit'].describe()}"


def _additive(rows, scope: str, c: float) -> dict:
    scales = sorted({r["scale"] for r in rows})
    rule = (f"linear fit of cost − {c:g}·OPT on the scale, bootstrap 95 % interval above 0 "
            f"and, over the larger half of the scales, above {MARGIN} × the slope")
    based = basis(GROWTH, f"{scope}; {rule}")
    form = UPPER_ASYMPTOTIC
    if len(scales) < MIN_SCALES:
        return dict(_verdict(INCONCLUSIVE, based, f"{len(scales)} distinct scales",
                            would_decide=f"at least {MIN_SCALES} distinct scales"),
                    form=form, measured=dict(scales=scales))
    low, high = _grows(rows, "excess", scales), _grows(rows, "excess_upper", scales)
    measured = dict(margin=MARGIN, fit=low["fit"].as_dict(), larger_half=low["tail"].as_dict(),
                    first=low["first"], last=low["last"])
    where = (f"slope {low['fit'].describe()} per unit of scale (larger half "
             f"{low['tail'].describe()}); excess {low['first']:.4g} at scale {scales[0]:g}, "
             f"{low['last']:.4g} at {scales[-1]:g}")
    if low["grows"]:
        at_last = [r for r in rows if r["scale"] == scales[-1]]
        witness = max(at_last, key=lambda r: r["excess"])["index"]
        return dict(_verdict(VIOLATED, based, f"cost − {c:g}·OPT grows along the family: "
                                             f"{where}"),
                    form=form, measured=measured, witness=witness)
    if high["grows"]:
        return dict(_verdict(INCONCLUSIVE, based, "only the excess against OPT's lower bound "
                            f"grows ({where})", would_decide="exact OPT (a larger time_limit "
                            "or smaller instances)"), form=form, measured=measured)
    largest = max(rows, key=lambda r: r["excess_upper"])
    return dict(_verdict(NOT_REFUTED, based, f"cost − {c:g}·OPT does not grow along the "
                        f"family: largest excess {largest['excess_upper']:.4g} (scale "
                        f"{largest['scale']:g}); {where}", form=form),
                form=form, measured=measured)


def _grows(rows, side: str, scales: list) -> dict:
    """The linear growth of ``side`` on the scale, over all rows and the larger half."""
    rows = sorted(rows, key=lambda r: (r["scale"], _seed_order(r)))
    whole = growth_fit([r["scale"] for r in rows], [r[side] for r in rows], log=False)
    middle = scales[(len(scales) - 1) // 2]
    half = [r for r in rows if r["scale"] >= middle]
    tail = growth_fit([r["scale"] for r in half], [r[side] for r in half], log=False)
    first, last = whole.means[0], whole.means[-1]
    grows = (whole.defined and tail.defined and whole.low > 0
             and tail.low > MARGIN * whole.slope and last > first)
    return dict(fit=whole, tail=tail, first=first, last=last, grows=bool(grows))
