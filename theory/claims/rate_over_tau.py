"""§4.2's economic-order argument: the modification rate is N/T ≈ L/τ.

The derivation of τ* = √(2λ/L) charges λ per modification at the rate L/τ: the gate
accumulates the loss and fires once it reaches τ, so it fires about once per τ of loss.
The arithmetic of Alg. 1 with a fixed τ says more.  Each admission resets c, and c had
reached τ, so Nτ ≤ Σ_t ℓ_t: **N/T ≤ L/τ always**, L the run's mean per-step loss.  An
epoch ends on the first step that takes c to τ or past it, so when the gate is asked every
step (every arrival new) each epoch's accumulated loss is below τ + ℓ_max, and

    (L − τ/T)/(τ + ℓ_max) < N/T ≤ L/τ                                   (closed form)

(:func:`bracket`).  N/T ≈ L/τ therefore needs τ ≫ ℓ_max; with binary losses and τ ≤ 1 the
gate fires on every miss and N/T = L, a factor τ below L/τ.

The check runs ``solar`` with fixed τ on stationary workloads (``stationary``,
``clusters``, ``working_set``) under each quality, over seeds, and measures
(N/T)/(L/τ) with the seeds' 95 % t-interval.  "≈" is read as within 10 % (:data:`TOLERANCE`):
a configuration violates it when its whole interval lies outside [0.9, 1.1].  A search: the
headline is violated with the worst configuration's instance, or not refuted; the bracket
is the corrected statement (closed form, checked on every run; its lower side only where
every arrival is a new item, since a cached arrival does not consult the gate and lets c
grow past τ + ℓ_max).
"""

from __future__ import annotations

import functools
import math

import numpy as np

import workloads
from simulator.instance import Instance
from simulator.runner import run
from theory.claims.base import HOLDS, NOT_REFUTED, VIOLATED, by_subrange, save_policy_instance
from theory.claims.verdicts import CLOSED_FORM, SEARCH, basis, verdict
from theory.kit.claim import Claim

TOLERANCE = 0.10
WORKLOADS = (("stationary", {"items": 50}), ("clusters", {}), ("working_set", {}))
QUALITIES = ("hit", "precision", "similarity")
GRID = {True: dict(tau=(0.5, 2.0, 8.0), seeds=(0, 1, 2), steps=4000),
        False: dict(tau=(0.5, 1.0, 2.0, 4.0, 8.0, 16.0), seeds=(0, 1, 2, 3, 4), steps=20000)}
OPTIONS = dict(capacity=5, top_k=3, switch_cost=0.5)

SUBRANGES = {"τ ≤ 1 (≤ ℓ_max)": lambda r: r["tau"] <= 1, "τ = 2": lambda r: r["tau"] == 2,
             "τ ≥ 4": lambda r: r["tau"] >= 4, "hit quality": lambda r: r["quality"] == "hit",
             "graded quality": lambda r: r["quality"] != "hit"}


def bracket(N: int, T: int, total_loss: float, tau: float, largest_loss: float) -> dict:
    """The closed form's two sides for one run: ``upper`` (Nτ ≤ Σℓ) and ``lower``
    ((Σℓ − τ)/(τ + ℓ_max) < N, needing every arrival new).

    >>> bracket(N=5, T=10, total_loss=5.0, tau=1.0, largest_loss=1.0)
    {'upper': True, 'lower': True}
    >>> bracket(N=6, T=10, total_loss=5.0, tau=1.0, largest_loss=1.0)["upper"]
    False
    """
    return {"upper": N * tau <= total_loss + 1e-9,
            "lower": (total_loss - tau) / (tau + largest_loss) < N + 1e-9}


def _interval(values) -> list:
    """The seeds' mean with its 95 % t-interval."""
    from scipy import stats

    v = np.asarray(values, float)
    half = 0.0 if v.size < 2 else float(stats.t.ppf(0.975, v.size - 1) * v.std(ddof=1)
                                        / math.sqrt(v.size))
    return [float(v.mean() - half), float(v.mean() + half)]


@functools.lru_cache(maxsize=64)
def _trace(name: str, steps: int, seed: int):
    """One workload's trace, generated once for every quality and τ."""
    return workloads.get(name).generate({**dict(WORKLOADS)[name], "steps": steps}, seed)


def measure(name: str, quality: str, tau: float, grid: dict) -> dict:
    """One configuration over ``grid``'s seeds: (N/T)/(L/τ) (``ratio``, its ``interval``),
    whether it is within :data:`TOLERANCE` (``agrees``) and every run in the bracket
    (``bracket_ok``), and the first seed's ``instance``."""
    ratios, rates, losses, sides, traces = [], [], [], [], []
    for seed in grid["seeds"]:
        trace = _trace(name, grid["steps"], seed)
        res = run(trace, "solar", quality=quality, seed=seed, params={"tau": tau}, **OPTIONS)
        T, N = trace.steps, int(np.sum(res.admitted >= 0))
        L = float(np.mean(res.loss))
        ratios.append((N / T) / (L / tau))
        rates.append(N / T)
        losses.append(L)
        fresh = trace.n_keys == T  # every arrival a new item: the gate is asked every step
        side = bracket(N, T, float(np.sum(res.loss)), tau, float(np.max(res.loss)))
        sides.append(side["upper"] and (side["lower"] or not fresh))
        traces.append(trace)
    low, high = _interval(ratios)
    return dict(workload=name, quality=quality, tau=tau, steps=grid["steps"],
                ratio=float(np.mean(ratios)), interval=[low, high], rate=float(np.mean(rates)),
                loss_rate=float(np.mean(losses)), bracket_ok=all(sides),
                agrees=not (high < 1 - TOLERANCE or low > 1 + TOLERANCE),
                instance=Instance(traces[0], dict(OPTIONS, quality=quality)))


def _save(row: dict, out_dir: str, name: str) -> dict:
    return save_policy_instance(row["instance"], "solar", out_dir, name,
                                params={"tau": row["tau"]}, with_opt=False)


def _check(quick: bool, out_dir: str) -> dict:
    grid = GRID[quick]
    rows = [measure(n, q, tau, grid) for n, _ in WORKLOADS for q in QUALITIES
            for tau in grid["tau"]]
    plain = [{k: v for k, v in r.items() if k != "instance"} for r in rows]
    taus = ", ".join(f"{t:g}" for t in grid["tau"])
    scope = (f"{len(rows)} configurations of solar with fixed τ ∈ {{{taus}}} on stationary, "
             f"clusters and working_set under hit, precision and similarity quality, K = 5, "
             f"k = 3, T = {grid['steps']}, {len(grid['seeds'])} seeds each; (N/T)/(L/τ) with "
             "the seeds' 95 % t-interval against 1 ± 10 %")
    search = basis(SEARCH, scope)
    parts = by_subrange(rows, SUBRANGES, lambda r: r["agrees"],
                        lambda r: _save(r, out_dir, f"rate_over_tau_{r['quality']}_tau"
                                                    f"{r['tau']:g}"), search)
    broken = [r for r in rows if not r["bracket_ok"]]
    closed = basis(CLOSED_FORM, "Nτ ≤ Σℓ (each admission resets c after it reached τ) and, "
                                "every arrival new, Σℓ < N(τ + ℓ_max) + τ; checked on every "
                                f"run of the {len(rows)} configurations")
    corrected = verdict(
        HOLDS if not broken else VIOLATED, closed,
        "every run within the bracket" if not broken else
        f"{broken[0]['workload']}, {broken[0]['quality']}, τ={broken[0]['tau']:g} leaves it",
        statement="(L − τ/T)/(τ + ℓ_max) < N/T ≤ L/τ (the upper side always, the lower where "
                  "every arrival is new): N/T ≈ L/τ only when τ ≫ ℓ_max",
        **({} if not broken else {"instance": _save(broken[0], out_dir,
                                                    "rate_over_tau_bracket")}))
    measured = dict(rows=plain, tolerance=TOLERANCE)
    found = dict(measured=measured, corrected=corrected, subranges=parts)
    off = [r for r in rows if not r["agrees"]]
    if off:
        worst = min(off, key=lambda r: r["interval"][1])
        lo, hi = worst["interval"]
        return dict(found, verdict=VIOLATED, basis=search,
                    instance=_save(worst, out_dir, "rate_over_tau"),
                    evidence=f"{len(off)} of {len(rows)} configurations lie outside 10 % of "
                             f"L/τ; worst {worst['workload']}, {worst['quality']} quality, "
                             f"τ={worst['tau']:g}: (N/T)/(L/τ) = {worst['ratio']:.3f} [{lo:.3f}, "
                             f"{hi:.3f}] (N/T = {worst['rate']:.3f}, L = "
                             f"{worst['loss_rate']:.3f}); at τ ≥ 4 the ratio is "
                             f"{min(r['ratio'] for r in rows if r['tau'] >= 4):.3f} or more")
    return dict(found, verdict=NOT_REFUTED, basis=search,
                evidence=f"all {len(rows)} configurations within 10 % of L/τ (smallest ratio "
                         f"{min(r['ratio'] for r in rows):.3f})")


CLAIM = Claim(
    id="rate-over-tau",
    title="The modification rate is L/τ",
    statement="§4.2: with threshold τ the modification rate is N/T ≈ L/τ, L the loss rate.",
    conditions="solar with fixed τ ∈ {0.5, 1, 2, 4, 8, 16} on stationary (50 items), "
               "clusters and working_set, hit/precision/similarity quality, K = 5, k = 3, "
               "T = 20000, seeds 0–4 (quick: τ ∈ {0.5, 2, 8}, T = 4000, seeds 0–2); L = the "
               "run's mean per-step loss; ≈ read as within 10 % (the seeds' 95 % interval)",
    evidence=_check)
