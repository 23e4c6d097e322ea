"""What a sweep checks before it creates anything or starts a run.

:func:`check_size` bounds the grid by :data:`MAX_TASKS` runs from the lengths of its
dimensions, before a single task is built, so a range like ``--seeds 0-100000000`` is
refused at once rather than expanded.  :func:`check_costs` refuses a switch cost that
could make a run's cost overflow (:func:`simulator.runner.check_cost_bound`); it needs a
trace's length only when λ is within a factor 2⁵³ of that bound, which no sensible λ is.

>>> check_size({"seeds": 3, "policies": 2})
6
"""

from __future__ import annotations

import json
import math
import numbers

from simulator.errors import InputError

MAX_TASKS = 10**6  # runs in one sweep; ~15 min of task ids and hashing at the limit
MAX_SEED = 2**63 - 1  # the store's seed column is int64


def check_size(lengths: dict) -> int:
    """The number of grid points of dimensions with ``lengths`` (name → count); an
    InputError naming the largest dimension when it exceeds :data:`MAX_TASKS`."""
    total = math.prod(lengths.values())
    if total > MAX_TASKS:
        name = max(lengths, key=lengths.get)
        raise InputError(f"{name} makes the grid {total} runs, more than a sweep takes "
                         f"({MAX_TASKS}); split it into several sweeps or give fewer "
                         f"{name}", name)
    return total


def check_seed(seed) -> None:
    """A seed of the grid is an integer in [0, :data:`MAX_SEED`]."""
    if (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)
            or not 0 <= seed <= MAX_SEED):
        raise InputError(f"seeds must be integers >= 0 and <= 2**63 - 1, got {seed!r}",
                         "seeds")


def check_costs(tasks: list) -> None:
    """Refuse the grid when one of its runs could reach a cost over
    :data:`simulator.runner.MAX_COST` (checked before the store is touched)."""
    import workloads
    from simulator.runner import MAX_COST, check_cost_bound

    lam = max(t["switch_cost"] for t in tasks)
    if 2.0**53 * (1.0 + lam) <= MAX_COST:
        return  # no trace is that long: every run of the grid is safe
    seen = set()
    for task in tasks:
        key = json.dumps(task["params"], sort_keys=True)
        if key not in seen:  # one trace per parameter combination gives its length
            seen.add(key)
            trace = workloads.get(task["workload"]).build(task["params"], task["seed"])
            check_cost_bound(trace.steps, lam)
