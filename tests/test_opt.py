"""The offline optimum (docs/model.md §4): every DP against an exhaustive search, and OPT
against policies.

The exhaustive search (:mod:`naive_opt`) tries every decision sequence on tiny traces and
scores them with :mod:`naive`'s retrieval; each exact DP that applies must match it.  On
larger traces OPT must not exceed any policy's cost, the DPs must agree with one another,
and every schedule, replayed, must cost exactly ``opt_cost``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings

from helpers.naive_opt import brute_opt
from helpers.opt_cases import POLICIES, close, random_trace, soft_topk_case, tiny
from simulator.errors import InputError
from simulator.runner import run
from simulator.trace import PagingTrace, Trace
from theory.opt import counts as opt_counts, items as opt_dp, topics as opt_topics
from theory.opt import opt
from theory.opt.model import build_model, replay, schedule_from_sets
from workloads import get


def _check_all(case):
    tr, K, k, lam, quality = case
    want = brute_opt(tr, K, k, lam, quality)
    cost, sets = opt_dp.solve(build_model(tr, k, quality), K, lam)
    assert close(cost, want), ("items", cost, want)
    assert close(replay(tr, schedule_from_sets(tr.item_keys, sets), K, k, lam, quality), want)
    if opt_topics.applies(tr, K, k, quality) is None:
        cost, sets = opt_topics.solve(tr, K, lam)
        assert close(cost, want), ("topics", cost, want)
        assert close(replay(tr, schedule_from_sets(tr.item_keys, sets), K, k, lam, quality),
                     want)
    if opt_counts.applies(tr) is None:
        cost, sets = opt_counts.solve(tr, K, k, lam, quality)
        assert close(cost, want), ("counts", cost, want)
        assert close(replay(tr, schedule_from_sets(tr.item_keys, sets), K, k, lam, quality),
                     want)
    r = opt(tr, K, k, lam, quality)
    assert r.exact and close(r.opt_cost, want)
    assert r.lower_bound <= r.opt_cost <= r.upper_bound


@settings(max_examples=150)
@given(tiny())
@example(soft_topk_case())
def test_every_dp_matches_exhaustive_search(case):
    _check_all(case)


@settings(max_examples=40)
@given(tiny().filter(lambda c: c[4] == "hit" and c[2] >= c[1] and not c[0].has_evidence))
def test_topic_dp_matches_exhaustive_search_when_k_covers_the_cache(case):
    # k >= K, hit quality, no evidence: the topic DP always applies (key topics are fixed)
    tr, K, k, lam, quality = case
    assert opt_topics.applies(tr, K, k, quality) is None
    _check_all(case)


def test_deletions_matter_in_soft_top_k():
    tr, K, k, lam, quality = soft_topk_case()
    full = brute_opt(tr, K, k, lam, quality)
    simple = brute_opt(tr, K, k, lam, quality, restricted=True)
    assert full == pytest.approx(1 + 3 * lam)  # miss at step 0; admit A, admit B, delete B
    # without deletions: skip B (miss at step 2) or keep it (miss at step 3)
    assert simple == pytest.approx(2 + lam) and simple > full
    r = opt(tr, K, k, lam, quality)
    assert r.opt_cost == pytest.approx(full)
    assert r.schedule["admitted"][2] == -1 and r.schedule["evicted"][2] == [1]  # B deleted


@pytest.mark.parametrize("seed", range(6))
def test_opt_is_at_most_every_policy(seed):
    tr = random_trace(seed)
    K, k = 2 + seed % 2, [1, 3][seed % 2]
    lam = [0.0, 0.5, 2.0][seed % 3]
    quality = ["hit", "precision", "similarity"][seed % 3]
    r = opt(tr, K, k, lam, quality)
    assert r.exact
    assert replay(tr, r.schedule, K, k, lam, quality) == pytest.approx(r.opt_cost, abs=1e-9)
    for name in POLICIES:
        cost = run(tr, name, capacity=K, top_k=k, switch_cost=lam, quality=quality,
                   seed=seed).summary()["cost"]
        assert r.opt_cost <= cost + 1e-9, (name, r.opt_cost, cost)


@pytest.mark.parametrize("K,lam", [(2, 0.5), (3, 2.0)])
def test_topic_and_item_dps_agree_on_cycling(K, lam):
    tr = get("cycling").generate({"steps": 40, "topics": 5, "items_per_topic": 2, "dim": 16},
                                 seed=K)
    assert opt_topics.applies(tr, K, 1, "hit") is None  # separated clusters at k = 1
    by_topic = opt(tr, K, 1, lam, "hit", method="topics")
    by_item = opt(tr, K, 1, lam, "hit", method="items")
    assert by_topic.opt_cost == pytest.approx(by_item.opt_cost, abs=1e-9)
    fifo = run(tr, "fifo", capacity=K, top_k=1, switch_cost=lam).summary()["cost"]
    assert by_topic.opt_cost <= fifo + 1e-9


def test_count_and_item_dps_agree_on_a_small_pool():
    rng = np.random.default_rng(7)
    pool = rng.normal(size=(3, 5)).astype(np.float32)
    pick = rng.integers(0, 3, 30)
    tr = Trace.from_arrays(queries=rng.normal(size=(30, 5)).astype(np.float32),
                           items=pool[pick], query_topics=rng.integers(0, 3, 30),
                           item_topics=pick)
    for quality in ("precision", "similarity"):
        a = opt(tr, 3, 2, 0.5, quality, method="counts")
        b = opt(tr, 3, 2, 0.5, quality, method="items")
        assert a.opt_cost == pytest.approx(b.opt_cost, abs=1e-9)


def test_paper_size_topic_instance_is_exact():
    # m = 11 topics, K = 10, k = 3, T = 10^4 (the speed target's instance): flow and topic DP
    tr = get("cycling").generate({"steps": 10_000, "topics": 11}, seed=0)
    r = opt(tr, 10, 3, 1.0, "hit")
    assert r.method == "flow" and r.exact
    assert r.opt_cost == pytest.approx(opt(tr, 10, 3, 1.0, "hit", method="topics").opt_cost,
                                       abs=1e-9)
    assert r.opt_cost <= run(tr, "fifo", capacity=10, top_k=3, switch_cost=1.0
                             ).summary()["cost"]


def test_refusals_are_input_errors():
    tr = random_trace(0, T=400)
    with pytest.raises(InputError, match="cannot solve"):
        opt(tr, 8, 3, 0.5, "precision", method="items")  # too big for the item DP
    with pytest.raises(InputError, match="semantic"):
        opt(PagingTrace.from_requests([1, 2, 1]), 1)
    with pytest.raises(InputError, match="^capacity must"):
        opt(tr, 0)
    with pytest.raises(InputError, match="topics"):
        opt(tr, 2, 1, 0.5, "precision", method="topics")


def _opt_cli(argv, capsys):
    from simulator.cli.commands import build_parser

    args = build_parser("opt").parse_args(argv)
    code = args.func(args)
    return code, capsys.readouterr().out


def test_cli_opt_json_matches_opt(tmp_path, capsys):
    import json

    from simulator.trace_formats import save

    tr, K, k, lam, quality = soft_topk_case()
    path = tmp_path / "soft.npz"
    save(tr, path)
    code, text = _opt_cli(["opt", "--trace", str(path), "--capacity", str(K), "--top-k",
                           str(k), "--switch-cost", str(lam), "--json"], capsys)
    doc = json.loads(text)
    assert code == 0
    assert doc["opt_cost"] == pytest.approx(1 + 3 * lam) and doc["exact"] is True
    assert doc["lower_bound"] == doc["upper_bound"] == doc["opt_cost"]
    assert doc["method"] == "items" and doc["schedule"]["evicted"][2] == [1]
    code, text = _opt_cli(["opt", "--workload", "cycling", "--param", "steps=30",
                           "--param", "topics=4", "--capacity", "2", "--top-k", "1"], capsys)
    assert code == 0 and text.startswith("OPT = ")
    with pytest.raises(InputError, match="^capacity must"):
        _opt_cli(["opt", "--workload", "cycling", "--capacity", "0"], capsys)


def test_an_opt_that_will_be_bounds_only_says_so_before_the_work():
    # precision quality (no flow or topic method) over too many steps for the item DP
    import warnings

    import workloads
    from theory.opt import SlowOptWarning

    trace = workloads.get("clusters").generate({"steps": 90}, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SlowOptWarning)  # raised before any phase runs
        with pytest.raises(SlowOptWarning, match="certified bounds only.*time_limit"):
            opt(trace, 4, 3, 0.5, quality="precision")
    with warnings.catch_warnings():  # a time limit is the answer: nothing to warn of
        warnings.simplefilter("error", SlowOptWarning)
        assert not opt(trace, 4, 3, 0.5, quality="precision", time_limit=0.01).exact
