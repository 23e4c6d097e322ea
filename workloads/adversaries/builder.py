"""Adaptive adversaries you write: a step chooser, and a builder that certifies its trace.

An adversary writes a trace against one *target* policy while the target runs.  Before
step t the builder shows the chooser a :class:`View` (the step, the target's cached keys
and their topics, what a query would retrieve now, whether the last step hit), and the
chooser returns the step: a :class:`Step` (semantic: the query and the arriving item, with
their topics and the step's weight; paging: the requested page).  The builder writes it,
runs the target one step (:class:`simulator.LiveRun`, the engines' own step function) and
asks again.  At the end it re-runs the finished trace with :func:`simulator.run`: the hits
and admissions must equal the ones seen while writing, or the build fails.  So the trace is
*certified* to do to the target what the adversary saw (``meta["target_misses"]``).

A randomized target is played with one seed: the trace is adversarial for that run only,
with the same target, parameters, capacity, top-k, switch cost and seed.

The built-in adversaries (:mod:`workloads.adversaries`) are choosers through this same
interface; yours registers beside them (:func:`workloads.adversaries.register`, or a
``--plugin`` that defines an :class:`Adversary`).

Examples
--------
>>> import numpy as np
>>> eye = np.eye(4, dtype=np.float32)
>>> def nag(view):  # ask for the first topic the target does not hold, and bring it
...     topic = next(a for a in range(3) if a not in view.cached_topics)
...     return Step(query=eye[topic], item=eye[topic], query_topic=topic, item_topic=topic)
>>> tr = build(nag, target="fifo", capacity=2, steps=6, dim=4)
>>> tr.query_topics.tolist(), tr.meta["target_misses"]
([0, 1, 2, 0, 1, 2], 6)
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

import numpy as np

from simulator.errors import InputError
from simulator.params import MAX_INT
from simulator.live_run import LiveRun
from simulator.runner import run
from simulator.trace import PagingBuffer, PagingTrace, Trace, TraceBuffer

MODES = ("semantic", "paging")
UNIT_TOLERANCE = 1e-6  # what the trace leaves as it is (simulator.engine.kernels.normalize_rows)


@dataclasses.dataclass(frozen=True)
class Step:
    """One step an adversary chose.  Semantic: ``query`` and ``item`` unit vectors (length
    d; the builder refuses others, since the target retrieves by them as given), their
    topics (−1: none) and ``weight`` in [0, 1].  Paging: ``request``, the page asked for.
    ``aimed`` marks a step built to be a miss."""

    query: np.ndarray | None = None
    item: np.ndarray | None = None
    query_topic: int = -1
    item_topic: int = -1
    weight: float = 1.0
    request: int | None = None
    aimed: bool = True


@dataclasses.dataclass(frozen=True)
class View:
    """What a chooser sees before step ``t``: the target's cache S_t (``cached_keys``, item
    keys; ``cached_topics``, their topics, or the pages in paging mode), ``last_hit``
    (step t−1, None at t = 0) and :meth:`retrieve`."""

    t: int
    steps: int
    capacity: int
    top_k: int
    cached_keys: np.ndarray
    cached_topics: np.ndarray
    last_hit: bool | None
    _live: object = dataclasses.field(repr=False, default=None)
    _buf: object = dataclasses.field(repr=False, default=None)

    def retrieve(self, query) -> np.ndarray:
        """The keys the target would retrieve for ``query`` now, best first (semantic)."""
        if self._live.mode != "semantic":
            raise InputError("retrieve() needs a semantic adversary")
        saved = self._buf.queries[self.t].copy()
        self._buf.queries[self.t] = np.asarray(query, np.float32)
        try:
            return self._live.retrieve(self.t)[0]
        finally:
            self._buf.queries[self.t] = saved


@dataclasses.dataclass(frozen=True)
class Adversary:
    """A registered adversary: ``start(params, rng)`` returns ``(choose, meta)``, a fresh
    chooser ``choose(view) -> Step`` for one build and facts for the trace's meta.
    ``start`` reads the ``adversarial`` workload's resolved parameters (``capacity``,
    ``steps``, ``dim``, ``phase``, the noise) and ``adversary_params``, its own
    ``key=value`` options; ``dim(capacity)`` is the smallest dimension it needs (semantic)
    and ``pages(params)`` how many pages it asks for (paging)."""

    name: str
    summary: str
    mode: str
    start: Callable
    dim: Callable = lambda capacity: 1
    pages: Callable | None = None

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")


def build(choose, target: str, capacity: int, steps: int, *, mode: str = "semantic",
          dim: int = 32, top_k: int = 3, switch_cost: float = 0.0, seed: int = 0,
          target_params: dict | None = None, meta: dict | None = None,
          pages: int | None = None, name: str | None = None):
    """The certified trace of the chooser ``choose(view) -> Step`` against ``target``.

    ``target`` is run with ``capacity``, ``top_k``, ``switch_cost``, ``seed`` and
    ``target_params`` (the run to reproduce with the trace); ``dim`` is the vector length
    (semantic); ``pages`` bounds the pages a paging chooser asks for (default: ``steps``);
    ``name`` is the adversary's in errors (default: the chooser's).  Each step is checked as
    the chooser returns it: vectors of length ``dim``, finite and unit (norm within
    :data:`UNIT_TOLERANCE` of 1), topics integers >= -1, a weight in [0, 1], a page in
    range; anything else is one InputError naming the adversary, the step and the value.
    Returns a :class:`simulator.Trace` or :class:`simulator.PagingTrace`
    whose ``meta`` holds ``aimed`` (per step) and ``target_misses`` (certified).
    """
    if mode not in MODES:
        raise InputError(f"mode must be one of {MODES}, got {mode!r}", "mode")
    options = dict(capacity=capacity, top_k=top_k, switch_cost=switch_cost, seed=seed,
                   params=target_params)
    if mode == "paging":
        buf = PagingBuffer(np.zeros(steps, np.int64), pages or steps)
    else:
        buf = TraceBuffer.blank(steps, dim)
    live = LiveRun(buf, target, **options)
    aimed = np.zeros(steps, np.bool_)
    who = f"adversary '{name or getattr(choose, '__name__', 'chooser')}'"
    for t in range(steps):
        step = choose(_view(t, steps, options, live, buf, mode))
        aimed[t] = _write(buf, t, step, mode, who)
        live.step(t)
    info = dict(meta or {}, aimed=aimed)
    if mode == "paging":
        trace = PagingTrace.from_requests(buf.requests, meta=info)
    else:
        trace = buf.finish(info)
    certify(trace, target, options, live.hit, None if mode == "paging" else live.admitted)
    return trace


def _view(t, steps, options, live, buf, mode) -> View:
    keys = live.cached_keys()
    topics = keys if mode == "paging" else buf.item_topics[keys]
    return View(t=t, steps=steps, capacity=options["capacity"], top_k=options["top_k"],
                cached_keys=keys.copy(), cached_topics=np.asarray(topics).copy(),
                last_hit=None if t == 0 else bool(live.hit[t - 1]), _live=live, _buf=buf)


def _write(buf, t: int, step, mode: str, who: str) -> bool:
    """Step ``t`` into ``buf``, each value checked here, where the chooser hands it over
    (``who`` names the adversary in errors)."""
    if not isinstance(step, Step):
        raise InputError(f"{who}: a chooser must return a workloads.adversaries.builder.Step; "
                         f"at step {t} it returned {type(step).__name__}")
    if mode == "paging":
        if not (_is_int(step.request) and 0 <= step.request < buf.n_keys):
            raise InputError(f"{who} step {t}: request must be a page in 0 … "
                             f"{buf.n_keys - 1}, got {step.request!r}")
        buf.requests[t] = int(step.request)
        return bool(step.aimed)
    if step.query is None or step.item is None:
        raise InputError(f"{who} step {t}: a semantic step needs a query and an item vector")
    for name in ("query_topic", "item_topic"):
        value = getattr(step, name)
        if not (_is_int(value) and -1 <= value <= MAX_INT):
            raise InputError(f"{who} step {t}: {name} must be an integer >= 0, or -1 for "
                             f"none, got {value!r}")
    weight = step.weight
    if not (isinstance(weight, (int, float, np.integer, np.floating))
            and not isinstance(weight, bool) and 0.0 <= weight <= 1.0):
        raise InputError(f"{who} step {t}: weight must be a number in [0, 1], got {weight!r}")
    buf.queries[t] = _unit(step.query, "query", t, who, buf.dim)
    buf.items[t] = _unit(step.item, "item", t, who, buf.dim)
    buf.query_topics[t], buf.item_topics[t] = step.query_topic, step.item_topic
    buf.weights[t] = weight
    return bool(step.aimed)


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _unit(value, what: str, t: int, who: str, dim: int) -> np.ndarray:
    """A step's vector as float32, unit to within the trace's own tolerance: the target
    retrieves by the vectors as they are written, so a longer one would rank by length
    while the certified re-run (normalised) would not (docs/model.md §1.1)."""
    try:
        with np.errstate(over="ignore"):
            vec = np.asarray(value, np.float64).astype(np.float32)
    except (TypeError, ValueError):
        raise InputError(f"{who} step {t}: the {what} must be a vector of {dim} numbers, "
                         f"got {type(value).__name__}") from None
    if vec.shape != (dim,):
        raise InputError(f"{who} step {t}: the {what} vector has shape {vec.shape}, not "
                         f"({dim},): the trace's dimension")
    if not np.isfinite(vec).all():
        raise InputError(f"{who} step {t}: the {what} vector holds NaN, inf or a number "
                         "beyond float32")
    norm = math.sqrt(float(np.dot(vec.astype(np.float64), vec.astype(np.float64))))
    if abs(norm - 1.0) > UNIT_TOLERANCE:
        shown = (f"{norm:.6g}" if abs(norm - 1.0) > 1e-4  # else how far from 1
                 else f"1 {'+' if norm > 1 else '-'} {abs(norm - 1.0):.2g}")
        raise InputError(f"{who} step {t}: the {what} vector has norm {shown}, not 1; a "
                         "step's vectors are unit vectors: divide by np.linalg.norm(v)")
    return vec


def certify(trace, target: str, options: dict, hit: np.ndarray, admitted) -> None:
    """The target, re-run on the finished trace, must do exactly what the adversary saw;
    sets ``meta["target_misses"]`` (misses on steps of weight > 0)."""
    r = run(trace, target, **options)
    same = np.array_equal(r.hit, hit) and (admitted is None
                                           or np.array_equal(r.admitted, admitted))
    if not same:
        raise RuntimeError(f"the adversary lost track of policy '{target}': a re-run of the "
                           "finished trace differs")
    matters = trace.weights > 0 if isinstance(trace, Trace) else True  # w = 0: no miss cost
    trace.meta["target_misses"] = int(((r.hit == 0) & matters).sum())
