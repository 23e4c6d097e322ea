"""Theorem 5.4 in additive form: cost ≤ c·OPT + b for some constant b, along a scaled family.

Competitive analysis often states a ratio c as cost ≤ c·OPT + b with b a constant that does
not depend on the instance.  No single instance can break that form (b absorbs it); a family
whose excess cost − c·OPT grows without bound does.  The P-phase family
(:func:`theory.claims.cr3_families.phases`) is one: each phase costs SOLAR (τ = 2λ)
3λ + 0.999 and OPT λ, so cost − 3·OPT = 0.999·P.

:func:`measure` runs SOLAR and the exact OPT along P = 1, 2, 4, … (OPT is the project's,
checked to be the paper model's on every instance, ``opt_exact``); :func:`judge` gives the
growth verdict for one c: **violated** when the excess is positive at every P, rises
between every two consecutive P, and its log–log slope on P lies above
:data:`~theory.claims.verdicts.MARGIN` both over the whole family and over its larger half
(an excess that levels off at some b has a slope near 0 there); otherwise **not
refuted**.  The costs are exact and deterministic (one run per P), so the fit has no
sampling interval: the increments per phase between consecutive P are reported as the
slope's range.

>>> rows = measure((1, 2, 4, 8, 16), lam=0.25)
>>> [round(r["cost"] - 3 * r["opt"], 3) for r in rows]
[0.999, 1.998, 3.996, 7.992, 15.984]
>>> judge(rows, 3.0, "P = 1…16")["verdict"]
'violated'
"""

from __future__ import annotations

import numpy as np

from simulator.runner import run
from theory.claims import cr3_families
from theory.claims.paper_opt import paper_opt
from theory.claims.verdicts import (GROWTH, MARGIN, NOT_REFUTED, UPPER_ASYMPTOTIC, VIOLATED,
                                    basis, verdict)
from theory.regret_fit import fit_slope


def measure(scales, lam: float) -> list:
    """One row per P of ``scales``: ``scale``, ``steps``, SOLAR's ``cost``, ``opt`` (exact),
    ``opt_exact`` (also the paper model's OPT), ``l_max`` and the ``instance``."""
    rows = []
    for i, P in enumerate(scales):
        inst = cr3_families.phases(P, lam)
        cost = run(inst.trace, "solar", **inst.options,
                   params={"tau": 2 * lam}).summary()["cost"]
        best = paper_opt(inst.trace, **inst.options)
        rows.append(dict(index=i, scale=P, steps=inst.steps, cost=float(cost),
                         opt=float(best["cost"]), opt_exact=best["paper_exact"],
                         l_max=float(np.max(inst.trace.weights * inst.trace.scored)),
                         instance=inst))
    return rows


def judge(rows: list, c: float, scope: str) -> dict:
    """The growth verdict on cost ≤ ``c``·OPT + b along ``rows`` (the module docstring);
    ``witness`` names the row of the largest excess."""
    scales = [r["scale"] for r in rows]
    excess = [r["cost"] - c * r["opt"] for r in rows]
    slope = fit_slope(scales, excess)  # NaN when some excess is <= 0
    half = len(scales) // 2
    tail = fit_slope(scales[half:], excess[half:])
    steps = np.diff(excess) / np.diff(scales)
    based = basis(GROWTH, f"{scope}; slope of log(cost − {c:g}·OPT) on log P, exact costs "
                          f"(one deterministic run per P), margin {MARGIN}")
    last = int(np.argmax(excess))
    said = (f"cost − {c:g}·OPT = {excess[0]:.4g} at P = {scales[0]} … {excess[-1]:.4g} at "
            f"P = {scales[-1]}")
    measured = dict(excess=[round(e, 9) for e in excess], slope_log_log=slope,
                    slope_larger_half=tail, per_phase=[round(float(s), 9) for s in steps])
    # NaN slopes (an excess <= 0 somewhere) compare False: not growth
    if slope > MARGIN and tail > MARGIN and (steps > 0).all():
        rise = (f"exactly {steps[0]:.4g}" if np.ptp(steps) < 1e-9 else
                f"{min(steps):.4g} to {max(steps):.4g}")
        return verdict(VIOLATED, based, f"{said}: it grows linearly in P (slope of log on "
                       f"log P {slope:.3f}, {tail:.3f} over the larger half; {rise} per "
                       "phase between consecutive P)", form=UPPER_ASYMPTOTIC, witness=last,
                       measured=measured)
    return verdict(NOT_REFUTED, based, f"{said}: it does not grow along the family (largest "
                   f"{excess[last]:.4g}, at P = {scales[last]})", form=UPPER_ASYMPTOTIC,
                   measured=measured)
