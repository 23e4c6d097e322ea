"""OPT with item sizes and a budget (docs/model.md §1.8, §4; theory.opt.sized).

Every exact answer is checked against the exhaustive search of :mod:`naive_opt`, which
knows the budget only as "a cache's sizes total at most B"; every bound must bracket it.
With unit sizes and B = K the results equal the count-limit ones.  Paging: Belady with a
byte budget is beaten by a brute-force schedule (its docstring's counterexamples).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers.naive_opt import brute_opt, brute_paging_misses
from helpers.opt_cases import POLICIES, close, random_trace, soft_topk_case, tiny
from simulator.cli import main
from simulator.errors import InputError
from simulator.testing.contract.traces import sized_trace
from simulator.runner import run
from simulator.trace import PagingTrace, Trace
from theory.opt import beam as opt_beam, items as opt_dp, sized as opt_sized
from theory.opt import opt
from theory.opt.lp import arrival_lp, arrival_pairs, solve
from theory.opt.model import build_model, replay

TOL = 1e-9


def _with_sizes(tr, key_size):
    """``tr`` with item sizes from ``key_size`` (a dict key -> size: equal keys, equal sizes)."""
    sizes = np.array([key_size[int(key)] for key in tr.item_keys], np.int64)
    return Trace.from_arrays(**tr.arrays(), item_sizes=sizes)


def _two_victims_case():
    """a (topic 0) and b (topic 1), size 1 each, answer alternating queries; C (topic 2,
    size 2 = B) answers the rest.  OPT admits a, b, then C evicting both at step 4."""
    e = np.eye(3, dtype=np.float32)
    qt = np.array([-1, 0, 1, 0, 1, 2, 2, 2])
    it = np.array([0, 1, -1, -1, 2, -1, -1, -1])
    tr = Trace.from_arrays(queries=e[np.maximum(qt, 0)], items=e[np.maximum(it, 0)],
                           query_topics=qt, item_topics=it,
                           weights=np.r_[0.0, np.ones(7)],
                           item_sizes=[1, 1, 1, 1, 2, 1, 1, 1])
    return tr, None, 2, 0.25, "hit", 2


def _too_large_case():
    """The only item of the queried topic is larger than B: it can never be cached."""
    e = np.eye(2, dtype=np.float32)
    tr = Trace.from_arrays(queries=e[[0, 0, 0, 1]], items=e[[0, 1, 0, 1]],
                           query_topics=[0, 0, 0, 1], item_topics=[0, 1, 0, 1],
                           item_sizes=[5, 1, 5, 1])
    return tr, 3, 1, 0.5, "hit", 3


def _unit_case(K, B):
    """Unit sizes: B < K makes B the count limit, B > K leaves K."""
    tr, _, k, lam, quality = soft_topk_case()
    return tr, K, k, lam, quality, B


def _k_first_case():
    """K = 1 binds long before B = 10 (sizes 2): the budget never matters."""
    tr, _, k, lam, quality = soft_topk_case()
    return _with_sizes(tr, {key: 2 for key in tr.item_keys.tolist()}), 1, k, lam, quality, 10


PINNED = [_two_victims_case(), _too_large_case(), _unit_case(3, 2), _unit_case(2, 5),
          _k_first_case()]


def _examples(test):
    for case in PINNED:
        test = example(case)(test)
    return test


@settings(max_examples=150)
@given(tiny(sized=True))
@_examples
def test_exact_with_budget_matches_exhaustive_search(case):
    tr, K, k, lam, quality, B = case
    want = brute_opt(tr, K, k, lam, quality, budget=B)
    r = opt(tr, K, k, lam, quality, budget=B)
    assert r.exact and close(r.opt_cost, want), (r.method, r.opt_cost, want)
    assert r.lower_bound == r.upper_bound == r.opt_cost
    assert close(replay(tr, r.schedule, K, k, lam, quality, budget=B), want)
    plan = opt_sized.plan(tr, K, B)
    assert r.config["budget"] == B and r.config["budget_binds"] == plan.binds
    if plan.binds:
        assert r.method == "items"
    # the item DP under both limits, whatever the plan says
    cost, _ = opt_dp.solve(build_model(tr, k, quality), max(1, plan.count_limit), lam,
                           tr.item_sizes, B)
    assert close(cost, want)


@settings(max_examples=60)
@given(tiny(sized=True))
@_examples
def test_bounds_with_budget_bracket_exhaustive_search(case):
    tr, K, k, lam, quality, B = case
    want = brute_opt(tr, K, k, lam, quality, budget=B)
    plan = opt_sized.plan(tr, K, B)
    # the knapsack relaxation on its own, with pairs of every step
    model = build_model(tr, k, quality)
    Kb = max(1, plan.count_limit)
    lp, const = arrival_lp(model, Kb, lam, quality,
                           arrival_pairs(model, quality, 2, plan.cacheable), plan.sizes, B)
    assert const + solve(lp)[1] <= want + TOL
    lower = opt_sized.lower_bound(tr, plan, k, lam, quality, model)[0]
    assert lower <= want + TOL
    cost, _ = opt_beam.beam(model, Kb, lam, 8, 4, plan.sizes, B)  # a real schedule
    assert cost >= want - TOL
    r = opt(tr, K, k, lam, quality, method="bounds", budget=B)
    assert not r.exact and r.opt_cost is None and r.method.startswith("bounds:")
    assert r.lower_bound <= want + TOL and want <= r.upper_bound + TOL
    assert replay(tr, r.schedule, K, k, lam, quality, budget=B) == pytest.approx(
        r.upper_bound, abs=TOL)
    if plan.binds:  # the policies ran with the budget: none beats the upper bound
        for pol in POLICIES:
            cost = run(tr, pol, capacity=K, top_k=k, switch_cost=lam, quality=quality,
                       budget=B).summary()["cost"]
            assert r.upper_bound <= cost + TOL, (pol, r.upper_bound, cost)


def _same(a, b):
    assert (a.opt_cost, a.exact, a.method, a.lower_bound, a.upper_bound, a.schedule) == \
        (b.opt_cost, b.exact, b.method, b.lower_bound, b.upper_bound, b.schedule)


@settings(max_examples=60)
@given(tiny())
@example(soft_topk_case())
def test_unit_sizes_with_budget_k_equal_the_count_limit(case):
    tr, K, k, lam, quality = case
    plain = opt(tr, K, k, lam, quality)
    _same(opt(tr, K, k, lam, quality, budget=K), plain)
    # no count limit: the budget's, at most the keys there are (the same optimum)
    free = opt(tr, None, k, lam, quality, budget=K)
    assert free.exact and close(free.opt_cost, plain.opt_cost)
    # the DP's budget path on its own (the front end reduces unit sizes to a count limit)
    model = build_model(tr, k, quality)
    assert opt_dp.solve(model, K, lam, np.ones(tr.steps, np.int64), K) == \
        opt_dp.solve(model, K, lam)
    assert opt_beam.beam(model, K, lam, 8, 4, np.ones(tr.steps, np.int64), K) == \
        opt_beam.beam(model, K, lam, 8, 4)


# K = 8, precision (bounds:lp-topics+) on the same trace: in test_opt_bounds'
# test_too_big_instance_gets_bounds, which computes those bounds anyway
@pytest.mark.parametrize("K,quality,method", [(3, "hit", "flow")])
def test_unit_sizes_with_budget_k_equal_the_count_limit_beyond_the_dps(K, quality, method):
    tr = random_trace(0, T=400)  # too long for the item DP: the flow
    plain = opt(tr, K, 3, 0.5, quality)
    assert plain.method.startswith(method)
    _same(opt(tr, K, 3, 0.5, quality, budget=K), plain)


def test_two_victims_in_one_step_are_all_reported(capsys, tmp_path):
    from simulator.trace_formats import save

    tr, K, k, lam, quality, B = _two_victims_case()
    r = opt(tr, K, k, lam, quality, budget=B)
    assert r.exact and r.method == "items" and r.config["budget_binds"]
    assert r.opt_cost == pytest.approx(3 * lam)  # every scored step hits
    assert r.schedule["admitted"][4] == 4 and r.schedule["evicted"][4] == [0, 1]
    path = tmp_path / "two.npz"
    save(tr, path)
    argv = ["opt", "--trace", str(path), "--budget", str(B), "--top-k", str(k),
            "--switch-cost", str(lam)]
    assert main(argv + ["--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["opt_cost"] == r.opt_cost and doc["exact"] is True and doc["method"] == "items"
    assert doc["capacity"] is None and doc["budget"] == B and doc["budget_binds"] is True
    assert doc["schedule"]["evicted"][4] == [0, 1]
    assert main(argv) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].startswith("OPT = 0.75, exact (method items); no count limit, budget B = 2")
    assert "  step 4: admit 4, evict 0, 1" in text


def test_too_big_for_the_item_dp_gets_certified_bounds():
    tr = sized_trace(seed=4, T=300, largest=4)
    B = 12
    r = opt(tr, None, 2, 0.5, "hit", budget=B)
    plan = opt_sized.plan(tr, None, B)
    assert plan.binds and plan.count_limit > 4  # too many sets for the item DP
    assert not r.exact and r.opt_cost is None and r.method.startswith("bounds:")
    assert 0 < r.lower_bound <= r.upper_bound
    assert replay(tr, r.schedule, None, 2, 0.5, "hit", budget=B) == pytest.approx(
        r.upper_bound, abs=1e-9)
    for name in ("fifo", "lru"):
        cost = run(tr, name, top_k=2, switch_cost=0.5, budget=B).summary()["cost"]
        assert r.upper_bound <= cost + 1e-9
    for method in ("flow", "topics", "counts"):
        with pytest.raises(InputError, match=f"{method}: item sizes bind.*'items' or 'bounds'"):
            opt(tr, None, 2, 0.5, "hit", method=method, budget=B)
    with pytest.raises(InputError, match="cannot solve.*items"):
        opt(tr, None, 2, 0.5, "hit", method="items", budget=B)  # too big: refused, not bounds


def test_knapsack_rows_tighten_the_relaxation():
    # the queried topic's item is larger than B: only the budget says it is never cached
    tr, K, k, lam, quality, B = _too_large_case()
    plan = opt_sized.plan(tr, K, B)
    model = build_model(tr, k, quality)
    count_only = solve(arrival_lp(model, plan.count_limit, lam, quality)[0])[1]
    lp, const = arrival_lp(model, plan.count_limit, lam, quality,
                           arrival_pairs(model, quality, None, plan.cacheable), plan.sizes, B)
    want = brute_opt(tr, K, k, lam, quality, budget=B)
    assert count_only < want - 0.5 and const + solve(lp)[1] == pytest.approx(want, abs=1e-6)


def test_budget_edge_cases_are_one_line_input_errors():
    tr = random_trace(0, T=20)
    with pytest.raises(InputError, match="^capacity must .* unless a budget"):
        opt(tr, None)
    with pytest.raises(InputError, match="^budget must be an integer >= 1"):
        opt(tr, 2, budget=0)
    with pytest.raises(InputError, match="^budget must be"):
        opt(tr, 2, budget="12 parsecs")
    with pytest.raises(InputError, match="semantic.*belady.*heuristic"):
        opt(PagingTrace.from_requests([1, 2, 1], [1, 2, 1]), 1, budget=2)
    assert opt(tr, 2, budget="1KiB").config["budget"] == 1024


def test_cli_budget_on_workloads(capsys):
    base = ["opt", "--workload", "cycling", "--param", "steps=30", "--param", "topics=4",
            "--top-k", "1"]
    sizes = ["--param", "sizes=lognormal", "--param", "size_median=4"]
    assert main(base + sizes + ["--capacity", "2", "--json"]) == 0
    unsized = json.loads(capsys.readouterr().out)
    assert main(base + ["--capacity", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["opt_cost"] == unsized["opt_cost"]
    assert main(base + sizes + ["--capacity", "2"]) == 0
    assert "item sizes play no part without --budget" in capsys.readouterr().out
    assert main(base + sizes + ["--budget", "9", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["budget"] == 9 and doc["exact"] is (doc["opt_cost"] is not None)
    assert main(base + sizes + ["--budget", "9", "--method", "flow"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "flow" in err and "'items' or 'bounds'" in err
    assert main(["opt", "--workload", "zipf_paging", "--param", "steps=50",
                 "--budget", "4"]) == 2
    assert "belady" in capsys.readouterr().err
    assert main(base + ["--budget", "0"]) == 2
    assert capsys.readouterr().err.count("--budget") == 1


# --------------------------------------------------------------------------- paging


def _belady_misses(requests, sizes, budget):
    r = run(PagingTrace.from_requests(np.array(requests), np.array(sizes)), "belady",
            budget=budget)
    return r.summary()["steps"] - r.summary()["hits"]


def test_belady_is_not_optimal_with_sizes():
    # the docstring's three requests: a (1), b (2), a under budget 2
    assert _belady_misses([0, 1, 0], [1, 2, 1], 2) == 3
    assert brute_paging_misses([0, 1, 0], [1, 2, 1], 2, always_admit=True) == 3
    assert brute_paging_misses([0, 1, 0], [1, 2, 1], 2) == 2  # do not admit b
    # and its victim rule, even admitting every miss: x (1), y (2), z (2), y, x; budget 3
    reqs, sizes = [0, 1, 2, 1, 0], [1, 2, 2, 2, 1]
    assert _belady_misses(reqs, sizes, 3) == 5
    assert brute_paging_misses(reqs, sizes, 3, always_admit=True) == 4  # evict y alone
    assert brute_paging_misses(reqs, sizes, 3) == 3


@settings(max_examples=80)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=8), st.integers(1, 3),
       st.data())
def test_belady_against_the_paging_search(requests, budget, data):
    # unit sizes: Belady is optimal among schedules that admit every miss (not admitting
    # may do better); with sizes it is never below either optimum
    ones = [1] * len(requests)
    belady = _belady_misses(requests, ones, budget)
    assert belady == brute_paging_misses(requests, ones, budget, always_admit=True)
    assert brute_paging_misses(requests, ones, budget) <= belady
    size_of = data.draw(st.lists(st.integers(1, 3), min_size=4, max_size=4))
    sizes = [size_of[o] for o in requests]
    assert brute_paging_misses(requests, sizes, budget) <= \
        brute_paging_misses(requests, sizes, budget, always_admit=True) <= \
        _belady_misses(requests, sizes, budget)
