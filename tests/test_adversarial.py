"""Adaptive adversaries (workloads.adversaries.workload): they adapt, they are certified, and the
measured ratios meet the theorems they instantiate."""

import importlib.util
import json
import math
import pathlib
import types

import numpy as np
import pytest

from simulator.cli import main
from simulator.errors import InputError
from simulator.runner import run
from simulator.trace import PagingTrace, Trace
from simulator.trace_formats import load, save
from theory.adversary_ratio import measure
from workloads import adversaries
from workloads.adversaries import workload as adversarial

SEMANTIC_TARGETS = adversarial.targets("missing_topic")
ROOT = pathlib.Path(__file__).resolve().parents[1]


def _build(adversary, policy, K, T, lam=0.0, k=3, seed=0, **params):
    return adversarial.build(adversary, policy, K, T, lam, k, seed, params)


def _cache_after(trace, policy, K, k, lam, seed, t):
    """S_t by brute force: re-run the target on the first t steps and replay its changes."""
    if t == 0:
        return set()
    prefix = Trace.from_arrays(queries=trace.queries[:t], items=trace.items[:t],
                               query_topics=trace.query_topics[:t],
                               item_topics=trace.item_topics[:t], weights=trace.weights[:t])
    r = run(prefix, policy, capacity=K, top_k=k, switch_cost=lam, seed=seed)
    cache = set()
    for adm, evi, dele in zip(r.admitted, r.evicted, r.deleted):
        cache -= {int(evi), int(dele)}
        if adm >= 0:
            cache.add(int(adm))
    return cache


# --- the adversary adapts: the target misses where it was meant to -----------------------

@pytest.mark.parametrize("policy", SEMANTIC_TARGETS)
def test_missing_topic_target_misses_every_step(policy):
    for K, lam in ((2, 0.0), (5, 0.5), (8, 0.0)):
        trace = _build("missing_topic", policy, K, 12 * (K + 1), lam, seed=K)
        assert trace.meta["aimed"].all()
        r = run(trace, policy, capacity=K, top_k=3, switch_cost=lam, seed=K)
        assert r.scored.all() and r.hit.sum() == 0, (policy, K)
        assert trace.meta["target_misses"] == trace.steps


@pytest.mark.parametrize("policy", ["fifo", "lru", "arc", "sieve", "solar"])
def test_missing_topic_asks_the_smallest_topic_not_cached_by_rerunning_prefixes(policy):
    """The O(T) live run agrees with the O(T²) definition: re-run every prefix."""
    K, T, k = 3, 40, 2
    trace = _build("missing_topic", policy, K, T, k=k, seed=1)
    for t in range(T):
        held = {int(trace.item_topics[key])
                for key in _cache_after(trace, policy, K, k, 0.0, 1, t)}
        assert trace.query_topics[t] == min(set(range(K + 1)) - held), (policy, t)


@pytest.mark.parametrize("policy", ["fifo", "lru", "arc", "tinylfu"])
def test_paging_requests_the_smallest_page_not_cached(policy):
    K, T = 3, 30
    req = _build("paging", policy, K, T).requests
    for t in range(T):
        for page in range(int(req[t]) + 1):  # smaller pages hit, the chosen one misses
            probe = PagingTrace.from_requests(np.r_[req[:t], page])
            hit = run(probe, policy, capacity=K).hit[-1]
            assert hit == (page < req[t]), (policy, t, page)


@pytest.mark.parametrize("adversary", ["missing_topic", "no_memory_then_dropped"])
def test_randomized_target_is_beaten_for_its_seed_only(adversary):
    trace = _build(adversary, "random", 4, 200, seed=3)
    aimed = trace.meta["aimed"]
    assert run(trace, "random", capacity=4, top_k=3, seed=3).hit[aimed].sum() == 0
    assert run(trace, "random", capacity=4, top_k=3, seed=4).hit[aimed].sum() > 0


# --- the ratios meet the theorems ---------------------------------------------------------

@pytest.mark.parametrize("policy", ["lru", "fifo"])
@pytest.mark.parametrize("K", [2, 4, 8])
def test_paging_ratio_to_belady_tends_to_K(policy, K):
    T = 40 * K * K
    row, trace = measure("paging", policy, K, T)
    assert row["policy_miss_cost"] == T and row["opt_exact"]
    belady = row["opt_cost"]
    # Belady misses the first K + 1 requests, then at most once per K requests
    assert belady <= K + 1 + math.ceil((T - K - 1) / K)
    assert row["ratio"] >= T / (K + 1 + math.ceil((T - K - 1) / K)) >= K * (1 - 0.05)
    # LRU and FIFO are K-competitive: misses <= K·(OPT + 1) (Sleator and Tarjan)
    assert row["ratio"] <= K + K / belady
    assert row["reference"] == K and row["reference_kind"] == "limit"
    lam_row, _ = measure("paging", policy, K, T, switch_cost=0.5)
    assert lam_row["ratio"] == pytest.approx(row["ratio"])  # every miss costs 1 + λ for both


@pytest.mark.parametrize("policy", ["fifo", "lru", "solar"])
@pytest.mark.parametrize("lam", [0.0, 0.5])
def test_missing_topic_ratio_beats_the_static_bound(policy, lam):
    """OPT <= (asks of the least-asked topic) + K(1 + λ): keep the other K topics."""
    K, T = 4, 300
    row, trace = measure("missing_topic", policy, K, T, switch_cost=lam)
    counts = np.bincount(trace.query_topics, minlength=K + 1)
    static = counts.min() + K * (1 + lam)
    assert row["opt_exact"] and row["opt_cost"] <= static
    assert row["policy_miss_cost"] == T
    assert row["ratio"] >= row["policy_cost"] / static >= (K + 1) * (1 - 0.1)
    if policy == "fifo":  # the cycle 0..K: the bound is attained
        assert row["opt_cost"] == static
        assert row["ratio"] >= row["reference"] * (1 - 0.1)


@pytest.mark.parametrize("policy", ["fifo", "lru", "lfu", "solar_e"])
def test_no_memory_then_dropped_ratio_grows_with_T_for_always_admit(policy):
    K, lam = 4, 0.5
    rows = [measure("no_memory_then_dropped", policy, K, T, switch_cost=lam)[0]
            for T in (100, 200, 400)]
    for row in rows:
        assert row["opt_exact"] and row["opt_cost"] <= K * (1 + lam)
        assert row["policy_admissions"] == row["steps"]
        assert row["policy_miss_cost"] >= (row["steps"] - K) / 2
    assert rows[2]["ratio"] >= 3 * rows[0]["ratio"]


@pytest.mark.parametrize("policy", ["solar_a", "solar"])
@pytest.mark.parametrize("lam", [0.0, 0.5, 2.0])
def test_regret_gate_never_admits_what_arrived_with_weight_0(policy, lam):
    K = 4
    trace = _build("no_memory_then_dropped", policy, K, 400, lam)
    r = run(trace, policy, capacity=K, top_k=3, switch_cost=lam)
    admitted = r.admitted[r.admitted >= 0]
    assert (trace.weights[admitted] > 0).all()  # item ids are arrival steps
    assert trace.meta["target_misses"] == r.loss.sum() <= 4 * K  # weight-1 misses only
    assert r.loss[200:].sum() == 0  # it holds the K useful topics and stops missing


def test_ratio_is_an_upper_bound_when_opt_only_has_bounds(monkeypatch):
    import theory.adversary_ratio as ar

    def bounds_only(trace, *args):
        return types.SimpleNamespace(opt_cost=None, exact=False, lower_bound=10.0,
                                     upper_bound=40.0, method="bounds:test")

    monkeypatch.setattr(ar, "opt", bounds_only)
    row, _ = measure("missing_topic", "fifo", 3, 80)
    assert (row["ratio"], row["ratio_exact"], row["ratio_lower"]) == (8.0, False, 2.0)

    def too_big(trace, *args):
        raise InputError("instance too big")

    monkeypatch.setattr(ar, "opt", too_big)
    row, _ = measure("missing_topic", "fifo", 3, 80)
    assert row["ratio"] is None and row["opt_error"] == "instance too big"


# --- determinism, files, command line ------------------------------------------------------

@pytest.mark.parametrize("adversary", sorted(adversaries.REGISTRY))
def test_same_arguments_same_trace_and_file_round_trip(adversary, tmp_path):
    a, b = (_build(adversary, "lru", 4, 150, 0.5, seed=2) for _ in range(2))
    path = tmp_path / "adv.npz"
    save(a, path)
    loaded = load(path)
    if adversary == "paging":
        np.testing.assert_array_equal(a.requests, b.requests)
        np.testing.assert_array_equal(a.requests, loaded.requests)
    else:
        for name, arr in a.arrays().items():
            np.testing.assert_array_equal(arr, b.arrays()[name], err_msg=name)
            np.testing.assert_array_equal(arr, loaded.arrays()[name], err_msg=name)
    assert run(loaded, "lru", capacity=4, top_k=3, switch_cost=0.5,
               seed=2).hit[a.meta["aimed"]].sum() == 0


def _cli(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_semcache_run_and_opt_on_the_workload(capsys):
    common = ["--workload", "adversarial", "--param", "target=sieve", "--param", "capacity=4",
              "--param", "steps=80", "--capacity", "4"]
    code, out, err = _cli(capsys, ["run", *common, "--policy", "sieve,fifo", "--json"])
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["workload"]["params"]["adversary"] == "missing_topic"
    assert doc["runs"][0]["hits"] == 0 and doc["runs"][0]["cost"] == 80
    code, out, err = _cli(capsys, ["opt", *common, "--json"])
    assert code == 0 and json.loads(out)["exact"]
    assert all(line.startswith("semcache opt: ") for line in err.splitlines())  # its plan
    code, out, err = _cli(capsys, ["run", "--workload", "adversarial", "--param",
                                   "adversary=paging", "--param", "capacity=3", "--capacity",
                                   "3", "--paging", "--policy", "lru,belady", "--json"])
    assert (code, err) == (0, "")
    lru, belady = json.loads(out)["runs"]
    assert lru["hits"] == 0 and belady["hits"] > 0


@pytest.mark.parametrize("param, words", [
    ("adversary=nope", ["'adversary'", "missing_topic", "paging"]),
    ("target=belady", ["'target'", "lru", "fifo"]),
    ("target=unlimited", ["'target'", "lru"]),
    ("dim=4", ["'dim'", ">= 12 for adversary 'missing_topic'"]),
    ("phase=0", ["'phase'"]),
    ("target_params=tau", ["'target_params'", "key=value"]),
    ("target_params=nope=1", ["'target_params'", "nope"]),
])
def test_bad_parameters_are_one_line_errors_naming_the_parameter(capsys, param, words):
    code, out, err = _cli(capsys, ["run", "--workload", "adversarial", "--param", param])
    assert code == 2 and out == "" and err.count("\n") == 1
    for word in words:
        assert word in err
    with pytest.raises(InputError):
        adversarial.WORKLOAD.generate(dict([param.split("=", 1)]))


def test_script_prints_json_and_saves_the_longest_trace(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("adversary_script",
                                                  ROOT / "scripts" / "adversary.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / "t.npz"
    assert script.main(["--capacity", "3", "--horizons", "20,40", "--json",
                        "--out", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["steps"] for r in doc["rows"]] == [20, 40]
    assert all(r["ratio_exact"] and r["policy_cost"] == r["steps"] for r in doc["rows"])
    assert load(out).steps == 40
    assert script.main(["--capacity", "3", "--horizons", "20"]) == 0
    assert "ratio" in capsys.readouterr().out
    assert script.main(["--horizons", "0"]) == 2
    assert "--horizons" in capsys.readouterr().err
