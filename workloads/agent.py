"""The experience-following agent of the memory-management study (Xiong et al.).

A controllable stand-in for the paper's RegAgent, without an LLM.  Task t has input
x_t ~ N(0, I_d) and ground truth y_t = wᵀx_t, w uniform on the sphere of radius ``w_norm``
(2; 0: w ~ N(0, I_d)).  The agent retrieves R_t, the ``top_k`` (6) records of highest
cosine to x_t, and answers by following them:

* each retrieved record (x_i, ŷ_i) predicts p_i = ŷ_i · x_iᵀx_t / ‖x_i‖², the answer of
  the minimum-norm linear fit through that one record (exact when x_t ∥ x_i and ŷ_i = y_i);
* the memory answer is m_t = Σ a_i p_i / Σ a_i with a_i = max(cos_i, 0)^``sharpness``
  (16: the closest demonstrations dominate);
* the agent's own estimate is y_t + ``own_noise``·ξ_t (0.6), and with probability
  ``blunder`` (0.3) it also slips by ±U(2, 4) — an LLM's occasional gross error; alone it
  succeeds about 63% of the time;
* it answers ŷ_t = ρ_t m_t + (1 − ρ_t)·own_t with ρ_t = ``follow``·cos_1 (0.9 times the
  best cosine): the more similar the best demonstration, the more the agent copies it.
  With no positively similar record it answers alone.

Success iff |ŷ_t − y_t| ≤ ``tolerance`` (1).  The evaluator accepts iff |ŷ_t − y_t| ≤
``eval_tolerance`` (1; 1.2 or 1.4 is the paper's coarse evaluator), then rejects an
accepted execution with probability ``eval_fn`` and accepts a rejected one with
probability ``eval_fp`` (both 0).  Its verdict is the feedback: every record of R_t is
relevant to step t iff the execution is accepted (the trace's evidence), so at
``quality=hit`` quality_t is the verdict, ℓ_t = 1 − verdict, and a record's mean utility is
the acceptance rate of the executions that followed it.  (An empty memory retrieves nothing,
so quality_t = 0 then, whatever the verdict: the memory strategies never empty it.)  The
agent stores its own execution: item e_t is the record (x_t, ŷ_t) — the vector x_t
(retrieval is on inputs) with ŷ_t kept in ``meta["outputs"]``.

The first ``init_size`` (50, ≥ 1) steps are an unscored warm-up that streams the initial
memory: records with ŷ = y, except a random ``init_error`` fraction (0) whose outputs are
off by ±U(2, 4).  Strategies with a ``warmup`` parameter get ``warmup = init_size`` unless
``policy_params`` sets it.  A shift at task ``shift`` (−1: none) draws a new ground truth
w' (``shift_kind="w"``; old records then mislead) or moves the inputs to N(2u, I) for a
random unit u (``"input"``).  Every random number is drawn from the seed before the run,
so tasks, noise, slips and evaluator draws are the same whatever the policy does.

Closed loop: the trace depends on the policy.  :func:`simulate` runs one policy
(``fast`` or ``simpy`` engine) and returns the certified trace (:mod:`simulator.closed_loop`)
with the outcomes in ``meta``; ``WORKLOAD.generate(params, seed)`` is the trace realised
under ``params["policy"]`` (default ``strict``) with ``capacity`` (0: unlimited) and
``top_k`` (6).  ``semcache run --workload agent --policy P --top-k 6 --capacity C`` with the
same P, C and seed reproduces that run exactly; any other policy or option replays the same
trace open-loop (its own choices do not change what the agent answered).

Examples
--------
>>> run = simulate("strict", {"tasks": 200, "init_size": 20}, seed=1)
>>> run.trace.steps, int(run.trace.scored.sum()), run.trace.meta["policy_params"]["warmup"]
(220, 200, 20)
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from simulator import closed_loop
from simulator.engine import memory_estimate as mem
from simulator.config import njit
from simulator.errors import InputError
from simulator.run_options import RunOptions
from workloads.data import topic_space as ts
from workloads.base import Workload, policy_params

PARAMS = {"tasks": 2000, "dim": 6, "init_size": 50, "init_error": 0.0, "tolerance": 1.0,
          "eval_tolerance": 1.0, "eval_fp": 0.0, "eval_fn": 0.0, "follow": 0.9,
          "sharpness": 16.0, "own_noise": 0.6, "blunder": 0.3, "w_norm": 2.0, "shift": -1,
          "shift_kind": "w", "policy": "strict", "policy_params": "", "capacity": 0,
          "top_k": 6}
SHIFT_KINDS = ("w", "input")
ERROR_RANGE = (2.0, 4.0)  # |offset| of an erroneous initial record's output
INPUT_SHIFT = 2.0  # distance of the shifted input mean from 0


@dataclasses.dataclass
class AgentRun:
    """One closed-loop run: the certified ``trace`` and the engine's ``result``.

    ``trace.meta`` holds, per step (warm-up included): ``truth`` y, ``outputs`` ŷ,
    ``error`` |ŷ − y|, ``success``, ``accepted`` (the evaluator's verdict), ``retrieved``
    [T, k] keys of R_t (−1 padded) and ``cosines``; ``erroneous`` marks bad initial records.
    """

    trace: object
    result: object

    @property
    def scored(self) -> np.ndarray:
        return self.trace.scored

    @property
    def success(self) -> np.ndarray:
        """Success of each scored task, in task order."""
        return self.trace.meta["success"][self.trace.scored]


def _check(p: dict) -> str | None:
    for name, low in (("tasks", 1), ("dim", 2), ("init_size", 1), ("top_k", 1)):
        if p[name] < low:
            return f"parameter '{name}' must be >= {low}, got {p[name]}"
    for name in ("init_error", "eval_fp", "eval_fn", "follow", "blunder"):
        if not 0.0 <= p[name] <= 1.0:
            return f"parameter '{name}' must be in [0, 1], got {p[name]}"
    for name in ("tolerance", "eval_tolerance", "own_noise", "sharpness", "w_norm"):
        if not p[name] >= 0 or math.isinf(p[name]):
            return f"parameter '{name}' must be a finite number >= 0, got {p[name]}"
    if p["capacity"] < 0:
        return f"parameter 'capacity' must be >= 0 (0: unlimited), got {p['capacity']}"
    if not -1 <= p["shift"] < p["tasks"]:
        return f"parameter 'shift' must be -1 (none) or a task index < tasks, got {p['shift']}"
    if p["shift_kind"] not in SHIFT_KINDS:
        return f"parameter 'shift_kind' must be one of w, input, got {p['shift_kind']!r}"
    try:
        closed_loop.check_online(p["policy"], _policy_params(p))
    except InputError as exc:
        return str(exc)
    return None


def _policy_params(p: dict) -> dict:
    """``p["policy_params"]`` ("key=value,...") resolved for ``p["policy"]``, with ``warmup``
    defaulting to ``init_size`` for strategies that have it."""
    return policy_params(p, "policy_params", p["policy"], {"warmup": p["init_size"]})


def _draws(p: dict, seed: int) -> dict:
    """Every random number of a run, in a fixed order that no parameter choice reorders."""
    rng = np.random.default_rng(seed)
    n0, T, d = p["init_size"], p["tasks"], p["dim"]
    w, w_new = rng.standard_normal(d), rng.standard_normal(d)
    if p["w_norm"] > 0:
        w, w_new = (p["w_norm"] * v / np.sqrt(ts.row_dots(v, v)) for v in (w, w_new))
    direction = rng.standard_normal(d)
    x = rng.standard_normal((n0 + T, d))
    noise, judge = rng.standard_normal(n0 + T), rng.random(n0 + T)
    order = rng.permutation(n0)
    offset = rng.uniform(*ERROR_RANGE, n0) * rng.choice([-1.0, 1.0], n0)
    slip = rng.uniform(*ERROR_RANGE, n0 + T) * rng.choice([-1.0, 1.0], n0 + T)
    slip *= rng.random(n0 + T) < p["blunder"]  # drawn whatever the rate: same stream
    if p["shift"] >= 0 and p["shift_kind"] == "input":
        x[n0 + p["shift"]:] += INPUT_SHIFT * direction / np.sqrt(ts.row_dots(direction,
                                                                               direction))
    y = ts.row_dots(x, w)  # no BLAS: see workloads.data.topic_space.row_dots
    if p["shift"] >= 0 and p["shift_kind"] == "w":
        y[n0 + p["shift"]:] = ts.row_dots(x[n0 + p["shift"]:], w_new)
    bad = np.zeros(n0, np.bool_)
    bad[order[:int(round(p["init_error"] * n0))]] = True
    return {"x": x, "y": y, "noise": noise, "judge": judge, "bad": bad, "slip": slip,
            "init": y[:n0] + np.where(bad, offset, 0.0)}


@njit
def _dot(a, b):
    # in index order: numba's np.dot calls BLAS, whose order depends on the CPU
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * b[i]
    return total


@njit
def answer(x, own, keys, cosines, xs, outputs, follow, sharpness):
    """ŷ_t from R_t (see the module docstring): ``own`` is the agent's own estimate."""
    num = den = best = 0.0
    for j in range(keys.shape[0]):
        c = cosines[j]
        if c <= 0.0:
            continue
        xi = xs[keys[j]]
        a = c ** sharpness
        num += a * outputs[keys[j]] * _dot(xi, x) / _dot(xi, xi)
        den += a
        best = max(best, c)
    if den == 0.0:  # also when every positive cosine underflows to weight 0
        return own
    rho = follow * best
    return rho * num / den + (1.0 - rho) * own


class _Agent:
    """The responder of :func:`simulator.closed_loop.run`: answers, grades, remembers."""

    def __init__(self, p: dict, draws: dict, top_k: int):
        n0, T = p["init_size"], p["init_size"] + p["tasks"]
        self.p, self.x, self.y = p, draws["x"], draws["y"]
        self.own = self.y + p["own_noise"] * draws["noise"] + draws["slip"]
        self.judge = draws["judge"]
        self.outputs = np.zeros(T)
        self.outputs[:n0] = draws["init"]
        self.accepted = np.zeros(T, np.bool_)
        self.retrieved = np.full((T, top_k), -1, np.int64)
        self.cosines = np.zeros((T, top_k))

    def __call__(self, t, keys, cosines):
        n = keys.shape[0]
        self.retrieved[t, :n], self.cosines[t, :n] = keys, cosines
        if t < self.p["init_size"]:  # warm-up: an initial record streams in, no verdict
            return ()
        p = self.p
        yhat = answer(self.x[t], self.own[t], keys, cosines, self.x, self.outputs,
                      p["follow"], p["sharpness"])
        self.outputs[t] = yhat
        ok = abs(yhat - self.y[t]) <= p["eval_tolerance"]
        ok = self.judge[t] >= p["eval_fn"] if ok else self.judge[t] < p["eval_fp"]
        self.accepted[t] = ok
        return keys if ok else ()


def simulate(policy: str, params: dict | None = None, seed: int = 0, capacity: int | None = None,
             top_k: int | None = None, policy_params: dict | None = None,
             engine: str = "fast", engine_options: dict | None = None) -> AgentRun:
    """Run the agent in a closed loop with ``policy`` managing its memory.

    Parameters
    ----------
    policy : str
        A registered online semantic policy (a strategy of the study, or any other).
    params : dict, optional
        Workload parameters (:data:`PARAMS`); ``policy``, ``capacity`` and ``top_k`` given
        here override theirs.
    seed : int
        Seeds the tasks, noise and evaluator, and the policy's random stream.
    capacity : int, optional
        K; 0 or None means unlimited (every record fits).
    policy_params : dict, optional
        Policy parameters (``warmup`` defaults to ``init_size`` where it exists).
    engine, engine_options
        As for :func:`simulator.runner.run`.
    """
    given = dict(params or {}, policy=policy)
    if capacity is not None:
        given["capacity"] = capacity
    if top_k is not None:
        given["top_k"] = top_k
    if policy_params:
        given["policy_params"] = ",".join(f"{k}={v}" for k, v in policy_params.items())
    p = WORKLOAD.resolve_params(given)
    return _simulate(p, int(seed), engine, engine_options)


def _simulate(p: dict, seed: int, engine: str = "fast", engine_options=None) -> AgentRun:
    n0, k = p["init_size"], p["top_k"]
    T = n0 + p["tasks"]
    draws = _draws(p, seed)
    scored = np.arange(T) >= n0
    buf = closed_loop.buffer(draws["x"].astype(np.float32), draws["x"].astype(np.float32),
                             scored, k)
    agent = _Agent(p, draws, k)
    capacity = p["capacity"] or T
    options = RunOptions.build(policy=p["policy"], capacity=capacity, top_k=k, seed=seed,
                               params=_policy_params(p))
    loop = closed_loop.run(buf, options, agent, engine=engine, engine_options=engine_options,
                           meta={"workload": "agent", "params": dict(p), "seed": seed})
    error = np.abs(agent.outputs - agent.y)
    loop.trace.meta.update(truth=agent.y, outputs=agent.outputs, error=error,
                           success=scored & (error <= p["tolerance"]),
                           accepted=agent.accepted, retrieved=agent.retrieved,
                           cosines=agent.cosines, erroneous=draws["bad"],
                           policy_hints={"warmup": n0})  # read by `semcache run`
    return AgentRun(loop.trace, loop.result)


def _make(p: dict, seed: int):
    return _simulate(p, seed).trace


def _footprint(p: dict) -> int:
    """Rough bytes to generate the trace (:mod:`simulator.engine.memory_estimate`)."""
    # a closed loop: one record a task (plus the initial memory) and its run
    return mem.semantic_trace(p["tasks"], p["tasks"] + p["init_size"], p["dim"])


WORKLOAD = Workload(
    name="agent",
    summary="experience-following agent; closed loop under params['policy']",
    make=_make, params=PARAMS, check_params=_check,
    footprint=_footprint)
