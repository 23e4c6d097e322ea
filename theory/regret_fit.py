"""Regret curves: R(T) over horizons and seeds, a log–log slope, its bootstrap CI, a guard.

:func:`regret_curve` runs one policy on ``stationary`` traces (common random numbers: seed
s gives every policy the same trace, and s is also the policy's own seed) and measures the
Def. 2.3 pseudo-regret R(T) of :mod:`theory.regret` at each horizon T.

Horizons.  One run of length max(T) gives R(T) for every shorter T only if
``generate({steps: T}, s)`` is a prefix of ``generate({steps: max T}, s)``; that is checked
for every seed, and when it fails one trace is generated and run per horizon.  The
``stationary`` generator is *not* prefix-stable (the number of block permutations it draws
depends on ``steps`` and the queries and evidence are drawn after them), so its curves are
per horizon: R(T) at different T come from different traces of the same seed.

Fit.  slope = least-squares slope of log mean_s R_s(T) on log T; a mean R(T) <= 0 at some
horizon leaves it undefined (NaN).  CI: resample the seeds with replacement, refit, and take
the percentile interval (``resamples`` draws from ``numpy.random.default_rng(boot_seed)``);
resamples with an undefined slope are dropped and counted.

Validity guard.  The same horizons and seeds are run with ``guard`` (default ``fifo``:
it evicts by age and ignores feedback, so on stationary utilities its pseudo-regret grows
like T).  Rule: the experiment is *valid* iff the guard's fitted slope is within
``tolerance`` (default 0.15) of 1.  Otherwise (horizons too short to leave the warm-up,
a comparator or workload that hides linear regret) ``valid`` is False and the policy's
slope is not evidence of anything.

Examples
--------
>>> c = regret_curve("fifo", horizons=(100, 200, 400), seeds=(0, 1), capacity=2,
...                  params={"items": 8, "dim": 8}, resamples=50)
>>> c.valid, c.trace_reuse, round(c.slope, 1)
(True, 'per_horizon', 1.0)
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

import workloads
from simulator.errors import InputError
from simulator.runner import run
from simulator.trace import Trace
from theory.regret import eviction_regret


def fit_slope(horizons, mean_regret) -> float:
    """Least-squares slope of log R on log T; NaN if some R <= 0 or fewer than 2 horizons."""
    x, y = np.log(np.asarray(horizons, float)), np.asarray(mean_regret, float)
    if x.size < 2 or not (y > 0).all():
        return math.nan
    # the closed form in numpy's summation order (polyfit's LAPACK rounds per CPU)
    x = x - x.mean()
    return float((x * (np.log(y) - np.log(y).mean())).sum() / (x * x).sum())


def bootstrap_slope(horizons, per_seed, resamples=1000, level=0.95, seed=0):
    """(low, high, n_defined): percentile CI of :func:`fit_slope` over seeds resampled
    with replacement; ``per_seed`` is [seeds, horizons]."""
    per_seed = np.asarray(per_seed, float)
    if per_seed.shape[1] < 2:
        return math.nan, math.nan, 0
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, per_seed.shape[0], size=(int(resamples), per_seed.shape[0]))
    means = per_seed[draws].mean(axis=1)  # [resamples, horizons]
    x = np.log(np.asarray(horizons, float))
    x = x - x.mean()
    ok = (means > 0).all(axis=1)
    logs = np.log(np.where(means > 0, means, 1.0))
    slopes = ((logs - logs.mean(axis=1, keepdims=True)) * x).sum(axis=1) / (x * x).sum()
    slopes = slopes[ok]
    if slopes.size == 0:
        return math.nan, math.nan, 0
    tail = 50.0 * (1.0 - level)
    low, high = np.percentile(slopes, [tail, 100.0 - tail])
    return float(low), float(high), int(slopes.size)


@dataclasses.dataclass
class RegretCurve:
    """R(T) of one policy over horizons and seeds, its fitted slope, CI and validity.

    ``per_seed[s][h]`` is seed ``seeds[s]``'s pseudo-regret at ``horizons[h]``;
    ``realised`` and ``fixed_set`` are the per-horizon means of the realised regret and of
    the regret against the best fixed set (see :class:`theory.regret.EvictionRegret`).
    ``guard`` holds the guard policy's ``mean``, ``slope`` and ``ci``.
    """

    policy: str
    horizons: list
    seeds: list
    per_seed: list
    mean: list
    realised: list
    fixed_set: list
    slope: float
    ci: tuple
    ci_resamples: int
    guard: dict
    valid: bool
    reason: str
    trace_reuse: str
    config: dict

    def to_dict(self) -> dict:
        """Plain floats and lists, NaN as None (strict JSON has no NaN)."""
        return _plain(dataclasses.asdict(self))


def _plain(x):
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, np.ndarray)):
        return [_plain(v) for v in x]
    if isinstance(x, (float, np.floating)):
        return None if math.isnan(x) else float(x)
    if isinstance(x, np.integer):
        return int(x)
    return x


def _is_prefix(short: Trace, long: Trace) -> bool:
    T = short.steps
    a, b = short.arrays(), long.arrays()
    if a.keys() != b.keys() or short.meta.get("utilities") != long.meta.get("utilities"):
        return False
    for name, arr in a.items():
        if name == "evidence_indices":
            other = b[name][:long.evidence_indptr[T]]
        else:
            other = b[name][:arr.shape[0]]
        if not np.array_equal(arr, other):
            return False
    return True


def _traces(workload, params, seed, horizons, reuse):
    """{T: trace}, and whether one trace (of max T) serves every horizon."""
    wl = workloads.get(workload)
    longest = wl.generate({**params, "steps": horizons[-1]}, seed)
    shortest = wl.generate({**params, "steps": horizons[0]}, seed)
    if reuse and _is_prefix(shortest, longest):
        return {T: longest for T in horizons}, True
    out = {horizons[0]: shortest, horizons[-1]: longest}
    for T in horizons[1:-1]:
        out[T] = wl.generate({**params, "steps": T}, seed)
    return out, False


def _check_args(horizons, seeds, params, tolerance, resamples, level):
    horizons = sorted(int(T) for T in horizons)
    if len(horizons) < 2 or horizons[0] < 1 or len(set(horizons)) != len(horizons):
        raise InputError(f"horizons must be >= 2 distinct integers >= 1, got {horizons}")
    if len(seeds) < 1:
        raise InputError("seeds must name at least one seed")
    if "steps" in (params or {}):
        raise InputError("params must not set 'steps': the horizons set it")
    if not tolerance > 0 or int(resamples) < 1 or not 0 < level < 1:
        raise InputError(f"need tolerance > 0, resamples >= 1 and 0 < level < 1; got "
                         f"{tolerance}, {resamples}, {level}")
    return horizons


def regret_curve(policy: str, horizons=(1000, 2000, 4000, 8000, 16000), seeds=(0, 1, 2, 3, 4),
                 capacity: int = 5, params: dict | None = None, policy_params: dict | None = None,
                 top_k: int | None = None, guard: str = "fifo", tolerance: float = 0.15,
                 resamples: int = 1000, level: float = 0.95, boot_seed: int = 0,
                 comparator: str = "greedy", workload: str = "stationary") -> RegretCurve:
    """Pseudo-regret R(T) of ``policy`` at each horizon, over ``seeds``, with the fit and guard.

    Parameters
    ----------
    policy : str
        A registry policy.
    horizons, seeds
        The T values (at least two) and the seeds (each the trace's and the policy's seed).
    capacity, top_k
        K, and k (default K: the regret model needs k >= K).
    params : dict, optional
        Workload parameters other than ``steps``.
    policy_params : dict, optional
        Parameters of ``policy`` (the guard runs with its defaults).
    guard, tolerance
        The linear-regret policy and the validity rule (module docstring).
    resamples, level, boot_seed
        The bootstrap of the slope's CI.
    comparator : {"greedy", "exact"}
        See :mod:`theory.regret`.
    """
    horizons = _check_args(horizons, seeds, params, tolerance, resamples, level)
    params = dict(params or {})
    k = capacity if top_k is None else top_k
    names = [policy] if guard == policy else [policy, guard]
    rows = {n: {"pseudo": [], "realised": [], "fixed": []} for n in names}
    reused = True
    for seed in seeds:
        # The exact comparator looks ahead, so its R(T) needs a trace of exactly T steps.
        traces, prefix = _traces(workload, params, seed, horizons, comparator != "exact")
        reused &= prefix
        for name in names:
            prm = policy_params if name == policy else None
            per = {key: [] for key in rows[name]}
            done: dict = {}  # one run per distinct trace
            for T in horizons:
                tr = traces[T]
                if id(tr) not in done:
                    r = run(tr, name, capacity=capacity, top_k=k, seed=seed, params=prm)
                    done[id(tr)] = eviction_regret(tr, r, comparator, capacity=capacity)
                reg = done[id(tr)]
                per["pseudo"].append(reg.pseudo(T))
                per["realised"].append(reg.realised(T))
                per["fixed"].append(reg.fixed_set(T))
            for key, values in per.items():
                rows[name][key].append(values)
    fits = {}
    for name in names:
        pseudo = np.array(rows[name]["pseudo"])
        low, high, n_ok = bootstrap_slope(horizons, pseudo, resamples, level, boot_seed)
        fits[name] = dict(mean=pseudo.mean(axis=0).tolist(),
                          slope=fit_slope(horizons, pseudo.mean(axis=0)), ci=(low, high),
                          n_ok=n_ok)
    g = fits[guard]
    valid = bool(abs(g["slope"] - 1.0) <= tolerance)  # False for a NaN slope too
    reason = (f"guard '{guard}' slope {g['slope']:.3f} is within {tolerance} of 1" if valid else
              f"experiment invalid: guard '{guard}' slope {g['slope']:.3f} is not within "
              f"{tolerance} of 1 (linear regret not detected at these horizons)")
    mine = fits[policy]
    return RegretCurve(
        policy=policy, horizons=horizons, seeds=[int(s) for s in seeds],
        per_seed=np.array(rows[policy]["pseudo"]).tolist(), mean=mine["mean"],
        realised=np.mean(rows[policy]["realised"], axis=0).tolist(),
        fixed_set=np.mean(rows[policy]["fixed"], axis=0).tolist(),
        slope=mine["slope"], ci=mine["ci"], ci_resamples=mine["n_ok"],
        guard=dict(policy=guard, mean=g["mean"], slope=g["slope"], ci=g["ci"]),
        valid=valid, reason=reason, trace_reuse="prefix" if reused else "per_horizon",
        config=dict(workload=workload, params=params, capacity=int(capacity), top_k=int(k),
                    policy_params=policy_params, comparator=comparator, tolerance=tolerance,
                    resamples=int(resamples), level=level, boot_seed=boot_seed))
