"""Regret curves shared by the three regret claims (Theorems 5.5, 5.6, 5.7).

All three measure eviction regret (paper Definition 2.3, :mod:`theory.regret`) on the
``stationary`` workload (50 items with latent Bernoulli utilities in [0, 0.3], k = K = 5)
with common random numbers: every policy sees the same traces.  Curves are computed once
per (policy, parameters, grid) and reused across claims in one ``semcache claims`` run.
"""

from __future__ import annotations

import functools

HORIZONS = {True: (500, 1000, 2000, 4000), False: (1250, 2500, 5000, 10000, 20000)}
SEEDS = {True: (0, 1, 2), False: (0, 1, 2, 3, 4)}
CAPACITY = 5
WORKLOAD = {"items": 50}


@functools.lru_cache(maxsize=None)
def curve(policy: str, params: tuple, quick: bool):
    """The :class:`theory.regret_fit.RegretCurve` of ``policy`` with ``dict(params)``."""
    from theory.regret_fit import regret_curve

    return regret_curve(policy, horizons=HORIZONS[quick], seeds=SEEDS[quick],
                        capacity=CAPACITY, params=dict(WORKLOAD),
                        policy_params=dict(params) or None)


def scope(quick: bool, what: str) -> str:
    """The basis scope of a growth fit on these curves."""
    H = HORIZONS[quick]
    return (f"{what} on the stationary workload ({WORKLOAD['items']} items), k = K = "
            f"{CAPACITY}, T = {H[0]}…{H[-1]}, {len(SEEDS[quick])} seeds; slope of log R_T on "
            "log T against the Definition 2.3 comparator of theory.regret")


def describe(c) -> str:
    """One curve's growth in words: its slope, interval and largest regret."""
    return (f"slope {c.slope:.3f}, 95 % CI [{c.ci[0]:.3f}, {c.ci[1]:.3f}]; "
            f"R(T={c.horizons[-1]}) = {c.mean[-1]:.0f}")


def summary(c) -> dict:
    """The JSON-ready numbers of one curve."""
    return dict(policy=c.policy, params=c.config.get("policy_params"), horizons=c.horizons,
                mean_regret=[round(m, 2) for m in c.mean], slope=round(c.slope, 3),
                ci=[round(x, 3) for x in c.ci], valid=c.valid, guard_slope=round(
                    c.guard["slope"], 3), reason=c.reason)


def save_stationary_instance(out_dir: str, name: str, policy: str, params: dict,
                             quick: bool) -> dict:
    """Save the longest-horizon trace of seed 0 as the claim's instance."""
    import workloads
    from theory.claims.base import save_instance

    trace = workloads.get("stationary").generate(
        {**WORKLOAD, "steps": HORIZONS[quick][-1]}, SEEDS[quick][0])
    return save_instance(trace, out_dir, name,
                         dict(capacity=CAPACITY, top_k=CAPACITY, switch_cost=0.0,
                              policy=policy, policy_params=params), with_opt=False)
