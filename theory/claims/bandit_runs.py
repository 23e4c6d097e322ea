"""Runs of the stylized eviction model shared by Theorems 5.6 and 5.7.

Two instance families of :mod:`theory.eviction_bandit`, each measured per seed (16 seeds)
against the best schedule of the policy's own class:

*fixed pools* (:func:`pool_curve`)
    2K items with utilities drawn once from U[0.05, 0.6] (seed 56), K = 1 … 5; R_T at
    several horizons from one run per seed, with its log–log slope over T and the slope's
    bootstrap 95 % interval (:func:`theory.regret_fit.bootstrap_slope`);
*the gap family* (:func:`gap_rows`)
    the proofs' instance: K + 1 items, K at utility 1/2 and one, drawn by the seed, at
    1/2 − Δ with Δ = c·√(K/T), one instance per horizon T; c = 1 is Theorem 5.6's
    worst-case gap, c = 1/2 Theorem 5.7's ε.  K runs to 64.

Every number is a mean over seeds with its 95 % t-interval.  The grids of ``quick`` are
the full grids with fewer horizons, so both see the same K and seeds.
"""

from __future__ import annotations

import functools
import math
import os

import numpy as np

from theory.claims import instance_files

SEEDS = tuple(range(16))
POOL_K = (1, 2, 3, 4, 5)  # quick shortens T only: the same curves in both
POOL_HORIZONS = {True: (500, 1000, 2000, 4000), False: (1000, 2000, 4000, 8000, 16000)}
GAP_K = (1, 2, 4, 8, 16, 32, 64)
GAP_HORIZONS = {True: (1000, 4000), False: (1000, 4000, 16000)}


def pool(K: int) -> np.ndarray:
    """The fixed pool of 2K utilities."""
    return np.random.default_rng(56).uniform(0.05, 0.6, 2 * K)


def interval(values) -> list:
    """[low, high]: the 95 % t-interval of the mean of ``values`` (a point when they agree)."""
    from scipy import stats

    v = np.asarray(values, float)
    half = 0.0 if v.std() == 0 else stats.t.ppf(0.975, v.size - 1) * v.std(ddof=1) / math.sqrt(
        v.size)
    return [float(v.mean() - half), float(v.mean() + half)]


@functools.lru_cache(maxsize=None)
def pool_curve(policy: str, K: int, quick: bool, against: str = "best") -> dict:
    """R_T on the fixed pool of size 2K at the horizons: mean, interval, slope and its CI."""
    from theory.eviction_bandit import regret_curve
    from theory.regret_fit import bootstrap_slope, fit_slope

    H = POOL_HORIZONS[quick]
    per_seed = np.array([regret_curve(pool(K), K, H[-1], policy, s, against)[np.array(H) - 1]
                         for s in SEEDS])
    mean = per_seed.mean(axis=0)
    zero = not per_seed.any()
    low, high = (0.0, 0.0) if zero else bootstrap_slope(H, per_seed, resamples=1000, seed=0)[:2]
    return dict(policy=policy, K=K, against=against, horizons=list(H),
                mean_regret=[round(float(x), 3) for x in mean],
                intervals=[[round(x, 3) for x in interval(per_seed[:, j])]
                           for j in range(len(H))],
                normalised=[round(float(m) / math.sqrt(K * T * math.log(T)), 4)
                            for m, T in zip(mean, H)],
                last_per_seed=[round(float(x), 3) for x in per_seed[:, -1]],
                slope=None if zero else round(fit_slope(H, mean), 3),
                ci=None if zero else [round(low, 3), round(high, 3)], zero=zero)


def gap_utilities(K: int, T: int, c: float, seed: int) -> np.ndarray:
    """K + 1 utilities, all 1/2 but one (drawn by the seed) at 1/2 − c·√(K/T)."""
    mu = np.full(K + 1, 0.5)
    mu[np.random.default_rng([seed, T, K]).integers(K + 1)] -= c * math.sqrt(K / T)
    return mu


@functools.lru_cache(maxsize=None)
def gap_rows(policy: str, c: float, quick: bool) -> list:
    """One row per (K, T) of the gap family: R_T per seed, its mean and interval, R_T over
    √(KT) and √(KT log T), and the bound the proof of Theorem 5.7 displays, (K−1)·ΔT/K."""
    from theory.eviction_bandit import regret_curve

    rows = []
    for K in GAP_K:
        for T in GAP_HORIZONS[quick]:
            R = np.array([regret_curve(gap_utilities(K, T, c, s), K, T, policy, s)[-1]
                          for s in SEEDS])
            gap = c * math.sqrt(K / T)
            low, high = interval(R)
            rows.append(dict(policy=policy, K=K, steps=T, gap=round(gap, 6),
                             mean_regret=round(float(R.mean()), 3),
                             interval=[round(low, 3), round(high, 3)],
                             over_sqrt_KT=round(float(R.mean()) / math.sqrt(K * T), 4),
                             over_sqrt_KT_interval=[round(x / math.sqrt(K * T), 4)
                                                    for x in (low, high)],
                             over_bound=round(float(R.mean()) / math.sqrt(
                                 K * T * math.log(T)), 4),
                             over_bound_interval=[round(x / math.sqrt(K * T * math.log(T)), 4)
                                                  for x in (low, high)],
                             most_possible=round(gap * T, 3),
                             proof_bound=round((K - 1) * gap * T / K, 3),
                             per_seed=[round(float(x), 3) for x in R]))
    return rows


NORMS = {"raw": lambda K, T: 1.0, "over_sqrt_KT": lambda K, T: math.sqrt(K * T),
         "over_bound": lambda K, T: math.sqrt(K * T * math.log(T))}


def slope_over(rows: list, by: str, value: str = "over_sqrt_KT") -> dict:
    """Log–log slope of R_T / norm (``value`` names the norm, :data:`NORMS`) against ``by``
    (``"steps"``, one fit per K, or ``"K"``, one per T), with its bootstrap CI over the
    seeds; rows with zero regret (K = 1 in the forced class) are left out."""
    from theory.regret_fit import bootstrap_slope, fit_slope

    norm, other = NORMS[value], "K" if by == "steps" else "steps"
    out = {}
    for g in sorted({r[other] for r in rows}):
        mine = sorted((r for r in rows if r[other] == g and r["mean_regret"] > 0),
                      key=lambda r: r[by])
        if len(mine) < 2:
            continue
        per_seed = np.array([[v / norm(r["K"], r["steps"]) for v in r["per_seed"]]
                             for r in mine]).T
        mean = per_seed.mean(axis=0)
        x = [r[by] for r in mine]
        low, high, _ = bootstrap_slope(x, per_seed, resamples=1000, seed=0)
        out[g] = dict(slope=round(fit_slope(x, mean), 3), ci=[round(low, 3), round(high, 3)])
    return out


def save(out_dir: str, name: str, utilities, K: int, steps: int, policy: str,
         seed: int, against: str = "best") -> dict:
    """Write a stylized-model instance as JSON and say how to rerun it: the command prints
    R_T of ``policy`` against ``against`` (the best schedule of its class, or a policy's
    run on the same arrivals, :func:`theory.eviction_bandit.regret_curve`)."""
    path = os.path.join(out_dir, f"{name}.json")
    spec = dict(utilities=[float(x) for x in utilities], capacity=K, steps=steps,
                policy=policy, seed=seed, against=against)
    instance_files.write_json(spec, out_dir, f"{name}.json")
    run = ("python -c \"import json; from theory.eviction_bandit import regret_curve; "
           f"s = json.load(open('{path}')); print(regret_curve(s['utilities'], s['capacity'], "
           "s['steps'], s['policy'], s['seed'], s['against'])[-1])\"")
    return {"trace": path, "steps": steps, "model": spec, "reproduce": [run]}


def save_pool_instance(out_dir: str, name: str, curve: dict) -> dict:
    """Save the fixed pool of a :func:`pool_curve` at its longest horizon, seed 0, with its
    policy and comparator."""
    return save(out_dir, name, pool(curve["K"]), curve["K"], curve["horizons"][-1],
                curve["policy"], SEEDS[0], curve["against"])


def save_gap_instance(out_dir: str, name: str, row: dict, c: float) -> dict:
    """Save the gap-family instance of a :func:`gap_rows` row (gap c·√(K/T)), seed 0, with
    its policy against the best schedule of its class."""
    mu = gap_utilities(row["K"], row["steps"], c, SEEDS[0])
    return save(out_dir, name, mu, row["K"], row["steps"], row["policy"], SEEDS[0])
