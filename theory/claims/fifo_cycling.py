"""Theorem 5.1: FIFO's competitive ratio is at least (K + 1)(1 + λ), shown on cycling.

On ``cycling`` with m = K + 1 topics FIFO always holds the K topics *before* the current
one, so it misses and admits at every step: cost T(1 + λ).  OPT keeps K topics and misses
once per cycle of K + 1 steps (the missing topic's item only arrives at its own query), so
OPT ≈ T/(K + 1) and the ratio tends to (K + 1)(1 + λ) from below, the gap shrinking like
1/T (OPT's start-up misses and fill admissions).  We compute both costs exactly (OPT by
:func:`theory.opt.opt`) for growing T and check: FIFO's cost is T(1 + λ); the ratio
never exceeds the limit; it rises with T; and OPT's marginal cost between the two longest
horizons is exactly one miss per cycle, so OPT(T) = T/(K+1) + c at large T and the ratio
tends to exactly (K+1)(1+λ), as (K+1)(1+λ)/(1 + c(K+1)/T).  The start-up cost c and the
horizon at which the ratio reaches 90 % of the limit, T₉₀ = 9c(K+1), are reported.
"""

from __future__ import annotations

import math

from theory.claims.base import HOLDS, VIOLATED, Claim, save_instance


def _costs(K, lam, cycles, seed=0):
    import workloads
    from simulator.runner import run
    from theory.opt import opt

    m = K + 1
    trace = workloads.get("cycling").generate(
        {"topics": m, "steps": cycles * m, "items_per_topic": 2, "dim": 32}, seed)
    fifo = run(trace, "fifo", capacity=K, top_k=K, switch_cost=lam).summary()["cost"]
    best = opt(trace, K, K, lam)
    return trace, fifo, best


def _check(quick: bool, out_dir: str) -> dict:
    grid_K = (1, 2, 4) if quick else (1, 2, 3, 5, 10)  # K = 1: the edge (m = 2 topics)
    grid_lam = (0.0, 1.0) if quick else (0.0, 0.5, 1.0, 2.0)
    cycles = (4, 16, 64) if quick else (4, 16, 64, 256)
    rows, limits, bad = [], [], None
    for K in grid_K:
        for lam in grid_lam:
            limit = (K + 1) * (1 + lam)
            ratios, opts = [], []
            for c in cycles:
                trace, fifo, best = _costs(K, lam, c)
                T = trace.steps
                ratio = fifo / best.opt_cost
                ratios.append(ratio)
                opts.append(best.opt_cost)
                rows.append(dict(K=K, switch_cost=lam, steps=T, fifo_cost=fifo,
                                 opt_cost=best.opt_cost, opt_exact=best.exact,
                                 ratio=round(ratio, 6), limit=limit,
                                 gap_times_T=round((limit - ratio) * T, 3)))
                problem = None
                if not math.isclose(fifo, T * (1 + lam), rel_tol=1e-9):
                    problem = f"FIFO cost {fifo} != T(1+λ) = {T * (1 + lam)}"
                elif ratio > limit * (1 + 1e-9):
                    problem = f"ratio {ratio:.4f} exceeds the limit {limit}"
                if problem and bad is None:
                    bad = (problem, trace, K, lam)
            if bad is None and any(b < a - 1e-9 for a, b in zip(ratios, ratios[1:])):
                bad = (f"ratio falls with T at K={K}, λ={lam}: {ratios}", trace, K, lam)
            per_cycle = (opts[-1] - opts[-2]) / (cycles[-1] - cycles[-2])
            start = opts[-1] - cycles[-1]
            limits.append(dict(K=K, switch_cost=lam, limit=limit, opt_per_cycle=per_cycle,
                               startup_cost=start, T90=9 * start * (K + 1)))
            if bad is None and not math.isclose(per_cycle, 1.0, rel_tol=1e-9):
                bad = (f"OPT grows by {per_cycle:.4f} per cycle at K={K}, λ={lam}, not 1: "
                       f"the ratio's limit is not (K+1)(1+λ)", trace, K, lam)
    measured = {"rows": rows, "limits": limits}
    if bad is not None:
        problem, trace, K, lam = bad
        inst = save_instance(trace, out_dir, "thm5_1", dict(capacity=K, top_k=K,
                                                             switch_cost=lam, policy="fifo"))
        return dict(verdict=VIOLATED, evidence=problem, measured=measured, instance=inst)
    slow = max(limits, key=lambda r: r["T90"])
    return dict(verdict=HOLDS, measured=measured,
                evidence=(f"FIFO costs exactly T(1+λ); exact OPT grows by one miss per cycle, "
                          f"so the ratio rises to (K+1)(1+λ) from below as 1/T; slowest "
                          f"approach K={slow['K']}, λ={slow['switch_cost']}: 90 % of the "
                          f"limit at T ≈ {slow['T90']:.0f}"))


CLAIM = Claim(
    id="thm5.1",
    title="FIFO is Ω(K)-competitive",
    statement="Theorem 5.1: FIFO's competitive ratio is at least (K+1)(1+λ) (cycling "
              "over K+1 topics), hence Ω(K).",
    conditions="cycling workload with m = K+1 topics (2 items per topic, d = 32), "
               "k = K, hit quality, exact OPT; K ∈ {1,2,3,5,10}, λ ∈ {0,0.5,1,2}, "
               "T = 4…256 cycles (quick: K ∈ {1,2,4}, λ ∈ {0,1}, up to 64 cycles)",
    check=_check)
