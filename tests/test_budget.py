"""Sizes and a budget (docs/model.md §1.8): the engine against its plain-Python reference,
both engines alike, and byte-budgeted runs on the real CloudPhysics trace equal to
libCacheSim 0.3.5's for the policies whose byte rule is settled.

The contract (simulator.testing.contract.budget) holds every registered policy to the budget
and to "a unit-size budget of K is a capacity of K"; this file compares exact decisions.
"""

import numpy as np
import pytest

from helpers.cloud_physics import BUDGETS, NEEDED, MiB, both_traces, file
from helpers.naive import naive_paging_run, naive_run
from simulator.cli import main
from simulator.errors import InputError
from simulator.run_options import budget_value
from simulator import policies
from simulator.testing.contract import sized_requests, sized_trace
from simulator.testing.contract.traces import K, results_equal, semantic_traces, zipf_requests
from simulator.runner import run

# Policies whose reference twin and engine hooks agree when one arrival evicts several
# items.  (ARC, S3-FIFO, 2Q, W-TinyLFU and the authors' variants size their queues in
# items; their rule for sizes is still to be settled against libCacheSim's byte rule.)
SIZED_EXACT = ("fifo", "lru", "lfu", "sieve", "random", "lru_ref", "unlimited", "solar_e",
               "solar_a", "solar", "fixed", "add_all", "strict", "coarse", "periodic",
               "history", "combined")


@pytest.mark.parametrize("policy", SIZED_EXACT)
@pytest.mark.parametrize("budget, capacity", [(7, None), (3, None), (9, 3)])
def test_sized_semantic_runs_equal_the_reference(policy, budget, capacity):
    trace = sized_trace()
    ours = run(trace, policy, capacity=capacity, budget=budget, seed=3)
    ref = naive_run(trace, policy, capacity, seed=3, budget=budget)
    for name in ("hit", "admitted", "evicted", "deleted", "size"):
        assert getattr(ours, name).tolist() == ref[name], (policy, name)
    log = [[] for _ in range(trace.steps)]
    for t, key in ours.evict_log.tolist():
        log[t].append(key)
    assert log == ref["evicted_all"]
    s = ours.summary()
    assert (s["max_occupancy"], s["too_large"], s["evictions"], s["modifications"]) == (
        ref["max_occupancy"], ref["too_large"], ref["evictions"], ref["modifications"])


@pytest.mark.parametrize("policy", ["fifo", "lru", "lfu", "sieve", "belady", "random",
                                    "lru_ref"])
@pytest.mark.parametrize("budget", [4, 20, 100])
def test_sized_paging_runs_equal_the_reference(policy, budget):
    trace = sized_requests()
    ours = run(trace, policy, budget=budget, seed=1)
    ref = naive_paging_run(trace.requests, policy, None, 1, sizes=trace.request_sizes,
                           budget=budget)
    assert ours.hit.tolist() == ref["hit"]
    s = ours.summary()
    assert (s["hit_size"], s["requested_size"], s["too_large"]) == (
        ref["hit_size"], ref["requested_size"], ref["too_large"])


@pytest.mark.parametrize("policy", ["fifo", "lru", "solar", "history", "arc"])
def test_both_engines_agree_under_a_budget(policy):
    trace = sized_trace()
    fast = run(trace, policy, budget=7, seed=2)
    slow = run(trace, policy, budget=7, seed=2, engine="simpy")
    for name in ("hit", "admitted", "evicted", "deleted", "size", "evict_log"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
    paging = sized_requests()
    assert np.array_equal(run(paging, policy if policy != "history" else "fifo",
                              budget=20).hit,
                          run(paging, policy if policy != "history" else "fifo", budget=20,
                              engine="simpy").hit)


@pytest.mark.parametrize("text, value", [("4096", 4096), ("128MiB", 128 << 20),
                                         ("1GiB", 1 << 30), ("2 kib", 2048), (5, 5)])
def test_budgets_take_binary_suffixes(text, value):
    assert budget_value(text) == value


@pytest.mark.parametrize("text", ["0", "-5", "12XB", "1.5GiB", "GiB", True])
def test_bad_budgets_are_one_line(text, capsys):
    with pytest.raises(InputError, match="^budget must be"):
        budget_value(text)
    if isinstance(text, str):
        assert main(["run", "--workload", "clusters", "--policy", "fifo",
                     "--budget", text]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("semcache: error: --budget must be")


def test_a_budget_alone_sets_no_count_limit_and_is_recorded():
    trace = sized_trace()
    s = run(trace, "fifo", budget=7).summary()
    assert s["capacity"] is None and s["budget"] == 7 and s["max_occupancy"] <= 7
    s = run(trace, "fifo").summary()  # neither: the default count limit
    assert s["capacity"] == 10 and s["budget"] is None


libcachesim = pytest.importorskip("libcachesim")
BYTE_EXACT = {"fifo": ("FIFO", None), "lru": ("LRU", None), "lfu": ("LFU", None),
              "sieve": ("Sieve", None), "arc": ("ARC", None), "s3fifo": ("S3FIFO", None),
              "twoq": ("TwoQ", None)}


@pytest.fixture(scope="module")
def cloud_physics():
    return both_traces()


def _their_misses(source, name, budget):
    if source == "bin":
        reader = libcachesim.TraceReader(str(file("bin")),
                                         libcachesim.TraceType.ORACLE_GENERAL_TRACE)
    else:
        init = libcachesim.ReaderInitParam()
        init.obj_id_field, init.obj_size_field, init.delimiter = 5, 4, ","
        init.has_header = init.has_header_set = True
        reader = libcachesim.TraceReader(str(file("csv")),
                                         libcachesim.TraceType.CSV_TRACE, init)
    misses, byte_misses = getattr(libcachesim, name)(budget).process_trace(reader)
    return round(misses * 113_872), byte_misses


@NEEDED
@pytest.mark.parametrize("source, mib", BUDGETS)
def test_byte_budgets_equal_libcachesim_on_the_real_trace(cloud_physics, source, mib):
    """From the binary file (one size per object) and from the CSV (each request its own
    size: an admission takes the missing request's size), miss counts equal libCacheSim's;
    Belady too, from the binary file, which carries the next use it reads.  Four budgets,
    each from one of the files (``BUDGETS``)."""
    trace = cloud_physics[source]
    both = dict(BYTE_EXACT, **({"belady": ("Belady", None)} if source == "bin" else {}))
    for policy, (name, params) in both.items():
        s = run(trace, policy, budget=mib * MiB, params=params).summary()
        misses, byte_misses = _their_misses(source, name, mib * MiB)
        assert trace.steps - s["hits"] == misses, (policy, source, mib)
        assert 1 - s["size_hit_rate"] == pytest.approx(byte_misses, abs=1e-12), policy


@NEEDED
def test_the_run_table_shows_the_budget_and_the_byte_hit_rate(cloud_physics, capsys):
    trace = str(file("bin"))
    assert main(["run", "--trace", trace, "--policy", "fifo", "--budget", "256MiB"]) == 0
    out = capsys.readouterr().out
    byte_hit_rate = run(cloud_physics["bin"], "fifo", budget=256 * MiB).summary()[
        "size_hit_rate"]
    assert "budget 256 MiB" in out and "byte hit rate" in out
    assert f"{byte_hit_rate:.4f}" in out


# The SimPy engine's sized paging step is a loop of its own per policy (about 2 s of
# compiling each, for this test alone): paging runs it for the policies whose paging path
# differs in the engine (a ``delete`` hook, an own ``paging_loop``, an offline reader) and
# two plain ones; test_budget_queues.py holds the queue policies to it with real sizes.
PAGING_ON_BOTH = ("fifo", "lru", "arc", "tinylfu", "belady")


@pytest.mark.parametrize("policy", sorted(policies.REGISTRY))
def test_a_unit_budget_is_the_capacity_on_both_engines(policy):
    """With unit sizes, ``budget=K`` on the SimPy engine equals ``capacity=K`` on the fast
    one, in semantic mode for every policy and in paging mode for :data:`PAGING_ON_BOTH`
    (the contract checks the fast engine alone)."""
    modes = policies.REGISTRY[policy].modes
    if "semantic" in modes:
        for label, trace in semantic_traces().items():
            fast = run(trace, policy, capacity=K, seed=2)
            slow = run(trace, policy, budget=K, seed=2, engine="simpy")
            assert results_equal(fast, slow), label
            if not policies.REGISTRY[policy].unbounded:  # unlimited records no limit
                assert slow.summary()["budget"] == K and slow.summary()["too_large"] == 0
    if "paging" in modes and policy in PAGING_ON_BOTH:
        trace = zipf_requests(T=600)
        fast = run(trace, policy, capacity=K, seed=1)
        slow = run(trace, policy, budget=K, seed=1, engine="simpy")
        assert np.array_equal(fast.hit, slow.hit) and fast.evictions == slow.evictions
