"""Table 11: the retrieval-noise stream, every policy at growing capacity.

``noise_pool`` in stream mode: the whole 5000-item pool streams by (unscored warm-up, each
step's query aimed at the arriving item's topic), then 1000 scored queries.  Rows: the
paper's policies and the authors'-code variants, hit rate at K ∈ {50, 100, 200, 500, 1000,
5000} (the paper prints K = 200, 500, 1000 and 5000; 5000 holds the whole pool).  Quick mode
shrinks the pool to 20 topics × 25 items, so none of its cells meets a printed one.

Paper column: Table 11 (``table11_stream_mode``), FIFO and SOLAR.
"""

from simulator.experiments.reproduce.base import (PAPER_POLICIES, Experiment, ref_policies,
                                                  run_policies)

CAPACITIES = (50, 100, 200, 500, 1000, 5000)
QUICK = (20, 50, 100)


def _labels():
    return (PAPER_POLICIES + ref_policies(),
            tuple(f"K={k}" for k in dict.fromkeys(QUICK + CAPACITIES)))


def _measure(quick: bool, seeds: list):
    import workloads

    params = ({"topics": 20, "items_per_topic": 25, "queries": 300} if quick else {})
    cells = []
    traces = {s: workloads.get("noise_pool").generate({"mode": "stream", **params}, s)
              for s in seeds}
    for K in QUICK if quick else CAPACITIES:
        for seed, trace in traces.items():
            cells += run_policies(trace, PAPER_POLICIES + ref_policies(), seed, f"K={K}",
                                  capacity=K, top_k=3)
    return cells, []


EXPERIMENT = Experiment(name="table11", title="Table 11: retrieval-noise stream, hit rate",
                        metric="hit rate", xlabel="capacity K", measure=_measure,
                        paper_table="table11_stream_mode", labels=_labels,
                        paper_note="paper: Table 11, hit rate")
