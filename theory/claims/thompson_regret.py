"""Theorem 5.6: Thompson-sampling eviction has regret O(√(KT log T)).

Measured on ``solar_e`` (always admit, Alg. 2 eviction) and ``solar``, with the reward
of Alg. 2 as specified (every retrieval) and with the relevance-only reward variant, and
with the novelty bonus off (γ = 0).  A √(KT log T) bound means a log–log slope of 1/2 (up
to the slowly growing log): the claim is violated when a variant's 95 % CI lies above
0.75 while FIFO's guard passes; inconclusive when the guard fails.

Why it fails here (reported as the corrected statement): Alg. 2 keeps a posterior only
while an item is cached (``on_insert`` restarts it), and every admission is forced, so a
re-admitted item re-enters at the prior; with an item stream that keeps re-arriving, the
exploration never ends and the regret is linear for every variant.
"""

from __future__ import annotations

from theory.claims import regret_runs
from theory.claims.base import HOLDS, INCONCLUSIVE, VIOLATED, Claim

VARIANTS = (("solar_e", ()), ("solar_e", (("reward", "relevant"),)),
            ("solar_e", (("gamma", 0.0), ("reward", "relevant"))),
            ("solar", (("reward", "relevant"),)))


def _check(quick: bool, out_dir: str) -> dict:
    curves = [regret_runs.curve(p, prm, quick) for p, prm in VARIANTS]
    measured = dict(curves=[regret_runs.summary(c) for c in curves])
    if not all(c.valid for c in curves):
        return dict(verdict=INCONCLUSIVE, measured=measured,
                    evidence="the FIFO validity guard failed: " +
                             next(c.reason for c in curves if not c.valid))
    linear = [c for c in curves if c.ci[0] > 0.75]
    corrected = dict(statement="Alg. 2 as specified (posteriors restart on admission, "
                               "admissions forced) has Θ(T) eviction regret on stationary "
                               "utilities with re-arriving items",
                     verdict=HOLDS if len(linear) == len(curves) else VIOLATED,
                     evidence="slopes " + ", ".join(f"{c.slope:.2f}" for c in curves))
    if not linear:
        return dict(verdict=HOLDS, measured=measured, corrected=corrected,
                    evidence="every variant's slope CI reaches below 0.75: " +
                             ", ".join(f"{c.slope:.2f}" for c in curves))
    worst = min(linear, key=lambda c: c.ci[0])
    params = dict(next(prm for (p, prm), c in zip(VARIANTS, curves) if c is worst))
    return dict(verdict=VIOLATED, measured=measured, corrected=corrected,
                instance=regret_runs.instance(out_dir, "thm5_6", worst.policy, params, quick),
                evidence=f"{len(linear)} of {len(curves)} variants grow linearly; even "
                         f"{worst.policy} {params or ''} has slope {worst.slope:.3f}, CI "
                         f"[{worst.ci[0]:.3f}, {worst.ci[1]:.3f}] (FIFO guard "
                         f"{worst.guard['slope']:.3f})")


CLAIM = Claim(
    id="thm5.6",
    title="Thompson eviction regret",
    statement="Theorem 5.6: Thompson-sampling eviction has regret O(√(KT log T)).",
    conditions=regret_runs.__doc__.split("\n\n")[1].replace("\n", " ").strip() +
    " Variants: solar_e (Alg. 2 reward), solar_e and solar with reward=relevant, solar_e "
    "with γ = 0; violated when a slope CI lies above 0.75 with a valid FIFO guard.",
    check=_check)
