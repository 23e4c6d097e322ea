"""The time of a step, for rules that count hours or days (docs/model.md, times).

A trace may give every step a time in seconds (``ctx.times``); a policy reads entry t at
step t only.  Without times, step t stands at ``t * step_seconds``: each time-using
policy has a ``step_seconds`` parameter, defaulted to its rule's natural unit (a day for
MemoryBank, an hour for Generative Agents), and says so in its docstring.

>>> clock = clock_of(None)
>>> float(seconds_at(clock, 2.0, 3))
6.0
"""

import numpy as np

from simulator.config import njit

DAY = 86400.0  # seconds in a day
HOUR = 3600.0  # seconds in an hour


def clock_of(times) -> np.ndarray:
    """The float64 step times a policy keeps in its state: ``times`` (the context's) as
    given, or an empty array when the trace has none."""
    if times is None:
        return np.zeros(0, np.float64)
    return np.ascontiguousarray(times, dtype=np.float64)


def check_step_seconds(p: dict) -> str | None:
    """A problem sentence when ``step_seconds`` is not a positive finite number."""
    value = p["step_seconds"]
    if not np.isfinite(value) or value <= 0:
        return (f"parameter 'step_seconds' must be a number of seconds > 0 (what one step "
                f"stands for when the trace has no times), got {value}")
    return None


@njit
def seconds_at(clock, step_seconds, t):
    """The time of step t: the trace's own, or ``t * step_seconds`` when it has none."""
    if clock.shape[0] == 0:
        return t * step_seconds
    return clock[t]
