"""Long runs: exact integer counters and memory that does not grow with the trace.

Every paging policy runs a Zipf trace over 2000 objects and every semantic policy a trace
re-streaming 1000 keys (K = 100, d = 16, k = 3), each at two lengths: 10⁵ and 3·10⁵
paging requests, 10⁴ and 3·10⁴ semantic steps.  Counters must be exact Python ints.  The
run itself (engine + policy state + output arrays; the trace exists beforehand) is
measured with ``tracemalloc`` (numpy and numba's NRT both allocate through the tracked
allocator), and two bounds hold:

* at each length, the peak is at most the outputs plus an allowance O(K·d + n_keys) plus
  a fixed slack for the Python objects of one call: this catches state that grows with
  the keys or the capacity beyond that;
* from the short run to the long one, the peak grows by the outputs' growth, within
  ``GROWTH`` (16 KiB; runs of one policy differ by a few hundred bytes).  Both lengths
  hold every key, so the allowance is the same for both.  Anything the run keeps per step
  beyond its outputs adds to that growth: one byte per paging request 2·10⁵ bytes, 12
  times ``GROWTH``; one int64 per semantic step 1.6·10⁵ bytes, almost 10 times.  The
  peak must also grow by at least the outputs' growth less ``GROWTH``: a peak set by a
  transient that does not depend on the length (W-TinyLFU's sketch is built from every
  key at once) would hide what is kept per step, so the test proves it is not the case.
  With 2000 objects (not 10⁴) that transient stays below the short run's outputs.

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

PAGING_T = (10**5, 3 * 10**5)
SEMANTIC_T = (10**4, 3 * 10**4)
K, D, TOP_K, POOL, TOPICS, OBJECTS = 100, 16, 3, 1000, 50, 2000
# Policies whose eviction scans the whole cache (Thompson draws one Beta sample per item;
# solar_a compares every pair) run the paging trace at a small capacity, so the
# test stays within seconds; every other policy runs at K.
SCAN_K = 8
SCANNING = {"solar_e", "solar", "solar_a"}
# Fixed allowance on top of the bounds below: the Python objects of one run() call
# (config dict, Context, RunResult, numba dispatch) and allocator granularity.
SLACK = 256 * 1024
GROWTH = 16 * 1024
SEMANTIC_OUTPUTS = ("loss", "hit", "precision", "quality", "admitted", "evicted", "deleted",
                    "size")


def paging_capacity(name):
    return SCAN_K if name in SCANNING else K


@pytest.fixture(scope="module", autouse=True)
def _frozen_heap():
    """Hand back to the collector what :func:`measured_runs` froze."""
    yield
    gc.unfreeze()


@pytest.fixture(scope="module")
def zipf_traces():
    """The short and the long trace: every object requested once, then Zipf(1.0)."""
    rng = np.random.default_rng(2024)
    p = 1.0 / np.arange(1, OBJECTS + 1) ** 1.0
    requests = np.concatenate([rng.permutation(OBJECTS),
                               rng.choice(OBJECTS, size=PAGING_T[1] - OBJECTS,
                                          p=p / p.sum())])
    return [PagingTrace.from_requests(requests[:T]) for T in PAGING_T]


@pytest.fixture(scope="module")
def pool_traces():
    """Items re-stream a fixed pool of POOL keys via ``item_keys`` (each key once first):
    ``unlimited`` then holds at most POOL items, so its retrieval stays O(POOL·d) per step
    and its state O(POOL) instead of growing with the trace.  The short and the long
    trace."""
    T = SEMANTIC_T[1]
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(TOPICS, D)).astype(np.float32)
    key_topic = rng.integers(0, TOPICS, POOL)
    key_vec = centres[key_topic] + 0.5 * rng.normal(size=(POOL, D)).astype(np.float32)
    keys = np.concatenate([rng.permutation(POOL), rng.integers(0, POOL, T - POOL)])
    qt = rng.integers(0, TOPICS, T)
    queries = centres[qt] + 0.5 * rng.normal(size=(T, D)).astype(np.float32)
    return [Trace.from_arrays(queries=queries[:n], items=key_vec[keys[:n]],
                              query_topics=qt[:n], item_topics=key_topic[keys[:n]],
                              item_keys=keys[:n]) for n in SEMANTIC_T]


def measured_runs(traces, warm_trace, name, **options):
    """``run`` of each trace with its peak traced allocation; compiled beforehand on
    ``warm_trace``."""
    run(warm_trace, name, **options)  # compile (same argument types) outside the measurement
    out = []
    for trace in traces:
        # the garbage collected, the live objects out of the collector's sight until the
        # module ends: the next collection walks only what is made after this one (a
        # full one of a worker's heap of compiled code takes a tenth of a second)
        gc.collect()
        gc.freeze()
        tracemalloc.start()
        try:
            result = run(trace, name, **options)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        out.append((result, peak))
    return out


def nbytes(result, names):
    return sum(getattr(result, n).nbytes for n in names)


def check_memory(name, runs, outputs, allowance, per_step=0):
    """The two bounds of the module docstring on ``[(result, peak)]`` of the short and the
    long run; ``per_step`` bytes a step are allowed on top (Belady's next uses)."""
    for result, peak in runs:
        steps = result.summary()["steps"]
        bound = outputs(result) + allowance + per_step * steps + SLACK
        assert peak <= bound, f"{name}: run allocated {peak:,} bytes > bound {bound:,}"
    (short, short_peak), (long, long_peak) = runs
    more_steps = long.summary()["steps"] - short.summary()["steps"]
    growth = (long_peak - short_peak) - (outputs(long) - outputs(short))
    assert growth <= per_step * more_steps + GROWTH, \
        f"{name}: {more_steps:,} more steps kept {growth:,} bytes beyond their outputs"
    assert growth >= -GROWTH, \
        f"{name}: the peak ({short_peak:,} bytes) is not the end of the short run"


@pytest.mark.parametrize("name", [n for n, p in policies.REGISTRY.items()
                                  if "paging" in p.modes])
def test_a_long_paging_run(zipf_traces, name):
    cap = paging_capacity(name)
    warm = PagingTrace.from_requests(zipf_traces[0].requests[:1000])
    runs = measured_runs(zipf_traces, warm, name, capacity=cap, seed=1)
    for (result, _), tr in zip(runs, zipf_traces):
        s = result.summary()
        assert type(s["hits"]) is int and type(s["steps"]) is int
        assert s["steps"] == tr.steps and tr.n_keys == OBJECTS
        assert s["hits"] == int(result.hit.sum(dtype=np.int64))
        assert 0 < s["hits"] < tr.steps - tr.n_keys + 1
    # Allowance: policy state O(K + n_keys).  Belady is offline and may also hold O(T) of
    # next-request times (its argsort and index arrays): 48 bytes per step.
    check_memory(name, runs, lambda r: r.hit.nbytes, 64 * (cap + OBJECTS),
                 per_step=48 if name == "belady" else 0)


@pytest.mark.parametrize("name", [n for n, p in policies.REGISTRY.items()
                                  if "semantic" in p.modes])
def test_a_long_semantic_run(pool_traces, name):
    short = pool_traces[0]
    warm = Trace.from_arrays(**{k: v[:50] for k, v in short.arrays().items()})
    runs = measured_runs(pool_traces, warm, name, capacity=K, top_k=TOP_K, seed=1)
    for (result, _), tr in zip(runs, pool_traces):
        s = result.summary()
        for counter in ("hits", "modifications", "admissions", "evictions", "steps",
                        "scored_steps"):
            assert type(s[counter]) is int, counter
        assert s["steps"] == tr.steps and tr.n_keys == POOL
        assert s["hits"] == int(result.hit.sum(dtype=np.int64))
        assert s["modifications"] <= tr.steps
        assert s["admissions"] <= POOL + s["evictions"]
        if policies.REGISTRY[name].unbounded:
            assert s["evictions"] == 0 and int(result.size.max()) <= POOL
        else:
            assert int(result.size.max()) <= K
    # Allowance: the engine's slot cache and policy state, O(n_slots·d + n_keys) with
    # n_slots = min(K, n_keys) (n_keys for unlimited).  The eight outputs: 57 bytes a step.
    n_slots = POOL if policies.REGISTRY[name].unbounded else K
    # A policy that forgets several items a step has a ninth output, the log of every
    # deletion: one (step, key) row per step is allocated, the most a run can delete.
    log = 16 if policies.REGISTRY[name].repeat_delete else 0
    check_memory(name, runs, lambda r: nbytes(r, SEMANTIC_OUTPUTS),
                 64 * (n_slots * (D + 4) + POOL), per_step=log)
