"""CR → 1 under piecewise-stationary workloads (§5, remark after Theorem 5.4).

The paper argues that with P phase changes τ_t settles within O(1/α) steps per phase, so
SOLAR's per-step excess over OPT vanishes at rate O(P/T) and the ratio tends to 1 as T
grows for fixed P.  We run ``solar`` (defaults) on ``drift`` with growing phase length L
(6 phases, 5 active topics of 30, K = 10, k = 3, λ = 1; and P = 1, a stationary workload,
as its own sub-range), with OPT of the paper's model, exact
(:func:`theory.claims.paper_opt.paper_opt`), seeds 0–2, and FIFO as the contrast.

A limit cannot be confirmed by finite runs; it is refuted by a rate (``growth``): the
statement needs SOLAR/OPT − 1 to shrink as L grows, so a log–log slope of SOLAR/OPT − 1
on L whose 95 % bootstrap interval (over seeds) does not reach below 0 violates it;
an interval below 0 leaves it ``not refuted``.  The quick grid spans the same lengths
(50 … 1600) with fewer points, so both grids judge the same range.

The corrected statement is the part of the argument the runs support: the per-step excess
(SOLAR − OPT)/T vanishes, i.e. the excess grows slower than T (its slope's interval below
1); a growth fit can only leave that ``not refuted``.  OPT's own growth with L is reported:
the argument needs OPT to grow, and on ``drift`` it does not.
"""

from __future__ import annotations

import numpy as np

from simulator.runner import run
from simulator.instance import Instance
from theory.claims.base import save_policy_instance
from theory.claims.verdicts import GROWTH, NOT_REFUTED, VIOLATED, basis, verdict, weakest
from theory.kit.claim import Claim

LENGTHS = {True: (50, 400, 1600), False: (50, 100, 200, 400, 800, 1600)}
SEEDS = (0, 1, 2)
MODEL = dict(capacity=10, top_k=3, switch_cost=1.0)


def _series(phases: int, lengths) -> dict:
    """Per phase length, SOLAR's, FIFO's and OPT's cost per seed (``rows``); the last seed's
    instance at the longest length (``last``)."""
    import workloads
    from theory.claims.paper_opt import paper_opt

    rows, last = [], None
    for L in lengths:
        solar, fifo, best, exact = [], [], [], True
        for seed in SEEDS:
            trace = workloads.get("drift").generate({"phase_length": L, "phases": phases},
                                                    seed)
            b = paper_opt(trace, MODEL["capacity"], MODEL["top_k"], MODEL["switch_cost"])
            exact &= b["paper_exact"]
            best.append(b["cost"])
            solar.append(run(trace, "solar", seed=seed, **MODEL).summary()["cost"])
            fifo.append(run(trace, "fifo", **MODEL).summary()["cost"])
            last = Instance(trace, dict(MODEL), labels=dict(phase_length=L, seed=seed))
        ratio = np.array(solar) / np.array(best)
        rows.append(dict(phases=phases, phase_length=L, steps=phases * L,
                         solar_cost=solar, opt_cost=best, fifo_cost=fifo,
                         solar_ratio=float(ratio.mean()), solar_ratio_max=float(ratio.max()),
                         fifo_ratio=float(np.mean(np.array(fifo) / np.array(best))),
                         excess=float(np.mean(np.array(solar) - np.array(best))),
                         kind="exact" if exact else "upper_bound"))
    return dict(rows=rows, last=last)


def _fit(rows, per_seed) -> dict:
    from theory.regret_fit import bootstrap_slope, fit_slope

    x = [r["phase_length"] for r in rows]
    y = np.array(per_seed, float).T  # [seeds, lengths]
    mean = y.mean(axis=0)
    if (mean <= 0).any():
        return dict(slope=None, ci=None)
    low, high, _ = bootstrap_slope(x, y, resamples=1000, seed=0)
    return dict(slope=round(fit_slope(x, mean), 3), ci=[round(low, 3), round(high, 3)])


def _part(name: str, series: dict, out_dir: str) -> dict:
    rows = series["rows"]
    above = [[s / o - 1 for s, o in zip(r["solar_cost"], r["opt_cost"])] for r in rows]
    fit = _fit(rows, above)
    exact = all(r["kind"] == "exact" for r in rows)
    ratios = [round(r["solar_ratio"], 3) for r in rows]
    opt_growth = _fit(rows, [r["opt_cost"] for r in rows])
    scope = (f"drift, {rows[0]['phases']} phase(s), L = {rows[0]['phase_length']}…"
             f"{rows[-1]['phase_length']} ({len(rows)} lengths), seeds 0–2, exact OPT of the "
             "paper's model; slope of log(SOLAR/OPT − 1) on log L")
    evidence = (f"SOLAR/OPT {ratios}; slope of SOLAR/OPT − 1 {fit['slope']}, 95 % CI "
                f"{fit['ci']}; OPT's cost {[r['opt_cost'][0] for r in rows]} (seed 0), slope "
                f"{opt_growth['slope']}")
    if fit["ci"] is not None and fit["ci"][0] >= 0 and exact:
        inst = save_policy_instance(series["last"], "solar", out_dir,
                                    f"drift_ratio_P{rows[0]['phases']}")
        return verdict(VIOLATED, basis(GROWTH, scope), evidence, range=name,
                       runs=len(rows) * len(SEEDS), instance=inst, fit=fit,
                       opt_growth=opt_growth)
    return verdict(NOT_REFUTED, basis(GROWTH, scope), evidence, range=name,
                   runs=len(rows) * len(SEEDS), fit=fit, opt_growth=opt_growth)


def _check(quick: bool, out_dir: str) -> dict:
    lengths = LENGTHS[quick]
    many_phases, one_phase = _series(6, lengths), _series(1, lengths)
    many, one = many_phases["rows"], one_phase["rows"]
    many_part = _part("P = 6", many_phases, out_dir)
    parts = [_part("P = 1 (stationary)", one_phase, out_dir), many_part]
    head = weakest(parts, f"drift with P ∈ {{1, 6}} phases, L = {lengths[0]}…{lengths[-1]}, "
                          "seeds 0–2, exact OPT; the slope of SOLAR/OPT − 1 on L")
    excess = {name: _fit(rows, [[s - o for s, o in zip(r["solar_cost"], r["opt_cost"])]
                                for r in rows])
              for name, rows in (("P = 1", one), ("P = 6", many))}
    sub_linear = all(f["ci"] is None or f["ci"][1] < 1 for f in excess.values())
    corrected = verdict(
        NOT_REFUTED if sub_linear else VIOLATED,
        basis(GROWTH, "the same runs; slope of log(SOLAR − OPT) on log L"),
        "excess slopes " + ", ".join(f"{k}: {v['slope']} {v['ci']}" for k, v in excess.items()),
        statement="Under drift SOLAR's per-step excess over OPT, (SOLAR − OPT)/T, vanishes "
                  "as phases lengthen (the excess grows slower than T)",
        **({} if sub_linear else {"instance": many_part.get("instance") or save_policy_instance(
            many_phases["last"], "solar", out_dir, "drift_excess")}))
    measured = dict(rows=many, single_phase=one, excess_fits=excess)
    evidence = (f"{head['evidence']}" if head["verdict"] != VIOLATED else
                "SOLAR/OPT − 1 does not shrink as phases lengthen: " + "; ".join(
                    f"{p['range']}: {p['evidence']}" for p in parts) +
                "; OPT's cost does not grow with L, so a bounded excess keeps the ratio "
                "above 1")
    return dict(verdict=head["verdict"], basis=head["basis"], evidence=evidence,
                instance=head.get("instance"), measured=measured, corrected=corrected,
                subranges=parts)


CLAIM = Claim(
    id="cr-drift",
    title="CR → 1 under drift",
    statement="Under piecewise-stationary workloads SOLAR's competitive ratio approaches 1 "
              "as phases lengthen.",
    conditions="drift workload (30 topics, 5 active, overlap 1, 6 phases), phase length "
               "50…1600 (quick: 50, 400, 1600), K = 10, k = 3, λ = 1, solar defaults, "
               "seeds 0–2; the edge P = 1 phase on its own; exact OPT of the paper's model; "
               "violated when the slope of SOLAR/OPT − 1 on L has an interval that does not "
               "reach below 0",
    evidence=_check)
