"""Theorem 5.2: regret-gated admission makes at most ⌊T/τ_min⌋ modifications.

Each SOLAR modification is a gate firing (an admission, with its eviction in the same
step); between firings the accumulator must grow from 0 to the threshold in force, and it
grows by ℓ_t ≤ 1 per step, so firings are at least τ_min steps apart.  We check N against
⌊T/τ_min⌋ on ``solar`` and ``solar_a`` runs — EMA threshold and fixed τ — over the
synthetic workloads and seeded random tiny instances, with τ_min taken from the gate
replayed from the run (:mod:`theory.gate_replay`, which also checks that the run admitted
only where the gate fired).
"""

from __future__ import annotations

import math

import numpy as np

from simulator.runner import run
from theory.claims.base import HOLDS, VIOLATED, Claim, save_instance
from theory.claims.tiny import random_instance
from theory.gate_replay import gate_path

WORKLOADS = (("clusters", {"steps": 2000}), ("working_set", {}), ("cycling", {}),
             ("drift", {}), ("noise_pool", {"queries": 500}))


def _one(trace, policy, model, params):
    res = run(trace, policy, capacity=model["capacity"], top_k=model["top_k"],
              switch_cost=model["switch_cost"], quality=model["quality"], params=params)
    path = gate_path(res)
    n_mod = res.summary()["modifications"]
    tau_min = float(path["tau"].min())
    bound = math.floor(trace.steps / tau_min) if tau_min > 0 else math.inf
    return dict(policy=policy, steps=trace.steps, modifications=n_mod, tau_min=tau_min,
                bound=bound, holds=n_mod <= bound, **model, params=params)


def _check(quick: bool, out_dir: str) -> dict:
    import workloads

    rows, cases = [], []
    lams = (0.5, 2.0) if quick else (0.0, 0.25, 0.5, 1.0, 2.0, 5.0)
    for name, prm in WORKLOADS[:2] if quick else WORKLOADS:
        trace = workloads.get(name).generate(prm, 0)
        for lam in lams:
            model = dict(capacity=10, top_k=3, switch_cost=lam, quality="hit")
            for policy in ("solar", "solar_a"):
                for params in ({}, {"tau": 2 * lam} if lam > 0 else {"tau": 1.0}):
                    rows.append(dict(_one(trace, policy, model, params), workload=name))
                    cases.append((trace, model, policy, params))
    rng = np.random.default_rng(52)
    for _ in range(100 if quick else 1000):
        trace, model = random_instance(rng)
        params = {} if rng.random() < 0.5 else {"tau": 2 * model["switch_cost"]}
        rows.append(dict(_one(trace, "solar", model, params), workload="random tiny"))
        cases.append((trace, model, "solar", params))
    tight = max(rows, key=lambda r: r["modifications"] * r["tau_min"] / r["steps"])
    measured = dict(runs=len(rows),
                    max_N_tau_over_T=tight["modifications"] * tight["tau_min"] / tight["steps"],
                    tightest=tight, workload_rows=[r for r in rows
                                                   if r["workload"] != "random tiny"])
    broken = [i for i, r in enumerate(rows) if not r["holds"]]
    if broken:
        i = min(broken, key=lambda j: rows[j]["steps"])
        trace, model, policy, params = cases[i]
        inst = save_instance(trace, out_dir, "thm5_2",
                             dict(model, policy=policy, policy_params=params),
                             with_opt=False)
        return dict(verdict=VIOLATED, measured=measured, instance=inst,
                    evidence=f"N = {rows[i]['modifications']} > ⌊T/τ_min⌋ = {rows[i]['bound']}")
    return dict(verdict=HOLDS, measured=measured,
                evidence=f"N ≤ ⌊T/τ_min⌋ in all {len(rows)} runs; the tightest reaches "
                         f"N·τ_min/T = {measured['max_N_tau_over_T']:.3f}")


CLAIM = Claim(
    id="thm5.2",
    title="Modification bound",
    statement="Theorem 5.2: regret-gated admission makes N ≤ ⌊T/τ_min⌋ modifications.",
    conditions="solar and solar_a, EMA threshold (α = 0.1, τ₀ = 2λ or 1) and fixed τ = 2λ; "
               "K = 10, k = 3 on five synthetic workloads, λ ∈ {0, 0.25, 0.5, 1, 2, 5}; "
               "1000 random tiny instances (quick: 2 workloads, λ ∈ {0.5, 2}, 100 instances)",
    check=_check)
