"""A run in progress: its arrays by name, and ``step(t0, t1)`` to advance it.

Every driver of the compiled step function goes through this one object: the runner (the
fast engine: one call over the whole trace, :meth:`LiveRun.run_all`), the SimPy engine (a
call per step and phase from its events), the closed loop (step t's evidence written just
before it retrieves, ``before_retrieve``) and the adversaries (step t's rows written just
before it runs).  A :class:`LiveRun` owns the cache (slots, vectors, admission steps), the
policy's state and the per-step outputs; the compiled side sees them as one named bundle
(:attr:`LiveRun.arrays`, :mod:`simulator.engine.run_arrays`).

``LiveRun(...)`` is a factory: it checks the options once and makes a
:class:`~simulator.semantic_run.SemanticRun` or a :class:`~simulator.paging_run.PagingRun`,
by the trace's mode, each holding only what its mode needs (both are LiveRuns).
:func:`start` makes one from options checked already, without checking them again.

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

import abc
import importlib
from typing import ClassVar

import numpy as np

from simulator.engine import fast as engine_fast
from simulator.engine import hook_types, memory_estimate, policy_faults, step_checks
from simulator.engine.counts import SIZE, new_counts
from simulator.engine.fast import RETRIEVE, WHOLE
from simulator.errors import InputError
from simulator.policies.context import Context
from simulator.run_options import NO_BUDGET, UNSET, RunOptions, given_or_built


class LiveRun(abc.ABC):
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
        ``capacity``); by default None, 3, ``"hit"`` and 0.  ``capacity`` None: 10,
        unless a budget is given (then no count limit).
    budget : int or str, optional
        The total size the cache may hold (docs/model.md §1.8), in the trace's size unit,
        or text such as ``"128MiB"``.
    seed : int
        The only source of the policy's randomness (default 0).
    params : dict, optional
        Policy parameters; unknown names raise InputError.
    before_retrieve : callable, optional
        ``before_retrieve(live, t)`` runs just before step t retrieves (a closed loop
        writes step t's evidence there); steps then run one at a time.

    options : RunOptions, optional
        The policy and the options above, built and checked once by the caller
        (:meth:`RunOptions.build <simulator.run_options.RunOptions.build>`), instead of
        ``policy`` and those keywords; they are not checked again.  Giving both is one
        InputError.

    Attributes
    ----------
    mode : str
        ``"semantic"`` (the run is a ``simulator.semantic_run.SemanticRun``) or
        ``"paging"`` (a ``simulator.paging_run.PagingRun``).
    arrays : SemanticArrays or PagingArrays
        The compiled bundle the step function reads and writes.
    state : tuple
        The policy's state (what its ``init`` returned), which its hooks update.
    loss, hit, precision, quality, admitted, evicted, deleted, size : ndarray
        Per-step outputs (paging: ``hit`` only), as in
        :class:`~simulator.run_result.RunResult`.
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

    mode: ClassVar[str] = ""
    _kinds: ClassVar[dict] = {}  # mode -> the class of its runs, filled as each is defined

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        LiveRun._kinds[cls.mode] = cls

    def __new__(cls, trace, policy=None, *, capacity=UNSET, top_k=UNSET, quality=UNSET,
                switch_cost=UNSET, seed=UNSET, params=UNSET, before_retrieve=None,
                budget=UNSET, options: RunOptions | None = None):
        options = given_or_built(options, policy, capacity=capacity, top_k=top_k,
                                 switch_cost=switch_cost, quality=quality, budget=budget,
                                 seed=seed, params=params)
        # the whole run is made here; __init__ then has nothing left to do
        return start(trace, options, before_retrieve, made_as=cls)

    def __init__(self, trace, policy=None, *, capacity=UNSET, top_k=UNSET, quality=UNSET,
                 switch_cost=UNSET, seed=UNSET, params=UNSET, before_retrieve=None,
                 budget=UNSET, options: RunOptions | None = None):
        # the signature the class documents (read by help() and the API reference);
        # __new__ has made the run from these arguments
        pass

    def _start(self, trace, options: RunOptions, before_retrieve, memory_checked: bool):
        pol, prm = options.policy, dict(options.params)
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
            budget=budget, mode=self.mode, object_ids=getattr(trace, "object_ids", None),
            times=getattr(trace, "times", None), supersedes=getattr(trace, "supersedes", None))
        self._step = engine_fast.steps_for(pol, self.mode, self.sized)
        self._order = step_checks.StepOrder(self.steps)
        if not memory_checked:
            memory_estimate.check_run(trace, options)  # before allocating
        self.state = policy_faults.checked_state(pol, self._context)
        self._counts = new_counts(self.capacity, self.slots, self.budget, NO_BUDGET,
                                  pol.repeat_delete)
        self._slot_key = np.full(self.slots, -1, np.int64)
        items, loop_args = self._arrays(options)
        # each hook alone, before the loop's long compilation: a bad one fails in a second
        hook_types.check_hooks(pol, self.mode, self.state, tuple(
            self._view[n] for n in ("slot_key", "slot_vec", "slot_adm", "counts")), items,
            loop_args)

    @abc.abstractmethod
    def _arrays(self, options: RunOptions) -> tuple:
        """Allocate the mode's arrays and bundle; return the trace's items and the
        policy's own loop's arguments, for the hooks' check."""

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

    @abc.abstractmethod
    def run_all(self) -> float:
        """Every step, whole, from the empty cache (the fast engine); returns the engine's
        seconds, compilation excluded.

        A paging run of a policy with its own ``paging_loop`` (ARC) goes through that loop,
        which keeps its cache to itself: the outputs and tallies are set, the cache views
        (:meth:`cached_keys`) are not, and the run takes no further steps.
        """

    def feed(self, requests, sizes=None) -> np.ndarray:
        """Paging: run the next requests, given here rather than read from the trace (a
        streamed run, :mod:`simulator.stream_run`); returns their hits (int8).

        ``requests`` are dense keys (int64, ``0 .. n_keys-1`` of the trace the run was made
        with, usually an empty :class:`~simulator.trace.PagingBuffer`), ``sizes`` their
        sizes (int64 >= 1; default 1).  Request i of the first call is step i, and each
        call goes on where the last one stopped, so the policy sees one long trace.
        """
        raise InputError(f"feed() runs paging requests; this run is {self.mode}")

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
        raise InputError(f"retrieve() reads a semantic run's query; this run is {self.mode}")

    @property
    def requests_fed(self) -> int:
        """Paging: requests run through :meth:`feed` so far."""
        raise InputError(f"requests_fed is kept by paging runs; this run is {self.mode} "
                         "(read hits, admissions or evictions)")

    @property
    @abc.abstractmethod
    def hits(self) -> int:
        """Requests (paging) or scored steps (semantic, as the run record counts them)
        that hit so far."""

    @property
    @abc.abstractmethod
    def admissions(self) -> int:
        """Admissions so far (paging: misses whose object was admitted)."""

    @property
    @abc.abstractmethod
    def evictions(self) -> int:
        """Evictions so far (semantic: deletions included, as the run record counts them)."""

    @abc.abstractmethod
    def outputs(self) -> dict:
        """The per-step arrays and counters of the mode's
        :class:`~simulator.run_result.RunResult`."""


_KIND_MODULES = {"semantic": "simulator.semantic_run", "paging": "simulator.paging_run"}


def start(trace, options: RunOptions, before_retrieve=None, *, memory_checked: bool = False,
          made_as: type | None = None) -> LiveRun:
    """A run of ``options`` (built and checked by the caller, not checked again) over
    ``trace``, of its mode's class; ``memory_checked``: the caller has checked that the
    run fits in memory (:func:`simulator.engine.memory_estimate.check_run`).

    ``made_as`` is the class the caller asked for (``LiveRun``, or a mode's own class,
    which must be the trace's)."""
    if options.policy is None:
        raise InputError("a run needs a policy: build its options with policy=", "policy")
    mode = step_checks.mode_of(trace, options.policy, before_retrieve)
    if mode not in LiveRun._kinds:
        # a mode's class imports this module, so this one loads it by name when first
        # needed, as the front door loads its names
        importlib.import_module(_KIND_MODULES[mode])
    kind = LiveRun._kinds[mode]
    if made_as not in (None, LiveRun, kind):
        raise InputError(f"a {made_as.__name__} runs {made_as.mode} traces, and this trace is "
                         f"{mode}: make the run with LiveRun", "trace")
    live = object.__new__(kind)
    live._start(trace, options, before_retrieve, memory_checked)
    return live
