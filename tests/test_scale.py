"""Long runs: exact integer counters and memory that does not grow with the trace.

A 2·10⁶-step Zipf paging run of every paging policy and a 5·10⁵-step semantic run of
every semantic policy (K = 100, d = 16, k = 3).  Counters must be exact Python ints, and
the run itself (engine + policy state + output arrays; the trace exists beforehand) must
allocate no more than its output arrays plus a small allowance, measured with
``tracemalloc`` (numpy and numba's NRT both allocate through the tracked allocator).  The
lengths are chosen so that anything the run keeps per step beyond its outputs, one byte
per paging request or one int64 per semantic step, exceeds that allowance several times.
Nothing here is timed: speed lives in the benchmarks.
"""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np
import pytest

from simulator import policies
from simulator.runner import run
from simulator.trace import PagingTrace, Trace

PAGING_T = 2 * 10**6
SEMANTIC_T = 5 * 10**5
K, D, TOP_K, POOL, TOPICS = 100, 16, 3, 1000, 50
# Policies whose eviction scans the whole cache (Thompson draws one Beta sample per item;
# solar_a compares every pair) run the paging trace at a small capacity, so the
# test stays within seconds; every other policy runs at K.
SCAN_K = 8
SCANNING = {"solar_e", "solar", "solar_a"}
# Fixed allowance on top of the bounds below: the Python objects of one run() call
# (config dict, Context, RunResult, numba dispatch) and allocator granularity.
SLACK = 256 * 1024


def paging_capacity(name):
    return SCAN_K if name in SCANNING else K


@pytest.fixture(scope="module")
def zipf_trace():
    rng = np.random.default_rng(2024)
    n = 10_000
    p = 1.0 / np.arange(1, n + 1) ** 1.0
    return PagingTrace.from_requests(rng.choice(n, size=PAGING_T, p=p / p.sum()))


@pytest.fixture(scope="module")
def pool_trace():
    """Items re-stream a fixed pool of POOL keys via ``item_keys``: ``unlimited`` then
    holds at most POOL items, so its retrieval stays O(POOL·d) per step and its state
    O(POOL) instead of growing with the trace."""
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(TOPICS, D)).astype(np.float32)
    key_topic = rng.integers(0, TOPICS, POOL)
    key_vec = centres[key_topic] + 0.5 * rng.normal(size=(POOL, D)).astype(np.float32)
    keys = rng.integers(0, POOL, SEMANTIC_T)
    qt = rng.integers(0, TOPICS, SEMANTIC_T)
    queries = centres[qt] + 0.5 * rng.normal(size=(SEMANTIC_T, D)).astype(np.float32)
    return Trace.from_arrays(queries=queries, items=key_vec[keys], query_topics=qt,
                             item_topics=key_topic[keys], item_keys=keys)


def measured_run(trace, warm_trace, name, **options):
    """``run`` with its peak traced allocation; compiled beforehand on ``warm_trace``."""
    run(warm_trace, name, **options)  # compile (same argument types) outside the measurement
    gc.collect()
    tracemalloc.start()
    try:
        result = run(trace, name, **options)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


def nbytes(result, names):
    return sum(getattr(result, n).nbytes for n in names)


@pytest.mark.parametrize("name", [n for n, p in policies.REGISTRY.items()
                                  if "paging" in p.modes])
def test_a_long_paging_run(zipf_trace, name):
    tr = zipf_trace
    cap = paging_capacity(name)
    warm = PagingTrace.from_requests(tr.requests[:1000])
    result, peak = measured_run(tr, warm, name, capacity=cap, seed=1)
    s = result.summary()
    assert type(s["hits"]) is int and type(s["steps"]) is int
    assert s["steps"] == PAGING_T
    assert s["hits"] == int(result.hit.sum(dtype=np.int64))
    assert 0 < s["hits"] < PAGING_T - tr.n_keys + 1
    # Bound: the hit array (T bytes) + policy state O(K + n_keys) + SLACK.  Belady is
    # offline and may also hold O(T) of next-request times (its argsort and index
    # arrays): 48 bytes per step.
    bound = result.hit.nbytes + 64 * (cap + tr.n_keys) + SLACK
    if name == "belady":
        bound += 48 * PAGING_T
    assert peak <= bound, f"{name}: run allocated {peak:,} bytes > bound {bound:,}"


@pytest.mark.parametrize("name", [n for n, p in policies.REGISTRY.items()
                                  if "semantic" in p.modes])
def test_a_long_semantic_run(pool_trace, name):
    tr = pool_trace
    warm = Trace.from_arrays(**{k: v[:50] for k, v in tr.arrays().items()})
    result, peak = measured_run(tr, warm, name, capacity=K, top_k=TOP_K, seed=1)
    s = result.summary()
    for counter in ("hits", "modifications", "admissions", "evictions", "steps",
                    "scored_steps"):
        assert type(s[counter]) is int, counter
    assert s["steps"] == SEMANTIC_T
    assert s["hits"] == int(result.hit.sum(dtype=np.int64))
    assert s["modifications"] <= SEMANTIC_T
    assert s["admissions"] <= POOL + s["evictions"]
    if policies.REGISTRY[name].unbounded:
        assert s["evictions"] == 0 and int(result.size.max()) <= POOL
    else:
        assert int(result.size.max()) <= K
    # Bound: the eight output arrays (57 bytes per step) + the engine's slot cache and
    # policy state, O(n_slots·d + n_keys) with n_slots = min(K, n_keys) (n_keys for
    # unlimited) + SLACK.
    n_slots = tr.n_keys if policies.REGISTRY[name].unbounded else K
    outputs = nbytes(result, ("loss", "hit", "precision", "quality", "admitted", "evicted",
                              "deleted", "size"))
    bound = outputs + 64 * (n_slots * (D + 4) + tr.n_keys) + SLACK
    assert peak <= bound, f"{name}: run allocated {peak:,} bytes > bound {bound:,}"
