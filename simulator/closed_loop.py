"""Closed-loop runs: a trace whose relevance is written while the policy runs.

In a closed loop what step t's answer is worth depends on what the policy retrieved, so
the trace cannot be written in advance.  :func:`run` steps the policy through a
:class:`~simulator.live_run.LiveRun` over a :class:`~simulator.trace.TraceBuffer`, so its
bookkeeping is exactly the engine's.  Just before step t retrieves, it computes R_t on
the live cache (:meth:`LiveRun.retrieve <simulator.live_run.LiveRun.retrieve>`, the
engines' own retrieval on the same arrays, so the same R_t), hands it to a *responder*
and writes the keys the responder calls relevant as step t's evidence (docs/model.md §6).  The
step then runs unchanged: scoring, feedback and the decision read that evidence, so
quality_t (``quality=hit``) is the responder's verdict.  Queries and item vectors are
known in advance; only the evidence is written during the run.

With ``engine="simpy"`` the same responder runs inside the SimPy engine's query events
(:mod:`simulator.engine.simpy`), so latency, delayed or lost feedback and sessions apply.

The finished trace is run again with :func:`simulator.runner.run` (same policy,
parameters, options, engine and seed): every per-step array must equal the loop's, or
the run fails.  So the trace is certified to be re-runnable.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from simulator import policies, runner
from simulator.engine import simpy as engine_simpy
from simulator.errors import InputError
from simulator.engine.kernels import normalize_rows
from simulator.live_run import LiveRun
from simulator.run_options import RunOptions
from simulator.engine.run_arrays import OUTPUTS
from simulator.trace import Trace, TraceBuffer


@dataclasses.dataclass
class LoopResult:
    """A certified closed-loop run: the realised ``trace`` and its ``result``
    (:class:`~simulator.runner.RunResult` of the certifying re-run, equal to the loop)."""

    trace: Trace
    result: runner.RunResult


def buffer(queries: np.ndarray, items: np.ndarray, scored: np.ndarray,
           top_k: int) -> TraceBuffer:
    """The buffer of a closed loop: its vectors (normalised as on load) and scored mask,
    weights 1, no topics, and room for ``top_k`` evidence keys a step."""
    T, d = queries.shape
    buf = TraceBuffer.blank(T, d, evidence_per_step=top_k)
    buf.queries[:], buf.items[:] = normalize_rows(queries), normalize_rows(items)
    buf.scored[:] = np.asarray(scored, np.bool_)
    return buf


def check_online(policy: str, params: dict | None = None):
    """The registered policy ``policy``, if it can run in a closed loop with ``params``:
    online (it does not read the future) and defined in semantic mode; else InputError."""
    pol = policies.get(policy)
    _require_online(pol, params)
    return pol


def _require_online(pol, params) -> None:
    if pol.traits_of(params).offline or "semantic" not in pol.modes:
        raise InputError(f"policy '{pol.name}' cannot run in a closed loop (it is offline or "
                         "not defined in semantic mode)")


def run(buf: TraceBuffer, options: RunOptions, respond, *, engine: str = "fast",
        engine_options: dict | None = None, meta: dict | None = None) -> LoopResult:
    """Run ``options.policy`` in a closed loop over ``buf`` (see :func:`buffer`).

    Parameters
    ----------
    buf : TraceBuffer
        From :func:`buffer`; its evidence arrays are filled here.
    options : RunOptions
        Built once by the caller (:meth:`RunOptions.build
        <simulator.run_options.RunOptions.build>`), with an online policy defined in
        semantic mode; quality is ``hit`` (the responder's verdict).
    respond : callable
        ``respond(t, keys, sims) -> relevant keys``: called once per step, just before
        step t retrieves, with R_t's item keys (best first) and cosines.
    engine, engine_options
        As for :func:`simulator.runner.run`.
    meta : dict, optional
        Stored in the trace's ``meta``.
    """
    _require_online(options.policy, options.params)
    if options.quality != "hit":
        raise InputError(f"a closed loop scores with quality hit (the responder's verdict), "
                         f"got {options.quality!r}", "quality")
    checked = runner.check_engine(engine, engine_options)
    live = LiveRun(buf, options=options, before_retrieve=_evidence_writer(respond))
    if engine == "simpy":
        engine_simpy.simulate(live, checked, options.seed)
    else:
        live.step(0, buf.steps)
    trace = buf.finish(dict(meta or {}))
    again = runner.run(trace, options=options, engine=engine,
                       engine_options=engine_options)
    for name in OUTPUTS:
        if not np.array_equal(getattr(again, name), getattr(live, name)):
            raise RuntimeError(f"closed loop of policy '{options.policy.name}': a re-run of "
                               f"the finished trace differs in '{name}'")
    trace.meta.update(policy=options.policy.name, policy_params=live.config["params"],
                      capacity=options.capacity, top_k=options.top_k,
                      switch_cost=options.switch_cost, engine=engine, engine_options=checked)
    return LoopResult(trace, again)


def _evidence_writer(respond):
    """``before_retrieve(live, t)``: R_t on the live cache, the responder's verdict on it,
    written as step t's evidence."""
    done = [0]  # steps prepared so far: evidence rows are written in step order

    def write(live, t):
        if t != done[0]:
            raise RuntimeError(f"closed loop: step {t} retrieves before step {done[0]}")
        keys, sims = live.retrieve(t)
        relevant = np.asarray(respond(t, keys, sims), np.int64)
        if relevant.size > live.config["top_k"]:
            raise RuntimeError(f"closed loop: responder named {relevant.size} > top_k keys")
        ptr, idx = live.trace.evidence_indptr, live.trace.evidence_indices
        ptr[t + 1] = ptr[t] + relevant.size
        idx[ptr[t]:ptr[t + 1]] = relevant
        done[0] = t + 1

    return write
