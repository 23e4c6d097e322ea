"""A run in progress: its arrays by name, and ``step(t0, t1)`` to advance it.

Every driver of the compiled step function goes through this one object: the runner (the
fast engine: one call over the whole trace, :meth:`LiveRun.run_all`), the SimPy engine (a
call per step and phase from its events), the closed loop (step t's evidence written just
before it retrieves, ``before_retrieve``) and the adversaries (step t's rows written just
before it runs).  A :class:`LiveRun` owns the cache (slots, vectors, admission steps), the
policy's state and the per-step outputs; the compiled side sees them as one named bundle
(:attr:`LiveRun.arrays`, :mod:`simulator.engine.run_arrays`).

Examples
--------
>>> from simulator.trace import PagingTrace
>>> live = LiveRun(PagingTrace.from_requests([7, 8, 7, 9, 7]), "lru", capacity=2)
>>> live.step(0, 3)
>>> live.cached_keys().tolist(), live.hits  # dense keys: 7 -> 0, 8 -> 1, 9 -> 2
([0, 1], 1)
>>> live.step(3, 5)
>>> live.hit.tolist(), live.evictions
([0, 0, 1, 0, 1], 1)
"""

from __future__ import annotations

import time

import numba
import numpy as np

from simulator.engine import fast as engine_fast
from simulator.engine import hook_types
from simulator.engine import memory_estimate
from simulator.engine import policy_faults
from simulator.engine import step_checks
from simulator.engine.counts import (ADMISSIONS, EVICTIONS, HIGH_WATER, HIT_SIZE, HITS, LOGGED,
                                   MAX_OCCUPANCY, REQUESTED_SIZE, SIZE, TOO_LARGE, new_counts)
from simulator.engine.fast import RETRIEVE, WHOLE
from simulator.errors import InputError
from simulator.run_options import NO_BUDGET, RunOptions, given_or_built
from simulator.engine.kernels import BLOCK, QUALITY_CODES, retrieve
from simulator.policies.context import Context
from simulator.engine.run_arrays import (OUTPUTS, PAGING_CACHE, TRACE_FIELDS, paging_arrays,
                                   semantic_arrays)


def modification_counts(admitted, evicted, deleted, evict_log=None) -> tuple:
    """``(admissions, evictions)`` of a semantic run from its per-step keys (-1: none).

    Evictions count deletions too, and, where a sized run keeps its ``evict_log``, every
    victim of a step rather than the first one (docs/model.md §7).
    """
    evicted_n = len(evict_log) if evict_log is not None else int((evicted >= 0).sum())
    return int((admitted >= 0).sum()), evicted_n + int((deleted >= 0).sum())


class LiveRun:
    """One policy's run over one trace, in progress.

    Parameters
    ----------
    trace : Trace, PagingTrace, TraceBuffer or PagingBuffer
        What the run reads; a buffer's row t must be written before step t runs.
    policy : str or Policy
        A registry name or a :class:`~simulator.policies.base.Policy` (unless ``options``
        are given).
    capacity, top_k, quality, switch_cost
        The model options K, k, quality measure and λ (docs/model.md §1; paging uses
        ``capacity``).  ``capacity`` None: 10, unless a budget is given (then no count
        limit).
    budget : int or str, optional
        The total size the cache may hold (docs/model.md §1.8), in the trace's size unit,
        or text such as ``"128MiB"``.
    seed : int
        The only source of the policy's randomness.
    params : dict, optional
        Policy parameters; unknown names raise InputError.
    before_retrieve : callable, optional
        ``before_retrieve(live, t)`` runs just before step t retrieves (a closed loop
        writes step t's evidence there); steps then run one at a time.

    options : RunOptions, optional
        The policy and the options above, built and checked once by the caller
        (:meth:`RunOptions.build <simulator.run_options.RunOptions.build>`), instead of
        ``policy`` and those keywords; they are not checked again.

    Attributes
    ----------
    arrays : SemanticArrays or PagingArrays
        The compiled bundle the step function reads and writes.
    state : tuple
        The policy's state (what its ``init`` returned), which its hooks update.
    loss, hit, precision, quality, admitted, evicted, deleted, size : ndarray
        Per-step outputs (paging: ``hit`` only), as in
        :class:`~simulator.runner.RunResult`.
    config : dict
        ``policy``, ``capacity`` (None when unbounded), ``top_k``, ``switch_cost``,
        ``quality``, ``seed``, ``params`` and ``mode``.

    Notes
    -----
    Every index is checked before compiled code sees it (:mod:`simulator.engine.step_checks`,
    docs/engines.md "Stepping a run yourself"): :meth:`step` takes integers ``0 <= t0 <=
    t1 <= steps`` and phases in the order the engines keep: RETRIEVE each step once, in
    order; ARRIVE each step once, in order, after its RETRIEVE; FEEDBACK at most once a
    step, in increasing order, after its RETRIEVE (it may skip steps and come late).  A
    buffer's row t must be written before step t runs.  A policy's fault is one
    InputError naming the policy and the hook (:mod:`simulator.engine.policy_faults`); the run
    then takes no further step.
    """

    def __init__(self, trace, policy=None, *, capacity=None, top_k=3, quality="hit",
                 switch_cost=0.0, seed=0, params=None, before_retrieve=None, budget=None,
                 options: RunOptions | None = None):
        options = given_or_built(options, policy, capacity=capacity, top_k=top_k,
                                 switch_cost=switch_cost, quality=quality, budget=budget,
                                 seed=seed, params=params)
        pol, prm = options.policy, dict(options.params)
        if pol is None:
            raise InputError("a run needs a policy: build its options with policy=", "policy")
        self.mode = step_checks.mode_of(trace, pol, before_retrieve)
        self.trace, self.policy, self.before_retrieve = trace, pol, before_retrieve
        self.steps = trace.steps
        n_keys = max(trace.n_keys, 1)
        capacity, budget = options.run_limits()
        # the count limit the policy plans with: K, or (a budget's run) the most items the
        # budget can hold, since every size is at least 1; an unbounded policy has no limit
        self.capacity = n_keys if pol.unbounded else int(capacity or budget)
        self.slots = min(self.capacity, n_keys)  # slots never exceed the items
        self.budget = budget
        self.sized = budget is not None or bool(getattr(trace, "sized", False))
        self.config = dict(policy=pol.name, capacity=capacity, top_k=options.top_k,
                           switch_cost=options.switch_cost, quality=options.quality,
                           seed=options.seed, params=prm, mode=self.mode, budget=budget)
        # only an offline policy (Belady) may read the future
        self._context = Context(
            capacity=self.capacity, n_keys=n_keys, dim=getattr(trace, "dim", 0), params=prm,
            seed=options.seed, switch_cost=options.switch_cost,
            trace=trace if pol.traits_of(prm).offline else None, slots=self.slots,
            budget=budget, mode=self.mode, object_ids=getattr(trace, "object_ids", None))
        self._step = engine_fast.steps_for(pol, self.mode, self.sized)
        self._order = step_checks.StepOrder(self.steps)
        memory_estimate.check_run(trace, options)  # before allocating
        self.state = policy_faults.checked_state(pol, self._context)
        if self.mode == "paging":
            self._paging_arrays(self.state)
            items, loop_args = None, None if self.sized else (
                trace.requests, max(trace.n_keys, 1), self.capacity, self.state, self.hit)
        else:
            self._semantic_arrays(self.state, options.top_k, QUALITY_CODES[options.quality])
            items, loop_args = trace.items, None
        # each hook alone, before the loop's long compilation: a bad one fails in a second
        hook_types.check_hooks(pol, self.mode, self.state, tuple(
            self._view[n] for n in ("slot_key", "slot_vec", "slot_adm", "counts")), items,
            loop_args)

    def _semantic_arrays(self, state, k, qcode):
        T, n_slots, tr = self.steps, self.slots, self.trace
        self._counts = new_counts(self.capacity, n_slots, self.budget, NO_BUDGET)
        self._slot_key = np.full(n_slots, -1, np.int64)
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
        self.arrays = semantic_arrays(*(getattr(tr, name) for name in TRACE_FIELDS), k, qcode,
                                       *cache, state, *(getattr(self, n) for n in OUTPUTS),
                                       self.evict_log)

    def _paging_arrays(self, state):
        n_slots, n_keys = self.slots, max(self.trace.n_keys, 1)
        self._counts = new_counts(self.capacity, n_slots, self.budget, NO_BUDGET)
        self._slot_key = np.full(n_slots, -1, np.int64)
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
        self.arrays = self._paging_bundle(self.trace.requests, self.trace.request_sizes,
                                          self.hit, 0)

    def _paging_bundle(self, requests, sizes, hit, base):
        return paging_arrays(requests, *(self._cache[n] for n in PAGING_CACHE), self.state,
                              hit, sizes, self._slot_size, base)

    # ------------------------------------------------------------------ advancing

    def compile(self) -> None:
        """Compile (or load from disk) the step function now, outside any timing."""
        with self._reported():
            self._step(self.arrays, 0, 0, 0)

    def _reported(self):
        """Compiled code of the policy runs in here: what it does wrong is one line, and
        the run stops (:mod:`simulator.engine.policy_faults`)."""
        return policy_faults.reported(self.policy, self.slots, self._order.stop)

    def step(self, t0: int, t1: int | None = None, phases: int = WHOLE) -> None:
        """Run ``phases`` (bits of ``engine_fast.RETRIEVE | FEEDBACK | ARRIVE``; default
        all) of steps ``t0 .. t1-1`` (``t1`` defaults to ``t0 + 1``), in the order the
        class docstring gives; any other call is one InputError, and runs nothing."""
        self._order.may_go_on("step()")
        t0, t1, phases = self._order.check(t0, t1, phases)
        if self.before_retrieve is None or not phases & RETRIEVE:
            self._run(t0, t1, phases)
            return
        for t in range(t0, t1):
            self.before_retrieve(self, t)
            # the callback may have stepped the run itself: check step t again
            self._run(*self._order.check(t, t + 1, phases))

    def _run(self, t0: int, t1: int, phases: int) -> None:
        step_checks.check_rows(self.trace, t0, t1, phases, self._n_keys, self.sized)
        with self._reported():
            self._step(self.arrays, t0, t1, phases)
        self._order.advance(t0, t1, phases)

    def run_all(self) -> float:
        """Every step, whole, from the empty cache (the fast engine); returns the engine's
        seconds, compilation excluded.

        A paging run of a policy with its own ``paging_loop`` (ARC) goes through that loop,
        which keeps its cache to itself: the outputs and tallies are set, the cache views
        (:meth:`cached_keys`) are not, and the run takes no further steps.
        """
        self._order.may_go_on("run_all()", fresh=True)
        loop = (engine_fast.own_paging_loop(self.policy)
                if self.mode == "paging" and not self.sized else None)
        if loop is None and self.mode == "paging":
            step_checks.check_rows(self.trace, 0, self.steps, WHOLE, self._n_keys, self.sized)
            whole = engine_fast.paging_whole_for(self.policy, self.sized)
            with self._reported():
                whole.compile((numba.typeof(self.arrays),))  # outside the timing
                t0 = time.perf_counter()
                whole(self.arrays)
                elapsed = time.perf_counter() - t0
            self._order.advance(0, self.steps, WHOLE)
            return elapsed
        if loop is None:
            self.compile()
            t0 = time.perf_counter()
            self.step(0, self.steps)
            return time.perf_counter() - t0
        step_checks.check_rows(self.trace, 0, self.steps, WHOLE, self._n_keys, self.sized)
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

    def feed(self, requests, sizes=None) -> np.ndarray:
        """Paging: run the next requests, given here rather than read from the trace (a
        streamed run, :mod:`simulator.stream_run`); returns their hits (int8).

        ``requests`` are dense keys (int64, ``0 .. n_keys-1`` of the trace the run was made
        with, usually an empty :class:`~simulator.trace.PagingBuffer`), ``sizes`` their
        sizes (int64 >= 1; default 1).  Request i of the first call is step i, and each
        call goes on where the last one stopped, so the policy sees one long trace.
        """
        if self.mode != "paging":
            raise InputError("feed() runs paging requests; this run is semantic")
        self._order.may_go_on("feed()")
        requests, sizes, self._fed_size = step_checks.fed(
            requests, sizes, self._n_keys, self.sized, self._fed_size, self.steps)
        n = requests.shape[0]
        hit = np.zeros(n, np.int8)
        whole = engine_fast.paging_whole_for(self.policy, self.sized)
        with self._reported():
            whole(self._paging_bundle(requests, sizes, hit, self._fed))
        self._fed += n
        return hit

    # ------------------------------------------------------------------ reading

    @property
    def cache_size(self) -> int:
        """How many items the cache holds now."""
        return int(self._counts[SIZE])

    def cached_keys(self) -> np.ndarray:
        """The keys of the cached items, in slot order."""
        if self._order.closed is not None:
            raise InputError("cached_keys(): the policy's own paging loop keeps its cache to "
                             "itself")
        return self._slot_key[self._slot_key >= 0]

    def retrieve(self, t: int) -> tuple:
        """``(keys, cosines)`` of R_t for step t's query on the cache as it is now, best
        first: what step t would retrieve if it ran next (semantic mode)."""
        if self.mode != "semantic":
            raise InputError("retrieve() reads a semantic run's query; this run is paging")
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
    def requests_fed(self) -> int:
        """Paging: requests run through :meth:`feed` so far."""
        self._paging_only("requests_fed")
        return self._fed

    @property
    def hits(self) -> int:
        """Requests (paging) or scored steps (semantic, as the run record counts them)
        that hit so far."""
        if self.mode == "paging":
            return int(self._counts[HITS])
        return int(self.hit[self.trace.scored].sum())

    @property
    def admissions(self) -> int:
        """Admissions so far (paging: misses whose object was admitted)."""
        if self.mode == "paging":
            return int(self._counts[ADMISSIONS])
        return modification_counts(self.admitted, self.evicted, self.deleted,
                                   self._evict_log())[0]

    @property
    def evictions(self) -> int:
        """Evictions so far (semantic: deletions included, as the run record counts them)."""
        if self.mode == "paging":
            return int(self._counts[EVICTIONS])
        return modification_counts(self.admitted, self.evicted, self.deleted,
                                   self._evict_log())[1]

    def _evict_log(self):
        return self.evict_log[:self._counts[LOGGED]] if self.sized else None

    def _paging_only(self, what: str) -> None:
        if self.mode != "paging":
            raise InputError(f"{what} is kept by paging runs; this run is semantic "
                             "(read hits, admissions or evictions)")

    def outputs(self) -> dict:
        """The per-step arrays and counters of a :class:`~simulator.runner.RunResult`.

        A unit-size run tracks no sizes in its loop; its size tallies follow from the
        counts (each item has size 1).
        """
        c = self._counts
        if self.mode == "paging":
            out = dict(hit=self.hit, admissions=self.admissions, evictions=self.evictions)
            if self.sized:
                return out | dict(max_occupancy=int(c[MAX_OCCUPANCY]),
                                  too_large=int(c[TOO_LARGE]),
                                  requested_size=int(c[REQUESTED_SIZE]),
                                  hit_size=int(c[HIT_SIZE]))
            # paging never deletes: the cache only grows to its final size
            return out | dict(max_occupancy=self.admissions - self.evictions, too_large=0,
                              requested_size=self.steps + self._fed, hit_size=self.hits)
        out = {name: getattr(self, name) for name in OUTPUTS} | {"scored": self.trace.scored}
        if self.sized:
            return out | dict(max_occupancy=int(c[MAX_OCCUPANCY]), too_large=int(c[TOO_LARGE]),
                              evict_log=self._evict_log())
        return out | dict(max_occupancy=int(self.size.max()) if self.steps else 0, too_large=0)
