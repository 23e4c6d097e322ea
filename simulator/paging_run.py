"""A paging run in progress: the :class:`~simulator.live_run.LiveRun` of a
:class:`~simulator.trace.PagingTrace` or :class:`~simulator.trace.PagingBuffer`.

It keeps one byte a request (the hit) and the run's tallies in the engine's counts, so a
run of 10⁷ requests stays small; a streamed run is fed its requests chunk by chunk
(:meth:`PagingRun.feed`).
"""

from __future__ import annotations

import time

import numba
import numpy as np

from simulator.engine import fast as engine_fast
from simulator.engine import policy_faults, step_checks
from simulator.engine.counts import (ADMISSIONS, EVICTIONS, HIT_SIZE, HITS, MAX_OCCUPANCY,
                                     REQUESTED_SIZE, REWRITES, SIZE, TOO_LARGE)
from simulator.engine.fast import WHOLE
from simulator.errors import InputError
from simulator.live_run import LiveRun
from simulator.engine.run_arrays import PAGING_CACHE, paging_arrays
from simulator.run_result import PagingResult


class PagingRun(LiveRun):
    """A paging :class:`~simulator.live_run.LiveRun` (made by ``LiveRun(...)``)."""

    mode = "paging"
    result_type = PagingResult

    def _arrays(self, options) -> tuple:
        n_slots, n_keys = self.slots, max(self.trace.n_keys, 1)
        self.hit = np.zeros(self.steps, np.int8)
        # key_slot is int32: half the bytes, so more of it stays in the CPU's cache
        self._cache = dict(slot_key=self._slot_key, slot_vec=np.zeros((0, n_slots), np.float32),
                           slot_adm=np.zeros(n_slots, np.int64),
                           key_slot=np.full(n_keys, -1, np.int32),
                           free=np.arange(n_slots - 1, -1, -1, dtype=np.int64),
                           counts=self._counts)
        self._view, self._n_keys = self._cache, n_keys
        self._slot_size = np.zeros(n_slots, np.int64)
        self._fed = 0  # requests run through feed()
        self._fed_size = 0  # their total size, bounded so that no tally can wrap
        self.arrays = self._bundle(self.trace.requests, self.trace.request_sizes, self.hit, 0)
        # the policy's own paging loop (ARC) takes these
        return None, None if self.sized else (self.trace.requests, n_keys, self.capacity,
                                              self.state, self.hit)

    def _bundle(self, requests, sizes, hit, base):
        return paging_arrays(requests, *(self._cache[n] for n in PAGING_CACHE), self.state,
                              hit, sizes, self._slot_size, base)

    def run_all(self) -> float:
        self._order.may_go_on("run_all()", fresh=True)
        step_checks.check_rows(self.trace, 0, self.steps, WHOLE, self._n_keys, self.sized)
        loop = None if self.sized else engine_fast.own_paging_loop(self.policy)
        if loop is None:
            whole = engine_fast.paging_whole_for(self.policy, self.sized)
            with self._reported():
                whole.compile((numba.typeof(self.arrays),))  # outside the timing
                t0 = time.perf_counter()
                whole(self.arrays)
                elapsed = time.perf_counter() - t0
            self._order.advance(0, self.steps, WHOLE)
            return elapsed
        args = (max(self.trace.n_keys, 1), self.capacity)
        with self._reported():
            if not loop.signatures:  # compile on a one-request prefix, with its own state
                loop(self.trace.requests[:1], *args,
                     policy_faults.checked_state(self.policy, self._context),
                     np.zeros(1, np.int8))
            t0 = time.perf_counter()
            tallies = loop(self.trace.requests, *args, self.state, self.hit)
            elapsed = time.perf_counter() - t0
        self._counts[[HITS, ADMISSIONS, EVICTIONS]] = tallies
        self._counts[SIZE] = tallies[1] - tallies[2]  # paging never deletes
        self._order.closed = "this run went through the policy's own paging loop"
        return elapsed

    run_all.__doc__ = LiveRun.run_all.__doc__

    def feed(self, requests, sizes=None) -> np.ndarray:
        self._order.may_go_on("feed()")
        requests, sizes, self._fed_size = step_checks.fed(
            requests, sizes, self._n_keys, self.sized, self._fed_size, self.steps)
        n = requests.shape[0]
        hit = np.zeros(n, np.int8)
        whole = engine_fast.paging_whole_for(self.policy, self.sized)
        with self._reported():
            whole(self._bundle(requests, sizes, hit, self._fed))
        self._fed += n
        return hit

    feed.__doc__ = LiveRun.feed.__doc__

    @property
    def requests_fed(self) -> int:
        """Requests run through :meth:`feed` so far."""
        return self._fed

    @property
    def hits(self) -> int:
        """Requests that hit so far."""
        return int(self._counts[HITS])

    @property
    def admissions(self) -> int:
        """Misses whose object was admitted so far."""
        return int(self._counts[ADMISSIONS])

    @property
    def evictions(self) -> int:
        """Evictions so far."""
        return int(self._counts[EVICTIONS])

    def outputs(self) -> dict:
        """The hits and counters of a :class:`~simulator.run_result.PagingResult`.

        A unit-size run tracks no sizes in its loop; its size tallies follow from the
        counts (each item has size 1).
        """
        c = self._counts
        if c[REWRITES]:  # a paging request's object has no content to rewrite
            raise InputError(f"policy '{self.policy.name}' noted {int(c[REWRITES])} rewrites "
                             "(note_rewrites) in paging mode, where objects have no content "
                             "to rewrite; rewrites are a semantic run's (docs/model.md §1.9)")
        out = dict(hit=self.hit, admissions=self.admissions, evictions=self.evictions)
        if self.sized:
            return out | dict(max_occupancy=int(c[MAX_OCCUPANCY]), too_large=int(c[TOO_LARGE]),
                              requested_size=int(c[REQUESTED_SIZE]), hit_size=int(c[HIT_SIZE]))
        # paging never deletes: the cache only grows to its final size
        return out | dict(max_occupancy=self.admissions - self.evictions, too_large=0,
                          requested_size=self.steps + self._fed, hit_size=self.hits)
