"""Runs of the paper's stylized eviction model shared by Theorems 5.6 and 5.7.

:func:`curve` measures R_T of one policy of :mod:`theory.eviction_bandit` on a fixed pool
(N = 2K items, utilities drawn once from U[0.05, 0.6] by the seed 56) with its log–log
slope and bootstrap CI (:func:`theory.regret_fit.bootstrap_slope`).  :func:`construction`
runs Theorem 5.7's own instance: K + 1 items, K at utility 1/2 and one, chosen uniformly
by the seed, at 1/2 − ε with ε = ½·√(K/T), one instance per horizon T.  In the stylized
model every cached item is observed each step (retrieval depth k ≥ K).
"""

from __future__ import annotations

import functools
import json
import math
import os

import numpy as np

HORIZONS = {True: (500, 1000, 2000, 4000), False: (1000, 2000, 4000, 8000, 16000)}
SEEDS = {True: (0, 1, 2), False: (0, 1, 2, 3, 4)}
CAPACITIES = {True: (1, 5), False: (1, 5)}  # quick shortens T only: the same curves
LOWER = {True: dict(K=4, horizons=(250, 1000, 4000), seeds=(0, 1, 2)),
         False: dict(K=4, horizons=(1000, 4000, 16000), seeds=(0, 1, 2, 3))}


def pool(K: int) -> np.ndarray:
    """The fixed pool of 2K utilities."""
    return np.random.default_rng(56).uniform(0.05, 0.6, 2 * K)


@functools.lru_cache(maxsize=None)
def curve(policy: str, K: int, quick: bool) -> dict:
    """R_T at the horizons (mean over seeds), its slope and 95 % bootstrap CI."""
    from theory.eviction_bandit import regret_curve
    from theory.regret_fit import bootstrap_slope, fit_slope

    H = HORIZONS[quick]
    per_seed = np.array([regret_curve(pool(K), K, H[-1], policy, s)[np.array(H) - 1]
                         for s in SEEDS[quick]])
    low, high, _ = bootstrap_slope(H, per_seed, resamples=1000, seed=0)
    mean = per_seed.mean(axis=0)
    return dict(policy=policy, K=K, horizons=list(H), mean_regret=[round(x, 2) for x in mean],
                slope=round(fit_slope(H, mean), 3), ci=[round(low, 3), round(high, 3)])


@functools.lru_cache(maxsize=None)
def construction(policy: str, quick: bool) -> list:
    """Theorem 5.7's instance per horizon: R_T (mean, 95 % t-interval), the proof's bound."""
    from scipy import stats

    from theory.eviction_bandit import regret_curve

    grid = LOWER[quick]
    K, rows = grid["K"], []
    for T in grid["horizons"]:
        eps = 0.5 * math.sqrt(K / T)
        R = np.array([regret_curve(lower_pool(K, eps, T, s), K, T, policy, s)[-1]
                      for s in grid["seeds"]])
        half = stats.t.ppf(0.975, R.size - 1) * R.std(ddof=1) / math.sqrt(R.size)
        rows.append(dict(policy=policy, K=K, steps=T, epsilon=round(eps, 5),
                         mean_regret=round(float(R.mean()), 3),
                         interval=[round(float(R.mean() - half), 3),
                                   round(float(R.mean() + half), 3)],
                         proof_bound=round((K - 1) * eps * T / K, 3),
                         normalised=round(float(R.mean()) / math.sqrt(K * T), 4)))
    return rows


def lower_pool(K: int, eps: float, T: int, seed: int) -> np.ndarray:
    """Theorem 5.7's K + 1 utilities: all 1/2, one (drawn by the seed) 1/2 − ε."""
    mu = np.full(K + 1, 0.5)
    mu[np.random.default_rng([seed, T]).integers(K + 1)] -= eps
    return mu


def save(out_dir: str, name: str, utilities, K: int, steps: int, policy: str,
         seed: int) -> dict:
    """Write a stylized-model instance as JSON and say how to rerun it."""
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{name}.json")
    spec = dict(utilities=[float(x) for x in utilities], capacity=K, steps=steps,
                policy=policy, seed=seed)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(spec, fh, indent=1)
    run = ("python -c \"import json; from theory.eviction_bandit import regret_curve; "
           f"s = json.load(open('{path}')); print(regret_curve(s['utilities'], s['capacity'], "
           "s['steps'], s['policy'], s['seed'])[-1])\"")
    return {"trace": path, "steps": steps, "model": spec, "reproduce": [run]}
