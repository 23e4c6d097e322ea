"""The SimPy engine: equal to the fast engine at zero delay, and its time model exactly.

* every registered semantic policy × every semantic workload of its own trace shape × two
  seeds (with different run options) gives identical per-step arrays and run records on
  both engines;
* a policy that logs its hook calls shows the events in the documented order, checked
  against a plain-Python statement of the time model over a grid of latency, delay,
  loss and sessions;
* delay and loss change regret-gated admission and nothing else; validation; the
  compiled step reloads from numba's disk cache in a second process.
"""

import hashlib
import itertools
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import workloads
from simulator import policies
from simulator.engine import simpy as engine_simpy
from simulator.cli import main
from simulator.config import njit
from simulator.errors import InputError
from simulator.live_run import LiveRun
from simulator.policies.base import Policy
from simulator.runner import run
from simulator.trace import PagingTrace, Trace

ARRAYS = ("loss", "hit", "precision", "quality", "admitted", "evicted", "deleted", "size")
SEMANTIC = [n for n, p in policies.REGISTRY.items() if "semantic" in p.modes]
# Small versions of the workloads (unknown workloads: their defaults, shortened).
SMALL = {"clusters": {"steps": 150, "topics": 12, "dim": 16},
         "cycling": {"steps": 120, "topics": 12, "dim": 16},
         "working_set": {"steps": 150, "topics": 8, "items_per_topic": 4, "dim": 16},
         "noise_pool": {"topics": 6, "items_per_topic": 10, "queries": 80, "dim": 16},
         "drift": {"topics": 10, "active": 3, "phases": 3, "phase_length": 40,
                   "items_per_topic": 4, "dim": 16},
         "stationary": {"items": 20, "steps": 150, "dim": 16},
         # 170 steps of the closed loop (20 unscored warm-up steps, every topic -1): LRU
         # and SOLAR evict 120 to 165 times under both CASES; its 2050 added only length
         "agent": {"tasks": 150, "init_size": 20},
         "locomo": {"max_turns": 30}}
# Two seeds, each with its own run options.
CASES = {0: dict(capacity=5, top_k=3, switch_cost=0.0, quality="hit"),
         1: dict(capacity=8, top_k=2, switch_cost=0.5, quality="precision")}


def _small(name):
    w = workloads.get(name)
    given = SMALL.get(name, {key: 150 for key in ("steps", "queries") if key in w.params})
    return {k: v for k, v in given.items() if k in w.params}


_TRACES = {}


def _trace(name, seed):
    """The small trace of workload ``name``, generated on first use (never at collection:
    LoCoMo's embeddings and the agent's closed loop are not free)."""
    if (name, seed) not in _TRACES:
        _TRACES[name, seed] = workloads.get(name).generate(_small(name), seed)
    return _TRACES[name, seed]


# The workloads the engines are compared on, each for a trace shape the others lack; a
# semantic workload left out names the one whose shape its traces share.
SEMANTIC_WORKLOADS = {
    "clusters": "every item a new key",
    "cycling": "re-streamed keys (a re-arrival is a hit on the cached copy)",
    "noise_pool": "unscored queries (the scored mask)",
    "stationary": "topic -1 (items and queries outside every topic)",
    "adversarial": "a trace built against a policy as it runs",
    "agent": "a trace from a closed loop, unscored queries and topic -1 together",
    "locomo": "real text: weights other than 1, 384 dimensions",
}
SAME_SHAPE = {"working_set": "cycling", "drift": "cycling"}


def assert_same_run(a, b, what, options_recorded=False):
    """Equal per-step arrays and run records (but ``elapsed_s``, ``engine`` and, when
    ``options_recorded``, the SimPy run's ``engine_options`` and ``feedback``)."""
    for name in ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        if not np.array_equal(x, y):
            t = int(np.flatnonzero(x != y)[0])
            pytest.fail(f"{what}: '{name}' differs first at step {t}: {x[t]!r} != {y[t]!r}")
    sa, sb = a.summary(), b.summary()
    for s in (sa, sb):
        s.pop("elapsed_s")
        s.pop("engine")
    if options_recorded:
        assert "engine_options" in sb and "feedback" in sb
        sb.pop("engine_options")
        sb.pop("feedback")
    assert sa == sb, what


def test_every_semantic_workload_is_covered():
    semantic = {n for n in workloads.available() if isinstance(_trace(n, 0), Trace)}
    assert {"clusters", "locomo"} <= semantic and "zipf_paging" not in semantic
    assert semantic == set(SEMANTIC_WORKLOADS) | set(SAME_SHAPE)
    assert set(SAME_SHAPE.values()) <= set(SEMANTIC_WORKLOADS)


@pytest.mark.parametrize("policy", SEMANTIC)
def test_simpy_equals_fast(policy, subtests):
    """One test per policy (its two loops compile once); a subtest per workload and seed."""
    for workload in SEMANTIC_WORKLOADS:
        for seed, options in CASES.items():
            with subtests.test(workload=workload, seed=seed):
                trace = _trace(workload, seed)
                fast = run(trace, policy, seed=seed, **options)
                simpy = run(trace, policy, seed=seed, engine="simpy", **options)
                assert_same_run(fast, simpy, f"{policy} on {workload}, seed {seed}")
                assert simpy.feedback == {"delivered": trace.steps, "lost": 0, "pending": 0}


@pytest.mark.parametrize("options", [{"sessions": 3}, {"sessions": 1000}, {"latency": 2.5}],
                         ids=["3-sessions", "more-sessions-than-steps", "latency"])
def test_still_equal_when_nothing_can_reorder(options):
    """Sessions without latency, or latency in one session, keep every event in the model's
    order (docs/model.md §1)."""
    trace = _trace("clusters", 0)
    for policy in ("lru", "solar"):
        assert_same_run(run(trace, policy, capacity=5),
                        run(trace, policy, capacity=5, engine="simpy", engine_options=options),
                        f"{policy} {options}", options_recorded=True)


def test_cli_json_equals_fast(capsys):
    argv = ["run", "--workload", "clusters", "--param", "steps=200", "--param", "dim=16",
            "--param", "topics=15", "--capacity", "6", "--switch-cost", "0.5", "--json"]
    docs = []
    for engine in ("fast", "simpy"):
        assert main(argv + ["--engine", engine]) == 0
        captured = capsys.readouterr()
        assert captured.err == ""
        doc = json.loads(captured.out)
        for record in doc["runs"]:
            assert record.pop("engine") == engine
            record.pop("elapsed_s")
        docs.append(doc)
    assert docs[0] == docs[1]


# --------------------------------------------------------------------------- time model
# The hooks below call nothing outside this file, so numba's cache (checked against this
# file) may keep them: a run checks a user's hooks by compiling each alone, every session.

@njit(cache=True)
def _log(state, t, phase):
    log, n = state
    log[n[0], 0] = t
    log[n[0], 1] = phase
    n[0] += 1


@njit(cache=True)
def _log_hit(state, slot, t, relevant):
    _log(state, t, 0)


@njit(cache=True)
def _log_feedback(state, t, loss, quality):
    _log(state, t, 1)


@njit(cache=True)
def _log_arrival(state, t, key, x, cache):
    _log(state, t, 2)
    return True


@njit(cache=True)
def _first_slot(state, t, key, x, cache):
    return 0


# The compiled step of this policy is disk-cached under its name: hash this file into it,
# so an edited hook is never reloaded from an old cache entry.
_SOURCE = hashlib.sha1(pathlib.Path(__file__).read_bytes()).hexdigest()[:10]
LOGGER = Policy(name=f"test_event_log_{_SOURCE}", summary="logs (step, phase) of every hook",
                init=lambda ctx: (np.zeros((4 * ctx.n_keys, 2), np.int64),
                                  np.zeros(1, np.int64)),
                victim=_first_slot, on_hit=_log_hit, on_feedback=_log_feedback,
                admit=_log_arrival, modes=("semantic", "paging"))


def logged_events(trace, options, seed):
    """(step, phase) of every hook call of a SimPy run, repeated on_hit calls merged."""
    live = LiveRun(trace, LOGGER, capacity=trace.n_keys, top_k=2, seed=seed)
    engine_simpy.simulate(live, engine_simpy.resolve_options(options), seed)
    log, n = live.state
    events = [tuple(e) for e in log[:n[0]].tolist()]
    return [e for i, e in enumerate(events) if i == 0 or e != events[i - 1]]


def expected_events(T, latency, delay, lost, sessions):
    """The documented time model, stated directly: every event with its time, sorted by
    (time, step, phase) with query < feedback < response; feedback after the last
    response is dropped; a query before any arrival retrieves nothing (no on_hit)."""
    events = []
    for first in range(sessions):
        free = 0
        for t in range(first, T, sessions):
            query = t if t > free else free
            response = query + latency
            free = response
            events += [(query, t, 0), (response, t, 2)]
            if not lost[t]:
                events.append((response + delay, t, 1))
    events.sort()
    last = max(e for e in events if e[2] == 2)
    out, arrived = [], False
    for time, t, phase in events:
        if (time, t, phase) > last:
            break
        if phase == 0 and not arrived:
            continue
        arrived |= phase == 2
        out.append((t, phase))
    return out


@pytest.fixture(scope="module")
def tiny_trace():
    rng = np.random.default_rng(5)
    return Trace.from_arrays(queries=rng.normal(size=(40, 4)).astype(np.float32),
                             items=rng.normal(size=(40, 4)).astype(np.float32))


def test_events_follow_the_time_model(tiny_trace, subtests):
    """Every combination of latency, delay, sessions and loss (one subtest each)."""
    for latency, delay, sessions, loss in itertools.product(
            (0, 1, 2.5, 7), (0, 1, 3, 0.5, 39, 60), (1, 3), (0.0, 0.4)):
        with subtests.test(latency=latency, delay=delay, sessions=sessions, loss=loss):
            options = {"latency": latency, "feedback_delay": delay, "sessions": sessions,
                       "feedback_loss": loss}
            lost = engine_simpy.lost_feedback(tiny_trace.steps, loss, seed=2)
            assert logged_events(tiny_trace, options, 2) == expected_events(
                tiny_trace.steps, latency, delay, lost, sessions)


def test_delayed_feedback_lands_before_the_query_it_is_due_for(tiny_trace):
    """With delay 3, step 0's feedback (due at time 3) comes before step 3's query and
    after step 2's arrival."""
    events = logged_events(tiny_trace, {"feedback_delay": 3}, 0)
    i = events.index((0, 1))
    assert events[i - 1] == (2, 2) and events[i + 1] == (3, 0)


# --------------------------------------------------------------------------- behaviour

def test_delay_changes_regret_gated_admissions_only():
    trace = _trace("clusters", 0)
    now = run(trace, "solar", capacity=5, engine="simpy")
    late = run(trace, "solar", capacity=5, engine="simpy", engine_options={"feedback_delay": 5})
    assert not np.array_equal(now.admitted, late.admitted)
    assert late.feedback["pending"] == 5  # the last five steps' feedback is due after the end
    for policy in ("fifo", "lru", "solar_e"):  # always admit: feedback is never read
        assert_same_run(run(trace, policy, capacity=5),
                        run(trace, policy, capacity=5, engine="simpy",
                            engine_options={"feedback_delay": 5, "feedback_loss": 0.5}),
                        policy, options_recorded=True)


def test_first_admission_waits_for_the_first_feedback():
    """Regret gate with tau = 1: step 0 misses (empty cache), so c reaches 1 when step 0's
    feedback arrives; the first admission is the first arrival at or after that."""
    trace = _trace("clusters", 0)
    for delay, first in ((0, 0), (1, 1), (2.5, 3), (7, 7)):
        r = run(trace, "solar_a", capacity=5, params={"tau": 1.0}, engine="simpy",
                engine_options={"feedback_delay": delay})
        assert int(np.flatnonzero(r.admitted >= 0)[0]) == first, delay


def test_delay_beyond_the_end_and_total_loss_mean_no_feedback():
    trace = _trace("clusters", 1)
    T = trace.steps
    never = run(trace, "solar", capacity=5, engine="simpy",
                engine_options={"feedback_delay": T})
    lost = run(trace, "solar", capacity=5, engine="simpy", engine_options={"feedback_loss": 1})
    assert never.feedback == {"delivered": 0, "lost": 0, "pending": T}
    assert lost.feedback == {"delivered": 0, "lost": T, "pending": 0}
    for name in ARRAYS:
        assert np.array_equal(getattr(never, name), getattr(lost, name)), name
    assert never.summary()["admissions"] == 0  # the gate never hears of a miss
    barely = run(trace, "solar", capacity=5, engine="simpy",
                 engine_options={"feedback_delay": T - 1})  # step 0's arrives at the end
    assert barely.feedback["delivered"] == 1


def test_loss_draws_are_seeded_and_nested():
    a = engine_simpy.lost_feedback(1000, 0.3, seed=4)
    assert np.array_equal(a, engine_simpy.lost_feedback(1000, 0.3, seed=4))
    assert not np.array_equal(a, engine_simpy.lost_feedback(1000, 0.3, seed=5))
    assert not (a & ~engine_simpy.lost_feedback(1000, 0.5, seed=4)).any()
    assert 250 < a.sum() < 350
    assert not engine_simpy.lost_feedback(1000, 0.0, 4).any()
    assert engine_simpy.lost_feedback(1000, 1.0, 4).all()


def test_sessions_with_latency_are_deterministic_and_matter():
    trace = _trace("clusters", 0)
    options = {"sessions": 3, "latency": 4, "feedback_delay": 2, "feedback_loss": 0.2}
    a = run(trace, "solar", capacity=5, seed=3, engine="simpy", engine_options=options)
    b = run(trace, "solar", capacity=5, seed=3, engine="simpy", engine_options=options)
    assert_same_run(a, b, "repeat")
    assert a.summary()["engine_options"] == {"latency": 4.0, "feedback_delay": 2.0,
                                             "feedback_loss": 0.2, "sessions": 3}
    assert a.feedback == b.feedback
    one = run(trace, "solar", capacity=5, seed=3, engine="simpy",
              engine_options={**options, "sessions": 1})
    assert not np.array_equal(a.hit, one.hit)


# --------------------------------------------------------------------------- validation

@pytest.mark.parametrize("options, words", [
    ({"delay": 1}, ["unknown engine option 'delay'", "feedback_delay"]),
    ({1: 2, "latency": 0.5}, ["unknown engine option 1", "latency"]),  # keys of two types
    ({"feedback_delay": -1}, ["feedback_delay", ">= 0"]),
    ({"feedback_delay": float("nan")}, ["feedback_delay", "finite"]),
    ({"latency": "2"}, ["latency", "number"]),
    ({"feedback_loss": 1.5}, ["feedback_loss", "[0, 1]"]),
    ({"sessions": 0}, ["sessions", "integer >= 1"]),
    ({"sessions": 2.0}, ["sessions", "integer >= 1"]),
    ({"sessions": True}, ["sessions"]),
])
def test_bad_engine_options(options, words):
    """The library names the option as Python spells it (and in ``param``); the command
    line names its flag (test_cli)."""
    with pytest.raises(InputError) as err:
        run(_trace("clusters", 0), "fifo", engine="simpy", engine_options=options)
    assert "\n" not in str(err.value)
    for word in words:
        assert word in str(err.value)
    if words[0] in options:
        assert err.value.param == words[0] and str(err.value).startswith(words[0])


def test_fast_engine_refuses_simpy_options_but_accepts_defaults():
    trace = _trace("clusters", 0)
    with pytest.raises(InputError, match=r"^feedback_loss needs the simpy engine"):
        run(trace, "fifo", engine_options={"feedback_loss": 0.1})
    run(trace, "fifo", engine_options={"feedback_delay": 0, "sessions": 1})


PAGING = [n for n, p in policies.REGISTRY.items() if "paging" in p.modes]


@pytest.mark.parametrize("policy", PAGING)
def test_simpy_equals_fast_in_paging_mode(policy):
    # 1000 requests over 150 objects: capacity 64 still evicts 231 times (LRU), and each
    # capacity has hundreds of hits and misses for the engines to disagree on
    trace = workloads.get("zipf_paging").generate({"steps": 1000, "objects": 150}, seed=2)
    for seed, capacity in ((0, 1), (1, 20), (2, 64)):
        fast = run(trace, policy, capacity=capacity, seed=seed)
        simpy = run(trace, policy, capacity=capacity, seed=seed, engine="simpy")
        assert np.array_equal(fast.hit, simpy.hit), (policy, seed)
        sa, sb = fast.summary(), simpy.summary()
        for s in (sa, sb):
            s.pop("elapsed_s")
            s.pop("engine")
        assert sa == sb, (policy, seed)


def test_paging_miss_in_flight_is_a_rearrival():
    """Two sessions with latency: request 1 misses on the object request 0 is still
    bringing in, and finds it cached at its own response, so nothing is admitted twice."""
    trace = PagingTrace.from_requests(np.array([1, 1, 2, 1, 3, 1]))
    r = run(trace, "lru", capacity=2, engine="simpy",
            engine_options={"latency": 1.5, "sessions": 2})
    assert r.hit.tolist() == [0, 0, 0, 1, 0, 1]
    assert r.summary()["admissions"] == 3


@pytest.mark.parametrize("argv, word", [
    (["--engine", "fast", "--feedback-delay", "5"], "--feedback-delay"),
    (["--engine", "simpy", "--feedback-loss", "-0.1"], "--feedback-loss"),
    (["--engine", "simpy", "--sessions", "0"], "--sessions"),
    (["--engine", "simpy", "--latency", "x"], "--latency"),
])
def test_cli_engine_errors_are_one_line(argv, word, capsys):
    workload = ["--workload", "clusters", "--param", "steps=50"]
    assert main(["run", *workload, "--policy", "fifo", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("semcache: error:") and word in err, err


def test_cli_engine_flags_reach_the_run(capsys):
    assert main(["run", "--workload", "clusters", "--param", "steps=60", "--param", "dim=8",
                 "--policy", "solar", "--engine", "simpy", "--feedback-delay", "60",
                 "--json"]) == 0
    record = json.loads(capsys.readouterr().out)["runs"][0]
    assert record["engine_options"]["feedback_delay"] == 60.0
    assert record["feedback"] == {"delivered": 0, "lost": 0, "pending": 60}
    assert record["admissions"] == 0


# --------------------------------------------------------------------------- disk cache

CACHE_TRACE = """
import numpy as np
from simulator.trace import Trace
rng = np.random.default_rng(0)
tr = Trace.from_arrays(queries=rng.normal(size=(30, 4)).astype(np.float32),
                       items=rng.normal(size=(30, 4)).astype(np.float32))
"""
CACHE_SCRIPT = CACHE_TRACE + """
from simulator import policies
from simulator.engine import fast as engine_fast
from simulator.runner import run
r = run(tr, "fifo", capacity=3, engine="simpy", engine_options={"feedback_delay": 2})
step = engine_fast.steps_for(policies.get("fifo"))
print(int(r.hit.sum()), sum(step.stats.cache_hits.values()) > 0)
"""


def test_compiled_step_reloads_from_disk_cache(tmp_path):
    """The SimPy engine's compiled step, run here, loads from numba's disk cache in a new
    process.  Both use the suite's cache: this process compiles fifo's step into it (a
    loop the suite needs anyway) or found it there, so the new process must load it;
    a fresh cache, compiled then reloaded, is ``test_compile``'s."""
    space = {}
    exec(CACHE_TRACE, space)
    here = run(space["tr"], "fifo", capacity=3, engine="simpy",
               engine_options={"feedback_delay": 2})
    proc = subprocess.run([sys.executable, "-c", CACHE_SCRIPT], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    hits, loaded = proc.stdout.split()
    assert (int(hits), loaded) == (int(here.hit.sum()), "True")
