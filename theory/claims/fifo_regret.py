"""Theorem 5.5: FIFO's eviction regret is Ω(T).

FIFO evicts by age and ignores feedback, so on stationary utilities it keeps a random
sample of recent arrivals while the comparator keeps the best items: the regret should
grow linearly.  Holds when the fitted log–log slope's 95 % bootstrap CI lies above 0.85;
the experiment is the validity guard of every other regret claim too.
"""

from __future__ import annotations

from theory.claims import regret_runs
from theory.claims.base import HOLDS, VIOLATED, Claim


def _check(quick: bool, out_dir: str) -> dict:
    c = regret_runs.curve("fifo", (), quick)
    measured = regret_runs.summary(c)
    if c.ci[0] > 0.85:
        return dict(verdict=HOLDS, measured=measured,
                    evidence=f"slope {c.slope:.3f}, 95 % CI [{c.ci[0]:.3f}, {c.ci[1]:.3f}]; "
                             f"R(T={c.horizons[-1]}) = {c.mean[-1]:.0f}")
    return dict(verdict=VIOLATED, measured=measured,
                instance=regret_runs.instance(out_dir, "thm5_5", "fifo", {}, quick),
                evidence=f"slope {c.slope:.3f}, CI [{c.ci[0]:.3f}, {c.ci[1]:.3f}] "
                         "does not exclude sublinear growth")


CLAIM = Claim(
    id="thm5.5",
    title="FIFO regret is linear",
    statement="Theorem 5.5: FIFO's eviction regret is Ω(T).",
    conditions="stationary workload (50 items, p ~ U[0, 0.3]), k = K = 5, pseudo-regret "
               "against the lowest-p eviction comparator on the same admissions, T = 1250…"
               "20000, 5 seeds (quick: 500…4000, 3 seeds); slope CI by 1000 bootstraps",
    check=_check)
