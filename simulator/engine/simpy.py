"""The SimPy engine: each step (docs/model.md §1) as discrete events, so feedback can be late
or lost and several sessions can share one cache.

The model is not written again here.  Every event advances the run's
:class:`~simulator.live_run.LiveRun` by one step and one phase (retrieve, feedback,
arrive) through the policy's compiled step function, the one the fast engine runs, so
policies see the same hooks in the same order and never see SimPy.  This module only owns
time.

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
feedback comes before its own arrival, as in docs/model.md §1; and an earlier step's decision is
made before a later query at the same time retrieves.  The time model does not depend
on what the policy decides, so every event's time is computed before the run, exactly as
written above (in floating point), and the events are put in their order (time, step,
phase) once (:func:`event_ticks`).  SimPy's clock then counts *ticks*, one per event in
that order: each event is a plain :meth:`simpy.Environment.timeout` due at its tick, so
SimPy runs the events in the time model's order with integer delays, never depending on
creation order or on how a delay adds to its clock, and runs are deterministic.  The run
ends with the last response: feedback due later never reaches the policy (with no
latency, a delay of T steps or more means no feedback at all).
``RunResult.feedback`` counts the
steps whose feedback was delivered, lost or still pending at the end.

Each query is an event its session process waits for; each response is an event whose
callback makes the arrival; delayed feedback is an event whose callback calls
``on_feedback``.  Feedback with no delay is handed over by the response event, just
before the arrival: it is due at the same time, and no event can rank between a step's
feedback and its response, so the order is the same with one event less per step.

With no latency, delay or loss, every event of step t happens at time t in the model's
order (docs/model.md §1), so the results equal the fast engine's exactly, for any number
of sessions; sessions only
interleave when responses take time.  Per-item relevance reaches the policy with the
retrieval (``on_hit``'s ``relevant`` flag), since the cache serves the request at query
time; the delayed or lost message is ``on_feedback``'s miss cost and quality.

Examples
--------
>>> import numpy as np
>>> from simulator.runner import run
>>> from simulator.trace import Trace
>>> rng = np.random.default_rng(0)
>>> topics = rng.integers(0, 30, 300)
>>> centres = rng.normal(size=(30, 16)).astype(np.float32)
>>> noisy = lambda: centres[topics] + 0.3 * rng.normal(size=(300, 16)).astype(np.float32)
>>> tr = Trace.from_arrays(queries=noisy(), items=noisy(), query_topics=topics,
...                        item_topics=topics)
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

import numpy as np
import simpy

from simulator.engine.fast import ARRIVE, FEEDBACK, RETRIEVE
from simulator.errors import InputError

# Engine options and their defaults.
OPTIONS = {"latency": 0.0, "feedback_delay": 0.0, "feedback_loss": 0.0, "sessions": 1}
_LOSS_SALT = 0x10557  # separates the loss draws from every other stream of the run
# Event phases within one step, in processing order at equal times.
_QUERY, _FEEDBACK, _RESPONSE = range(3)


def resolve_options(options: dict | None) -> dict:
    """The engine options with defaults filled in; a bad one raises a one-line InputError.

    Examples
    --------
    >>> resolve_options({"feedback_delay": 5})["feedback_delay"]
    5.0
    >>> resolve_options({"feedback_loss": 2})
    Traceback (most recent call last):
    ...
    simulator.errors.InputError: feedback_loss must be a probability in [0, 1], got 2
    """
    given = dict(options or {})
    unknown = sorted((repr(k) for k in set(given) - set(OPTIONS)), key=str)
    if unknown:
        raise InputError(f"unknown engine option {unknown[0]}; valid engine options: "
                         + ", ".join(OPTIONS), "engine_options")
    out = dict(OPTIONS)
    for name, value in given.items():
        if name == "sessions":
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise InputError(f"{name} must be an integer >= 1, got {value!r}", name)
            out[name] = int(value)
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                or not math.isfinite(value):
            raise InputError(f"{name} must be a finite number, got {value!r}", name)
        if name == "feedback_loss" and not 0.0 <= value <= 1.0:
            raise InputError(f"{name} must be a probability in [0, 1], got {value!r}", name)
        if value < 0:
            raise InputError(f"{name} must be >= 0 (time units = trace steps), got {value!r}",
                             name)
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


def event_ticks(T: int, latency: float, delay: float, sessions: int) -> tuple:
    """The tick of every step's query, response and feedback: the event's place in the
    order of all of them by (time, step, phase) under the time model above.

    >>> q, r, f = event_ticks(3, latency=0.5, delay=1.0, sessions=1)
    >>> q, r, f  # times: queries 0, 1, 2; responses 0.5, 1.5, 2.5; feedback 1.5, 2.5, 3.5
    ([0, 2, 5], [1, 4, 7], [3, 6, 8])
    """
    if latency == 0:
        query = np.arange(T, dtype=np.float64)  # a session is free again at once
    else:
        query = np.empty(T)
        free = [0] * min(sessions, T)  # when each session's previous response is due
        for t in range(T):
            j = t % sessions
            query[t] = t if t > free[j] else free[j]
            free[j] = query[t] + latency
    response = query + latency
    times = np.concatenate((query, response + delay, response))
    phase = np.repeat(np.array([_QUERY, _FEEDBACK, _RESPONSE]), T)
    order = np.lexsort((phase, np.tile(np.arange(T), 3), times))
    ticks = np.empty(3 * T, np.int64)
    ticks[order] = np.arange(3 * T)
    return ticks[:T].tolist(), ticks[2 * T:].tolist(), ticks[T:2 * T].tolist()


def simulate(live, options: dict, seed: int) -> tuple:
    """Drive ``live`` (a :class:`~simulator.live_run.LiveRun` not yet stepped) through the
    time model; returns (feedback counters, engine seconds).

    ``options`` are resolved engine options (:func:`resolve_options`); ``seed`` draws the
    lost feedback.
    """
    live.compile()  # compiles (or loads) outside the timing
    T, n_sessions = live.steps, options["sessions"]
    lost = lost_feedback(T, options["feedback_loss"], seed)
    # What each response does: schedule the step's feedback (delayed), then run the
    # arrival, with the feedback first when it is due now (see the module docstring).
    delayed = options["feedback_delay"] > 0
    late = (~lost & delayed).tolist()
    phases = np.where(lost | delayed, ARRIVE, FEEDBACK | ARRIVE).tolist()
    t0 = time.perf_counter()
    at_query, at_response, at_feedback = event_ticks(
        T, options["latency"], options["feedback_delay"], n_sessions)
    env = simpy.Environment()
    end = env.event()
    step = live.step
    delivered_late = responded = 0

    def deliver(event):  # delayed feedback reaches the policy
        nonlocal delivered_late
        t = event.value
        step(t, t + 1, FEEDBACK)
        delivered_late += 1

    def respond(event):  # the agent has answered: e_t arrives and the policy decides
        nonlocal responded
        t = event.value
        if late[t]:
            env.timeout(at_feedback[t] - env.now, t).callbacks.append(deliver)
        step(t, t + 1, phases[t])
        responded += 1
        if responded == T:
            end.succeed()

    def session(first):  # one SimPy process: its steps in trace order, one at a time
        for t in range(first, T, n_sessions):
            yield env.timeout(at_query[t] - env.now)
            step(t, t + 1, RETRIEVE)
            env.timeout(at_response[t] - env.now, t).callbacks.append(respond)

    for first in range(min(n_sessions, T)):
        env.process(session(first))
    env.run(until=end)
    elapsed = time.perf_counter() - t0
    n_lost = int(lost.sum())
    delivered = delivered_late if delayed else T - n_lost
    return {"delivered": delivered, "lost": n_lost, "pending": T - n_lost - delivered}, elapsed
