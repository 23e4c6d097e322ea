"""A semantic trace's optional columns that name things beyond a step's own arrival,
checked as :func:`simulator.trace.validate` checks the other arrays (one
:class:`~simulator.errors.InputError` naming the array and the index): the evidence (item
keys), each step's time, and the earlier item its arrival supersedes.

``times`` (docs/model.md §1.9): each step's time in seconds, float64, from any origin,
finite and non-decreasing.  ``supersedes``: per step, the key (as ``item_keys`` gives
keys) of an item that arrived at an earlier step and that the arrival supersedes (a
contradiction the log records), -1 for none; kept as dense keys, like ``item_keys``.
Both reach a policy through its :class:`~simulator.policies.context.Context`.
"""

from __future__ import annotations

import numpy as np

from simulator.errors import InputError


def _first_bad(mask):
    return int(np.flatnonzero(mask)[0])


def times(times: np.ndarray | None, T: int) -> np.ndarray | None:
    """Array ``times`` checked (float64 seconds, one per step, finite, non-decreasing), or
    None when absent."""
    if times is None:
        return None
    if times.shape != (T,):
        raise InputError(f"trace array 'times' has shape {times.shape}; expected ({T},)")
    finite = np.isfinite(times)
    if not finite.all():
        raise InputError(f"trace array 'times' has NaN or inf at index {_first_bad(~finite)}; "
                         "times are finite seconds")
    down = np.diff(times) < 0
    if down.any():
        t = _first_bad(down) + 1
        raise InputError(f"trace array 'times' decreases at index {t} ({float(times[t])!r} after "
                         f"{float(times[t - 1])!r}); times must not decrease")
    return times


def supersedes(sup: np.ndarray | None, T: int, keys: np.ndarray, first: np.ndarray,
               rank: np.ndarray) -> np.ndarray | None:
    """Array ``supersedes`` checked (per step an item key that arrived at an earlier step,
    or -1) and made dense as ``item_keys`` are, or None when absent."""
    if sup is None:
        return None
    if sup.shape != (T,):
        raise InputError(f"trace array 'supersedes' has shape {sup.shape}; expected ({T},)")
    some = sup != -1
    if not some.any():
        return np.full(T, -1, np.int64)
    distinct = np.unique(keys)  # sorted, as ``first`` and ``rank`` index them
    pos = np.minimum(np.searchsorted(distinct, sup), distinct.size - 1)
    # an earlier step's key: known, and first arrived before the step that names it
    known = (distinct[pos] == sup) & (first[pos] < np.arange(T))
    bad = some & ~known
    if bad.any():
        t = _first_bad(bad)
        raise InputError(f"trace array 'supersedes' names item {int(sup[t])} at index {t}, "
                         "which no earlier step brought; give the item key of an earlier "
                         "arrival, or -1 for none")
    return np.where(some, rank[pos], -1).astype(np.int64)


def dense_evidence(idx: np.ndarray, keys: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Evidence item keys as dense keys (``rank`` of each sorted distinct key), vectorised;
    an item key that no arrival has is an error naming the index."""
    distinct = np.unique(keys)
    pos = np.minimum(np.searchsorted(distinct, idx), distinct.size - 1)
    unknown = distinct[pos] != idx
    if unknown.any():
        j = _first_bad(unknown)
        raise InputError(f"trace array 'evidence_indices' names unknown item {int(idx[j])} at "
                         f"index {j}; evidence lists item keys that arrive in the trace")
    return rank[pos]
