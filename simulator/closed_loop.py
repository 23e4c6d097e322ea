"""Closed-loop runs: a trace whose relevance is written while the policy runs (issue 6).

In a closed loop what step t's answer is worth depends on what the policy retrieved, so
the trace cannot be written in advance.  :func:`run` steps the policy through the
engine's own compiled step function (:func:`simulator.engine_fast.steps_for`, as
:mod:`workloads.adversarial` does), so its bookkeeping is exactly the engine's.  Just
before step t retrieves, it computes R_t on the live cache with the engines' retrieval
kernel (the same function on the same arrays, so the same R_t), hands it to a
*responder* and writes the keys the responder calls relevant as step t's evidence
(SPEC §6).  The step then runs unchanged: scoring, feedback and the decision read that
evidence, so quality_t (``quality=hit``) is the responder's verdict.  Queries and item
vectors are known in advance; only the evidence is written during the run.

With ``engine="simpy"`` the same responder runs inside the SimPy engine's query events
(:mod:`simulator.engine_simpy`), so latency, delayed or lost feedback and sessions apply.

The finished trace is run again with :func:`simulator.runner.run` (same policy,
parameters, options, engine and seed): every per-step array must equal the loop's, or
the run fails.  So the trace is certified to be re-runnable.
"""

from __future__ import annotations

import dataclasses
import types

import numpy as np

from simulator import engine_fast, engine_simpy, policies, runner
from simulator.errors import InputError
from simulator.kernels import QUALITY_CODES, normalize_rows, retrieve
from simulator.policies.base import Context
from simulator.trace import Trace

OFFLINE = ("belady",)  # read the future (Context.trace): cannot run in a closed loop
_ARRAYS = ("loss", "hit", "precision", "quality", "admitted", "evicted", "deleted", "size")


@dataclasses.dataclass
class LoopResult:
    """A certified closed-loop run: the realised ``trace`` and its ``result``
    (:class:`~simulator.runner.RunResult` of the certifying re-run, equal to the loop)."""

    trace: Trace
    result: runner.RunResult


def buffer(queries: np.ndarray, items: np.ndarray, scored: np.ndarray, top_k: int):
    """The arrays of a trace still being written: vectors (normalised as on load), scored
    mask, weights 1, no topics, and room for top_k evidence keys a step."""
    T, d = queries.shape
    return types.SimpleNamespace(
        queries=normalize_rows(queries), items=normalize_rows(items),
        query_topics=np.full(T, -1, np.int64), item_topics=np.full(T, -1, np.int64),
        weights=np.ones(T), item_keys=np.arange(T, dtype=np.int64),
        scored=np.asarray(scored, np.bool_), evidence_indptr=np.zeros(T + 1, np.int64),
        evidence_indices=np.zeros(T * top_k, np.int64), has_evidence=True, steps=T,
        n_keys=T, dim=d)


def run(buf, policy: str, respond, capacity: int, top_k: int, seed: int = 0,
        params: dict | None = None, switch_cost: float = 0.0, engine: str = "fast",
        engine_options: dict | None = None, meta: dict | None = None) -> LoopResult:
    """Run ``policy`` in a closed loop over ``buf`` (see :func:`buffer`).

    Parameters
    ----------
    buf : namespace
        From :func:`buffer`; its evidence arrays are filled here.
    policy : str
        A registered online policy defined in semantic mode.
    respond : callable
        ``respond(t, keys, sims) -> relevant keys``: called once per step, just before
        step t retrieves, with R_t's item keys (best first) and cosines.
    capacity, top_k, seed, params, switch_cost, engine, engine_options
        As for :func:`simulator.runner.run` (quality is always ``hit``).
    meta : dict, optional
        Stored in the trace's ``meta``.
    """
    pol = policies.get(policy)
    if policy in OFFLINE or "semantic" not in pol.modes:
        raise InputError(f"policy '{policy}' cannot run in a closed loop (it is offline or "
                         "not defined in semantic mode)")
    runner.check_options(capacity, top_k, switch_cost, "hit")
    options = runner.check_engine(engine, engine_options)
    prm = pol.resolve_params(params)
    T, k = buf.steps, int(top_k)
    cap = T if pol.unbounded else int(capacity)
    n_slots = min(cap, T)
    state = pol.init(Context(cap, T, buf.dim, prm, int(seed), float(switch_cost), None))
    cache = engine_fast.empty_cache(n_slots, T, buf.dim, cap, k)
    out = (np.zeros(T), np.zeros(T, np.int8), np.zeros(T), np.zeros(T),
           np.zeros(T, np.int64), np.zeros(T, np.int64), np.zeros(T, np.int64),
           np.zeros(T, np.int64))
    live = engine_fast.bundle(buf.queries, buf.items, buf.query_topics, buf.item_topics,
                              buf.weights, buf.item_keys, buf.evidence_indptr,
                              buf.evidence_indices, True, k, QUALITY_CODES["hit"], *cache,
                              state, *out)
    step = engine_fast.steps_for(pol)
    prepare = _preparer(buf, cache, k, respond)

    def stepper(run_arrays, t0, t1, phases):  # the engine's step, evidence written first
        for t in range(t0, t1):
            if phases & engine_fast.RETRIEVE:
                prepare(t)
            step(run_arrays, t, t + 1, phases)

    if engine == "simpy":  # its event loop over our arrays (simulate() allocates its own)
        engine_simpy._drive(stepper, live, T, options, int(seed))
    else:
        stepper(live, 0, T, engine_fast.WHOLE)
    ptr = buf.evidence_indptr
    trace = Trace.from_arrays(queries=buf.queries, items=buf.items, scored=buf.scored,
                              evidence_indptr=ptr,
                              evidence_indices=buf.evidence_indices[:ptr[T]],
                              meta=dict(meta or {}))
    again = runner.run(trace, policy, capacity=capacity, top_k=k, switch_cost=switch_cost,
                       quality="hit", seed=seed, params=prm, engine=engine,
                       engine_options=engine_options)
    for name, loop in zip(_ARRAYS, out):
        if not np.array_equal(getattr(again, name), loop):
            raise RuntimeError(f"closed loop of policy '{policy}': a re-run of the finished "
                               f"trace differs in '{name}'")
    trace.meta.update(policy=policy, policy_params=prm, capacity=capacity, top_k=k,
                      switch_cost=switch_cost, engine=engine, engine_options=options)
    return LoopResult(trace, again)


def _preparer(buf, cache, k, respond):
    """``prepare(t)``: compute R_t on the live cache, ask the responder, write the evidence."""
    slot_key, slot_vec, slot_adm, counts = cache[0], cache[1], cache[2], cache[6]
    sims = np.empty(slot_key.shape[0], np.float32)
    r_slot, r_sim = np.empty(k, np.int64), np.empty(k, np.float64)
    ptr, idx = buf.evidence_indptr, buf.evidence_indices
    done = [0]  # steps prepared so far: evidence rows are written in step order

    def prepare(t):
        if t != done[0]:
            raise RuntimeError(f"closed loop: step {t} retrieves before step {done[0]}")
        n = retrieve(buf.queries[t], slot_vec, slot_key, slot_adm, counts[3], k, sims,
                     r_slot, r_sim, bool(counts[0] == counts[3]))
        relevant = np.asarray(respond(t, slot_key[r_slot[:n]], r_sim[:n]), np.int64)
        if relevant.size > k:
            raise RuntimeError(f"closed loop: responder named {relevant.size} > top_k keys")
        ptr[t + 1] = ptr[t] + relevant.size
        idx[ptr[t]:ptr[t + 1]] = relevant
        done[0] = t + 1

    return prepare
