"""Paging-mode hit counts equal two independent implementations (docs/model.md §1, "Paging mode").

libCacheSim 0.3.5 (C, reading an ``oracleGeneral`` trace file) is the oracle for FIFO, LRU,
LFU, ARC and Belady: hit counts must be equal, not close.  cachetools (pure Python) is a
second oracle for FIFO, LRU and LFU.

LFU's tie-break: among equally frequent items libCacheSim and cachetools both evict the
item that reached its count earliest (each count is a FIFO list), ``tie="bucket"``, which
is our default in paging mode (``tie="auto"``; semantic runs evict the oldest admission,
docs/model.md §2.1).  The oracle comparisons run the default, and
:func:`test_lfu_tie_rules_differ_only_in_the_tie` pins a trace on which the two rules part.
"""

import numpy as np
import pytest

from simulator.experiments.bench import write_oracle_general  # ids shifted by one (0 is not valid)
from simulator.runner import run
from simulator.trace import PagingTrace
from workloads.zipf_paging import zipf_requests as zipf

libcachesim = pytest.importorskip("libcachesim")
cachetools = pytest.importorskip("cachetools")

POLICIES = ("fifo", "lru", "lfu", "arc", "belady")
LIBCACHESIM = {"fifo": "FIFO", "lru": "LRU", "lfu": "LFU", "arc": "ARC", "belady": "Belady"}
CACHETOOLS = {"fifo": "FIFOCache", "lru": "LRUCache", "lfu": "LFUCache"}

# (steps, objects, alpha, seed, capacity)
HEADLINE = (1_000_000, 100_000, 0.9, 0, 1000)
SMALL = [
    (20_000, 500, 0.6, 1, 1),
    (20_000, 500, 0.8, 2, 2),
    (20_000, 300, 1.0, 3, 10),
    (20_000, 50, 0.7, 4, 10),
    (30_000, 2_000, 1.2, 5, 100),
    (30_000, 5_000, 0.9, 6, 100),
]


def libcachesim_hits(path, policy, capacity, steps):
    reader = libcachesim.TraceReader(str(path), libcachesim.TraceType.ORACLE_GENERAL_TRACE)
    cache = getattr(libcachesim, LIBCACHESIM[policy])(capacity, hashpower=17)
    return round((1 - cache.process_trace(reader)[0]) * steps)


def cachetools_hits(requests, policy, capacity):
    cache = getattr(cachetools, CACHETOOLS[policy])(maxsize=capacity)
    hits = 0
    for key in requests.tolist():
        if key in cache:
            cache[key]  # a request: LRU and LFU update their bookkeeping, FIFO does not
            hits += 1
        else:
            cache[key] = None
    return hits


def our_hits(requests, policy, capacity):
    result = run(PagingTrace.from_requests(requests), policy, capacity=capacity)
    return int(result.hit.sum())


@pytest.fixture(scope="module")
def trace_file(tmp_path_factory):
    """``trace_file(case)`` -> (requests, oracleGeneral path), each case written once."""
    folder = tmp_path_factory.mktemp("oracle")
    made = {}

    def get(case):
        if case not in made:
            steps, objects, alpha, seed, _ = case
            requests = zipf(steps, objects, alpha, seed)
            path = folder / f"zipf-{len(made)}.oracleGeneral"
            write_oracle_general(requests, path)
            made[case] = (requests, path)
        return made[case]

    return get


@pytest.mark.parametrize("policy", POLICIES)
def test_headline_case_equals_libcachesim(trace_file, policy):
    """The issue's case: 1M requests, Zipf 0.9 over 100k objects, capacity 1000."""
    requests, path = trace_file(HEADLINE)
    capacity = HEADLINE[-1]
    assert our_hits(requests, policy, capacity) == \
        libcachesim_hits(path, policy, capacity, requests.size)


@pytest.mark.parametrize("case", SMALL, ids=lambda c: f"a{c[2]}-n{c[1]}-K{c[4]}-s{c[3]}")
@pytest.mark.parametrize("policy", POLICIES)
def test_small_cases_equal_libcachesim(trace_file, policy, case):
    requests, path = trace_file(case)
    capacity = case[-1]
    assert our_hits(requests, policy, capacity) == \
        libcachesim_hits(path, policy, capacity, requests.size)


@pytest.mark.parametrize("capacity", [1, 10, 100])
@pytest.mark.parametrize("policy", sorted(CACHETOOLS))
def test_equals_cachetools(policy, capacity):
    requests = zipf(100_000, 5_000, 0.9, 7)
    assert our_hits(requests, policy, capacity) == cachetools_hits(requests, policy, capacity)


def test_lfu_tie_rules_differ_only_in_the_tie(tmp_path):
    """A B B A C A, capacity 2: at C, A and B were each retrieved once.

    By admission A is older and goes, so the last A misses; libCacheSim and cachetools
    evict B, which reached count 1 first, so the last A hits.
    """
    requests = np.array([0, 1, 1, 0, 2, 0])
    path = tmp_path / "tie.oracleGeneral"
    write_oracle_general(requests, path)
    trace = PagingTrace.from_requests(requests)
    by_admission = run(trace, "lfu", capacity=2, params={"tie": "admission"}).hit.tolist()
    by_bucket = run(trace, "lfu", capacity=2, params={"tie": "bucket"}).hit.tolist()
    assert run(trace, "lfu", capacity=2).hit.tolist() == by_bucket  # paging's default
    assert by_admission == [0, 0, 1, 1, 0, 0]
    assert by_bucket == [0, 0, 1, 1, 0, 1]
    assert sum(by_bucket) == libcachesim_hits(path, "lfu", 2, requests.size)
    assert sum(by_bucket) == cachetools_hits(requests, "lfu", 2)
