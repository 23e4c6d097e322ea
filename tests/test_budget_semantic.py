"""Sizes and budgets for the semantic policies (docs/model.md §2.5): the SOLAR family, the
authors'-code variants and the memory study's strategies against their plain-Python twins.

Each twin is written from its policy's documented rule for sizes (one Thompson draw per
arrival, the lowest scores of it evicted until the arrival fits; rescoring for the
deterministic scores; least useful first for the memory strategies), not from the numba
hooks.  Here runs evict several items in one step, hold items of different sizes, meet
arrivals larger than the budget, with and without a count limit, and the size-aware
variant ``evict_rank="per_size"`` is compared too.  With unit sizes the variant is the
default run, draw for draw.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from helpers.naive import POLICIES, naive_paging_run, naive_run

from simulator.errors import InputError
from simulator.instance import Instance
from simulator.live_run import LiveRun
from simulator.testing.contract.traces import semantic_traces, sized_requests, sized_trace
from simulator.runner import run
from simulator.testing import instances
from simulator.trace import PagingTrace, Trace

MEMORY = ("fixed", "add_all", "strict", "coarse", "periodic", "history", "combined")
SOLAR = ("solar_e", "solar", "solar_a", "solar_e_ref", "solar_ref", "solar_a_ref")
RANKED = {"solar_e": "sample", "solar": "sample", "solar_a": "score"}  # and their defaults
PER_SIZE = {"evict_rank": "per_size"}
# every policy with each of its rankings: (policy, params)
AGENT = (("amem", {"evolve_similarity": 0.0}), ("zep", {"contradiction_similarity": 0.5}))
CASES = [(name, {}) for name in SOLAR + MEMORY] + [(name, PER_SIZE) for name in RANKED] + \
    list(AGENT)
IDS = [name + ("-per_size" if params is PER_SIZE else "") for name, params in CASES]
ARRAYS = ("loss", "hit", "admitted", "evicted", "deleted", "size")
COUNTERS = ("max_occupancy", "too_large", "evictions", "modifications", "admissions")


@contextlib.contextmanager
def twin_told_sizes(policy, sizes):
    """The twin of ``policy`` registered under a new name with step t's arrival size
    ``sizes[t]`` (naive_run does not pass sizes to a policy; the SOLAR twins need them
    for ``per_size`` and say so through ``item_sizes``)."""
    name = f"{policy}[sized]"
    cls = POLICIES[policy]
    POLICIES[name] = type(cls.__name__ + "Sized", (cls,), {"item_sizes": list(sizes)})
    try:
        yield name
    finally:
        del POLICIES[name]


def twin_run(trace, policy, capacity, budget, seed, params, **options):
    """naive_run with sizes told.  With a budget and no K the engine's policy plans with
    K = B (docs/model.md §1.8; the authors' gate sizes its warm-up by it), so the twin is
    given K = B too: every size is >= 1, so under budget B a count limit of B never binds."""
    plan = budget if capacity is None else capacity
    with twin_told_sizes(policy, trace.item_sizes.tolist()) as name:
        return naive_run(trace, name, plan, seed=seed, params=params, budget=budget,
                         **options)


def assert_same(ours, ref, what):
    for name in ARRAYS:
        assert getattr(ours, name).tolist() == ref[name], (what, name)
    log = [[] for _ in range(len(ref["admitted"]))]
    for t, key in ours.evict_log.tolist():
        log[t].append(key)
    assert log == ref["evicted_all"], (what, "evict_log")
    s = ours.summary()
    for name in COUNTERS:
        assert s[name] == ref[name], (what, name, s[name], ref[name])


def compare(trace, policy, params, budget, capacity, seed=3, **options):
    ours = run(trace, policy, capacity=capacity, budget=budget, seed=seed, params=params,
               **options)
    ref = twin_run(trace, policy, capacity, budget, seed, params, **options)
    assert_same(ours, ref, (policy, params, budget, capacity, seed, options))
    return ours


# --------------------------------------------------------------------------- fixed traces

SMALL_SIZES = sized_trace()  # sizes 1 .. 4
LARGE_SIZES = sized_trace(seed=6, largest=9)  # some arrivals larger than the budgets below


@pytest.mark.parametrize("policy, params", CASES, ids=IDS)
@pytest.mark.parametrize("budget, capacity", [(3, None), (7, None), (12, None), (7, 2),
                                              (9, 3), (20, 4)])
def test_sized_runs_equal_the_twin(policy, params, budget, capacity):
    for trace in (SMALL_SIZES, LARGE_SIZES):
        ours = compare(trace, policy, params, budget, capacity)
        if trace is LARGE_SIZES and budget < 9:  # the case is really exercised
            assert ours.summary()["too_large"] > 0


@pytest.mark.parametrize("policy", ["solar_e", "solar", "solar_e_ref", "solar_ref"])
def test_the_twin_tells_one_draw_from_a_draw_per_victim(policy):
    """The comparison above can see the rule: a twin that draws afresh for each victim
    (what the hooks did before the rule was set) disagrees with the engine."""
    ours = run(SMALL_SIZES, policy, budget=7, seed=3)

    class Redraw(POLICIES[policy]):
        def victim(self, t, key, x, cache):
            self.ts.draw = (None, {})  # forget the step's draw: every victim draws
            return super().victim(t, key, x, cache)

    POLICIES["redraw"] = Redraw
    try:
        ref = naive_run(SMALL_SIZES, "redraw", 7, seed=3, budget=7)
    finally:
        del POLICIES["redraw"]
    assert ours.evicted.tolist() != ref["evicted"]


@pytest.mark.parametrize("policy", ["solar", "solar_a", "solar_e_ref", "history"])
def test_both_engines_agree_under_a_budget(policy):
    params = PER_SIZE if policy in RANKED else {}
    fast = run(LARGE_SIZES, policy, budget=12, capacity=4, seed=2, params=params)
    slow = run(LARGE_SIZES, policy, budget=12, capacity=4, seed=2, params=params,
               engine="simpy")
    for name in ARRAYS + ("evict_log",):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name


@pytest.mark.parametrize("policy", sorted(RANKED))
@pytest.mark.parametrize("rank", ["default", "per_size"])
@pytest.mark.parametrize("budget", [4, 20])
def test_sized_paging_runs_equal_the_twin(policy, rank, budget):
    """Paging: an admission takes the size of the request that missed (§1.8)."""
    trace = sized_requests()
    params = PER_SIZE if rank == "per_size" else {}
    ours = run(trace, policy, budget=budget, seed=1, params=params)
    with twin_told_sizes(policy, trace.request_sizes.tolist()) as name:
        ref = naive_paging_run(trace.requests, name, None, 1, params,
                               sizes=trace.request_sizes, budget=budget)
    assert ours.hit.tolist() == ref["hit"]
    assert ours.summary()["too_large"] == ref["too_large"]


# --------------------------------------------------------------------------- the variant

@pytest.mark.parametrize("policy", sorted(RANKED))
def test_per_size_is_the_default_with_unit_sizes(policy):
    """Unit sizes: ``per_size`` divides every score by 1, so the runs are equal, and the
    random stream ends where the default run's does (same draws, same number)."""
    traces = dict(semantic_traces(), sized=SMALL_SIZES)
    for label, trace in traces.items():
        if label == "sized":  # its vectors and keys, every size 1
            trace = Trace.from_arrays(queries=trace.queries, items=trace.items,
                                      query_topics=trace.query_topics,
                                      item_topics=trace.item_topics,
                                      item_keys=trace.item_keys)
        for limits in ({"capacity": 3}, {"capacity": 8}, {"budget": 5},
                       {"capacity": 4, "budget": 9}):
            runs = []
            for params in ({}, {"evict_rank": RANKED[policy]}, PER_SIZE):
                live = LiveRun(trace, policy, seed=5, params=params, **limits)
                live.run_all()
                runs.append((live.outputs(), _stream(policy, live.state)))
            for out, stream in runs[1:]:
                for name in ARRAYS:
                    assert np.array_equal(out[name], runs[0][0][name]), (label, limits, name)
                assert np.array_equal(stream, runs[0][1]), (label, limits, "stream")


def _stream(policy, state):
    """Where the policy's random stream ended (``thompson``'s third array); ``solar_a``
    draws nothing."""
    if policy == "solar_a":
        return None
    return (state[1] if policy == "solar" else state)[2].copy()


# Four items admitted at steps 0-3 with sizes 1, 1, 4, 1 under a budget of 7; step 4's
# arrival (size 1) needs one victim.  Scores fall with age (solar_a: recency alone; the
# Thompson policies: a novelty bonus of 100 / (1 + age) that swamps the sample), so the
# default ranking evicts the oldest item, key 0, while value per unit of size evicts the
# large key 2 (its score is about 33, a quarter of that per unit).
RANK_TRACE = Trace.from_arrays(queries=np.eye(5, 3, dtype=np.float32) + 1,
                               items=np.eye(5, 3, k=1, dtype=np.float32) + 1,
                               item_sizes=np.array([1, 1, 4, 1, 1]))
RANK_PARAMS = {"solar_a": {"tau": 0.0, "w_recency": 1.0, "w_use": 0.0, "w_novelty": 0.0},
               "solar": {"tau": 0.0, "gamma": 100.0, "novelty_scale": 1.0},
               "solar_e": {"gamma": 100.0, "novelty_scale": 1.0}}


@pytest.mark.parametrize("policy", sorted(RANKED))
def test_per_size_ranks_by_value_per_unit_of_size(policy):
    for rank, victim in ((RANKED[policy], 0), ("per_size", 2)):
        params = {**RANK_PARAMS[policy], "evict_rank": rank}
        r = run(RANK_TRACE, policy, budget=7, seed=0, params=params)
        assert r.admitted.tolist() == [0, 1, 2, 3, 4]
        assert r.evicted.tolist() == [-1, -1, -1, -1, victim], rank
        compare(RANK_TRACE, policy, params, 7, None)


@pytest.mark.parametrize("policy", sorted(RANKED))
@pytest.mark.parametrize("bad", ["size", "PER_SIZE", ""])
def test_a_bad_evict_rank_is_an_input_error(policy, bad):
    with pytest.raises(InputError, match=f"policy '{policy}': parameter 'evict_rank' must "
                       "be one of"):
        run(SMALL_SIZES, policy, budget=7, params={"evict_rank": bad})


# --------------------------------------------------------------------------- random traces

# sizes 1..6 per key, a budget of 1..8 (so some arrivals are larger) with no K or K = 1..4
SIZED = instances(sized=True, max_steps=30, max_capacity=4, max_budget=8, max_size=6,
                  dim=(2, 3), vectors=("grid",), switch_costs=(0.0, 0.5))


def _case(sizes, budget, capacity=None, keys=None, top_k=1):
    """A pinned instance: items cycle over three directions, queries over two."""
    T = len(sizes)
    keys = list(range(T)) if keys is None else keys
    items = [[1, 0], [0, 1], [1, 1]]
    trace = Trace.from_arrays(queries=np.array([[1, 0], [0, 1]] * T, np.float32)[:T],
                              items=np.array([items[k % 3] for k in keys], np.float32),
                              item_keys=keys, item_sizes=sizes,
                              query_topics=[t % 2 for t in range(T)],
                              item_topics=[k % 2 for k in keys])
    return Instance(trace, dict(budget=budget, capacity=capacity, top_k=top_k,
                                switch_cost=0.0))


# one arrival evicts three; an arrival larger than the budget; K binds before B
THREE_VICTIMS = _case([1, 1, 1, 1, 4, 1, 2, 2], 4)
TOO_LARGE = _case([2, 9, 3, 2, 9, 1, 3], 5, keys=[0, 1, 2, 0, 1, 3, 4])
COUNT_FIRST = _case([1, 2, 1, 3, 1, 1, 2, 1, 1], 20, capacity=2, top_k=2)
RANDOM_PARAMS = {"tau": [0.0, 0.5], "warmup": [0, 3], "addition": ["all", "strict"],
                 "bootstrap": [0, 2], "beta_step": [0.0, 0.5], "gamma": [0.0, 1.0]}


@pytest.mark.parametrize("policy, params", CASES, ids=IDS)
@given(inst=SIZED, seed=st.integers(0, 3), data=st.data())
@example(inst=THREE_VICTIMS, seed=0, data=None)
@example(inst=TOO_LARGE, seed=0, data=None)
@example(inst=COUNT_FIRST, seed=0, data=None)
def test_random_sized_runs_equal_the_twin(policy, params, inst, seed, data):
    if data is not None:  # some parameters that make admissions frequent or rare
        known = sorted(set(RANDOM_PARAMS) & set(POLICIES[policy].defaults))
        params = {**params, **data.draw(st.fixed_dictionaries(
            {}, optional={n: st.sampled_from(RANDOM_PARAMS[n]) for n in known}))}
    limits = dict(inst.options)
    budget, capacity = limits.pop("budget"), limits.pop("capacity")
    compare(inst.trace, policy, params, budget, capacity, seed, **limits)


def test_paging_trace_sizes_reach_the_twin_per_request():
    """Guard for the helper: request sizes vary between requests of one object, and the
    twin is told step t's size, not one size per object."""
    trace = PagingTrace.from_requests(np.array([0, 1, 0, 2, 0]), np.array([1, 2, 3, 1, 2]))
    with twin_told_sizes("solar_e", trace.request_sizes.tolist()) as name:
        assert POLICIES[name].item_sizes == [1, 2, 3, 1, 2]
    assert name not in POLICIES
