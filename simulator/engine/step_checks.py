"""What a :class:`~simulator.live_run.LiveRun` checks before a step reaches compiled code.

The compiled loops index without bounds checks (a wrong index reads or writes outside an
array, and may kill Python), so every index a caller gives is checked here, in Python,
once per call: the steps ``t0 .. t1-1`` and the phases of :meth:`LiveRun.step
<simulator.live_run.LiveRun.step>` (:class:`StepOrder`), the step of :meth:`LiveRun.retrieve
<simulator.live_run.LiveRun.retrieve>` (:func:`step_index`), and the rows of a trace still
being written (:func:`check_buffer`, :func:`check_rows`).

The order of the phases (docs/engines.md, "Stepping a run yourself"):

* ``RETRIEVE`` runs each step once, in order;
* ``ARRIVE`` runs each step once, in order, and only after that step's ``RETRIEVE``;
* ``FEEDBACK`` runs at most once a step, in increasing order, only for steps that have
  retrieved; it may skip steps (feedback can be lost) and may come after later arrivals
  (feedback can be late).

Within one call, each step runs its phases in the order RETRIEVE, FEEDBACK, ARRIVE, so
``step(t)`` runs step t whole.  These are exactly the orders the fast and SimPy engines
use (:mod:`simulator.engine.simpy`: latency, delay and loss, any number of sessions).

>>> order = StepOrder(steps=3)
>>> order.check(0, None, 7)
(0, 1, 7)
>>> order.advance(0, 1, 7)
>>> order.check(2, None, 1)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
simulator.errors.InputError: t0 = 2: step 2 cannot retrieve yet: each step retrieves once, ...
"""

from __future__ import annotations

import numpy as np

from simulator.engine.fast import ARRIVE, FEEDBACK, RETRIEVE, WHOLE
from simulator.errors import InputError
from simulator.params import MAX_INT
from simulator.engine.size_limits import total_size
from simulator.trace import PagingBuffer, PagingTrace, Trace, TraceBuffer


def step_index(value, name: str) -> int:
    """``value`` as a step index: a Python or NumPy integer (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InputError(f"{name} must be an integer step index, got "
                         f"{type(value).__name__} {value!r}"[:200], name)
    return int(value)


def mode_of(trace, policy, before_retrieve) -> str:
    """The mode of a run of ``policy`` over ``trace`` (a buffer's arrays checked by
    :func:`check_buffer`), with a ``before_retrieve`` that is a function or None."""
    if before_retrieve is not None and not callable(before_retrieve):
        raise InputError("before_retrieve must be a function (live, t), or None",
                         "before_retrieve")
    check_buffer(trace)  # a buffer is built by hand, not validated
    if isinstance(trace, (Trace, TraceBuffer)):
        mode = "semantic"
    elif isinstance(trace, (PagingTrace, PagingBuffer)):
        mode = "paging"
    else:
        raise InputError("trace must be a simulator.trace.Trace or PagingTrace (or a "
                         "TraceBuffer or PagingBuffer being written)", "trace")
    if mode not in policy.modes:
        raise InputError(f"policy '{policy.name}' is not defined in {mode} mode; it runs "
                         "in: " + ", ".join(policy.modes))
    return mode


def fed(requests, sizes, n_keys: int, sized: bool, total: int, steps: int) -> tuple:
    """``(requests, sizes, total)`` of :meth:`LiveRun.feed
    <simulator.live_run.LiveRun.feed>`: dense keys below ``n_keys`` and sizes (1 unless
    the run is ``sized``) as int64 arrays, and the total size fed so far, bounded so that
    no tally can wrap (:mod:`simulator.engine.size_limits`).  A run whose trace holds ``steps``
    requests of its own takes none."""
    if steps:
        raise InputError(f"feed() gives a streamed run its requests; this run's trace holds "
                         f"{steps} requests already: run them with step() or run_all(), or "
                         "make the run with an empty PagingBuffer")
    requests = integers(requests, "requests")
    n = requests.shape[0]
    sizes = np.ones(n, np.int64) if sizes is None else integers(sizes, "sizes")
    if n and (requests.min() < 0 or requests.max() >= n_keys):
        raise InputError(f"requests must be dense keys in 0 .. {n_keys - 1}", "requests")
    if sizes.shape != (n,) or (n and sizes.min() < 1):
        raise InputError("sizes must be one int64 >= 1 per request", "sizes")
    if not sized and n and sizes.max() > 1:
        raise InputError("sizes other than 1 need a run made for sizes: give its trace "
                         "sized=True or a budget", "sizes")
    return requests, sizes, total_size(sizes, "sizes", total)


def integers(values, name: str) -> np.ndarray:
    """``values`` (integers, as a list or an array) as a contiguous 1-D int64 array."""
    try:
        arr = np.asarray(values)
    except ValueError:
        arr = None
    if arr is None or arr.ndim != 1 or (arr.dtype.kind not in "iu" and arr.size):
        shown = f"shape {arr.shape}, dtype {arr.dtype}" if arr is not None else "ragged"
        raise InputError(f"{name} must be a 1-D array of integers, got {shown}", name)
    if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
        raise InputError(f"{name} has a value past int64", name)
    return np.ascontiguousarray(arr, np.int64)


class StepOrder:
    """Where a run is: which phases of which steps it may run next (module docstring),
    and whether it may run at all.

    ``retrieved`` and ``arrived`` are the next steps to retrieve and to arrive; ``fed``
    the first step whose feedback may still come; ``stopped`` the line of the policy's
    fault that stopped the run (:mod:`simulator.engine.policy_faults`), and ``closed`` why it
    has no further steps (the policy's own paging loop ran it whole), or None.
    """

    def __init__(self, steps: int):
        self.steps = steps
        self.retrieved = self.arrived = self.fed = 0
        self.stopped = self.closed = None

    def stop(self, line: str) -> None:
        """The run stopped at a fault of its policy, said in ``line``."""
        self.stopped = line

    def may_go_on(self, what: str, fresh: bool = False) -> None:
        """Refuse ``what`` (``"step()"``) on a run that stopped or is closed, or that has
        stepped already when ``what`` needs a ``fresh`` run."""
        if self.stopped is not None:
            raise InputError(f"{what}: this run stopped at a fault of its policy ("
                             f"{self.stopped}); start a new run")
        if self.closed is not None:
            raise InputError(f"{what}: {self.closed}; it has no further steps")
        if fresh and (self.retrieved or self.arrived or self.fed):
            raise InputError(f"{what} runs every step from the empty cache; this run has "
                             "run steps already (go on with step())")

    def check(self, t0, t1, phases) -> tuple:
        """``(t0, t1, phases)`` as ints (``t1`` None: ``t0 + 1``), or one InputError naming
        the argument at fault and the step the run is at."""
        t0 = step_index(t0, "t0")
        t1 = t0 + 1 if t1 is None else step_index(t1, "t1")
        if isinstance(phases, bool) or not isinstance(phases, (int, np.integer)) \
                or not 1 <= phases <= WHOLE:
            raise InputError("phases must be RETRIEVE, FEEDBACK or ARRIVE of "
                             "simulator.engine.fast, or several of them joined by | (an "
                             f"integer 1 to {WHOLE}), got {phases!r}"[:200], "phases")
        phases = int(phases)
        if not 0 <= t0 <= self.steps:
            raise InputError(f"t0 must be a step in 0 .. {self.steps} (the trace has "
                             f"{self.steps} steps), got {t0}", "t0")
        if not t0 <= t1 <= self.steps:
            raise InputError(f"t1 must be in t0 .. {self.steps} (steps t0 .. t1-1 run; the "
                             f"trace has {self.steps} steps), got t0 = {t0}, t1 = {t1}", "t1")
        if t0 == t1:
            return t0, t1, phases
        # what has retrieved once this call's own retrievals have run (they run first)
        retrieved = t1 if phases & RETRIEVE else self.retrieved
        if phases & RETRIEVE and t0 != self.retrieved:
            raise InputError(f"t0 = {t0}: step {t0} cannot retrieve "
                             f"{self._now(t0, self.retrieved)}: "
                             "each step retrieves once, in order; "
                             f"{self._next(self.retrieved, 'retrieve')}", "t0")
        if phases & ARRIVE:
            if t0 != self.arrived:
                raise InputError(f"t0 = {t0}: step {t0} cannot arrive "
                                 f"{self._now(t0, self.arrived)}: "
                                 "each step's item arrives once, in order; "
                                 f"{self._next(self.arrived, 'arrive')}", "t0")
            if t1 > retrieved:
                raise InputError(f"t1 = {t1}: step {retrieved} cannot arrive before it "
                                 "retrieves (give RETRIEVE first, or in the same call)", "t1")
        if phases & FEEDBACK:
            if t0 < self.fed:
                raise InputError(f"t0 = {t0}: step {t0} cannot have feedback now: feedback "
                                 "comes at most once a step, in increasing order, and step "
                                 f"{self.fed - 1} has had it", "t0")
            if t1 > retrieved:
                raise InputError(f"t1 = {t1}: step {retrieved} cannot have feedback before "
                                 "it retrieves (give RETRIEVE first, or in the same call)",
                                 "t1")
        return t0, t1, phases

    @staticmethod
    def _now(t: int, due: int) -> str:
        return "again" if t < due else "yet"

    def _next(self, due: int, what: str) -> str:
        if due >= self.steps:
            return f"every step has had its {'retrieval' if what == 'retrieve' else 'arrival'}"
        return f"the next to {what} is step {due}"

    def advance(self, t0: int, t1: int, phases: int) -> None:
        """Record that ``phases`` of steps ``t0 .. t1-1`` ran (checked by :meth:`check`)."""
        if t0 == t1:
            return
        if phases & RETRIEVE:
            self.retrieved = t1
        if phases & ARRIVE:
            self.arrived = t1
        if phases & FEEDBACK:
            self.fed = t1


_SEMANTIC_DTYPES = {"queries": np.float32, "items": np.float32, "query_topics": np.int64,
                    "item_topics": np.int64, "weights": np.float64, "scored": np.bool_,
                    "item_keys": np.int64, "evidence_indices": np.int64,
                    "item_sizes": np.int64}


def check_buffer(trace) -> None:
    """A :class:`~simulator.trace.TraceBuffer` or :class:`~simulator.trace.PagingBuffer`
    whose arrays have the shapes and dtypes the compiled loops read (a buffer is built by
    hand, not validated as a trace is); other traces pass as they are."""
    if isinstance(trace, PagingBuffer):
        req = trace.requests
        if not isinstance(req, np.ndarray) or req.dtype != np.int64 or req.ndim != 1:
            raise InputError("PagingBuffer.requests must be a 1-D int64 numpy array")
        n = trace.n_keys
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 0 <= n <= MAX_INT:
            raise InputError(f"PagingBuffer.n_keys must be an integer >= 0, got {n!r}")
        return
    if not isinstance(trace, TraceBuffer):
        return
    for name, dtype in _SEMANTIC_DTYPES.items():
        value = getattr(trace, name)
        if not isinstance(value, np.ndarray) or value.dtype != dtype:
            raise InputError(f"TraceBuffer.{name} must be a numpy {np.dtype(dtype).name} "
                             "array (TraceBuffer.blank makes them)")
    T = trace.queries.shape[0] if trace.queries.ndim == 2 else -1
    shapes = {name: (T,) for name in _SEMANTIC_DTYPES if name not in (
        "queries", "items", "evidence_indices")}
    shapes.update(queries=(T, trace.queries.shape[-1]), items=(T, trace.queries.shape[-1]),
                  evidence_indptr=(T + 1,))
    for name, shape in shapes.items():
        value = getattr(trace, name)
        if T < 0 or value.shape != shape or (name == "evidence_indptr"
                                             and value.dtype != np.int64):
            raise InputError(f"TraceBuffer.{name} has shape {value.shape}; a buffer of "
                             f"queries [T, d] needs {shape}")
    if trace.evidence_indices.ndim != 1:
        raise InputError("TraceBuffer.evidence_indices must be 1-D")


def _first(mask, t0: int, what: str) -> None:
    if mask.any():
        t = t0 + int(np.flatnonzero(mask)[0])
        raise InputError(f"step {t} reads row {t} of the buffer, whose {what}; write row t "
                         "before step t runs")


def check_rows(trace, t0: int, t1: int, phases: int, n_keys: int, sized: bool) -> None:
    """The rows ``t0 .. t1-1`` of a buffer that ``phases`` read: written (vectors finite
    and not zero), and every key within the ``n_keys`` the run was made for."""
    if isinstance(trace, PagingBuffer):
        req = trace.requests[t0:t1]
        _first((req < 0) | (req >= n_keys), t0,
               f"request is not a dense key in 0 .. {n_keys - 1}")
        return
    if not isinstance(trace, TraceBuffer):
        return
    if phases & RETRIEVE:
        _vectors(trace.queries[t0:t1], t0, "query")
        _first(trace.query_topics[t0:t1] < -1, t0, "query topic is below -1")
        w = trace.weights[t0:t1]
        _first(~((w >= 0) & (w <= 1)), t0, "weight is not in [0, 1]")
        if trace.has_evidence:
            ptr = trace.evidence_indptr[t0:t1 + 1]
            bad = (ptr[:-1] < 0) | (ptr[1:] < ptr[:-1]) | (ptr[1:] > trace.evidence_indices.size)
            _first(bad, t0, "evidence_indptr is not a CSR pointer into "
                   "evidence_indices")
    if phases & ARRIVE:
        _vectors(trace.items[t0:t1], t0, "item")
        keys = trace.item_keys[t0:t1]
        _first((keys < 0) | (keys >= n_keys), t0,
               f"item key is not in 0 .. {n_keys - 1} (the keys of the run's buffer)")
        _first(trace.item_topics[t0:t1] < -1, t0, "item topic is below -1")
        sizes = trace.item_sizes[t0:t1]
        if sized:
            _first((sizes < 1) | (sizes > MAX_INT), t0, "item size is not in 1 .. 2**53")
        else:
            _first(sizes != 1, t0, "item size is not 1, in a run made without sizes "
                   "(give the buffer its sizes before the run, or a budget)")


def check_query(trace, t: int) -> None:
    """Step t's query row of a buffer, which :meth:`LiveRun.retrieve
    <simulator.live_run.LiveRun.retrieve>` reads before the rest of the row is written
    (a closed loop writes the evidence after it)."""
    if isinstance(trace, TraceBuffer):
        _vectors(trace.queries[t:t + 1], t, "query")


def _vectors(rows, t0: int, what: str) -> None:
    finite = np.isfinite(rows).all(axis=1)
    _first(~finite, t0, f"{what} vector has NaN or inf")
    _first(~(rows != 0).any(axis=1), t0, f"{what} vector is zero (not written)")
