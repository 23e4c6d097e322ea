"""Remark after Theorem 5.4: after a phase change τ_t converges within O(1/α) steps.

Alg. 1 moves τ only at firings, τ ← (1 − α)τ + α·δ_t.  Let the per-step loss jump from
δ₁ to δ₂ (a phase change) with τ at δ₁, its limit under δ₁ (:mod:`theory.claims.tau_floor`).
After n firings in the new phase τ − δ₂ = (1 − α)^n (δ₁ − δ₂), so τ is within ε·|δ₁ − δ₂|
of its new limit after exactly

    n_ε = ⌈ln ε / ln(1 − α)⌉ ≤ ln(1/ε)/α + 1   firings                  (closed form)

and, since the j-th epoch lasts ⌈τ_j/δ₂⌉ steps (the epoch in progress at the change at most
⌈δ₁/δ₂⌉ + 1 more), at most

    B(α) = (2 ln(1/ε) + max(δ₁ − δ₂, 0)/δ₂)/α + δ₁/δ₂ + 3   steps.

So for fixed loss levels the steps are O(1/α), the statement; the constant grows like
(δ₁ − δ₂)/δ₂ when the loss falls: a fall to a small loss takes about (δ₁ − δ₂)/(αδ₂) steps,
without bound as δ₂ → 0 (a reading: "uniformly in the loss levels").  The check runs
``solar`` on two constant-loss phases (:func:`theory.claims.tau_floor.constant_loss_trace`)
over α and (δ₁, δ₂), replays the threshold, and checks the firings against n_ε and the steps
against B(α).
"""

from __future__ import annotations

import math

import numpy as np

from simulator.instance import Instance
from simulator.runner import run
from theory.claims.base import HOLDS, VIOLATED, save_policy_instance
from theory.claims.tau_floor import constant_loss_trace, steps_for
from theory.claims.verdicts import CLOSED_FORM, UPPER_ASYMPTOTIC, basis, verdict
from theory.gate_replay import gate_path
from theory.kit.claim import Claim

EPSILON = 0.05  # within 5 % of the jump |δ₁ − δ₂|
GRID = {True: dict(alpha=(0.05, 0.1, 0.2, 0.4), phases=((0.5, 0.05), (0.05, 0.5), (1.0, 0.01))),
        False: dict(alpha=(0.025, 0.05, 0.1, 0.2, 0.4),
                    phases=((0.5, 0.05), (0.05, 0.5), (1.0, 0.2), (1.0, 0.01), (1.0, 0.002)))}
OPTIONS = dict(capacity=2, top_k=1, switch_cost=0.5, quality="hit")


def firings_needed(alpha: float, epsilon: float = EPSILON) -> int:
    """n_ε: firings for τ to come within ε of the jump from its new limit.

    >>> firings_needed(0.1), firings_needed(0.01)
    (29, 299)
    """
    return math.ceil(math.log(epsilon) / math.log(1.0 - alpha))


def step_bound(alpha: float, before: float, after: float, epsilon: float = EPSILON) -> float:
    """B(α): the steps a change of the loss from ``before`` to ``after`` may take."""
    return ((2 * math.log(1 / epsilon) + max(before - after, 0.0) / after) / alpha
            + before / after + 3)


def _one(alpha: float, before: float, after: float) -> dict:
    n = firings_needed(alpha)
    first = steps_for(before, before, alpha, firings=5)
    second = steps_for(after, before, alpha, firings=n + 5)
    delta = np.r_[np.full(first, before), np.full(second, after)]
    trace = constant_loss_trace(delta, delta.size)
    params = {"alpha": alpha, "tau0": before}
    path = gate_path(run(trace, "solar", params=params, **OPTIONS))
    tau, fired = path["tau"], path["fired"]
    close = np.abs(tau[first:] - after) <= EPSILON * abs(before - after) * (1 + 1e-9)
    steps = int(np.argmax(close)) if close.any() else math.inf
    firings = int(np.sum((fired >= first) & (fired < first + steps)))
    return dict(alpha=alpha, before=before, after=after, steps=steps, firings=firings,
                firings_closed_form=n, bound=step_bound(alpha, before, after),
                alpha_times_steps=round(alpha * steps, 3),
                instance=Instance(trace, dict(OPTIONS)), params=params)


def _save(row: dict, out_dir: str, name: str) -> dict:
    return save_policy_instance(row["instance"], "solar", out_dir, name, params=row["params"],
                                with_opt=False)


def _check(quick: bool, out_dir: str) -> dict:
    g = GRID[quick]
    rows = [_one(a, b, c) for b, c in g["phases"] for a in g["alpha"]]
    plain = [{k: v for k, v in r.items() if k not in ("instance", "params")} for r in rows]
    bad = [r for r in rows if r["firings"] != r["firings_closed_form"] or
           r["steps"] > r["bound"]]
    pairs = ", ".join(f"({b:g}, {c:g})" for b, c in g["phases"])
    alphas = ", ".join(f"{a:g}" for a in g["alpha"])
    scope = (f"two constant-loss phases (δ₁, δ₂) ∈ {{{pairs}}}, α ∈ {{{alphas}}}, "
             f"ε = {EPSILON} of the jump: n_ε = ⌈ln ε / ln(1 − α)⌉ firings and at most B(α) "
             f"steps, against the replayed threshold of all {len(rows)} solar runs")
    closed = basis(CLOSED_FORM, scope)
    measured = dict(rows=plain, epsilon=EPSILON)
    if bad:
        row = bad[0]
        return dict(verdict=VIOLATED, basis=closed, measured=measured,
                    instance=_save(row, out_dir, "tau_convergence"),
                    evidence=f"α={row['alpha']}, δ {row['before']} → {row['after']}: "
                             f"{row['steps']} steps and {row['firings']} firings, against "
                             f"n_ε = {row['firings_closed_form']} and B(α) = "
                             f"{row['bound']:.0f}")
    slowest = max(rows, key=lambda r: r["steps"] / r["bound"])
    fall = [r for r in rows if r["before"] - r["after"] >= 0.9 and
            r["alpha"] == g["alpha"][1]]
    lows = ", ".join(f"δ₂={r['after']}: {r['steps']}" for r in fall)
    steepest = min(fall, key=lambda r: r["after"])
    uniform = verdict(VIOLATED, closed, f"at α = {g['alpha'][1]} a fall of the loss from 1 "
                      f"takes {lows} steps, growing like (δ₁ − δ₂)/(αδ₂)",
                      reading="uniformly in the loss levels (one constant for every "
                              "workload)", within_definitions=True,
                      instance=_save(steepest, out_dir, "tau_convergence_uniform"))
    by_alpha = "; ".join(
        f"δ {b} → {c}: α·steps = " + "/".join(f"{r['alpha_times_steps']:g}" for r in rows
                                              if (r["before"], r["after"]) == (b, c))
        for b, c in g["phases"])
    return dict(verdict=HOLDS, basis=closed, measured=measured, readings=[uniform],
                verdict_note="for fixed loss levels; the constant grows as (δ₁ − δ₂)/δ₂",
                evidence=f"every run takes exactly n_ε firings and at most B(α) steps "
                         f"(closest: {slowest['steps']} of {slowest['bound']:.0f} at "
                         f"α={slowest['alpha']}); {by_alpha}")


CLAIM = Claim(
    id="tau-convergence",
    title="τ converges within O(1/α) steps per phase",
    statement="Remark after Theorem 5.4: after a phase change, τ_t converges within O(1/α) "
              "steps.",
    conditions="solar on two phases of constant per-step loss (every step a full miss "
               "weighing δ₁, then δ₂; hit quality, K = 2, k = 1, λ = 0.5), τ₀ = δ₁; (δ₁, δ₂) "
               "∈ {(0.5, 0.05), (0.05, 0.5), (1, 0.2), (1, 0.01), (1, 0.002)}, α ∈ {0.025, "
               "0.05, 0.1, 0.2, 0.4} (quick: (0.5, 0.05), (0.05, 0.5), (1, 0.01); α ∈ {0.05, "
               "0.1, 0.2, 0.4}); converged: within 5 % of the jump",
    form=UPPER_ASYMPTOTIC,
    evidence=_check)
