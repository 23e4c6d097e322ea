"""The offline optimum's speed (``semcache bench``, row ``opt-flow``).

:func:`theory.opt_flow.solve` (the min-cost flow, ``opt``'s first exact method) against
:func:`theory.opt_topics.solve` (the dynamic program over sets of useful topics, kept as
its cross-check) on one ``clusters`` trace where both are exact: the rate is steps per
second of the solve alone, each compiled and run once before timing, best of
:data:`simulator.experiments.bench.REPEATS` rounds taken in turns.  The row's
``hits_equal`` says whether both found the same optimal cost (``ours_cost``,
``baseline_cost``); speed is compared only then.  The times ``opt`` quotes for its
methods (docs/model.md §4) are these rows' measurements on the machine at hand.
"""

from __future__ import annotations

import math
import time


def opt_benchmark(steps: int = 10_000, capacity: int = 10, topics: int = 12,
                  switch_cost: float = 0.5, seed: int = 0, repeats: int = 7) -> dict:
    """One row: the flow's solve against the topic DP's on the same instance."""
    import workloads
    from simulator.experiments.bench import _row
    from theory import opt_flow, opt_topics

    trace = workloads.get("clusters").generate({"steps": steps, "topics": topics}, seed=seed)
    costs, best = {}, {}
    for _ in range(repeats + 1):  # the first round compiles and is not timed
        for name, solve in (("flow", opt_flow.solve), ("topics", opt_topics.solve)):
            t0 = time.perf_counter()
            cost, _ = solve(trace, capacity, switch_cost)
            seconds = time.perf_counter() - t0
            if name in costs:
                best[name] = min(best.get(name, math.inf), seconds)
            costs[name] = cost
    row = _row("opt-flow", "topic-set DP", steps, costs["flow"], best["flow"],
               costs["topics"], best["topics"])
    row["hits_equal"] = math.isclose(costs["flow"], costs["topics"], rel_tol=1e-9)
    row["meets_target"] = bool(row["ratio"] >= row["target_ratio"] and row["hits_equal"])
    row["ours_cost"], row["baseline_cost"] = row.pop("ours_hits"), row.pop("baseline_hits")
    row.update(capacity=capacity, topics=topics)
    return row
