"""``semcache ratio``: a policy's cost, OPT and their ratio, exact or bounded, on paging
(against Belady) and semantic traces (against docs/model.md §4's OPT); bad input in one
line with exit code 2."""

from __future__ import annotations

import json

import numpy as np
import pytest

import simulator
import workloads
from simulator.cli import main
from simulator.trace import PagingTrace
from simulator.trace_formats import save
from theory.opt import opt

CYCLING = ["--workload", "cycling", "--param", "steps=24", "--param", "topics=3",
           "--param", "items_per_topic=1", "--param", "dim=8", "--capacity", "2",
           "--top-k", "2", "--switch-cost", "0.5"]


def _cli(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("K, cycles, lam", [(2, 5, 0.0), (3, 4, 0.5)])
def test_fifo_on_a_cycle_over_k_plus_one_pages(capsys, tmp_path, K, cycles, lam):
    """By hand: FIFO misses every request; Belady misses the K cold requests, then once
    every K requests (it evicts the page wanted last, which comes back K requests on)."""
    T = K + K * cycles
    path = tmp_path / "cycle.npz"
    save(PagingTrace.from_requests(np.arange(T) % (K + 1)), path)
    argv = ["ratio", "--policy", "fifo", "--trace", str(path), "--capacity", str(K),
            "--switch-cost", str(lam)]
    code, out, err = _cli(capsys, argv + ["--json"])
    doc = json.loads(out)
    # every miss admits, so each policy's cost is (1 + λ) per miss
    assert code == 0 and doc["cost"] == T * (1 + lam)
    assert doc["opt"]["cost"] == (K + cycles) * (1 + lam) and doc["opt"]["exact"]
    assert doc["opt"]["method"].startswith("belady")
    assert doc["ratio"] == dict(exact=True, value=T / (K + cycles), lower=T / (K + cycles),
                                upper=T / (K + cycles))
    assert doc["options"]["capacity"] == K and doc["workload"]["mode"] == "paging"
    assert doc["run"]["policy"] == "fifo" and doc["run"]["hits"] == 0
    code, out, _ = _cli(capsys, argv)
    assert code == 0 and f"ratio  {T / (K + cycles):.4g}" in out


def test_a_semantic_ratio_is_the_runs_cost_over_exact_opt(capsys):
    code, out, _ = _cli(capsys, ["ratio", "--policy", "lru"] + CYCLING + ["--json"])
    doc = json.loads(out)
    trace = workloads.get("cycling").generate(
        {"steps": 24, "topics": 3, "items_per_topic": 1, "dim": 8}, 0)
    cost = simulator.run(trace, "lru", capacity=2, top_k=2, switch_cost=0.5).summary()["cost"]
    best = opt(trace, 2, 2, 0.5)
    assert code == 0 and doc["cost"] == cost and doc["opt"]["cost"] == best.opt_cost
    assert doc["ratio"]["exact"] and doc["ratio"]["value"] == cost / best.opt_cost
    assert set(doc) == {"workload", "policy", "policy_params", "options", "cost", "run",
                        "opt", "ratio"}
    assert "elapsed_s" not in doc["run"]  # the same seed prints the same document
    again = _cli(capsys, ["ratio", "--policy", "lru"] + CYCLING + ["--json"])[1]
    assert again == out


def test_bounds_give_an_interval_around_the_exact_ratio(capsys):
    """A limit that has passed before OPT's first phase stands in for a slow instance."""
    base = ["ratio", "--policy", "fifo"] + CYCLING
    exact = json.loads(_cli(capsys, base + ["--json"])[1])
    code, out, _ = _cli(capsys, base + ["--time-limit", "1e-9", "--json"])
    doc = json.loads(out)
    assert code == 0 and not doc["opt"]["exact"] and doc["opt"]["cost"] is None
    assert doc["opt"]["time_limit"] == 1e-9 and doc["ratio"]["value"] is None
    low, high = doc["opt"]["lower_bound"], doc["opt"]["upper_bound"]
    assert doc["ratio"]["lower"] == doc["cost"] / high
    assert doc["ratio"]["upper"] == doc["cost"] / low
    assert doc["ratio"]["lower"] <= exact["ratio"]["value"] <= doc["ratio"]["upper"]
    text = _cli(capsys, base + ["--time-limit", "1e-9"])[1]
    assert f"ratio  in [{doc['ratio']['lower']:.4g}, {doc['ratio']['upper']:.4g}]" in text


@pytest.mark.parametrize("argv, words", [
    (CYCLING, "required: --policy"),
    (["--policy", "nope"] + CYCLING, "unknown policy 'nope'"),
    (["--policy", "belady"] + CYCLING, "not defined in semantic mode"),
    (["--policy", "fifo", "--time-limit", "-1"] + CYCLING, "--time-limit must be"),
    (["--policy", "fifo", "--workload", "cycling"], "--capacity K is required"),
    (["--policy", "fifo", "--workload", "zipf_paging", "--param", "steps=50",
      "--capacity", "2", "--budget", "4"], "drop --budget"),
    (["--policy", "fifo", "--capacity", "0"] + CYCLING[:-6], "--capacity"),
])
def test_bad_input_is_one_line_and_exit_code_2(capsys, argv, words):
    code, out, err = _cli(capsys, ["ratio"] + argv)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("semcache: error: ") and words in err
