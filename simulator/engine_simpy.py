"""The SimPy engine: each step of SPEC §1 as discrete events, so feedback can be late or lost
and several sessions can share one cache.

The model is not written again here.  Every event calls the policy's compiled step
function of the fast engine (:func:`simulator.engine_fast.steps_for`) for one step and
one phase (retrieve, feedback, arrive) on the same cache arrays, so policies see the same
hooks in the same order and never see SimPy.  This module only owns time.

Time model
----------
One trace step is one unit of simulated time.  Step t belongs to session t mod S
(S = ``sessions``); each session is one SimPy process that serves its steps in trace
order, one at a time.  For step t of a session whose previous response came at r' (0
before its first step):

* **query** at q_t = max(t, r'): R_t is retrieved, the policy's ``on_hit`` hooks run and
  the step is scored;
* **response** at r_t = q_t + ``latency``: the agent has answered; item e_t arrives and the
  policy decides (admit, evict, delete);
* **feedback** at r_t + ``feedback_delay``: ℓ_t and quality_t reach the policy
  (``on_feedback``), unless the step's feedback is lost (probability ``feedback_loss``,
  one seeded draw per step, :func:`lost_feedback`).

Events at the same time run in order of (step, phase), with query < feedback < response.
Paging traces follow the same model: request t's query is the hit test (``on_hit`` on a
hit), its feedback is loss 1 on a miss and 0 on a hit, and on a miss the object arrives at
the response (if an earlier miss already brought it in, that is a re-arrival).

So the feedback of step s reaches the policy before the query of a later step t whenever
it is due by q_t (with no latency: whenever s + delay ≤ t); with no delay a step's
feedback comes before its own arrival, as in SPEC §1; and an earlier step's decision is
made before a later query at the same time retrieves.  The order is set through SimPy's
event priorities and every event is scheduled at the absolute time written above, so it
never depends on creation order or rounding, and runs are deterministic.  The run ends
with the last response: feedback due later never reaches the policy (with no latency, a
delay of T steps or more means no feedback at all).  ``RunResult.feedback`` counts the
steps whose feedback was delivered, lost or still pending at the end.

Each query is an event its session process waits for; each response is an event whose
callback makes the arrival; delayed feedback is an event whose callback calls
``on_feedback``.  Feedback with no delay is handed over by the response event, just
before the arrival: it is due at the same time, and no event can rank between a step's
feedback and its response, so the order is the same with one event less per step.

With no latency, delay or loss, every event of step t happens at time t in SPEC order, so
the results equal the fast engine's exactly, for any number of sessions; sessions only
interleave when responses take time.  Per-item relevance reaches the policy with the
retrieval (``on_hit``'s ``relevant`` flag), since the cache serves the request at query
time; the delayed or lost message is ``on_feedback``'s miss cost and quality.

Examples
--------
>>> import workloads
>>> from simulator.runner import run
>>> tr = workloads.get("clusters").generate({"steps": 300, "topics": 30, "dim": 16}, seed=0)
>>> fast = run(tr, "solar", capacity=10, top_k=3)
>>> same = run(tr, "solar", capacity=10, top_k=3, engine="simpy")
>>> bool((fast.admitted == same.admitted).all())
True
>>> late = run(tr, "solar", capacity=10, top_k=3, engine="simpy",
...            engine_options={"feedback_delay": 20})
>>> bool((fast.admitted == late.admitted).all())
False
"""

from __future__ import annotations

import math
import time
from heapq import heappush

import numpy as np
import simpy

from simulator.engine_fast import (ARRIVE, FEEDBACK, RETRIEVE, bundle, empty_cache,
                                   empty_paging_cache, paging_bundle)
from simulator.errors import InputError

# Engine options: default values, and the command-line flag that sets each one.
OPTIONS = {"latency": 0.0, "feedback_delay": 0.0, "feedback_loss": 0.0, "sessions": 1}
FLAGS = {"latency": "--latency", "feedback_delay": "--feedback-delay",
         "feedback_loss": "--feedback-loss", "sessions": "--sessions"}
_LOSS_SALT = 0x10557  # separates the loss draws from every other stream of the run
# Event phases within one step, in processing order at equal times; ranks start above
# SimPy's own priorities (URGENT = 0, NORMAL = 1).
_QUERY, _FEEDBACK, _RESPONSE = range(3)
_BASE_RANK = 2


def resolve_options(options: dict | None) -> dict:
    """The engine options with defaults filled in; a bad one raises a one-line InputError.

    Examples
    --------
    >>> resolve_options({"feedback_delay": 5})["feedback_delay"]
    5.0
    >>> resolve_options({"feedback_loss": 2})
    Traceback (most recent call last):
    ...
    simulator.errors.InputError: --feedback-loss (engine option 'feedback_loss') must be a \
probability in [0, 1], got 2
    """
    given = dict(options or {})
    unknown = sorted(set(given) - set(OPTIONS))
    if unknown:
        raise InputError(f"unknown engine option '{unknown[0]}'; valid engine options: "
                         + ", ".join(OPTIONS))
    out = dict(OPTIONS)
    for name, value in given.items():
        what = f"{FLAGS[name]} (engine option '{name}')"
        if name == "sessions":
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise InputError(f"{what} must be an integer >= 1, got {value!r}")
            out[name] = int(value)
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                or not math.isfinite(value):
            raise InputError(f"{what} must be a finite number, got {value!r}")
        if name == "feedback_loss" and not 0.0 <= value <= 1.0:
            raise InputError(f"{what} must be a probability in [0, 1], got {value!r}")
        if value < 0:
            raise InputError(f"{what} must be >= 0 (time units = trace steps), got {value!r}")
        out[name] = float(value)
    return out


def is_default(options: dict) -> bool:
    """Do resolved ``options`` describe immediate feedback in one session (fast-engine equal)?"""
    return options == OPTIONS


def lost_feedback(steps: int, loss: float, seed: int) -> np.ndarray:
    """Which steps' feedback is lost: step t's is when draw t of the seeded stream < ``loss``.

    One uniform draw per step, in step order, from a stream of the run's seed, so whether
    a step's feedback is lost does not depend on the delay, the latency or the sessions
    (only on ``loss``: a higher loss loses a superset of steps).
    """
    draws = np.random.default_rng([int(seed), _LOSS_SALT]).random(steps)
    return draws < loss


class _Clock(simpy.Environment):
    """A SimPy environment that can also schedule an event at an absolute time.

    ``schedule`` takes a delay and adds it to the current time; scheduling at the time
    the time model computes (``q + latency``, ``r + delay`` …) avoids the rounding of
    ``now + (when - now)``, so equal times stay equal for any float options.  It pushes
    onto the environment's event heap exactly as ``schedule`` does.
    """

    def schedule_at(self, event, priority, when):
        heappush(self._queue, (when, priority, next(self._eid), event))


class _At(simpy.events.Event):
    """Phase ``phase`` of step ``step`` at time ``when``: a :class:`simpy.events.Timeout`
    with an explicit priority, so equal-time events run in (step, phase) order."""

    def __init__(self, env, when, step, phase, callback=None):
        self.env = env
        self.callbacks = [] if callback is None else [callback]
        self.step = step
        self._value = None
        self._ok = True
        env.schedule_at(self, _BASE_RANK + 3 * step + phase, when)


def new_run(trace, n_slots, capacity, k, qcode, state):
    """A fresh cache and output arrays for one run: ``(RunArrays, outputs)``.

    The outputs are the eight per-step arrays of :class:`~simulator.runner.RunResult`, in
    its order (loss, hit, precision, quality, admitted, evicted, deleted, size).
    """
    T = trace.steps
    out = (np.zeros(T), np.zeros(T, np.int8), np.zeros(T), np.zeros(T),
           np.zeros(T, np.int64), np.zeros(T, np.int64), np.zeros(T, np.int64),
           np.zeros(T, np.int64))
    run = bundle(trace.queries, trace.items, trace.query_topics, trace.item_topics,
                 trace.weights, trace.item_keys, trace.evidence_indptr, trace.evidence_indices,
                 trace.has_evidence, k, qcode,
                 *empty_cache(n_slots, trace.n_keys, trace.dim, capacity, k), state, *out)
    return run, out


def simulate(steps_fn, trace, n_slots, capacity, k, qcode, state, options, seed):
    """Run the trace through SimPy; returns (outputs, feedback counters, engine seconds).

    ``steps_fn`` is the policy's compiled step function
    (:func:`~simulator.engine_fast.steps_for`), ``state`` its fresh state and ``options``
    resolved engine options; ``seed`` draws the lost feedback.
    """
    run, out = new_run(trace, n_slots, capacity, k, qcode, state)
    return (out, *_drive(steps_fn, run, trace.steps, options, seed))


def simulate_paging(steps_fn, trace, capacity, state, options, seed):
    """A paging trace through SimPy: a request is a query (hit or miss), a miss's object
    arrives at the response; returns (hit array, tallies, feedback counters, seconds).

    ``tallies`` is ``(hits, admissions, evictions)``; ``steps_fn`` is
    ``steps_for(policy, "paging")``.
    """
    cache = empty_paging_cache(max(trace.n_keys, 1), capacity)
    hit = np.zeros(trace.steps, np.int8)
    run = paging_bundle(trace.requests, *cache, state, hit)
    feedback, elapsed = _drive(steps_fn, run, trace.steps, options, seed)
    counts = cache[-1]
    return hit, tuple(int(c) for c in counts[3:6]), feedback, elapsed


def _drive(steps_fn, run, T, options, seed):
    """The events of the time model for ``T`` steps of ``run``; (feedback, seconds)."""
    steps_fn(run, 0, 0, 0)  # an empty range: compiles (or loads) outside the timing
    latency, delay, n_sessions = (options["latency"], options["feedback_delay"],
                                  options["sessions"])
    lost = lost_feedback(T, options["feedback_loss"], seed)
    # What each response does: schedule the step's feedback (delayed), then run the
    # arrival, with the feedback first when it is due now (see the module docstring).
    late = (~lost & (delay > 0)).tolist()
    phases = np.where(lost | (delay > 0), ARRIVE, FEEDBACK | ARRIVE).tolist()
    env = _Clock()
    end = env.event()
    delivered_late = responded = 0

    def deliver(event):  # delayed feedback reaches the policy
        nonlocal delivered_late
        t = event.step
        steps_fn(run, t, t + 1, FEEDBACK)
        delivered_late += 1

    def respond(event):  # the agent has answered: e_t arrives and the policy decides
        nonlocal responded
        t = event.step
        if late[t]:
            _At(env, env.now + delay, t, _FEEDBACK, deliver)
        steps_fn(run, t, t + 1, phases[t])
        responded += 1
        if responded == T:
            end.succeed()

    def session(first):  # one SimPy process: its steps in trace order, one at a time
        free = 0  # when its previous response is due
        for t in range(first, T, n_sessions):
            query = t if t > free else free
            yield _At(env, query, t, _QUERY)
            steps_fn(run, t, t + 1, RETRIEVE)
            free = query + latency
            _At(env, free, t, _RESPONSE, respond)

    t0 = time.perf_counter()
    for first in range(min(n_sessions, T)):
        env.process(session(first))
    env.run(until=end)
    elapsed = time.perf_counter() - t0
    n_lost = int(lost.sum())
    delivered = delivered_late if delay > 0 else T - n_lost
    return {"delivered": delivered, "lost": n_lost, "pending": T - n_lost - delivered}, elapsed
