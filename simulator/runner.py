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
import time

import numpy as np

from simulator import engine_fast, engine_simpy, policies
from simulator.errors import InputError
from simulator.policies.base import Context
from simulator.kernels import QUALITY_CODES
from simulator.trace import PagingTrace, Trace

# "fast": one compiled loop, immediate feedback; "simpy": discrete events, feedback may be
# late or lost, several sessions may share the cache (simulator.engine_simpy).
ENGINES = ("fast", "simpy")


@dataclasses.dataclass
class RunResult:
    """Counters and per-step records of one run.

    Per-step arrays (semantic mode): ``loss``, ``hit``, ``precision``, ``quality``;
    ``admitted``/``evicted``/``deleted`` hold the item key (or -1) and ``size`` the cache
    size after step t.  Paging mode fills ``hit`` and the ``admissions``/``evictions``
    counters only (a 10⁷-request run keeps one byte per request).  ``feedback`` (SimPy
    engine only) counts the steps whose feedback was ``delivered``, ``lost``, or
    ``pending`` (due after the run ended).
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
    feedback: dict | None = None

    def summary(self) -> dict:
        """The SPEC §7 run record (plain Python types, ready for JSON).

        Rates and ``miss_cost`` = Σ ℓ_t are taken over the scored steps; ``modifications``
        N counts every step at which the cache changed, warm-up included (building the
        memory costs switches even when its answers are not graded), and
        ``cost = miss_cost + λ·N``.  With every step scored this is SPEC §1's cost exactly.

        A SimPy run with engine options other than the defaults (immediate feedback, one
        session: the fast engine's model) also records ``engine_options`` and its
        ``feedback`` counters; otherwise the record equals the fast engine's except
        ``engine`` and ``elapsed_s``.
        """
        c = self.config
        out = dict(policy=c["policy"], capacity=c["capacity"], top_k=c["top_k"],
                   switch_cost=c["switch_cost"], quality=c["quality"], seed=c["seed"],
                   params=c["params"], engine=c["engine"], mode=c["mode"],
                   steps=int(self.hit.shape[0]))
        if c["mode"] == "paging":
            # every request is scored; quality is the hit, a miss costs 1
            hits = int(self.hit.sum())
            n = out["steps"]
            mods = self.admissions  # a paging step changes S only by admitting
            out.update(scored_steps=n, hits=hits, hit_rate=hits / n, mean_precision=hits / n,
                       mean_quality=hits / n, miss_cost=float(n - hits), modifications=mods,
                       admissions=mods, evictions=self.evictions,
                       cost=float(n - hits) + c["switch_cost"] * mods, elapsed_s=self.elapsed_s)
            return self._with_engine_options(out)
        sc = self.scored
        n = int(sc.sum())
        changed = (self.admitted >= 0) | (self.evicted >= 0) | (self.deleted >= 0)
        mods = int(changed.sum())
        evictions = int((self.evicted >= 0).sum() + (self.deleted >= 0).sum())
        hits = int(self.hit[sc].sum())
        miss_cost = float(math.fsum(self.loss[sc].tolist()))
        out.update(
            scored_steps=n, hits=hits, hit_rate=hits / n if n else 0.0,
            mean_precision=float(math.fsum(self.precision[sc].tolist()) / n) if n else 0.0,
            mean_quality=float(math.fsum(self.quality[sc].tolist()) / n) if n else 0.0,
            miss_cost=miss_cost, modifications=mods,
            admissions=int((self.admitted >= 0).sum()), evictions=evictions,
            cost=miss_cost + c["switch_cost"] * mods, elapsed_s=self.elapsed_s)
        return self._with_engine_options(out)

    def _with_engine_options(self, out: dict) -> dict:
        options = self.config.get("engine_options")
        if options is not None and not engine_simpy.is_default(options):
            out.update(engine_options=dict(options), feedback=dict(self.feedback))
        return out


def check_options(capacity, top_k, switch_cost, quality):
    """Validate the model options (SPEC §1) and raise InputError naming the bad one."""
    if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) or capacity < 1:
        raise InputError(f"--capacity must be an integer >= 1, got {capacity!r}")
    if isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 1:
        raise InputError(f"--top-k must be an integer >= 1, got {top_k!r}")
    if isinstance(switch_cost, bool) or not isinstance(switch_cost, (int, float, np.number)) \
            or not math.isfinite(switch_cost) or switch_cost < 0:
        raise InputError(f"--switch-cost must be a finite number >= 0, got {switch_cost!r}")
    if quality not in QUALITY_CODES:
        raise InputError(f"--quality must be one of {', '.join(QUALITY_CODES)}, got {quality!r}")


def check_engine(engine: str, engine_options: dict | None) -> dict:
    """Validate the engine and its options; returns the options with defaults filled in.

    The fast engine accepts only the defaults (immediate feedback, one session).
    """
    if engine not in ENGINES:
        raise InputError(f"--engine must be one of: {', '.join(ENGINES)}; got {engine!r}")
    options = engine_simpy.resolve_options(engine_options)
    if engine == "fast" and not engine_simpy.is_default(options):
        name = next(n for n in options if options[n] != engine_simpy.OPTIONS[n])
        raise InputError(f"{engine_simpy.FLAGS[name]} (engine option '{name}') needs --engine "
                         "simpy; the fast engine has immediate feedback and one session")
    return options


def run(trace, policy: str, capacity: int = 10, top_k: int = 3, switch_cost: float = 0.0,
        quality: str = "hit", seed: int = 0, params: dict | None = None,
        engine: str = "fast", engine_options: dict | None = None) -> RunResult:
    """Run ``policy`` on ``trace`` (a :class:`Trace` or :class:`PagingTrace`).

    Parameters
    ----------
    trace : Trace or PagingTrace
    policy : str
        A registry name (``simulator.policies.REGISTRY``).
    capacity, top_k, switch_cost, quality
        The model options K, k, λ and the quality measure of SPEC §1 (paging mode uses
        ``capacity`` only).
    seed : int
        The only source of the policy's randomness.
    params : dict, optional
        Policy parameters; unknown names raise InputError.
    engine : {"fast", "simpy"}
        The engine to use.
    engine_options : dict, optional
        SimPy engine options (:data:`simulator.engine_simpy.OPTIONS`): ``latency``,
        ``feedback_delay`` (both ≥ 0, in trace steps), ``feedback_loss`` (a probability)
        and ``sessions`` (≥ 1).  The fast engine accepts only their defaults.
    """
    check_options(capacity, top_k, switch_cost, quality)
    options = check_engine(engine, engine_options)
    pol = policies.get(policy)
    prm = pol.resolve_params(params)
    paging = isinstance(trace, PagingTrace)
    mode = "paging" if paging else "semantic"
    if mode not in pol.modes:
        raise InputError(f"policy '{policy}' is not defined in {mode} mode; it runs in: "
                         + ", ".join(pol.modes))
    if not isinstance(trace, (Trace, PagingTrace)):
        raise InputError("trace must be a simulator.trace.Trace or PagingTrace")
    seed = int(seed)
    config = dict(policy=policy, capacity=None if pol.unbounded else int(capacity),
                  top_k=int(top_k), switch_cost=float(switch_cost), quality=quality, seed=seed,
                  params=prm, engine=engine, mode=mode,
                  engine_options=options if engine == "simpy" else None)
    if engine == "simpy" and paging:
        return _run_simpy_paging(trace, pol, int(capacity), prm, seed, config)
    if engine == "simpy":
        return _run_simpy(trace, pol, int(capacity), int(top_k), float(switch_cost),
                          QUALITY_CODES[quality], prm, seed, config)
    kernel = engine_fast.kernel_for(pol, mode)
    if paging:
        return _run_paging(trace, pol, kernel, int(capacity), prm, seed, config)
    return _run_semantic(trace, pol, kernel, int(capacity), int(top_k), float(switch_cost),
                         QUALITY_CODES[quality], prm, seed, config)


def _semantic_args(trace, n_slots, capacity, k, qcode, state, T):
    out = (np.zeros(T), np.zeros(T, np.int8), np.zeros(T), np.zeros(T),
           np.zeros(T, np.int64), np.zeros(T, np.int64), np.zeros(T, np.int64),
           np.zeros(T, np.int64))
    args = (trace.queries[:T], trace.items[:T], trace.query_topics[:T], trace.item_topics[:T],
            trace.weights[:T], trace.item_keys[:T], trace.evidence_indptr[:T + 1],
            trace.evidence_indices, trace.has_evidence, n_slots, trace.n_keys, capacity, k,
            qcode, state)
    return args, out


def _semantic_setup(trace, pol, capacity, lam, prm, seed):
    """(capacity, slots, policy context) of a semantic run; unbounded: a slot per item."""
    n_keys = trace.n_keys
    if pol.unbounded:
        capacity = n_keys
    ctx = Context(capacity, n_keys, trace.dim, prm, seed, lam, trace)
    return capacity, min(capacity, n_keys), ctx


def _run_semantic(trace, pol, kernel, capacity, k, lam, qcode, prm, seed, config):
    capacity, n_slots, ctx = _semantic_setup(trace, pol, capacity, lam, prm, seed)
    if not kernel.signatures:  # compile on a one-step prefix so elapsed_s excludes it
        args, out = _semantic_args(trace, n_slots, capacity, k, qcode, pol.init(ctx), 1)
        kernel(*args, *out)
    state = pol.init(ctx)
    args, out = _semantic_args(trace, n_slots, capacity, k, qcode, state, trace.steps)
    t0 = time.perf_counter()
    kernel(*args, *out)
    elapsed = time.perf_counter() - t0
    loss, hit, prec, qual, adm, evi, dele, size = out
    return RunResult(config=config, hit=hit, elapsed_s=elapsed, loss=loss, precision=prec,
                     quality=qual, admitted=adm, evicted=evi, deleted=dele, size=size,
                     scored=trace.scored)


def _run_simpy(trace, pol, capacity, k, lam, qcode, prm, seed, config):
    capacity, n_slots, ctx = _semantic_setup(trace, pol, capacity, lam, prm, seed)
    out, feedback, elapsed = engine_simpy.simulate(
        engine_fast.steps_for(pol), trace, n_slots, capacity, k, qcode, pol.init(ctx),
        config["engine_options"], seed)
    loss, hit, prec, qual, adm, evi, dele, size = out
    return RunResult(config=config, hit=hit, elapsed_s=elapsed, loss=loss, precision=prec,
                     quality=qual, admitted=adm, evicted=evi, deleted=dele, size=size,
                     scored=trace.scored, feedback=feedback)


def _paging_context(trace, capacity, prm, seed, config):
    return Context(capacity, max(trace.n_keys, 1), 0, prm, seed, float(config["switch_cost"]),
                   trace)


def _run_simpy_paging(trace, pol, capacity, prm, seed, config):
    hit, (_, admissions, evictions), feedback, elapsed = engine_simpy.simulate_paging(
        engine_fast.steps_for(pol, "paging"), trace, capacity,
        pol.init(_paging_context(trace, capacity, prm, seed, config)),
        config["engine_options"], seed)
    return RunResult(config=config, hit=hit, elapsed_s=elapsed, admissions=admissions,
                     evictions=evictions, feedback=feedback)


def _run_paging(trace, pol, kernel, capacity, prm, seed, config):
    n_keys = max(trace.n_keys, 1)
    ctx = _paging_context(trace, capacity, prm, seed, config)
    if not kernel.signatures:
        kernel(trace.requests[:1], n_keys, capacity, pol.init(ctx), np.zeros(1, np.int8))
    state = pol.init(ctx)
    hit = np.zeros(trace.steps, np.int8)
    t0 = time.perf_counter()
    _, admissions, evictions = kernel(trace.requests, n_keys, capacity, state, hit)
    elapsed = time.perf_counter() - t0
    return RunResult(config=config, hit=hit, elapsed_s=elapsed, admissions=int(admissions),
                     evictions=int(evictions))
