"""Topic drift, per phase: our ``drift`` generator beside the authors' topic-drift traces.

30 topics, 5 active per phase, overlap 1, 6 phases of 100 steps, K = 20 (the published
runner's drift setting), top-3 retrieval, λ = 0.  Columns: the hit rate within each
phase and overall; rows: every policy, for each trace source.
"""

import numpy as np

from simulator.experiments.reproduce import authors_expectations
from simulator.experiments.reproduce.base import (AUTHOR_SEEDS, PAPER_POLICIES, Experiment,
                                      authors_trace, cell, ref_policies)

K = 20


def _cells(trace, seed, source, policies):
    from simulator.runner import run

    starts = list(trace.meta.get("phase_starts", range(0, trace.steps, 100))) + [trace.steps]
    out = []
    for pol in policies:
        res = run(trace, pol, capacity=K, top_k=3, seed=seed)
        cfg = dict(policy=pol, capacity=K, params=trace.meta.get("params"))
        for p, (a, b) in enumerate(zip(starts, starts[1:])):
            out.append(cell(pol, f"phase {p + 1}", seed, np.mean(res.hit[a:b]), source, **cfg))
        out.append(cell(pol, "overall", seed, res.summary()["hit_rate"], source, **cfg))
    return out


def _measure(quick: bool, seeds: list):
    import workloads

    policies = PAPER_POLICIES + ref_policies()
    cells = []
    for seed in seeds:
        cells += _cells(workloads.get("drift").generate({}, seed), seed, "generator", policies)
    for seed in AUTHOR_SEEDS:
        trace = authors_trace("topic_drift", "plen100", seed)
        if trace is not None:
            cells += _cells(trace, seed, "authors", policies)
    return cells, []


EXPERIMENT = Experiment(name="drift", title="Topic drift: hit rate per phase (K = 20)",
                        metric="hit rate", xlabel="phase", measure=_measure,
                        findings=authors_expectations.drift,
                        paper_note="paper values: none; the paper prints no topic-drift table "
                                   "(the authors' expectation is checked as a finding)")
