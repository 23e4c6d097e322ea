"""Theorem 5.4 in additive form: cost ≤ c·OPT + b for some constant b, along a scaled family.

Competitive analysis often states a ratio c as cost ≤ c·OPT + b with b a constant that does
not depend on the instance.  No single instance can break that form (b absorbs it); a family
whose excess cost − c·OPT grows without bound does.  The P-phase family
(:func:`theory.claims.cr3_families.phases`) is one: each phase costs SOLAR (τ = 2λ)
3λ + 0.999 and OPT λ, so cost − 3·OPT = 0.999·P.

:func:`measure` runs SOLAR and the exact OPT along P = 1, 2, 4, … (OPT is the project's,
checked to be the paper model's on every instance, ``opt_exact``); the claim module states
the additive form with the kit on these instances and judges it by
:func:`theory.bounds.competitive_at_most` (the growth of cost − c·OPT along the family).

>>> rows = measure((1, 2, 4, 8, 16), lam=0.25)
>>> [round(r["cost"] - 3 * r["opt"], 3) for r in rows]
[0.999, 1.998, 3.996, 7.992, 15.984]
"""

from __future__ import annotations

import numpy as np

from simulator.runner import run
from theory.claims import cr3_families
from theory.claims.paper_opt import paper_opt


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
