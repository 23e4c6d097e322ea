"""Table 11: the retrieval-noise stream, every policy at growing capacity.

``noise_pool`` in stream mode: the whole 5000-item pool streams by (unscored warm-up, each
step's query aimed at the arriving item's topic), then 1000 scored queries.  Rows: the
paper's policies and the authors'-code variants, hit rate at K ∈ {50, 100, 200, 500, 1000}
(the paper's column set is not in our sources; these span its Table 10 range).  Quick mode
shrinks the pool to 20 topics × 25 items.
"""

from simulator.experiments.reproduce.base import (PAPER_POLICIES, Experiment, ref_policies,
                                                  run_policies)

CAPACITIES = (50, 100, 200, 500, 1000)


def _measure(quick: bool, seeds: list):
    import workloads

    params = ({"topics": 20, "items_per_topic": 25, "queries": 300} if quick else {})
    cells = []
    traces = {s: workloads.get("noise_pool").generate({"mode": "stream", **params}, s)
              for s in seeds}
    for K in (20, 50, 100) if quick else CAPACITIES:
        for seed, trace in traces.items():
            cells += run_policies(trace, PAPER_POLICIES + ref_policies(), seed, f"K={K}",
                                  capacity=K, top_k=3)
    return cells, []


EXPERIMENT = Experiment(name="table11", title="Table 11: retrieval-noise stream, hit rate",
                        metric="hit rate", xlabel="capacity K", measure=_measure)
