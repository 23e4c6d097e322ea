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

from collections.abc import Mapping

import numpy as np

from simulator.engine import simpy as engine_simpy
from simulator.errors import InputError
from simulator.live_run import start
from simulator.run_options import UNSET, RunOptions, given_or_built
from simulator.run_result import MAX_COST, PagingResult, RunResult, SemanticResult, paging_record
from simulator.trace import PagingTrace, Trace

# the names other modules read here before results had their own module
__all__ = ["ENGINES", "MAX_COST", "PagingResult", "RunResult", "SemanticResult",
           "check_cost_bound", "check_engine", "paging_record", "run", "run_checked"]

# "fast": one compiled loop, immediate feedback; "simpy": discrete events, feedback may be
# late or lost, several sessions may share the cache (simulator.engine.simpy).
ENGINES = ("fast", "simpy")


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


def run(trace, policy=None, capacity=UNSET, top_k=UNSET, switch_cost=UNSET, quality=UNSET,
        seed=UNSET, params=UNSET, engine: str = "fast", engine_options: dict | None = None,
        budget=UNSET, retrievals: bool = False, options: RunOptions | None = None) -> RunResult:
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
        ``capacity`` only); by default None, 3, 0 and ``"hit"``.  ``capacity`` None: 10, or
        no count limit when a budget is given.
    seed : int
        The only source of the policy's randomness (default 0).
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
        keywords; they are not checked again.  Giving both is one InputError.

    Returns
    -------
    RunResult
        A :class:`~simulator.run_result.SemanticResult` or a
        :class:`~simulator.run_result.PagingResult`, by the trace's mode.
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
    return run_checked(trace, options, engine, engine_options, retrievals=retrievals)


def run_checked(trace, options: RunOptions, engine: str = "fast",
                engine_options: dict | None = None, *, retrievals: bool = False,
                memory_checked: bool = False) -> RunResult:
    """:func:`run` below the front doors: ``options`` built, and ``engine_options``
    returned by :func:`check_engine`, by the caller, and not checked again.

    ``memory_checked``: the caller has already checked that the run fits in memory
    (:func:`simulator.engine.memory_estimate.check_run`), as the command line does for all its
    runs before the first.
    """
    check_cost_bound(trace.steps, options.switch_cost)
    retrieved = hook = None
    if retrievals:
        if not isinstance(trace, Trace):
            raise InputError("retrievals are recorded for semantic traces only", "retrievals")
        retrieved = np.full((trace.steps, options.top_k), -1, np.int64)

        def hook(live, t):
            keys = live.retrieve(t)[0]
            retrieved[t, :len(keys)] = keys

    live = start(trace, options, hook, memory_checked=memory_checked)
    if engine_options is None:
        engine_options = dict(engine_simpy.OPTIONS)
    config = dict(live.config, engine=engine,
                  engine_options=engine_options if engine == "simpy" else None)
    feedback = None
    if engine == "simpy":
        feedback, elapsed = engine_simpy.simulate(live, engine_options, options.seed)
    else:
        elapsed = live.run_all()
    extra = {} if retrieved is None else {"retrieved": retrieved}
    return live.result_type(config=config, elapsed_s=elapsed, feedback=feedback,
                            **live.outputs(), **extra)
