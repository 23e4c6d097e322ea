"""Adaptive adversaries: a trace written against one policy while that policy runs.

Before step t the adversary looks at the target's cache S_t and picks the query (and the
arriving item) that hurts it.  Policies are deterministic given their seed, so the adversary
runs the target itself, one step at a time, on the trace it is still writing: a
:class:`~simulator.live_run.LiveRun` (the engines' own step function) reads buffer rows
filled just before their step, and S_t is read off the live cache.  That is O(T) in all, against
O(T²) for re-running every prefix.  The finished trace is then run again with
:func:`simulator.runner.run`.  Its hits and admissions must equal the ones seen while
writing, or the build fails.  So the trace is certified to do to the target what the
adversary saw.

Randomized policies (``random``, ``solar_e``, ``solar``): the adversary knows the seed, so
it plays against one realisation, the policy run with that seed, and not against the
policy's distribution.  The trace is adversarial only for the run it was built against:
same ``target`` (and ``target_params``), ``capacity``, ``top_k``, ``switch_cost`` and seed
(``semcache run --seed`` seeds both the workload and the policies), with ``quality=hit``.
Pass those to ``semcache run`` too.  Offline policies (``belady``) read the future, and
``unlimited`` has no capacity, so neither can be a target.

Adversaries (K = ``capacity``, T = ``steps``, λ = ``switch_cost``)
-----------------------------------------------------------------
``missing_topic`` (semantic)
    K + 1 topics with orthonormal centres and compact clusters (``preset=compact``).  Each
    step asks (weight 1) for the smallest topic of which the target holds no item.  K slots
    cannot hold K + 1 topics, so there always is one.  That topic's item then arrives, so
    the target could react.  The target misses every step, and an always-admit policy pays
    T(1 + λ).  OPT may keep the K topics asked for most often and never admit the last
    one, which is asked at most T/(K + 1) times.  So OPT ≤ T/(K + 1) + K(1 + λ), and the
    ratio is at least (K + 1)(1 + λ)(1 − o(1)) for a target that admits every step, and
    at least (K + 1)(1 − o(1)) for any target.  FIFO meets it: its sequence is the cycle
    0, 1, …, K.  (That is K + 1, not paging's K, because the model lets OPT skip an
    admission.)  Recency and frequency policies do worse: a top-k retrieval refreshes the
    items it returns, relevant or not, so the adversary can keep asking for a few topics.
``paging`` (paging mode: a PagingTrace of ``requests``)
    K + 1 pages; each request is the smallest page not in the target's cache.  The target
    misses every request, while Belady's MIN misses at most once per K requests after the
    first K + 1.  So the ratio to Belady is at least K − o(1) for every target.  LRU and
    FIFO, which are K-competitive (Sleator–Tarjan), stay below K + O(1/T), so their ratio
    tends to K.  This is the instance of "classical LRU has competitive ratio K in paging
    mode".  (Belady always admits; OPT that may skip admissions can be lower, see
    :mod:`theory.adversary_ratio`.)
``no_memory_then_dropped`` (semantic)
    K useful topics, and a fresh *junk* topic for each weight-0 step.  While the target
    holds every useful topic, the steps have weight 0 (w_t = 0: queries that need no
    memory, docs/model.md §1), and each brings a query and an item of a new junk topic.  After
    ``phase`` such steps in a row, one weight-1 query asks for useful topic 0.  As soon as a
    useful topic is missing, a weight-1 query asks for the smallest missing one, and its
    item arrives.  An always-admit policy admits junk and so drops a useful topic after one
    weight-0 step, and often more while it re-admits the useful ones: FIFO misses K of
    every K + 1 steps and pays about T(K + λ(K + 1))/(K + 1).  OPT keeps the K useful
    topics and pays at most K(1 + λ) in all, so the ratio grows linearly in T.
    Regret-gated admission (``solar_a``, ``solar``) adds ℓ_t = 0 on weight-0 steps, never
    admits junk, and stops missing once it holds the useful topics.

Junk centres share one direction (centre cosine 0.5) and are orthogonal to the useful
ones.  So a weight-0 query retrieves junk first: retrieval-driven bookkeeping (LRU's
recency, LFU's counts) is refreshed on junk, not on useful items.  Vectors are the
centre plus N(0, σ²) noise (:mod:`workloads.topic_space` presets).  The noise is drawn
for every step in advance, so the random stream does not depend on the target's choices.

Examples
--------
>>> tr = build("missing_topic", "fifo", capacity=2, steps=9, params={"dim": 8})
>>> tr.query_topics.tolist()  # the topic FIFO has just evicted, every step
[0, 1, 2, 0, 1, 2, 0, 1, 2]
>>> int(run(tr, "fifo", capacity=2, top_k=3).hit.sum()), tr.meta["target_misses"]
(0, 9)
>>> build("paging", "fifo", capacity=3, steps=8).requests.tolist()
[0, 1, 2, 3, 0, 1, 2, 3]
"""

from __future__ import annotations

import math

import numpy as np

from simulator import memory_estimate as mem
from simulator import policies
from simulator.errors import InputError
from simulator.kernels import normalize_rows
from simulator.live_run import LiveRun
from simulator.runner import run
from simulator.trace import PagingBuffer, PagingTrace, Trace, TraceBuffer
from workloads import topic_space as ts
from workloads.base import Workload, policy_params

ADVERSARIES = ("missing_topic", "paging", "no_memory_then_dropped")
JUNK_COSINE = 0.5
# Defaults of capacity, top_k and switch_cost are those of `semcache run`, so a run with
# default options matches the run the trace was built against.
PARAMS = {"adversary": "missing_topic", "target": "lru", "target_params": "", "capacity": 10,
          "top_k": 3, "switch_cost": 0.0, "steps": 200, "phase": 8, "dim": 32,
          **ts.NOISE_PARAMS, "preset": "compact"}


def _mode(adversary: str) -> str:
    return "paging" if adversary == "paging" else "semantic"


def targets(adversary: str) -> list:
    """The registered policies that ``adversary`` can play against."""
    return [name for name, pol in policies.REGISTRY.items()
            if _mode(adversary) in pol.modes and not pol.traits_of().offline
            and not pol.unbounded]


def target_params(p: dict) -> dict:
    """``p["target_params"]`` (``"key=value,key=value"``) as the target's resolved parameters."""
    return policy_params(p, "target_params", p["target"])


def _check(p: dict) -> str | None:
    if p["adversary"] not in ADVERSARIES:
        return (f"parameter 'adversary' must be one of {', '.join(ADVERSARIES)}, "
                f"got {p['adversary']!r}")
    valid = targets(p["adversary"])
    if p["target"] not in valid:
        return (f"parameter 'target' must be a policy that adversary '{p['adversary']}' can "
                f"play ({', '.join(valid)}), got {p['target']!r}")
    problem = ts.check_minimums(p, {"capacity": 1, "top_k": 1, "steps": 1, "phase": 1})
    if problem:
        return problem
    if _mode(p["adversary"]) == "semantic" and p["dim"] < p["capacity"] + 2:
        return (f"parameter 'dim' must be >= capacity + 2 = {p['capacity'] + 2} (orthogonal "
                f"topic centres), got {p['dim']}")
    if not math.isfinite(p["switch_cost"]) or p["switch_cost"] < 0:
        return f"parameter 'switch_cost' must be a finite number >= 0, got {p['switch_cost']}"
    try:
        target_params(p)
    except InputError as exc:
        return str(exc)
    return ts.check_noise(p)


def _target_run(p: dict, seed: int, trace) -> LiveRun:
    """The target's run over the buffer being written, with the options it is built for."""
    return LiveRun(trace, p["target"], capacity=p["capacity"], top_k=p["top_k"],
                   switch_cost=p["switch_cost"], seed=seed, params=target_params(p))


def _member(centre: np.ndarray, sigma: float, noise: np.ndarray) -> np.ndarray:
    """centre + σ·noise, normalised exactly as a trace loader does (so loading is a no-op)."""
    return normalize_rows((centre + sigma * noise)[None, :].astype(np.float32))[0]


def _junk_centres(rng: np.random.Generator, useful: np.ndarray, n: int) -> np.ndarray:
    """``n`` unit centres orthogonal to ``useful``, sharing one direction (cosine ≈ 0.5)."""
    def out_of(basis, x):  # x with its components along the orthonormal rows of basis removed
        coefficients = [ts.row_dots(x, b) for b in basis]  # all from x, as x @ basis.T
        for c, b in zip(coefficients, basis):
            x = x - np.outer(c, b)
        return x

    axis = ts.unit_rows(out_of(useful, rng.standard_normal((1, useful.shape[1]))))
    parts = ts.unit_rows(out_of(np.vstack([useful, axis]), rng.standard_normal((n, axis.size))))
    return ts.unit_rows(math.sqrt(JUNK_COSINE) * axis + math.sqrt(1 - JUNK_COSINE) * parts)


def _semantic(p: dict, seed: int) -> Trace:
    rng = np.random.default_rng(seed)
    T, d, K = p["steps"], p["dim"], p["capacity"]
    n_useful = K + 1 if p["adversary"] == "missing_topic" else K
    item_sigma, query_sigma = ts.noise_levels(p)
    useful = ts.correlated_centres(rng, n_useful, d, 0.0)  # orthonormal: n_useful < d
    junk = (_junk_centres(rng, useful, T) if p["adversary"] == "no_memory_then_dropped"
            else None)
    noise_q, noise_x = rng.standard_normal((T, d)), rng.standard_normal((T, d))
    buf = TraceBuffer.blank(T, d)
    live = _target_run(p, seed, buf)
    held = np.zeros(n_useful, np.int64)  # cached items of each useful topic, in S_t
    aimed = np.zeros(T, np.bool_)
    junk_run = n_junk = 0
    for t in range(T):
        missing = next((a for a in range(n_useful) if held[a] == 0), None)
        if missing is not None:  # missing_topic always takes this branch
            topic, centre, junk_run = missing, useful[missing], 0
            aimed[t] = True
        elif junk_run < p["phase"]:  # a query that needs no memory; a new topic arrives
            topic, centre = n_useful + n_junk, junk[t]
            buf.weights[t] = 0.0
            junk_run, n_junk = junk_run + 1, n_junk + 1
        else:  # the target kept every useful topic through a whole phase: ask anyway
            topic, centre, junk_run = 0, useful[0], 0
        buf.queries[t] = _member(centre, query_sigma, noise_q[t])
        buf.items[t] = _member(centre, item_sigma, noise_x[t])
        buf.query_topics[t] = buf.item_topics[t] = topic
        live.step(t)
        # S_{t+1}'s topics: keys are arrival steps (these traces have no item_keys)
        for key, change in ((live.evicted[t], -1), (live.deleted[t], -1), (live.admitted[t], 1)):
            if key >= 0 and buf.item_topics[key] < n_useful:
                held[buf.item_topics[key]] += change
    meta = {"workload": "adversarial", "params": dict(p), "seed": seed, "aimed": aimed,
            "item_noise": item_sigma, "query_noise": query_sigma,
            "centre_cosine": ts.pairwise_cosine_summary(useful)}
    trace = buf.finish(meta)
    _certify(trace, p, seed, live.hit, live.admitted)
    return trace


def _paging(p: dict, seed: int) -> PagingTrace:
    T, K = p["steps"], p["capacity"]
    n_pages = min(K + 1, T)
    buf = PagingBuffer(np.zeros(T, np.int64), n_pages)
    live = _target_run(p, seed, buf)
    for t in range(T):
        held = np.zeros(n_pages + 1, np.bool_)
        held[live.cached_keys()] = True
        buf.requests[t] = int(np.argmin(held))  # the smallest page not cached
        live.step(t)
    trace = PagingTrace.from_requests(buf.requests, meta={
        "workload": "adversarial", "params": dict(p), "seed": seed,
        "aimed": np.ones(T, np.bool_)})
    _certify(trace, p, seed, live.hit, None)
    return trace


def _certify(trace, p: dict, seed: int, hit: np.ndarray, admitted) -> None:
    """The target, re-run on the finished trace, must do exactly what the adversary saw."""
    r = run(trace, p["target"], capacity=p["capacity"], top_k=p["top_k"],
            switch_cost=p["switch_cost"], seed=seed, params=target_params(p))
    same = np.array_equal(r.hit, hit) and (admitted is None
                                           or np.array_equal(r.admitted, admitted))
    if not same:
        raise RuntimeError(f"adversary '{p['adversary']}' lost track of policy "
                           f"'{p['target']}': a re-run of the finished trace differs")
    matters = trace.weights > 0 if isinstance(trace, Trace) else True  # w = 0: no miss cost
    trace.meta["target_misses"] = int(((r.hit == 0) & matters).sum())


def _make(p: dict, seed: int):
    return _paging(p, seed) if p["adversary"] == "paging" else _semantic(p, seed)


def build(adversary: str, policy: str, capacity: int, steps: int, switch_cost: float = 0.0,
          top_k: int = 3, seed: int = 0, params: dict | None = None):
    """The trace of ``adversary`` played against ``policy`` run with ``seed``.

    Parameters
    ----------
    adversary : {"missing_topic", "paging", "no_memory_then_dropped"}
    policy : str
        The target: a registered online policy defined in the adversary's mode.
    capacity, steps, switch_cost, top_k
        K, T, λ and k of the target's run (the run to reproduce with the trace).
    seed : int
        Seeds both the vectors and the target's random stream.
    params : dict, optional
        Other workload parameters (``phase``, ``dim``, ``target_params``, noise).

    Returns
    -------
    Trace or PagingTrace
        ``meta["aimed"]`` marks the steps built to be misses; ``meta["target_misses"]``
        counts the target's misses on steps of weight > 0, certified by a re-run.
    """
    given = dict(params or {}, adversary=adversary, target=policy, capacity=capacity,
                 steps=steps, switch_cost=switch_cost, top_k=top_k)
    return WORKLOAD.generate(given, seed)


def _footprint(p: dict) -> int:
    """Rough bytes to generate the trace (:mod:`simulator.memory_estimate`)."""
    # the target runs as the trace is built: its slots hold up to K vectors
    if p["adversary"] == "paging":
        return mem.paging_trace(p["steps"], p["capacity"] + 1) + 64 * p["capacity"]
    return mem.semantic_trace(p["steps"], p["steps"] + p["capacity"] + 2, p["dim"])


WORKLOAD = Workload(
    name="adversarial",
    summary="adaptive adversary built against one target policy as it runs",
    make=_make, params=PARAMS, check_params=_check,
    footprint=_footprint)
