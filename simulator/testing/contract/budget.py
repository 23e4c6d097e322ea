"""Checks of a policy under a budget (docs/model.md §1.8), in both modes.

With unit sizes a budget of K is a capacity of K, run for run.  With sizes, the total size
cached never exceeds the budget, an arrival larger than the budget is never admitted (and
is counted), N counts a step once however many items it evicts, and the run's size tallies
are what its cache held.
"""

from __future__ import annotations

import numpy as np

from simulator import policies
from simulator.testing.contract.traces import (K, replay, require, results_equal,
                                            semantic_traces, sized_requests, sized_trace,
                                            zipf_requests)
from simulator.runner import run

BUDGET = 7  # with sizes 1 .. 4: a few items fit, and no arrival is too large to admit
SMALL = 3   # ... and with this one, sizes 4 are too large


def check_budget(name, params=None):
    """Semantic mode: a unit-size budget of K equals capacity K; with sizes, the budget
    holds at every step and the record's tallies agree with a replay of the run."""
    for label, tr in semantic_traces().items():
        a = run(tr, name, capacity=K, seed=2, params=params)
        b = run(tr, name, budget=K, seed=2, params=params)
        require(results_equal(a, b), f"{label}: budget {K} with unit sizes differs from "
                f"capacity {K}")
    tr = sized_trace()
    sizes = tr.item_sizes
    unbounded = policies.resolve(name).unbounded
    for budget, capacity in ((BUDGET, None), (SMALL, None), (BUDGET, 2)):
        r = run(tr, name, capacity=capacity, budget=budget, seed=2, params=params)
        totals, before, after, too_large, changed = _replay_sizes(r, tr)
        label = f"budget {budget}, capacity {capacity}"
        s = r.summary()
        if not unbounded:
            require(max(totals) <= budget, f"{label}: the cache held {max(totals)}")
            require(capacity is None or max(map(len, after)) <= capacity,
                    f"{label}: more than {capacity} items cached")
            require(all(sizes[t] <= budget for t in np.flatnonzero(r.admitted >= 0)),
                    f"{label}: an arrival larger than the budget was admitted")
            require(s["too_large"] == too_large(budget), f"{label}: too_large "
                    f"{s['too_large']}, but {too_large(budget)} arrivals were too large")
        require(s["max_occupancy"] == max(totals), f"{label}: max_occupancy "
                f"{s['max_occupancy']}, but the cache held at most {max(totals)}")
        require(s["modifications"] == changed, f"{label}: N={s['modifications']} != "
                f"{changed} steps that changed the cache")


def _replay_sizes(r, tr):
    before, after = replay(r, tr)
    key_size = dict(zip(tr.item_keys.tolist(), tr.item_sizes.tolist()))
    totals = [sum(key_size[k] for k in a) for a in after]
    keys = tr.item_keys.tolist()

    def too_large(budget):
        return sum(1 for t in range(tr.steps)
                   if keys[t] not in before[t] and key_size[keys[t]] > budget)

    changed = sum(b != a for b, a in zip(before, after))
    return totals, before, after, too_large, changed


def check_paging_budget(name, params=None):
    """Paging mode: a unit-size budget of K equals capacity K; with request sizes, the
    tallies are those of the requests (a miss larger than the budget is never admitted)."""
    tr = zipf_requests()
    a = run(tr, name, capacity=K, seed=1, params=params)
    b = run(tr, name, budget=K, seed=1, params=params)
    require(np.array_equal(a.hit, b.hit) and a.evictions == b.evictions,
            f"paging: budget {K} with unit sizes differs from capacity {K}")
    tr = sized_requests()
    sizes = tr.request_sizes
    for budget in (4, 20):
        r = run(tr, name, budget=budget, seed=1, params=params)
        s = r.summary()
        hit = r.hit.astype(bool)
        label = f"paging, budget {budget}"
        require(s["max_occupancy"] <= budget, f"{label}: the cache held {s['max_occupancy']}")
        require(s["requested_size"] == int(sizes.sum()) and
                s["hit_size"] == int(sizes[hit].sum()), f"{label}: size tallies are not "
                "those of the requests")
        require(s["too_large"] == int(((sizes > budget) & ~hit).sum()),
                f"{label}: too_large {s['too_large']} is not the misses larger than the "
                "budget")
