"""The offline optimum's speed (``semcache bench``, row ``opt-flow``).

:func:`theory.opt.flow.solve` (the min-cost flow, ``opt``'s first exact method) against
:func:`theory.opt.topics.solve` (the dynamic program over sets of useful topics, kept as
its cross-check) on one ``clusters`` trace where both are exact: the seconds of the solve
alone, each compiled and run once before timing, best of several rounds taken in turns.
:func:`simulator.experiments.bench.opt_benchmark` makes the row: its ``hits_equal`` says
whether both found the same optimal cost (``ours_cost``, ``baseline_cost``); speed is
compared only then.  The times ``opt`` quotes for its
methods (docs/model.md §4) are these rows' measurements on the machine at hand.
"""

from __future__ import annotations

import math
import time


def measure(steps: int = 10_000, capacity: int = 10, topics: int = 12,
            switch_cost: float = 0.5, seed: int = 0, repeats: int = 7) -> dict:
    """Both solvers on one instance: ``{"cost": {...}, "seconds": {...}}`` keyed ``flow``
    and ``topics``, the seconds the best of ``repeats`` timed rounds."""
    import workloads
    from theory.opt import flow as opt_flow
    from theory.opt import topics as opt_topics  # not `topics`: that is the topic count

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
    return {"cost": costs, "seconds": best}
