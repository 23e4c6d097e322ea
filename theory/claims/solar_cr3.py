"""Theorem 5.4: SOLAR with a fixed threshold τ = 2λ is 3-competitive under Definition 5.3.

The paper's wording of Definition 5.3 is not in our sources, so we test the condition its
rent-or-buy proof needs, stated here and checked literally on each instance:

**D5.3 (our reading).**  Cut time into SOLAR's *phases* (the steps after one admission up
to and including the next; the last phase runs to T).  The instance satisfies D5.3 when,
for *every* optimal schedule, each phase either contains an OPT modification or OPT's
miss cost inside the phase is at least half of SOLAR's.

Accounting under D5.3: a completed phase costs SOLAR L_j + λ with 2λ ≤ L_j < 2λ + ℓ_max
(the gate fires once the accumulated loss reaches τ = 2λ, overshooting by less than one
step's loss), and OPT at least min(λ, L_j/2) = λ.  So SOLAR ≤ (3 + ℓ_max/λ)·OPT — ratio 3
only when single-step losses are small next to λ.  We therefore test the paper's bound and
this corrected one.  Search: seeded random tiny instances (every K ≥ 1, λ ∈ (0, 2], weight
0/1 and fractional steps, queries with no relevant item, hit/precision/similarity
quality), all optimal schedules enumerated (:mod:`theory.claims.tiny`), then a greedy
shrink of the worst D5.3 instance (drop steps while it still breaks the bound).
"""

from __future__ import annotations

import numpy as np

from simulator.runner import run
from theory.claims.base import HOLDS, VIOLATED, Claim, save_instance
from theory.claims.tiny import optimal_schedules, random_instance


def evaluate(trace, model: dict, seed: int = 0) -> dict:
    """SOLAR (τ = 2λ) against every optimal schedule of one tiny instance."""
    lam = model["switch_cost"]
    res = run(trace, "solar", capacity=model["capacity"], top_k=model["top_k"],
              switch_cost=lam, quality=model["quality"], seed=seed,
              params={"tau": 2 * lam})
    cost = res.summary()["cost"]
    best, schedules, step_loss = optimal_schedules(trace, model["capacity"], model["top_k"],
                                                   lam, model["quality"])
    ends = np.flatnonzero((res.admitted >= 0) | (res.evicted >= 0)).tolist()
    bounds = list(zip([-1] + ends, ends + [trace.steps - 1]))  # phases (a, b]
    solar_loss = np.where(trace.scored, res.loss, 0.0)
    d53 = True
    for sets in schedules:
        opt_loss = [step_loss(t, sets[t]) for t in range(trace.steps)]
        modified = [sets[t + 1] != sets[t] for t in range(trace.steps)]
        for a, b in bounds:
            if b <= a:
                continue
            if not any(modified[a + 1:b + 1]) and \
                    sum(opt_loss[a + 1:b + 1]) < 0.5 * solar_loss[a + 1:b + 1].sum() - 1e-12:
                d53 = False
                break
        if not d53:
            break
    l_max = float(np.max(trace.weights * trace.scored, initial=0.0))
    ratio = cost / best if best > 0 else (1.0 if cost == 0 else float("inf"))
    return dict(ratio=ratio, solar=cost, opt=best, d53=d53, n_optimal=len(schedules),
                corrected_bound=3 + l_max / lam, steps=trace.steps, **model)


def _shrink(trace, model, broken):
    """Drop steps one at a time while ``broken(evaluation)`` stays true."""
    current = trace
    changed = True
    while changed and current.steps > 2:
        changed = False
        for t in range(current.steps):
            keep = np.delete(np.arange(current.steps), t)
            smaller = _subtrace(current, keep)
            if broken(evaluate(smaller, model)):
                current, changed = smaller, True
                break
    return current


def _subtrace(trace, keep):
    from simulator.trace import Trace

    return Trace.from_arrays(queries=trace.queries[keep], items=trace.items[keep],
                             query_topics=trace.query_topics[keep],
                             item_topics=trace.item_topics[keep],
                             weights=trace.weights[keep])


def _families(quick: bool) -> list:
    """SOLAR (τ = 2λ) against exact OPT on structured families (D5.3 not checked: too big
    to enumerate every optimal schedule), reported beside the tiny-instance verdict."""
    import workloads
    from theory.adversary_ratio import measure
    from theory.opt import opt

    rows = []
    for K, lam in ((4, 1.0),) if quick else ((4, 0.5), (4, 1.0), (8, 1.0), (8, 2.0)):
        trace = workloads.get("cycling").generate(
            {"topics": K + 1, "items_per_topic": 2, "dim": 32, "steps": 100 * (K + 1)}, 0)
        solar = run(trace, "solar", capacity=K, top_k=K, switch_cost=lam,
                    params={"tau": 2 * lam}).summary()["cost"]
        best = opt(trace, K, K, lam)
        rows.append(dict(family="cycling m=K+1", K=K, switch_cost=lam, steps=trace.steps,
                         ratio=solar / best.opt_cost))
        row, _ = measure("missing_topic", "solar", K, 40 * (K + 1), lam, top_k=K,
                         params={"target_params": f"tau={2 * lam}"})
        rows.append(dict(family="missing_topic adversary", K=K, switch_cost=lam,
                         steps=40 * (K + 1), ratio=row["ratio"],
                         ratio_exact=row["ratio_exact"]))
    return rows


def _check(quick: bool, out_dir: str) -> dict:
    rng = np.random.default_rng(20261130)
    n = 150 if quick else 2000
    rows = [(evaluate(tr, m), tr, m) for tr, m in (random_instance(rng) for _ in range(n))]
    d53 = [r for r in rows if r[0]["d53"]]
    worst_all = max(rows, key=lambda r: r[0]["ratio"])
    worst = max(d53, key=lambda r: r[0]["ratio"]) if d53 else None
    over_corrected = [r for r in d53 if r[0]["ratio"] > r[0]["corrected_bound"] + 1e-9]
    measured = dict(instances=n, satisfying_d53=len(d53),
                    max_ratio_all=worst_all[0]["ratio"],
                    max_ratio_d53=worst[0]["ratio"] if worst else None,
                    worst_d53=worst[0] if worst else None,
                    over_3_all=sum(r[0]["ratio"] > 3 + 1e-9 for r in rows),
                    over_3_d53=sum(r[0]["ratio"] > 3 + 1e-9 for r in d53),
                    over_corrected_d53=len(over_corrected), families=_families(quick))
    corrected = dict(statement="Under D5.3, cost(SOLAR, τ=2λ) ≤ (3 + ℓ_max/λ)·OPT, "
                               "ℓ_max = the largest single-step miss cost",
                     verdict=VIOLATED if over_corrected else HOLDS,
                     evidence=f"{len(over_corrected)} of {len(d53)} D5.3 instances exceed it")
    if worst is None or worst[0]["ratio"] <= 3 + 1e-9:
        return dict(verdict=HOLDS, measured=measured, corrected=corrected,
                    evidence=f"no D5.3 instance among {n} exceeds ratio 3 (max "
                             f"{measured['max_ratio_d53']})")
    row, trace, model = worst
    small = _shrink(trace, model, lambda e: e["d53"] and e["ratio"] > 3 + 1e-9)
    again = evaluate(small, model)
    measured["shrunk"] = again
    inst = save_instance(small, out_dir, "thm5_4", dict(model, policy="solar",
                                                         policy_params={"tau": 2 *
                                                                        model["switch_cost"]}))
    return dict(verdict=VIOLATED, measured=measured, instance=inst, corrected=corrected,
                evidence=f"a D5.3 instance of {small.steps} steps (K={model['capacity']}, "
                         f"λ={model['switch_cost']}, {model['quality']} quality) gives "
                         f"SOLAR/OPT = {again['ratio']:.3f} > 3; {measured['over_3_d53']} of "
                         f"{len(d53)} D5.3 instances exceed 3; unconditionally (D5.3 "
                         f"unchecked) the missing_topic adversary reaches "
                         f"{max(f['ratio'] for f in measured['families']):.1f}")


CLAIM = Claim(
    id="thm5.4",
    title="SOLAR is 3-competitive",
    statement="Theorem 5.4: with τ = 2λ, SOLAR's cost is at most 3·OPT on instances "
              "satisfying Definition 5.3.",
    conditions="solar with fixed tau=2λ (not the EMA threshold), seed 0; D5.3 as read in "
               "theory/claims/solar_cr3.py, checked against every optimal schedule; "
               "2000 seeded random instances T ≤ 8, K ≤ 2 (quick: 150), then shrunk",
    check=_check)
