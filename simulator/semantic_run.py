"""A semantic run in progress: the :class:`~simulator.live_run.LiveRun` of a
:class:`~simulator.trace.Trace` or :class:`~simulator.trace.TraceBuffer`.

It keeps the cache's slots, vectors and admission steps, a block of scores for retrieval,
and one record a step (loss, hit, precision, quality, the keys admitted, evicted and
deleted, the cache's size); a sized run also logs every eviction, since a step may evict
several, and a policy with ``repeat_delete`` every deletion, since a step may delete
several.
"""

from __future__ import annotations

import time

import numpy as np

from simulator.engine import step_checks
from simulator.engine.counts import (DELETES_LOGGED, HIGH_WATER, LOGGED, MAX_OCCUPANCY,
                                     REWRITES, SIZE, TOO_LARGE)
from simulator.errors import InputError
from simulator.engine.kernels import BLOCK, QUALITY_CODES, retrieve
from simulator.live_run import LiveRun
from simulator.engine.run_arrays import OUTPUTS, TRACE_FIELDS, semantic_arrays
from simulator.run_result import SemanticResult, modification_counts


class SemanticRun(LiveRun):
    """A semantic :class:`~simulator.live_run.LiveRun` (made by ``LiveRun(...)``)."""

    mode = "semantic"
    result_type = SemanticResult

    def _arrays(self, options) -> tuple:
        T, n_slots, tr, k = self.steps, self.slots, self.trace, options.top_k
        self._slot_vec = np.zeros((tr.dim, n_slots), np.float32)  # column s: slot s
        self._slot_adm = np.zeros(n_slots, np.int64)
        self._view = dict(slot_key=self._slot_key, slot_vec=self._slot_vec,
                          slot_adm=self._slot_adm, counts=self._counts)
        self._n_keys = tr.n_keys  # the keys the run has room for: a buffer's may not grow
        cache = (self._slot_key, self._slot_vec, self._slot_adm, np.full(n_slots, -1, np.int64),
                 np.full(tr.n_keys, -1, np.int64), np.arange(n_slots - 1, -1, -1, dtype=np.int64),
                 self._counts, np.empty((BLOCK, n_slots), np.float32),
                 np.empty((BLOCK, BLOCK), np.float32), np.empty(k, np.int64),
                 np.empty(k, np.float64), np.zeros(n_slots, np.int64))
        self.loss, self.hit = np.zeros(T), np.zeros(T, np.int8)
        self.precision, self.quality = np.zeros(T), np.zeros(T)
        # -1 (no key) until a step runs, so the tallies of a run in progress are right
        self.admitted, self.evicted = np.full(T, -1, np.int64), np.full(T, -1, np.int64)
        self.deleted, self.size = np.full(T, -1, np.int64), np.zeros(T, np.int64)
        # every eviction of a sized run as (step, key): a step may evict several
        self.evict_log = np.zeros((T if self.sized else 0, 2), np.int64)
        # every deletion of a policy that may delete several a step, as (step, key): each
        # deleted item was admitted at an earlier or the same step, so T rows hold them all
        self.delete_log = np.zeros((T if self.policy.repeat_delete else 0, 2), np.int64)
        self.arrays = semantic_arrays(*(getattr(tr, name) for name in TRACE_FIELDS), k,
                                       QUALITY_CODES[options.quality], *cache, self.state,
                                       *(getattr(self, n) for n in OUTPUTS), self.evict_log,
                                       self.delete_log)
        return tr.items, None

    def run_all(self) -> float:
        self._order.may_go_on("run_all()", fresh=True)
        self.compile()
        t0 = time.perf_counter()
        self.step(0, self.steps)
        return time.perf_counter() - t0

    run_all.__doc__ = LiveRun.run_all.__doc__

    def retrieve(self, t: int) -> tuple:
        """``(keys, cosines)`` of R_t for step t's query on the cache as it is now, best
        first: what step t would retrieve if it ran next."""
        t = step_checks.step_index(t, "t")
        if not 0 <= t < self.steps:
            raise InputError(f"t must be a step in 0 .. {self.steps - 1} to retrieve for, "
                             f"got {t}", "t")
        step_checks.check_query(self.trace, t)
        n_slots = self._slot_key.shape[0]
        k = self.config["top_k"]
        slots, sims = np.empty(k, np.int64), np.empty(k, np.float64)
        n = retrieve(self.trace.queries[t], self._slot_vec, self._slot_key, self._slot_adm,
                     self._counts[HIGH_WATER], k, np.empty(n_slots, np.float32), slots, sims,
                     bool(self._counts[SIZE] == self._counts[HIGH_WATER]))
        return self._slot_key[slots[:n]], sims[:n]

    @property
    def hits(self) -> int:
        """Scored steps that hit so far (as the run record counts them)."""
        return int(self.hit[self.trace.scored].sum())

    @property
    def admissions(self) -> int:
        """Admissions so far."""
        return modification_counts(self.admitted, self.evicted, self.deleted,
                                   self._evict_log(), self._delete_log())[0]

    @property
    def evictions(self) -> int:
        """Evictions so far, deletions included (as the run record counts them)."""
        return modification_counts(self.admitted, self.evicted, self.deleted,
                                   self._evict_log(), self._delete_log())[1]

    def _evict_log(self):
        return self.evict_log[:self._counts[LOGGED]] if self.sized else None

    def _delete_log(self):
        return self.delete_log[:self._counts[DELETES_LOGGED]] if self.policy.repeat_delete \
            else None

    def outputs(self) -> dict:
        """The per-step arrays and counters of a
        :class:`~simulator.run_result.SemanticResult`.

        A unit-size run tracks no sizes in its loop; its largest occupancy is its largest
        number of items.
        """
        c = self._counts
        out = {name: getattr(self, name) for name in OUTPUTS} | {
            "scored": self.trace.scored, "delete_log": self._delete_log(),
            "rewrites": int(c[REWRITES])}
        if self.sized:
            return out | dict(max_occupancy=int(c[MAX_OCCUPANCY]), too_large=int(c[TOO_LARGE]),
                              evict_log=self._evict_log())
        return out | dict(max_occupancy=int(self.size.max()) if self.steps else 0, too_large=0)
