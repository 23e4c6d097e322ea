"""The run object every driver shares (:class:`simulator.LiveRun`): stepping it in any
pieces, phase by phase or over a buffer still being written, gives :func:`simulator.run`'s
results, and what it reports of its cache is what the cache holds."""

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import simulator
from simulator.engine.fast import ARRIVE, FEEDBACK, RETRIEVE
from simulator.live_run import LiveRun
from simulator.engine.run_arrays import OUTPUTS
from simulator.testing.contract import clustered_trace, sized_trace, zipf_requests
from simulator.trace import PagingBuffer, TraceBuffer

TRACE = clustered_trace(0, T=120)
PAGING = zipf_requests(0, T=600, n=40)


def _same_outputs(live, result):
    return all(np.array_equal(getattr(live, name), getattr(result, name)) for name in OUTPUTS)


@given(cuts=st.lists(st.integers(1, TRACE.steps - 1), max_size=6, unique=True))
@example(cuts=[])
@example(cuts=list(range(1, 40)))
def test_steps_in_any_pieces_equal_one_run(cuts):
    for policy in ("lru", "solar"):
        live = LiveRun(TRACE, policy, capacity=5, seed=3)
        bounds = [0, *sorted(cuts), TRACE.steps]
        for t0, t1 in zip(bounds, bounds[1:]):
            live.step(t0, t1)
        assert _same_outputs(live, simulator.run(TRACE, policy, capacity=5, seed=3))


def test_phase_by_phase_equals_whole_steps():
    """What the SimPy engine does with no delay: retrieve, then feedback and arrival."""
    for policy in ("fifo", "solar", "history"):
        live = LiveRun(TRACE, policy, capacity=4, seed=1)
        for t in range(TRACE.steps):
            live.step(t, t + 1, RETRIEVE)
            live.step(t, t + 1, FEEDBACK)
            live.step(t, t + 1, ARRIVE)
        assert _same_outputs(live, simulator.run(TRACE, policy, capacity=4, seed=1))


def test_the_cache_it_reports_is_the_cache_the_outputs_describe():
    live = LiveRun(TRACE, "lfu", capacity=6)
    cached = set()
    for t in range(TRACE.steps):
        live.step(t)
        cached -= {int(live.evicted[t]), int(live.deleted[t])}
        cached |= {int(live.admitted[t])} - {-1}
        assert set(live.cached_keys().tolist()) == cached
        assert live.cache_size == len(cached) == live.size[t]


def test_retrieve_is_what_the_next_step_retrieves():
    """R_t read off the live cache scores step t exactly as the step does."""
    live = LiveRun(TRACE, "arc", capacity=5, top_k=2)
    for t in range(TRACE.steps):
        keys, sims = live.retrieve(t)
        assert len(keys) == min(2, live.cache_size) and np.all(np.diff(sims) <= 0)
        relevant = TRACE.item_topics[keys] == TRACE.query_topics[t]
        live.step(t)
        assert live.hit[t] == int(relevant.any())
        assert live.precision[t] == relevant.sum() / 2


def test_before_retrieve_runs_once_per_step_in_order():
    calls = []
    live = LiveRun(TRACE, "fifo", capacity=5, before_retrieve=lambda run, t: calls.append(t))
    live.step(0, 50)
    live.step(50, 52, RETRIEVE)
    live.step(50, 52, FEEDBACK | ARRIVE)  # no retrieval in this call: no call
    live.step(52, TRACE.steps, RETRIEVE | FEEDBACK)
    assert calls == list(range(TRACE.steps))


def test_a_run_that_records_its_retrievals_is_the_same_run():
    """``run(retrievals=True)`` changes no output of any semantic policy (a capacity, and a
    budget, which takes the sized loop; both engines), and its R_t explains every step's
    hit and precision."""
    from simulator.policies import REGISTRY

    for policy, pol in REGISTRY.items():
        if "semantic" not in pol.modes:
            continue
        for limit in ({"capacity": 5}, {"budget": 9}):
            plain = simulator.run(TRACE, policy, seed=2, top_k=2, **limit)
            seen = simulator.run(TRACE, policy, seed=2, top_k=2, retrievals=True, **limit)
            assert plain.retrieved is None and seen.retrieved.shape == (TRACE.steps, 2)
            assert plain.summary() | {"elapsed_s": 0} == seen.summary() | {"elapsed_s": 0}
            assert _same_outputs(plain, seen), policy
            keys = seen.retrieved
            topics = np.where(keys >= 0, TRACE.item_topics[np.maximum(keys, 0)], -2)
            relevant = topics == TRACE.query_topics[:, None]
            assert np.array_equal(relevant.any(axis=1), seen.hit.astype(bool)), policy
            assert np.allclose(relevant.sum(axis=1) / 2, seen.precision), policy
    simpy = simulator.run(TRACE, "solar", capacity=5, engine="simpy", retrievals=True)
    assert np.array_equal(simpy.retrieved,
                          simulator.run(TRACE, "solar", capacity=5, retrievals=True).retrieved)
    with pytest.raises(simulator.InputError, match="semantic traces only"):
        simulator.run(PAGING, "fifo", capacity=5, retrievals=True)


def test_a_buffer_written_row_by_row_runs_as_its_finished_trace():
    buf = TraceBuffer.blank(TRACE.steps, TRACE.dim)
    live = LiveRun(buf, "solar_a", capacity=5, seed=2)
    for t in range(TRACE.steps):
        buf.queries[t], buf.items[t] = TRACE.queries[t], TRACE.items[t]
        buf.query_topics[t], buf.item_topics[t] = TRACE.query_topics[t], TRACE.item_topics[t]
        live.step(t)
    assert _same_outputs(live, simulator.run(buf.finish(), "solar_a", capacity=5, seed=2))
    requests = PagingBuffer(np.zeros(PAGING.steps, np.int64), PAGING.n_keys)
    live = LiveRun(requests, "lru", capacity=7)
    for t in range(PAGING.steps):
        requests.requests[t] = PAGING.requests[t]
        live.step(t)
    assert np.array_equal(live.hit, simulator.run(PAGING, "lru", capacity=7).hit)


def test_paging_tallies_and_a_policys_own_loop():
    hooks = LiveRun(PAGING, "arc", capacity=8)
    hooks.step(0, PAGING.steps)
    own = LiveRun(PAGING, "arc", capacity=8)
    assert own.run_all() >= 0
    assert np.array_equal(own.hit, hooks.hit)
    assert (own.hits, own.admissions, own.evictions) == (
        hooks.hits, hooks.admissions, hooks.evictions) == (
        int(hooks.hit.sum()), PAGING.steps - int(hooks.hit.sum()),
        PAGING.steps - int(hooks.hit.sum()) - 8)
    assert own.cache_size == hooks.cache_size == len(hooks.cached_keys()) == 8
    with pytest.raises(simulator.InputError, match="own paging loop"):
        own.cached_keys()
    with pytest.raises(simulator.InputError, match="no further steps"):
        own.step(0)


def test_config_and_refusals():
    live = LiveRun(TRACE, "unlimited", capacity=3, top_k=2, seed=4)
    assert live.capacity == TRACE.n_keys and live.config["capacity"] is None
    assert live.config["top_k"] == 2 and live.mode == "semantic"
    with pytest.raises(simulator.InputError, match="not defined in paging mode"):
        LiveRun(PAGING, "solar_e_ref", capacity=3)
    with pytest.raises(simulator.InputError, match="^capacity must"):
        LiveRun(TRACE, "fifo", capacity=0)
    with pytest.raises(simulator.InputError, match="trace must be"):
        LiveRun(TRACE.queries, "fifo")


def _tallies(live):
    return live.hits, live.admissions, live.evictions


@pytest.mark.parametrize("policy, params, budget", [
    ("fifo", None, None), ("solar", None, None),
    ("history", {"addition": "all", "min_retrievals": 1, "beta": 1.0}, None),  # deletes
    ("lru", None, 9), ("solar_e", {"evict_rank": "per_size"}, 9)])
def test_semantic_tallies_are_the_run_records_at_every_step(policy, params, budget):
    """hits, admissions and evictions of a semantic run in progress count what the whole
    run's record counts, over the steps run so far: scored hits, and evictions with the
    deletions and (a budget's run) every victim of a step."""
    trace = TRACE if budget is None else sized_trace(T=120)
    options = dict(capacity=None if budget else 5, budget=budget, params=params, seed=2)
    whole = simulator.run(trace, policy, **options)
    assert whole.summary()["evictions"] > 0
    live = LiveRun(trace, policy, **options)
    assert _tallies(live) == (0, 0, 0)
    for t0, t1 in ((0, 1), (1, 40), (40, trace.steps)):
        live.step(t0, t1)
        victims = (int((whole.evict_log[:, 0] < t1).sum()) if budget
                   else int((whole.evicted[:t1] >= 0).sum()))
        assert _tallies(live) == (
            int(whole.hit[:t1][trace.scored[:t1]].sum()), int((whole.admitted[:t1] >= 0).sum()),
            victims + int((whole.deleted[:t1] >= 0).sum())), t1
    s = whole.summary()
    assert _tallies(live) == (s["hits"], s["admissions"], s["evictions"])


def test_paging_tallies_at_every_step():
    for budget in (None, 30):
        options = dict(capacity=None if budget else 7, budget=budget)
        whole = simulator.run(PAGING, "lru", **options).summary()
        live = LiveRun(PAGING, "lru", **options)
        for t0, t1 in ((0, 1), (1, 100), (100, PAGING.steps)):
            live.step(t0, t1)
            assert live.hits == int(live.hit[:t1].sum()), t1
            assert live.admissions == t1 - live.hits  # every miss is admitted here
        assert _tallies(live) == (whole["hits"], whole["admissions"], whole["evictions"])
        assert live.requests_fed == 0


def test_what_one_mode_lacks_is_refused_in_one_line():
    semantic, paging = LiveRun(TRACE, "fifo"), LiveRun(PAGING, "fifo")
    with pytest.raises(simulator.InputError, match="this run is semantic"):
        semantic.requests_fed
    with pytest.raises(simulator.InputError, match="this run is semantic"):
        semantic.feed(np.zeros(1, np.int64))
    with pytest.raises(simulator.InputError, match="this run is paging"):
        paging.retrieve(0)
