"""Run one policy over one trace: the checked public wrapper around the engines.

Examples
--------
>>> import numpy as np
>>> from simulator.trace import Trace
>>> rng = np.random.default_rng(0)
>>> centres = rng.normal(size=(4, 8)).astype(np.float32)
>>> topics = np.arange(40) % 4
>>> tr = Trace.from_arrays(queries=centres[topics], items=centres[topics],
...                        query_topics=topics, item_topics=topics)
>>> r = run(tr, "fifo", capacity=4, top_k=1)
>>> r.summary()["hits"], r.summary()["modifications"]  # the first four steps miss
(36, 40)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import numpy as np

from simulator.engine import simpy as engine_simpy
from simulator.errors import InputError
from simulator.live_run import LiveRun, modification_counts
from simulator.run_options import RunOptions, given_or_built
from simulator.trace import PagingTrace, Trace

# "fast": one compiled loop, immediate feedback; "simpy": discrete events, feedback may be
# late or lost, several sessions may share the cache (simulator.engine.simpy).
ENGINES = ("fast", "simpy")
# The largest cost a run may be able to reach: every total, and the offline optimum's
# bounds and flow sums (a few times the cost), then stay finite float64 numbers.
MAX_COST = 1e300


@dataclasses.dataclass
class RunResult:
    """Counters and per-step records of one run.

    Per-step arrays (semantic mode): ``loss``, ``hit``, ``precision``, ``quality``;
    ``admitted``/``evicted``/``deleted`` hold the item key (or -1; ``evicted`` the first
    one a step evicted) and ``size`` the number of cached items after step t; a sized run
    also keeps ``evict_log``, every eviction as a row (step, key), since a step may evict
    several.  Paging mode fills ``hit`` and the ``admissions``/``evictions`` counters only
    (a 10⁷-request run keeps one byte per request).  ``max_occupancy`` is the largest total
    size held, ``too_large`` the arrivals never admitted because larger than the budget,
    ``requested_size`` and ``hit_size`` (paging) the sizes requested and served from the
    cache.  ``feedback`` (SimPy engine only) counts the steps whose feedback was
    ``delivered``, ``lost``, or ``pending`` (due after the run ended).  ``retrieved``
    (semantic runs made with ``retrievals=True``) is R_t per step, int64 [T, top_k]: the
    keys best first, −1 where the cache held fewer than k items.
    """

    config: dict
    hit: np.ndarray
    elapsed_s: float
    loss: np.ndarray | None = None
    precision: np.ndarray | None = None
    quality: np.ndarray | None = None
    admitted: np.ndarray | None = None
    evicted: np.ndarray | None = None
    deleted: np.ndarray | None = None
    size: np.ndarray | None = None
    scored: np.ndarray | None = None
    admissions: int = 0
    evictions: int = 0
    max_occupancy: int = 0
    too_large: int = 0
    requested_size: int = 0
    hit_size: int = 0
    evict_log: np.ndarray | None = None
    feedback: dict | None = None
    retrieved: np.ndarray | None = None

    def summary(self) -> dict:
        """The docs/model.md §7 run record (plain Python types, ready for JSON).

        Rates and ``miss_cost`` = Σ ℓ_t are taken over the scored steps (with none scored
        the rates are None: such a run has no hit rate, and ``miss_cost`` is 0); ``modifications``
        N counts every step at which the cache changed, warm-up included (building the
        memory costs switches even when its answers are not graded), and
        ``cost = miss_cost + λ·N``.  With every step scored this is the cost of docs/model.md
        §1.6 exactly.

        A SimPy run with engine options other than the defaults (immediate feedback, one
        session: the fast engine's model) also records ``engine_options`` and its
        ``feedback`` counters; otherwise the record equals the fast engine's except
        ``engine`` and ``elapsed_s``.
        """
        c = self.config
        out = dict(policy=c["policy"], capacity=c["capacity"], budget=c["budget"],
                   top_k=c["top_k"], switch_cost=c["switch_cost"], quality=c["quality"],
                   seed=c["seed"], params=c["params"], engine=c["engine"], mode=c["mode"],
                   steps=int(self.hit.shape[0]))
        sizes = dict(max_occupancy=self.max_occupancy, too_large=self.too_large)
        if c["mode"] == "paging":
            return self._with_engine_options(paging_record(
                c, steps=out["steps"], hits=int(self.hit.sum()), admissions=self.admissions,
                evictions=self.evictions, **sizes, requested_size=self.requested_size,
                hit_size=self.hit_size, elapsed_s=self.elapsed_s))
        sc = self.scored
        n = int(sc.sum())
        changed = (self.admitted >= 0) | (self.evicted >= 0) | (self.deleted >= 0)
        mods = int(changed.sum())
        admissions, evictions = modification_counts(self.admitted, self.evicted,
                                                    self.deleted, self.evict_log)
        hits = int(self.hit[sc].sum())
        miss_cost = float(math.fsum(self.loss[sc].tolist()))
        out.update(
            scored_steps=n, hits=hits, hit_rate=hits / n if n else None,
            mean_precision=float(math.fsum(self.precision[sc].tolist()) / n) if n else None,
            mean_quality=float(math.fsum(self.quality[sc].tolist()) / n) if n else None,
            miss_cost=miss_cost, modifications=mods,
            admissions=admissions, evictions=evictions, **sizes,
            cost=_finite_cost(miss_cost + c["switch_cost"] * mods), elapsed_s=self.elapsed_s)
        return self._with_engine_options(out)

    def _with_engine_options(self, out: dict) -> dict:
        options = self.config.get("engine_options")
        if options is not None and not engine_simpy.is_default(options):
            out.update(engine_options=dict(options), feedback=dict(self.feedback))
        return out


def paging_record(config: dict, *, steps: int, hits: int, admissions: int, evictions: int,
                  max_occupancy: int, too_large: int, requested_size: int, hit_size: int,
                  elapsed_s: float) -> dict:
    """The docs/model.md §7.2 record of a paging run from its tallies (a whole run's or a
    streamed one's): every request is scored, quality is the hit and a miss costs 1.  An
    empty trace has None rates, as a semantic run with no scored step."""
    c = config
    out = dict(policy=c["policy"], capacity=c["capacity"], budget=c["budget"],
               top_k=c["top_k"], switch_cost=c["switch_cost"], quality=c["quality"],
               seed=c["seed"], params=c["params"], engine=c["engine"], mode=c["mode"],
               steps=steps)
    mods = admissions  # a paging step changes S only by admitting
    rate = hits / steps if steps else None
    out.update(scored_steps=steps, hits=hits, hit_rate=rate, mean_precision=rate,
               mean_quality=rate,
               miss_cost=float(steps - hits), modifications=mods, admissions=mods,
               evictions=evictions, max_occupancy=max_occupancy, too_large=too_large,
               requested_size=requested_size, hit_size=hit_size,
               size_hit_rate=hit_size / requested_size if requested_size else None,
               cost=_finite_cost(float(steps - hits) + c["switch_cost"] * mods),
               elapsed_s=elapsed_s)
    return out


def check_cost_bound(steps: int, switch_cost: float) -> None:
    """Refuse, before any work, a run whose largest possible cost is not a safe float64.

    A run of T steps costs at most Σ_t w_t + λ·T <= T·(1 + λ) (every step a full miss and
    a cache change); that must be at most :data:`MAX_COST` (1e300), so that no total,
    bound or JSON number can overflow to inf.

    >>> check_cost_bound(10**6, 1e290)  # at most 1e296: fine
    >>> check_cost_bound(10**6, 1e295)  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    simulator.errors.InputError: switch_cost 1e+295 makes the largest possible cost ...
    """
    if steps * (1.0 + float(switch_cost)) > MAX_COST:
        raise InputError(f"switch_cost {switch_cost:g} makes the largest possible cost "
                         f"T·(1 + λ) = {steps * (1.0 + switch_cost):g} over {steps} steps "
                         f"exceed {MAX_COST:g}; give a switch cost <= "
                         f"{MAX_COST / max(steps, 1) - 1:.3g}", "switch_cost")


def _finite_cost(cost: float) -> float:
    """The cost, which :func:`check_cost_bound` keeps finite (a streamed run, whose T is
    known only at its end, is checked here)."""
    if not math.isfinite(cost) or cost > MAX_COST:
        raise InputError(f"switch_cost makes the run's cost {cost:g} exceed {MAX_COST:g}; "
                         "give a smaller switch cost", "switch_cost")
    return cost


def check_engine(engine: str, engine_options: dict | None) -> dict:
    """Validate the engine and its options; returns the options with defaults filled in.

    The fast engine accepts only the defaults (immediate feedback, one session).
    """
    if not isinstance(engine, str) or engine not in ENGINES:
        raise InputError(f"engine must be one of: {', '.join(ENGINES)}; got {engine!r}", "engine")
    if engine_options is not None and not isinstance(engine_options, Mapping):
        raise InputError("engine_options must be a mapping of option names to values, e.g. "
                         f"{{'feedback_delay': 5}}; got {type(engine_options).__name__}",
                         "engine_options")
    options = engine_simpy.resolve_options(engine_options)
    if engine == "fast" and not engine_simpy.is_default(options):
        name = next(n for n in options if options[n] != engine_simpy.OPTIONS[n])
        raise InputError(f"{name} needs the simpy engine; the fast engine has immediate "
                         "feedback and one session", name)
    return options


def run(trace, policy=None, capacity: int | None = None, top_k: int = 3,
        switch_cost: float = 0.0, quality: str = "hit", seed: int = 0,
        params: dict | None = None, engine: str = "fast", engine_options: dict | None = None,
        budget=None, retrievals: bool = False, options: RunOptions | None = None) -> RunResult:
    """Run ``policy`` on ``trace`` (a :class:`Trace` or :class:`PagingTrace`).

    Parameters
    ----------
    trace : Trace or PagingTrace
    policy : str or Policy
        A registry name (``simulator.policies.REGISTRY``), or a
        :class:`~simulator.policies.base.Policy` object, registered or not (unless
        ``options`` are given).
    capacity, top_k, switch_cost, quality
        The model options K, k, λ and the quality measure of docs/model.md §1 (paging mode uses
        ``capacity`` only).  ``capacity`` None: 10, or no count limit when a budget is given.
    seed : int
        The only source of the policy's randomness.
    params : dict, optional
        Policy parameters; unknown names raise InputError.
    engine : {"fast", "simpy"}
        The engine to use.
    engine_options : dict, optional
        SimPy engine options (:data:`simulator.engine.simpy.OPTIONS`): ``latency``,
        ``feedback_delay`` (both ≥ 0, in trace steps), ``feedback_loss`` (a probability)
        and ``sessions`` (≥ 1).  The fast engine accepts only their defaults.
    budget : int or str, optional
        The total size the cache may hold (docs/model.md §1.8): an integer in the trace's
        size unit, or text with a binary suffix (``"128MiB"``).
    retrievals : bool
        Also record R_t of every step (``RunResult.retrieved``; semantic mode): each step
        then runs on its own, R_t read just before it retrieves, as the closed loop does
        (:meth:`LiveRun.retrieve`), so every other output is the same as without it.
    options : RunOptions, optional
        The policy and its options (all but the engine's and ``retrievals``), built and
        checked once by the caller (:meth:`RunOptions.build
        <simulator.run_options.RunOptions.build>`), instead of ``policy`` and those
        keywords; they are not checked again.
    """
    options = given_or_built(options, policy, capacity=capacity, top_k=top_k,
                             switch_cost=switch_cost, quality=quality, budget=budget,
                             seed=seed, params=params)
    engine_options = check_engine(engine, engine_options)
    if not isinstance(retrievals, (bool, np.bool_)):
        raise InputError(f"retrievals must be True or False, got {retrievals!r}"[:200],
                         "retrievals")
    if not isinstance(trace, (Trace, PagingTrace)):
        raise InputError("trace must be a simulator.trace.Trace or PagingTrace")
    check_cost_bound(trace.steps, options.switch_cost)
    retrieved = hook = None
    if retrievals:
        if not isinstance(trace, Trace):
            raise InputError("retrievals are recorded for semantic traces only", "retrievals")
        retrieved = np.full((trace.steps, options.top_k), -1, np.int64)

        def hook(live, t):
            keys = live.retrieve(t)[0]
            retrieved[t, :len(keys)] = keys

    live = LiveRun(trace, options=options, before_retrieve=hook)
    config = dict(live.config, engine=engine,
                  engine_options=engine_options if engine == "simpy" else None)
    feedback = None
    if engine == "simpy":
        feedback, elapsed = engine_simpy.simulate(live, engine_options, options.seed)
    else:
        elapsed = live.run_all()
    return RunResult(config=config, elapsed_s=elapsed, feedback=feedback, retrieved=retrieved,
                     **live.outputs())
