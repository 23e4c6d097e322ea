"""The threshold floor: "τ_t stays bounded away from 0" (the step that makes Theorem 5.2's
τ_min, and so its bound ⌊T/τ_min⌋, a constant).

Alg. 1 moves τ only when the gate fires, τ ← (1 − α)τ + α·δ_t, δ_t the firing step's loss.
So τ_t is a convex combination of τ₀ and the losses of firing steps, and a constant
per-step loss δ drives it to δ: after n firings

    τ_n = δ + (1 − α)^n (τ₀ − δ)                                     (closed form)

(:func:`closed_form`).  With δ as small as one likes, τ comes as close to 0 as one likes:
no constant c > 0 bounds every run's τ_t from below.  The check runs ``solar`` on
:func:`constant_loss_trace` (every query misses, each step weighing δ, so every step's
loss is exactly δ) for several δ, τ₀ and α, replays the threshold path
(:func:`theory.gate_replay.gate_path`, which also checks the run admitted only where the
gate fired) and compares it with the closed form at every step.

Verdict.  The statement, read as a uniform floor (some c > 0 below every τ_t), is
violated by the closed form, with the run of the smallest δ saved as its instance.  What
does hold is the floor a run's own losses set: τ_t ≥ min(τ₀, the smallest firing loss)
(the corrected statement, closed form, checked on every run); with binary losses (hit
quality, unit weights) every firing loss is 1, so there τ_t ≥ min(τ₀, 1).
"""

from __future__ import annotations

import numpy as np

from simulator.instance import Instance
from simulator.runner import run
from simulator.trace import Trace
from theory.claims.base import HOLDS, VIOLATED, save_policy_instance
from theory.claims.verdicts import CLOSED_FORM, basis, verdict
from theory.gate_replay import gate_path
from theory.kit.claim import Claim

GRID = {True: dict(delta=(0.5, 0.05, 0.002), tau0=(1.0, 0.2), alpha=(0.1, 0.5)),
        False: dict(delta=(0.5, 0.1, 0.02, 0.005, 0.001), tau0=(2.0, 1.0, 0.2),
                    alpha=(0.05, 0.1, 0.5))}
OPTIONS = dict(capacity=2, top_k=1, switch_cost=0.5, quality="hit")
FIRINGS = 40  # firings each run lasts at least: (1 − α)^40 ≤ 1.5 % of the start at α = 0.1


def constant_loss_trace(delta, steps: int) -> Trace:
    """A trace on which every step's loss is ``delta[t]`` (a number or one per step): each
    query is on topic 0, every item on topic 1, so nothing cached is ever relevant and
    every step is a full miss weighing ``delta[t]`` (hit quality).

    >>> from simulator.runner import run
    >>> run(constant_loss_trace(0.25, 3), "fifo", capacity=1, top_k=1).loss.tolist()
    [0.25, 0.25, 0.25]
    """
    x = np.eye(2, dtype=np.float32)
    weights = np.broadcast_to(np.asarray(delta, np.float64), (steps,))
    return Trace.from_arrays(queries=x[np.zeros(steps, int)], items=x[np.ones(steps, int)],
                             query_topics=np.zeros(steps, int),
                             item_topics=np.ones(steps, int), weights=weights)


def closed_form(fired, steps: int, tau0: float, alpha: float, delta: float) -> np.ndarray:
    """τ_t before each step t (and after the last) under a constant loss ``delta``:
    δ + (1 − α)^n (τ₀ − δ), n the firings (steps in ``fired``) before t."""
    n = np.searchsorted(np.asarray(fired), np.arange(steps + 1), side="left")
    return delta + (1.0 - alpha) ** n * (tau0 - delta)


def steps_for(delta: float, tau0: float, alpha: float, firings: int = FIRINGS) -> int:
    """Steps for ``firings`` firings under a constant loss: each epoch needs ⌈τ_j/δ⌉ steps,
    so Σ_j (τ_j/δ + 1) is enough."""
    taus = delta + (1 - alpha) ** np.arange(firings) * (tau0 - delta)
    return int(np.sum(np.ceil(taus / delta)) + firings)


def _one(delta: float, tau0: float, alpha: float) -> dict:
    steps = steps_for(delta, tau0, alpha)
    trace = constant_loss_trace(delta, steps)
    params = {"alpha": alpha, "tau0": tau0}
    path = gate_path(run(trace, "solar", params=params, **OPTIONS))
    formula = closed_form(path["fired"], steps, tau0, alpha, delta)
    tau = path["tau"]
    return dict(delta=delta, tau0=tau0, alpha=alpha, steps=steps, firings=int(path["fired"].size),
                tau_final=float(tau[-1]), tau_min=float(tau.min()),
                closed_form_gap=float(np.max(np.abs(tau - formula))),
                floor=min(tau0, delta), instance=Instance(trace, dict(OPTIONS)),
                params=params)


def _check(quick: bool, out_dir: str) -> dict:
    g = GRID[quick]
    rows = [_one(d, t0, a) for d in g["delta"] for t0 in g["tau0"] for a in g["alpha"]]
    plain = [{k: v for k, v in r.items() if k not in ("instance", "params")} for r in rows]
    gap = max(r["closed_form_gap"] for r in rows)
    below_floor = [r for r in rows if r["tau_min"] < r["floor"] - 1e-12]
    scope = (f"constant per-step loss δ ∈ {_set(g['delta'])}, τ₀ ∈ {_set(g['tau0'])}, α ∈ "
             f"{_set(g['alpha'])}, {FIRINGS} firings or more: τ_n = δ + (1 − α)^n (τ₀ − δ) "
             f"against the replayed threshold of all {len(rows)} solar runs")
    closed = basis(CLOSED_FORM, scope)
    formula_ok = gap <= 1e-9
    corrected = verdict(
        HOLDS if formula_ok and not below_floor else VIOLATED, closed,
        f"τ_t ≥ min(τ₀, δ) at every step of all {len(rows)} runs; largest |τ_t − closed "
        f"form| = {gap:.3g}",
        statement="τ_t ≥ min(τ₀, the smallest loss of a firing step): a floor set by the "
                  "run's own losses (with binary losses, min(τ₀, 1)), not a constant",
        **({} if formula_ok and not below_floor else
           {"instance": _save((below_floor or rows)[0], out_dir, "tau_floor_formula")}))
    low = min(rows, key=lambda r: (r["tau_final"], r["steps"]))
    measured = dict(rows=plain, closed_form_gap=gap)
    if not formula_ok:
        bad = max(rows, key=lambda r: r["closed_form_gap"])
        return dict(verdict=VIOLATED, basis=closed, measured=measured, corrected=corrected,
                    instance=_save(bad, out_dir, "tau_floor"),
                    evidence=f"the replayed threshold departs from the closed form by "
                             f"{bad['closed_form_gap']:.3g} (δ={bad['delta']}, "
                             f"τ₀={bad['tau0']}, α={bad['alpha']})")
    finals = ", ".join(f"δ={d}: {min(r['tau_final'] for r in rows if r['delta'] == d):.4f}"
                       for d in g["delta"])
    return dict(verdict=VIOLATED, basis=closed, measured=measured, corrected=corrected,
                instance=_save(low, out_dir, "tau_floor"),
                evidence=f"a constant loss δ drives τ to δ, exactly as τ_n = δ + (1 − α)^n "
                         f"(τ₀ − δ) (largest gap to the replayed runs {gap:.2g}), so no "
                         f"c > 0 bounds τ below as δ → 0; smallest final τ per δ: {finals}")


def _set(values) -> str:
    return "{" + ", ".join(f"{v:g}" for v in values) + "}"


def _save(row: dict, out_dir: str, name: str) -> dict:
    return save_policy_instance(row["instance"], "solar", out_dir, name, params=row["params"],
                                with_opt=False)


CLAIM = Claim(
    id="tau-floor",
    title="The EMA threshold stays bounded away from 0",
    statement="Alg. 1's EMA threshold τ_t stays bounded away from 0 (so Theorem 5.2's "
              "τ_min is a positive constant).",
    conditions="solar on a trace whose every step is a full miss weighing δ (hit quality, "
               "K = 2, k = 1, λ = 0.5), δ ∈ {0.5, 0.1, 0.02, 0.005, 0.001}, τ₀ ∈ {2, 1, "
               "0.2}, α ∈ {0.05, 0.1, 0.5}, each run ≥ 40 firings (quick: δ ∈ {0.5, 0.05, "
               "0.002}, τ₀ ∈ {1, 0.2}, α ∈ {0.1, 0.5}); the threshold replayed from the run",
    evidence=_check)
