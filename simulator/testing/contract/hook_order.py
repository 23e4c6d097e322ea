"""The engines call a policy's hooks in the order :data:`~simulator.policies.base.HOOK_ORDER`
states: :func:`check_hook_order`.

A recording policy (FIFO eviction, refusing some arrivals and deleting now and then, so
that every branch of a step is taken) logs each hook call with its step; the check runs
it through the fast and the SimPy engine, in both modes, with and without a budget, and
matches each step's calls against the mode's pattern.
"""

from __future__ import annotations

import re

import numpy as np

from simulator.config import njit
from simulator.policies.base import (HOOK_ORDER, Policy, admission_steps, cached_count,
                                     note_rewrites, slot_keys)
from simulator.testing.contract.traces import (K, clustered_trace, require,
                                               sized_requests, sized_trace, zipf_requests)
from simulator.runner import run

# The hooks by the code the recording policy logs.
HOOKS = ("on_hit", "on_feedback", "admit", "victim", "on_insert", "on_evict",
         "on_rearrival", "delete")
_ROWS = 64  # log rows per step, beyond what any step here calls


@njit
def _log(state, hook, t):
    log, meta = state[0], state[1]
    if meta[0] < log.shape[0]:  # a full log is reported by the check, not written past
        log[meta[0], 0] = hook
        log[meta[0], 1] = t
    meta[0] += 1


@njit
def _oldest(cache):
    keys, adm = slot_keys(cache), admission_steps(cache)
    best = -1
    for s in range(keys.shape[0]):
        if keys[s] >= 0 and (best < 0 or adm[s] < adm[best]):
            best = s
    return best


@njit
def _on_hit(state, slot, t, relevant):
    _log(state, 0, t)


@njit
def _on_feedback(state, t, loss, quality):
    _log(state, 1, t)


@njit
def _admit(state, t, key, x, cache):
    _log(state, 2, t)
    return t % 4 != 1


@njit
def _victim(state, t, key, x, cache):
    _log(state, 3, t)
    return _oldest(cache)


@njit
def _on_insert(state, slot, key, t):
    _log(state, 4, t)


@njit
def _on_evict(state, slot, key, t):
    _log(state, 5, t)


@njit
def _on_rearrival(state, slot, t):
    _log(state, 6, t)


@njit
def _delete(state, t, cache):
    _log(state, 7, t)
    meta = state[1]
    # deletions on every fifth step, as many as meta[3] allows: asked again within the
    # step (paging, or a repeat_delete run), it then declines
    if t % 5 != 0 or cached_count(cache) < 2:
        return -1
    if meta[1] != t:
        meta[1], meta[2] = t, 0
    if meta[2] >= meta[3]:
        return -1
    meta[2] += 1
    note_rewrites(cache, meta[4])
    return _oldest(cache)


def recorder(steps: int, states: list, repeat_delete: bool = False,
             rewrites: int = 0) -> Policy:
    """The recording policy for runs of up to ``steps`` steps; each run's state (the log
    and its length) is appended to ``states``.  ``repeat_delete``: it deletes two items
    on every fifth step, asked again after the first (one without); ``rewrites``: it
    notes that many rewrites with each deletion (``note_rewrites``)."""
    def init(ctx):
        meta = np.array([0, -1, 0, 2 if repeat_delete else 1, rewrites], np.int64)
        states.append((np.zeros((_ROWS * steps, 2), np.int64), meta))
        return states[-1]

    return Policy(name="hook_recorder", summary="FIFO that logs every hook call", init=init,
                  victim=_victim, on_hit=_on_hit, on_feedback=_on_feedback, admit=_admit,
                  on_insert=_on_insert, on_evict=_on_evict, on_rearrival=_on_rearrival,
                  delete=_delete, modes=("semantic", "paging"), repeat_delete=repeat_delete)


def _calls(log, count) -> dict:
    """Each step's hook names, in call order, as one string (each name and a space)."""
    steps: dict = {}
    for hook, t in log[:count].tolist():
        steps[t] = steps.get(t, "") + HOOKS[hook] + " "
    return steps


def _runs():
    """(what, trace, run keywords): both modes, with and without a budget, both engines."""
    cases = [("semantic", clustered_trace(1, pool=12), {"capacity": K}),
             ("semantic with a budget", sized_trace(), {"budget": 3}),
             ("semantic repeating deletions", clustered_trace(1, pool=12), {"capacity": K}),
             ("semantic repeating deletions with a budget", sized_trace(), {"budget": 3}),
             ("paging", zipf_requests(T=600), {"capacity": K}),
             ("paging with a budget", sized_requests(T=600), {"budget": 6})]
    # latency and sessions interleave steps in the SimPy engine: a step's calls are still
    # in order
    engines = [("fast engine", {}), ("SimPy engine", {"engine": "simpy"}),
               ("SimPy engine with latency", {"engine": "simpy", "engine_options": {
                   "latency": 2.5, "sessions": 3}})]
    for what, trace, options in cases:
        for engine, more in engines:
            yield f"{what}, {engine}", trace, dict(options, **more)


def check_hook_order() -> list:
    """Run the recording policy through both engines and hold every step's hook calls to
    :data:`~simulator.policies.base.HOOK_ORDER`; returns the runs checked.

    Raises AssertionError naming the run, the step and its calls when a step breaks the
    order, or when a branch of the order (an eviction, a refusal, a deletion, a
    re-arrival where the trace has them) was never taken, so the check proves nothing.
    """
    checked = []
    for what, trace, options in _runs():
        states: list = []
        repeat = "repeating" in what
        run(trace, recorder(trace.steps, states, repeat), seed=0, **options)
        log, meta = states[-1]
        require(meta[0] <= log.shape[0], f"{what}: more hook calls than the log holds")
        steps = _calls(log, meta[0])
        mode = "paging" if "paging" in what else "semantic"
        pattern = re.compile(HOOK_ORDER["semantic_repeat_delete" if repeat else mode])
        for t, calls in sorted(steps.items()):
            require(pattern.fullmatch(calls), f"{what}: step {t} called {calls.strip()}")
        seen = "|".join(steps.values()) + "|"
        # an eviction, an admission, a deletion and a refusal (admit, then nothing but
        # the question of a deletion); a repeating policy's two deletions in one step
        branches = ["victim on_evict ", "on_insert ", "delete on_evict ",
                    "admit (delete )?[|]"]
        if repeat:
            branches[-1] = "admit delete [|]"
            branches.append("delete on_evict delete on_evict delete [|]")
        for branch in branches:
            require(re.search(branch, seen), f"{what}: no step took '{branch}'")
        checked.append(what)
    return checked
