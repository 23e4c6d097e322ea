"""§4.2: τ* = √(2λ/L) is the cost-optimal threshold (an economic-order-quantity argument).

The check sweeps a fixed threshold τ over a geometric grid and runs ``solar`` at each
(same traces and seeds for every τ) on stationary workloads, for several λ, K and
qualities, and asks whether the cost-minimising τ is √(2λ/L).  L is the loss rate: the
mean per-step miss cost of the run at the best τ (the loss rate SOLAR runs at when tuned).

Resolution.  For each configuration the τ whose mean cost per step is lowest is the best
on the grid; every τ whose paired cost difference to it (per seed, same trace) has a 95 %
t-interval that reaches 0 is as good within the seeds' noise.  Those τ, widened by one grid
step on each side (to 0 or ∞ where they touch the grid's edge, since the optimum may lie
beyond it), form the **near-optimal band**.  The configuration breaks the claim when
√(2λ/L) lies outside the band: the best τ is then farther from it than the grid's
resolution and the seeds' interval allow.  A search: ``violated`` with that
configuration's trace saved (replayed at τ = √(2λ/L); the evidence gives the best τ and
both costs), else ``not refuted``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

import workloads
from simulator.instance import Instance
from simulator.runner import run
from theory.claims.base import NOT_REFUTED, VIOLATED, by_subrange, save_policy_instance
from theory.claims.verdicts import SEARCH, basis
from theory.kit.claim import Claim

GRID = {True: dict(tau=tuple(0.1 * 2.0 ** i for i in range(9)), seeds=(0, 1, 2), steps=2000,
                   lam=(0.1, 2.0), workloads=("clusters", "working_set"), K=(5, 20)),
        False: dict(tau=tuple(0.1 * 2.0 ** (i / 2) for i in range(17)), seeds=(0, 1, 2),
                    steps=3000, lam=(0.1, 0.5, 2.0),
                    workloads=("clusters", "working_set", "stationary"), K=(5, 20))}
QUALITIES = ("hit", "similarity")
PARAMS = {"clusters": {}, "working_set": {}, "stationary": {"items": 50}}
TOP_K = 3

SUBRANGES = {"hit quality": lambda r: r["quality"] == "hit",
             "similarity quality": lambda r: r["quality"] == "similarity",
             "λ ≤ 0.1": lambda r: r["switch_cost"] <= 0.1, "λ ≥ 2": lambda r: r["switch_cost"] >= 2,
             "K = 5": lambda r: r["capacity"] == 5, "K = 20": lambda r: r["capacity"] == 20}


@functools.lru_cache(maxsize=64)
def _trace(name: str, steps: int, seed: int):
    return workloads.get(name).generate({**PARAMS[name], "steps": steps}, seed)


def _reaches_zero(diff) -> bool:
    """Whether the 95 % t-interval of the paired differences ``diff`` reaches 0."""
    from scipy import stats

    d = np.asarray(diff, float)
    if d.size < 2 or d.std(ddof=1) == 0:
        return bool(np.allclose(d, 0))
    half = stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
    return bool(d.mean() - half <= 0)


def band(taus, costs) -> dict:
    """The best τ of the grid and the near-optimal band (module docstring) from
    ``costs[seed][i]``, the cost per step at ``taus[i]``.

    >>> b = band([1.0, 2.0, 4.0], [[3.0, 1.0, 2.0], [3.1, 1.1, 2.2]])
    >>> b["best"], b["low"], b["high"]
    (2.0, 1.0, 4.0)
    """
    c = np.asarray(costs, float)
    best = int(np.argmin(c.mean(axis=0)))
    near = [i for i in range(len(taus)) if i == best or _reaches_zero(c[:, i] - c[:, best])]
    step = taus[1] / taus[0]
    low = 0.0 if min(near) == 0 else taus[min(near)] / step
    high = math.inf if max(near) == len(taus) - 1 else taus[max(near)] * step
    return dict(best=float(taus[best]), best_index=best, low=float(low), high=float(high))


def measure(name: str, K: int, quality: str, lam: float, grid: dict) -> dict:
    """One configuration: cost per step at every τ of the grid (every seed), the band, L at
    the best τ and √(2λ/L), and whether √(2λ/L) lies in the band (``agrees``)."""
    taus = grid["tau"]
    costs, losses = [], []
    for seed in grid["seeds"]:
        trace = _trace(name, grid["steps"], seed)
        runs = [run(trace, "solar", capacity=K, top_k=TOP_K, switch_cost=lam, quality=quality,
                    seed=seed, params={"tau": t}) for t in taus]
        costs.append([r.summary()["cost"] / trace.steps for r in runs])
        losses.append([float(np.mean(r.loss)) for r in runs])
    found = band(taus, costs)
    L = float(np.mean(np.asarray(losses)[:, found["best_index"]]))
    target = math.sqrt(2 * lam / L) if L > 0 else math.inf
    mean = np.asarray(costs).mean(axis=0)
    at_target = float(np.interp(target, taus, mean)) if taus[0] <= target <= taus[-1] else None
    return dict(workload=name, capacity=K, quality=quality, switch_cost=lam,
                steps=grid["steps"], loss_rate=L, target=target, best_tau=found["best"],
                band=[found["low"], found["high"]], best_cost=float(mean.min()),
                cost_near_target=at_target, mean_cost=[round(float(x), 4) for x in mean],
                agrees=found["low"] <= target <= found["high"],
                instance=Instance(_trace(name, grid["steps"], grid["seeds"][0]),
                                  dict(capacity=K, top_k=TOP_K, switch_cost=lam,
                                       quality=quality)))


def _save(row: dict, out_dir: str, name: str) -> dict:
    return save_policy_instance(row["instance"], "solar", out_dir, name,
                                params={"tau": round(row["target"], 4)}, with_opt=False)


def _check(quick: bool, out_dir: str) -> dict:
    grid = GRID[quick]
    rows = [measure(n, K, q, lam, grid) for n in grid["workloads"] for K in grid["K"]
            for q in QUALITIES for lam in grid["lam"]]
    taus = grid["tau"]
    scope = (f"{len(rows)} configurations: solar with fixed τ on a geometric grid "
             f"{taus[0]:g}…{taus[-1]:g} (×{taus[1] / taus[0]:.3g}), "
             f"{', '.join(grid['workloads'])}, "
             f"K ∈ {{{', '.join(map(str, grid['K']))}}}, k = {TOP_K}, hit and similarity "
             f"quality, λ ∈ {{{', '.join(f'{v:g}' for v in grid['lam'])}}}, T = "
             f"{grid['steps']}, {len(grid['seeds'])} seeds; √(2λ/L) against the near-optimal "
             "band")
    search = basis(SEARCH, scope)
    parts = by_subrange(rows, SUBRANGES, lambda r: r["agrees"],
                        lambda r: _save(r, out_dir, f"optimal_threshold_{r['quality']}_K"
                                                    f"{r['capacity']}"), search)
    plain = [{k: v for k, v in r.items() if k != "instance"} for r in rows]
    found = dict(measured=dict(rows=plain, taus=list(taus)), subranges=parts)
    off = [r for r in rows if not r["agrees"]]
    if off:
        # the most telling: the largest gap, in grid steps, between the band and √(2λ/L)
        worst = max(off, key=lambda r: abs(math.log(r["target"] / r["best_tau"])))
        near = (f", {worst['cost_near_target']:.3f} at √(2λ/L)"
                if worst["cost_near_target"] is not None else "")
        return dict(found, verdict=VIOLATED, basis=search,
                    instance=_save(worst, out_dir, "optimal_threshold"),
                    evidence=f"{len(off)} of {len(rows)} configurations put √(2λ/L) outside "
                             f"the near-optimal band; e.g. {worst['workload']}, "
                             f"K={worst['capacity']}, {worst['quality']} quality, "
                             f"λ={worst['switch_cost']:g}: √(2λ/L) = {worst['target']:.2f} "
                             f"(L = {worst['loss_rate']:.3f}) but the best τ is "
                             f"{worst['best_tau']:.2f} (cost {worst['best_cost']:.3f} a step"
                             f"{near}; band {worst['band'][0]:.2f}…{worst['band'][1]:.2f})")
    return dict(found, verdict=NOT_REFUTED, basis=search,
                evidence=f"√(2λ/L) lies in the near-optimal band of all {len(rows)} "
                         "configurations")


CLAIM = Claim(
    id="optimal-threshold",
    title="τ* = √(2λ/L) is cost-optimal",
    statement="§4.2: the threshold τ* = √(2λ/L) minimises the cost, L the loss rate.",
    conditions="solar with fixed τ = 0.1·√2^i, i = 0…16, on clusters, working_set and "
               "stationary (50 items), K ∈ {5, 20}, k = 3, hit and similarity quality, λ ∈ "
               "{0.1, 0.5, 2}, T = 3000, seeds 0–2 (quick: τ = 0.1·2^i, i = 0…8, clusters "
               "and working_set, λ ∈ {0.1, 2}, T = 2000); L = the mean per-step miss cost at "
               "the best τ",
    evidence=_check)
