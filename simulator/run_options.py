"""The options every run takes, checked: the model options K, k, λ and the quality
measure (docs/model.md §1) and the budget (docs/model.md §1.8).

A bad option raises :class:`~simulator.errors.InputError` naming the parameter; the
command line shows the flag instead.  Counts (K, k) are integers in [1, 2**53]
(:data:`simulator.params.MAX_INT`), so every product the kernels form with them fits
int64; so is the budget, so a policy's share of it times a ratio of at most 1000 fits as
well, and the sizes it is compared with are bounded by :mod:`simulator.size_limits`.
Within range a request too large for this machine's memory is refused by
:mod:`simulator.memory_estimate`.
"""

from __future__ import annotations

import math
import re

import numpy as np

from simulator import memory_estimate
from simulator.errors import InputError
from simulator.kernels import QUALITY_CODES
from simulator.params import MAX_INT

# the budget of a run without one: never reached, since the total cached is at most a
# trace's total size (2**61) and an arrival at most 2**53 (simulator.size_limits)
NO_BUDGET = 1 << 62
MAX_BUDGET = MAX_INT
_DIGITS = re.compile(r"[0-9]+")  # ASCII only: str.isdigit takes '²' (and int() refuses it)
DEFAULT_CAPACITY = 10  # K when neither a capacity nor a budget is given
_SUFFIXES = {"": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}


def budget_value(budget) -> int | None:
    """A budget (docs/model.md §1.8) as an integer in the trace's size unit: an integer
    >= 1, or text with a binary suffix; None stays None.

    >>> budget_value("128MiB"), budget_value("1gib"), budget_value(4096), budget_value(None)
    (134217728, 1073741824, 4096, None)
    """
    if budget is None:
        return None
    if isinstance(budget, str):
        text = budget.strip().lower().replace(" ", "")
        number = text.rstrip("kmgtib")
        unit = text[len(number):]
        shown = repr(budget if len(budget) <= 40 else budget[:37] + "...")
        if unit not in _SUFFIXES or not _DIGITS.fullmatch(number):
            raise InputError(f"budget must be an integer >= 1, optionally with a binary suffix "
                             f"(KiB, MiB, GiB, TiB), got {shown}", "budget")
        if len(number.lstrip("0")) > 16:  # past 2**53 whatever the suffix; int() not needed
            raise InputError(f"budget must be an integer >= 1 and <= 2**53, got {shown}",
                             "budget")
        budget = int(number.lstrip("0") or "0") * _SUFFIXES[unit]
    if not _count(budget, MAX_BUDGET):
        raise InputError(f"budget must be an integer >= 1 and <= 2**53, got {budget!r}",
                         "budget")
    return int(budget)


def _count(value, most: int = MAX_INT) -> bool:
    """Whether ``value`` is an integer in [1, most] (not a bool)."""
    return (not isinstance(value, bool) and isinstance(value, (int, np.integer))
            and 1 <= value <= most)


def check_options(capacity, top_k, switch_cost, quality) -> None:
    """Validate the model options K, k, λ and the quality measure (docs/model.md §1); a bad one
    raises InputError naming it.  ``capacity`` may be None (no count limit: a budget's run)."""
    if capacity is not None and not _count(capacity):
        raise InputError(f"capacity must be an integer >= 1 and <= 2**53, got {capacity!r}",
                         "capacity")
    if not _count(top_k):
        raise InputError(f"top_k must be an integer >= 1 and <= 2**53, got {top_k!r}", "top_k")
    # the retrieval buffers hold k entries whatever the trace
    memory_estimate.require(16 * int(top_k), f"top_k {memory_estimate.power(int(top_k))}",
                            "retrieval buffers", "top_k")
    if isinstance(switch_cost, bool) or not isinstance(switch_cost, (int, float, np.number)) \
            or not math.isfinite(switch_cost) or switch_cost < 0:
        raise InputError(f"switch_cost must be a finite number >= 0, got {switch_cost!r}",
                         "switch_cost")
    if quality not in QUALITY_CODES:
        raise InputError(f"quality must be one of {', '.join(QUALITY_CODES)}, got {quality!r}",
                         "quality")
