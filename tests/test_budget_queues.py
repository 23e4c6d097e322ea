"""ARC, S3-FIFO, 2Q and W-TinyLFU with sizes and a budget (docs/model.md §1.8): their queue
shares are measured in sizes, as libCacheSim's byte-sized caches measure them (each
policy's docstring states its rule).

* The engine equals the plain-Python twins (``naive_policies.py``, ``naive_policies_modern.py``,
  written from the docstrings) with sizes, in both modes: several victims per arrival,
  arrivals heavier than a queue's share refused, evictions deferred (2Q, W-TinyLFU).
  ``naive_run`` does not tell a twin the sizes or the budget, so each test registers a
  twin subclass that carries them (``item_sizes``, ``budget``).
* With unit sizes nothing is ever deferred, except by W-TinyLFU in paging mode where
  libCacheSim's truncated segments make it evict during hits.
* On libCacheSim's CloudPhysics trace (``tests/test_budget.py`` holds ARC, S3-FIFO and 2Q
  equal to libCacheSim at every budget): 2Q defers at 512 MiB and 1 GiB only, and still
  equals libCacheSim there.  W-TinyLFU defers at every budget, and in paging mode a
  deferred item leaves through ``delete`` right after its request, as libCacheSim evicts
  it then: hits equal libCacheSim's request for request at every budget.
* W-TinyLFU's sketch: the sparse layout gives the full array's estimates, and a budget of
  3 GiB reproduces libCacheSim's 20-counter sketch (its 32-bit ``entries`` wraps).
"""

from __future__ import annotations

import contextlib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.cloud_physics import BUDGETS, NEEDED, MiB, both_traces
from helpers.naive import POLICIES, naive_paging_run, naive_run
from simulator.live_run import LiveRun
from simulator.policies import tinylfu, twoq
from simulator.policies.parts import count_min
from simulator.testing.contract.traces import (semantic_traces, sized_requests, sized_trace,
                                            zipf_requests)
from simulator.runner import run
from simulator.trace import PagingTrace

QUEUES = ("arc", "s3fifo", "twoq", "tinylfu")
# parameters that let items of size > 1 into the small queue, A1in and the window of
# the small budgets below (the defaults leave them a share of 1)
ROOMY = {"arc": {}, "s3fifo": {"small_ratio": 0.4}, "twoq": {"in_ratio": 0.6},
         "tinylfu": {"window_ratio": 0.3}}
CASES = [(p, {}) for p in QUEUES] + [(p, ROOMY[p]) for p in QUEUES if ROOMY[p]]
IDS = [p + ("-roomy" if params else "") for p, params in CASES]
ARRAYS = ("hit", "admitted", "evicted", "deleted", "size")


@contextlib.contextmanager
def twin_told(policy, sizes, budget):
    """``policy``'s twin registered under a new name, told step t's arrival size
    ``sizes[t]`` and the budget."""
    name = f"{policy}[told]"
    cls = POLICIES[policy]
    POLICIES[name] = type(cls.__name__ + "Told", (cls,),
                          {"item_sizes": [int(s) for s in sizes], "budget": budget})
    try:
        yield name
    finally:
        del POLICIES[name]


def compare_semantic(trace, policy, params, budget, capacity):
    ours = run(trace, policy, capacity=capacity, budget=budget, seed=3, params=params)
    with twin_told(policy, trace.item_sizes, budget) as name:
        ref = naive_run(trace, name, capacity, seed=3, params=params, budget=budget)
    what = (policy, params, budget, capacity)
    for field in ARRAYS:
        assert getattr(ours, field).tolist() == ref[field], (what, field)
    log = [[] for _ in range(trace.steps)]
    for t, key in ours.evict_log.tolist():
        log[t].append(key)
    assert log == ref["evicted_all"], what
    s = ours.summary()
    for field in ("max_occupancy", "too_large", "evictions", "modifications", "admissions"):
        assert s[field] == ref[field], (what, field)
    return ours


def compare_paging(trace, policy, params, budget, capacity=None):
    ours = run(trace, policy, capacity=capacity, budget=budget, seed=1, params=params)
    with twin_told(policy, trace.request_sizes, budget) as name:
        ref = naive_paging_run(trace.requests, name, capacity, 1, params=params,
                               sizes=trace.request_sizes, budget=budget,
                               object_ids=trace.object_ids)
    assert ours.hit.tolist() == ref["hit"], (policy, params, budget, capacity)
    s = ours.summary()
    assert (s["hit_size"], s["requested_size"], s["too_large"]) == (
        ref["hit_size"], ref["requested_size"], ref["too_large"])
    return ours


def deferrals(trace, policy, **options):
    """How many items ``policy`` deferred in a whole run (0 for ARC and S3-FIFO)."""
    live = LiveRun(trace, policy, **options)
    live.run_all()
    module = {"twoq": twoq, "tinylfu": tinylfu}.get(policy)
    return module.deferrals(live.state) if module else 0


# ----------------------------------------------------------------- against the twins

@pytest.mark.parametrize("policy, params", CASES, ids=IDS)
@pytest.mark.parametrize("budget, capacity", [(3, None), (7, None), (20, None), (40, None),
                                              (12, 4)])
def test_sized_semantic_runs_equal_the_twin(policy, params, budget, capacity):
    for trace in (sized_trace(), sized_trace(seed=6, largest=9)):
        compare_semantic(trace, policy, params, budget, capacity)


@pytest.mark.parametrize("policy, params", CASES, ids=IDS)
@pytest.mark.parametrize("budget", [4, 20, 100])
def test_sized_paging_runs_equal_the_twin(policy, params, budget):
    for trace in (sized_requests(), sized_requests(seed=7, n=25, largest=12)):
        compare_paging(trace, policy, params, budget)
    compare_paging(sized_requests(), policy, params, 60, capacity=9)


@settings(max_examples=60, deadline=None)
@given(policy=st.sampled_from(QUEUES), roomy=st.booleans(),
       requests=st.lists(st.integers(0, 9), min_size=1, max_size=150),
       size_seed=st.integers(0, 2**16), largest=st.integers(1, 9),
       budget=st.integers(1, 40))
def test_random_sized_paging_equals_the_twin(policy, roomy, requests, size_seed, largest,
                                             budget):
    sizes = np.random.default_rng(size_seed).integers(1, largest + 1, len(requests))
    trace = PagingTrace.from_requests(np.array(requests, np.int64), sizes)
    compare_paging(trace, policy, ROOMY[policy] if roomy else {}, budget)


@pytest.mark.parametrize("policy", ["twoq", "tinylfu"])
def test_deferrals_happen_and_the_twin_follows_them(policy):
    """The comparisons above include runs that defer: here one that defers many times."""
    trace = sized_requests(seed=7, n=25, largest=12)
    params = ROOMY[policy]
    compare_paging(trace, policy, params, 100)
    assert deferrals(trace, policy, budget=100, params=params) > 10


@pytest.mark.parametrize("policy, params", CASES, ids=IDS)
def test_both_engines_agree_under_a_budget(policy, params):
    trace = sized_trace(seed=6, largest=9)
    fast = run(trace, policy, budget=20, capacity=6, seed=2, params=params)
    slow = run(trace, policy, budget=20, capacity=6, seed=2, params=params, engine="simpy")
    for field in ARRAYS + ("evict_log",):
        assert np.array_equal(getattr(fast, field), getattr(slow, field)), field
    paging = sized_requests(seed=7, n=25, largest=12)
    assert np.array_equal(run(paging, policy, budget=100, params=params).hit,
                          run(paging, policy, budget=100, params=params, engine="simpy").hit)


@pytest.mark.parametrize("policy", ["twoq", "tinylfu"])
def test_unit_sizes_never_defer(policy):
    """Except W-TinyLFU in paging mode where its segments leave part of main to neither
    (libCacheSim's truncated shares: at K = 20, 3 + 15 of 19): there libCacheSim evicts
    during hits, and so do we, through ``delete``."""
    params = [{}, ROOMY[policy], {"in_ratio": 1.0} if policy == "twoq" else
              {"window_ratio": 0.6}]
    dropped = 0
    for p in params:
        for capacity in (1, 2, 5, 20):
            shares = tinylfu.sizes(capacity, p.get("window_ratio", 0.01), paging=True)
            for limit in ({"capacity": capacity}, {"budget": capacity}):
                n = deferrals(zipf_requests(), policy, params=p, **limit)
                if policy == "twoq" or sum(shares) == capacity:
                    assert n == 0, (p, limit)
                dropped += n
                for trace in semantic_traces().values():
                    assert deferrals(trace, policy, params=p, seed=2, **limit) == 0
    assert dropped > 0 or policy == "twoq"


# ----------------------------------------------------- libCacheSim's CloudPhysics trace

libcachesim = pytest.importorskip("libcachesim")


@pytest.fixture(scope="module")
def cloud_physics():
    return both_traces()


def their_hits(trace, name, budget):
    """libCacheSim's hit for each request, fed one by one with the trace's ids and sizes."""
    cache = getattr(libcachesim, name)(budget)
    ids = trace.object_ids[trace.requests].tolist()
    return np.array([cache.get(libcachesim.Request(obj_size=s, obj_id=i, clock_time=t))
                     for t, (i, s) in enumerate(zip(ids, trace.request_sizes.tolist()))],
                    np.int8)


@NEEDED
@pytest.mark.parametrize("source, mib", BUDGETS)
def test_tinylfu_equals_libcachesim_request_for_request(cloud_physics, source, mib):
    """Hit for hit and the byte miss ratio, at every budget (each from one of the files,
    ``BUDGETS``), although libCacheSim evicts hundreds of items during hits or beyond an
    arrival's need: each leaves here through ``delete`` right after its request."""
    trace = cloud_physics[source]
    ours = run(trace, "tinylfu", budget=mib * MiB)
    theirs = their_hits(trace, "WTinyLFU", mib * MiB)
    assert ours.hit.astype(np.int8).tolist() == theirs.tolist()
    sizes = trace.request_sizes
    assert 1 - ours.summary()["size_hit_rate"] == pytest.approx(
        sizes[theirs == 0].sum() / sizes.sum(), abs=1e-12)
    assert deferrals(trace, "tinylfu", budget=mib * MiB) > 100


@NEEDED
@pytest.mark.parametrize("source", ["bin", "csv"])
def test_twoq_defers_on_the_real_trace_only_at_the_larger_budgets(cloud_physics, source):
    """BYTE_EXACT (tests/test_budget.py) holds 2Q equal to libCacheSim at all four
    budgets, each from one file; at 512 MiB (the binary file) and 1 GiB (the CSV) that
    equality includes hundreds of deferrals."""
    trace = cloud_physics[source]
    counts = {mib: deferrals(trace, "twoq", budget=mib * MiB) for mib in (128, 256, 512, 1024)}
    assert counts[128] == counts[256] == 0 and counts[512] > 100 and counts[1024] > 1000


# ------------------------------------------------------------------- the sketch

def test_sparse_sketch_gives_the_full_arrays_estimates():
    rng = np.random.default_rng(0)
    ids = np.arange(1, 301, dtype=np.uint64)
    full = count_min.build(ids, 50, sparse=False)  # 719 counters
    sparse = count_min.build(ids, 50, sparse=True)
    assert full[0].size == count_min.width(50) and sparse[0].size < full[0].size
    for step, key in enumerate(rng.integers(0, 300, 5000)):
        for counters, cells in (full, sparse):
            count_min.add(counters, cells, key)
            if step % 977 == 976:
                count_min.halve(counters)
        if step % 250 == 0:
            assert [count_min.estimate(*full, k) for k in range(300)] == \
                [count_min.estimate(*sparse, k) for k in range(300)]


def test_a_main_cache_of_2_gib_or_more_wraps_like_libcachesims_int(monkeypatch):
    """libCacheSim passes the main cache's size to its sketch as a C int: at 3 GiB it
    wraps negative and the sketch gets 20 counters, whose collisions change decisions
    (with 2³¹ − 1 counters, 628 requests here would go otherwise).  Ours reproduces it."""
    requests = zipf_requests(5, 20_000, 5000, 1.0).requests
    object_size = np.random.default_rng(1).integers(1, 5, 5000) << 20
    trace = PagingTrace.from_requests(requests + 1, object_size[requests])  # ids from 1
    budget = 3 << 30
    assert count_min.width(budget - int(budget * 0.01)) == 20
    ours = run(trace, "tinylfu", budget=budget).hit.astype(np.int8)
    cache = libcachesim.WTinyLFU(budget)
    ids = trace.object_ids[trace.requests].tolist()
    theirs = [cache.get(libcachesim.Request(obj_size=int(s), obj_id=i, clock_time=t))
              for t, (i, s) in enumerate(zip(ids, trace.request_sizes.tolist()))]
    assert ours.tolist() == [int(h) for h in theirs]
    monkeypatch.setattr(count_min, "width", lambda entries: count_min.INT_MAX)
    assert (run(trace, "tinylfu", budget=budget).hit != ours).sum() == 628
