"""A policy that reads the steps' times reads them online: :func:`check_online_in_time`.

A policy gets the whole array of step times, ``Context.times`` (docs/model.md §1.9), as it
gets no trace: at step t it may read ``times[0..t]`` only.  Nothing stops its ``init``
or its hooks from reading further, so the check runs it on two traces that differ only in
the times after a step m and requires the same decisions up to m.  A policy that ignores
the times passes at once; an offline one (which may read the future) is not checked.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from simulator.runner import run
from simulator.testing.contract.traces import (ARRAYS, K, clustered_trace, declared,
                                               require)


def timed_traces(seed: int = 2, T: int = 300) -> tuple:
    """``(trace, other, m)``: a :func:`clustered_trace` with step times (gaps of a few
    seconds to a few days, as an agent's sessions), and the same trace whose times after
    step ``m`` differ (every later gap a different length)."""
    base = clustered_trace(seed, T=T, pool=40)
    rng = np.random.default_rng(seed)
    gaps = rng.choice([5.0, 60.0, 3600.0, 86400.0, 3 * 86400.0], size=T)
    m = T // 2
    later = gaps.copy()
    later[m + 1:] = rng.permutation(gaps[m + 1:]) * 7.0 + 1.0
    times = np.cumsum(gaps)
    other = np.concatenate([times[:m + 1], times[m] + np.cumsum(later[m + 1:])])
    return (dataclasses.replace(base, times=times), dataclasses.replace(base, times=other), m)


def check_online_in_time(name, params=None):
    """Decisions up to step m are the same under two traces that differ only in the times
    after m (module docstring)."""
    if declared(name, params).offline:
        return
    trace, other, m = timed_traces()
    a = run(trace, name, capacity=K, seed=3, params=params)
    b = run(other, name, capacity=K, seed=3, params=params)
    for array in ARRAYS:
        x, y = getattr(a, array)[:m + 1], getattr(b, array)[:m + 1]
        if not np.array_equal(x, y):
            t = int(np.flatnonzero(x != y)[0])
            require(False, f"'{array}' differs at step {t} <= {m} between two traces whose "
                           f"times differ only after step {m}: the policy reads the times of "
                           "later steps (Context.times: read times[0..t] at step t)")
