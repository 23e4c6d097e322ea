"""A hash table from 64-bit object ids to dense keys, for traces read as a stream.

A run indexes its per-object arrays by dense keys ``0 .. n_keys-1``; a trace loaded whole
gets them from ``np.unique`` (key = rank of the id among the distinct ids).  A streamed
trace (:mod:`simulator.stream_run`) cannot sort what it has not read, so it reads the file
twice: :meth:`ObjectTable.add` collects the distinct ids of each chunk, :meth:`finish`
ranks them (the same keys as ``np.unique``, so a streamed run equals the loaded one), and
:meth:`keys_of` turns each chunk's ids into keys on the second reading.

The table is open addressing with linear probing over a power-of-two number of rows, kept
at most 70% full; memory is 23 to 46 bytes per distinct object.

Examples
--------
>>> import numpy as np
>>> table = ObjectTable()
>>> table.add(np.array([70, 9, 70, 2**64 - 1], np.uint64))
>>> table.finish().tolist()
[9, 70, 18446744073709551615]
>>> table.keys_of(np.array([2**64 - 1, 70, 9], np.uint64)).tolist()
[2, 1, 0]
"""

from __future__ import annotations

import numpy as np

from simulator.config import njit
from simulator.engine.fast_index import prefetch

_MIX1, _MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_MAX_LOAD = 0.7  # linear probing stays short below this fill
_AHEAD = 8  # how many ids ahead a probe's row is prefetched


@njit(cache=True)
def _row_of(object_id, mask):
    """The first row to probe for ``object_id``: SplitMix64's finalizer, so that ids in
    runs (block numbers) spread over the table."""
    z = object_id
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return (z ^ (z >> np.uint64(31))) & mask


@njit(cache=True)
def _add(ids, table, n):
    """Insert the ids not yet in ``table``; returns the new number of distinct ids."""
    mask = np.uint64(table.shape[0] // 2 - 1)
    for i in range(ids.shape[0]):
        if i + _AHEAD < ids.shape[0]:  # a probe is a cache miss: start the next ones early
            prefetch(table, _row_of(ids[i + _AHEAD], mask) * np.uint64(2))
        r = _row_of(ids[i], mask) * np.uint64(2)
        while table[r + 1] and table[r] != ids[i]:
            r = (r + np.uint64(2)) & (mask * np.uint64(2) + np.uint64(1))
        if not table[r + 1]:
            table[r] = ids[i]
            table[r + 1] = 1
            n += 1
    return n


@njit(cache=True)
def _set_keys(sorted_ids, table):
    """Key of each id = its rank in ``sorted_ids`` (stored as key + 1: 0 marks a free row)."""
    mask = np.uint64(table.shape[0] // 2 - 1)
    for k in range(sorted_ids.shape[0]):
        r = _row_of(sorted_ids[k], mask) * np.uint64(2)
        while table[r] != sorted_ids[k]:
            r = (r + np.uint64(2)) & (mask * np.uint64(2) + np.uint64(1))
        table[r + 1] = k + 1


@njit(cache=True)
def _keys_of(ids, table, out):
    """Keys of ``ids`` into ``out``; returns the index of the first id not in the table,
    or -1."""
    mask = np.uint64(table.shape[0] // 2 - 1)
    for i in range(ids.shape[0]):
        if i + _AHEAD < ids.shape[0]:
            prefetch(table, _row_of(ids[i + _AHEAD], mask) * np.uint64(2))
        r = _row_of(ids[i], mask) * np.uint64(2)
        while table[r + 1] and table[r] != ids[i]:
            r = (r + np.uint64(2)) & (mask * np.uint64(2) + np.uint64(1))
        if not table[r + 1]:
            return i
        out[i] = table[r + 1] - np.uint64(1)
    return -1


class ObjectTable:
    """Distinct 64-bit object ids, then their dense keys (see the module docstring)."""

    def __init__(self, rows: int = 1 << 16):
        # row r is words 2r, 2r + 1: (id, mark); mark 0 = free, then 1 = taken, and after
        # finish() key + 1.  One row holds both, so a probe touches one cache line.
        self._table = np.zeros(2 * rows, np.uint64)
        self._finished = False
        self.n_objects = 0

    def add(self, ids) -> None:
        """Collect the distinct ids of ``ids`` (uint64); only before :meth:`finish`."""
        if self._finished:
            raise RuntimeError("the table is finished; add ids before finish()")
        ids = np.ascontiguousarray(ids, np.uint64)
        need = self.n_objects + ids.shape[0]  # at most this many after the insertions
        if need > _MAX_LOAD * self._table.shape[0] // 2:
            self._grow(need)
        self.n_objects = _add(ids, self._table, self.n_objects)

    def _grow(self, need: int) -> None:
        size = self._table.shape[0] // 2
        while need > _MAX_LOAD * size:
            size *= 2
        old = self._ids()
        self._table = np.zeros(2 * size, np.uint64)
        _add(old, self._table, 0)

    def _ids(self):
        return self._table[0::2][self._table[1::2] != 0]

    def finish(self) -> np.ndarray:
        """The distinct ids, sorted (``object_ids`` of the trace); fixes the keys."""
        sorted_ids = np.sort(self._ids())
        _set_keys(sorted_ids, self._table)
        self._finished = True
        return sorted_ids

    def keys_of(self, ids) -> np.ndarray:
        """The dense keys (int64) of ``ids``; an id never added raises ``KeyError(id)``."""
        if not self._finished:
            raise RuntimeError("finish() the table before asking for keys")
        ids = np.ascontiguousarray(ids, np.uint64)
        out = np.empty(ids.shape[0], np.int64)
        missing = _keys_of(ids, self._table, out)
        if missing >= 0:
            raise KeyError(int(ids[missing]))
        return out
