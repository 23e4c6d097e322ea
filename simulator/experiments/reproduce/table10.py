"""Table 10 (Figure 5): the retrieval-noise probe, a frozen pool of P items, K = P.

``noise_pool`` in frozen mode (50 topics × 100 items, centre distance 0.30, σ_item 0.15):
the cache holds exactly a pool of P items, and 1000 queries probe it with top-3
retrieval.  Rows: hit rate and precision@3 of that pool as P grows — the inverted U of
the paper appears when relevance follows the published code (three listed items per
query, ``relevant=3``, rows marked "code rule"); with the model's topic relevance (the
description, rows without mark) a larger pool only adds relevant items.

Paper column: Table 10 (``table10_frozen_pool``, columns ``pool=P``); its hit rate and
precision@3 stand beside both of our relevance rules.
"""

from simulator.experiments.reproduce import authors_expectations
from simulator.experiments.reproduce.base import Experiment, cell

POOLS = (50, 100, 200, 500, 1000, 2000, 5000)
MARKS = ("", " (code rule)")
# our row -> the paper's: both relevance rules meet the one printed row
ROWS = {f"{ours}{mark}": theirs for mark in MARKS
        for ours, theirs in (("hit rate", "hit_rate"), ("precision@3", "precision_at_3"))}


def _labels():
    return tuple(ROWS), tuple(f"P={p}" for p in POOLS)


def _measure(quick: bool, seeds: list):
    import workloads
    from simulator.runner import run

    cells = []
    queries = 300 if quick else 1000
    for P in (50, 500, 5000) if quick else POOLS:
        for relevant, mark in zip((0, 3), MARKS):
            for seed in seeds:
                params = {"mode": "frozen", "pool": P, "queries": queries,
                          "relevant": relevant}
                trace = workloads.get("noise_pool").generate(params, seed)
                s = run(trace, "fifo", capacity=P, top_k=3, seed=seed).summary()
                cfg = dict(policy="fifo", workload="noise_pool", params=params, capacity=P)
                cells.append(cell("hit rate" + mark, f"P={P}", seed, s["hit_rate"], **cfg))
                cells.append(cell("precision@3" + mark, f"P={P}", seed,
                                  s["mean_precision"], **cfg))
    return cells, ["rows are FIFO holding the frozen pool (the paper's probe)"]


EXPERIMENT = Experiment(name="table10", title="Table 10: frozen pool size vs retrieval quality",
                        metric="rate", xlabel="pool size P (= K)", measure=_measure,
                        findings=lambda cells: authors_expectations.noise_peak(
                            cells, [f"P={p}" for p in POOLS]),
                        paper_table="table10_frozen_pool", paper_rows=ROWS,
                        paper_columns={f"P={p}": f"pool={p}" for p in POOLS}, labels=_labels,
                        paper_note="paper: Table 10, beside both relevance rules")
