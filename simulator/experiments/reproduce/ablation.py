"""Ablation: SOLAR-E (eviction only), SOLAR-A (admission only) and SOLAR (both).

On ``working_set`` (15 topics × 10 items, 500 queries) at tight capacities K ∈ {5, 10,
20}, top-3 retrieval, λ = 1: rows give each policy's hit rate and its total cost
Σℓ + λN, so the synergy claim (SOLAR better than either part) is read in the model's own
objective as well as in hit rate.  FIFO is the baseline.
"""

from simulator.experiments.reproduce.base import Experiment, cell, ref_policies

POLICIES = ("fifo", "solar_e", "solar_a", "solar")


def _measure(quick: bool, seeds: list):
    import workloads
    from simulator.runner import run

    cells = []
    policies = POLICIES + ref_policies()
    for seed in seeds:
        trace = workloads.get("working_set").generate({}, seed)
        for K in (5, 10) if quick else (5, 10, 20):
            for pol in policies:
                s = run(trace, pol, capacity=K, top_k=3, switch_cost=1.0, seed=seed).summary()
                cfg = dict(policy=pol, capacity=K, switch_cost=1.0, workload="working_set")
                cells.append(cell(f"{pol} hit rate", f"K={K}", seed, s["hit_rate"], **cfg))
                cells.append(cell(f"{pol} cost/T", f"K={K}", seed, s["cost"] / s["steps"],
                                  **cfg))
    return cells, ["cost/T is (Σℓ + λN)/T at λ = 1"]


EXPERIMENT = Experiment(name="ablation", title="Ablation: admission, eviction, both",
                        metric="hit rate / cost per step", xlabel="capacity K",
                        measure=_measure,
                        paper_note="paper values: none; the paper's ablation (Table 6) is on "
                                   "LoCoMo at K = 50 in LLM answer F1, not this synthetic "
                                   "working-set ablation")
