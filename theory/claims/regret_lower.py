"""Theorem 5.7: every eviction policy has regret Ω(√(KT)) on some instance.

A lower bound over *every* online policy, with an unspecified constant, cannot be
confirmed by finite runs of some policies: it can only be refuted, by a policy whose
regret provably grows slower than √T.  We measure every policy the claims run (FIFO, LRU,
the Thompson variants) on the stationary family: violated when one policy's slope CI lies
below 0.5 (that policy and its trace are the instance); otherwise the verdict is
inconclusive ("not refuted"), never holds, with R(T)/√(KT) at the longest horizon
reported per policy as the measurement.
"""

from __future__ import annotations

import math

from theory.claims import regret_runs
from theory.claims.base import INCONCLUSIVE, VIOLATED, Claim
from theory.claims.thompson_regret import VARIANTS

POLICIES = (("fifo", ()), ("lru", ())) + VARIANTS


def _check(quick: bool, out_dir: str) -> dict:
    curves = [regret_runs.curve(p, prm, quick) for p, prm in POLICIES]
    K, T = regret_runs.CAPACITY, curves[0].horizons[-1]
    rows = [dict(regret_runs.summary(c), normalised=c.mean[-1] / math.sqrt(K * T))
            for c in curves]
    measured = dict(curves=rows)
    if not all(c.valid for c in curves):
        return dict(verdict=INCONCLUSIVE, measured=measured,
                    evidence="the FIFO validity guard failed")
    fast = [(c, prm) for c, (p, prm) in zip(curves, POLICIES) if c.ci[1] < 0.5]
    if fast:
        c, prm = fast[0]
        return dict(verdict=VIOLATED, measured=measured,
                    instance=regret_runs.instance(out_dir, "thm5_7", c.policy, dict(prm),
                                                  quick),
                    evidence=f"{c.policy} grows as T^{c.slope:.2f} (CI upper "
                             f"{c.ci[1]:.2f} < 0.5)")
    low = min(rows, key=lambda r: r["normalised"])
    # a lower bound over all policies that these runs fail to refute is not shown to hold
    return dict(verdict=INCONCLUSIVE, measured=measured,
                evidence=f"not refuted, and finite runs of some policies cannot confirm a "
                         f"bound over all policies: no policy grows slower than √T; the "
                         f"smallest R(T)/√(KT) at T={T} is {low['normalised']:.1f} "
                         f"({low['policy']})")


CLAIM = Claim(
    id="thm5.7",
    title="Regret lower bound",
    statement="Theorem 5.7: any eviction policy suffers regret Ω(√(KT)).",
    conditions="the stationary family of thm5.6; policies fifo, lru and the four Thompson "
               "variants; a lower bound over all policies can only be refuted (a slope CI "
               "below 0.5), so 'not refuted' is reported as inconclusive, never holds",
    check=_check)
