"""The benchmarks run and compare like with like; speed itself is never asserted.

Run with ``--benchmark-enable`` to have pytest-benchmark time them; by default (see
``addopts``) each runs once as a plain test.
"""

import importlib.util
import json
import math
import pathlib

import pytest

from simulator.experiments import bench

pytest.importorskip("libcachesim")


@pytest.mark.parametrize("policy", bench.PAGING_POLICIES)
def test_paging_benchmark(benchmark, policy):
    rows = benchmark(bench.paging_benchmark, steps=20_000, objects=2_000, capacity=100,
                     policies=(policy,))
    assert [r["name"] for r in rows] == [f"paging-{policy}"]
    assert rows[0]["hits_equal"] is True


def test_semantic_benchmark(benchmark):
    row = benchmark(bench.semantic_benchmark, steps=1_000, capacity=20, dim=32)
    assert row["name"] == "semantic-fifo"
    assert row["hits_equal"] is True


def test_run_all_quick():
    rows = bench.run_all(quick=True)
    search = [r for r in rows if r["name"].startswith("search-")]
    rows = [r for r in rows if r not in search]
    assert [r["name"] for r in search] == [
        "search-lru-paging", "search-fifo-paging", "search-lfu-paging", "search-solar-d53",
        "search-solar-excess", "search-solar-d53-excess"]
    assert all(r["evaluations_equal"] and r["target_ratio"] == 1.0 for r in search)
    assert all(r["meets_target"] == (r["ours_score"] > r["baseline_score"]) for r in search)
    assert [r["name"] for r in rows] == ["paging-fifo", "paging-lru", "paging-arc",
                                         "sized-fifo", "sized-lru", "overhead-sized-fifo",
                                         "semantic-fifo", "simpy-fifo", "opt-flow",
                                         "startup-version", "modification-solar-K100",
                                         "modification-solar-K1000", "step-solar-K100-d384"]
    assert all(r["hits_equal"] for r in rows)
    assert all(r["ours_req_per_s"] > 0 and r["baseline_req_per_s"] > 0 for r in rows)
    assert [r["target_ratio"] for r in rows] == [5.0, 5.0, 5.0, 3.0, 3.0, 1 / 1.3, 8.0, 0.5,
                                                 2.0, 0.1, 0.1, 0.01, 1.0]
    assert all(r["meets_target"] == (r["ratio"] >= r["target_ratio"]) for r in rows)


def test_the_opt_row_compares_two_exact_solvers_that_agree():
    row = bench.opt_benchmark(steps=400, capacity=3, topics=5, repeats=1)
    assert row["name"] == "opt-flow" and row["hits_equal"]
    assert row["ours_cost"] == row["baseline_cost"] > 0
    assert row["ratio"] == row["ours_req_per_s"] / row["baseline_req_per_s"]


def test_the_startup_row_times_the_version_against_a_bare_interpreter():
    row = bench.startup_benchmark(repeats=1)
    assert row["name"] == "startup-version" and row["baseline"] == "python -c pass"
    assert row["hits_equal"] and row["answer"].startswith("semcache ")
    assert row["ours_s"] > 0 and row["baseline_s"] > 0
    assert row["ratio"] == pytest.approx(row["baseline_s"] / row["ours_s"])
    assert row["target_ratio"] == 0.1  # at most ten times a bare interpreter's start
    assert row["meets_target"] == (row["ratio"] >= row["target_ratio"])


def test_the_cost_claim_rows_time_every_step_as_a_modification_against_a_smaller_k():
    from simulator.experiments import bench_claims

    trace = bench.semantic_trace(300, 8, 0)
    (row,) = bench_claims.modification_rows(trace, capacities=(40,), base=4, repeats=1)
    # τ = 0 makes every step a modification at both capacities: the rates compare like
    # with like, and "hits_equal" says so
    assert row["hits_equal"] and row["baseline"] == "K = 4" and row["target_ratio"] == 0.1
    assert row["ratio"] == pytest.approx(row["ours_req_per_s"] / row["baseline_req_per_s"])
    assert math.isfinite(row["growth_exponent"])
    step = bench_claims.step_row(bench.semantic_trace(200, 16, 0), capacity=10, repeats=1)
    assert step["name"] == "step-solar-K10-d16" and step["baseline_ms"] == 1.0
    assert "not measured" in step["reference"]
    assert step["ratio"] == pytest.approx(1.0 / step["ours_ms"])
    assert step["meets_target"] == (step["ours_ms"] < 1.0)


def test_cli_prints_each_target_and_whether_it_is_met(capsys, monkeypatch):
    from simulator.cli import main

    rows = [bench._row("paging-lru", "libCacheSim", 100, 40, 1.0, 40, 4.5),
            bench._row("semantic-fifo", "numpy loop", 100, 7, 1.0, 7, 9.0),
            bench._row("paging-arc", "libCacheSim", 100, 40, 1.0, 41, 9.0)]
    monkeypatch.setattr(bench, "run_all", lambda quick=False: rows)
    assert main(["bench"]) == 0
    out = capsys.readouterr().out
    assert "5x missed" in out and "8x met" in out and "hits differ" in out
    assert "quick:" not in out
    assert [r["meets_target"] for r in rows] == [False, True, False]


def _arc_loops():
    root = pathlib.Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("arc_loops", root / "scripts" /
                                                  "arc_loops.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


def test_arc_loops_script_prints_every_row(capsys):
    script = _arc_loops()
    assert script.main(["--steps", "20000", "--objects", "2000", "--capacity", "100",
                        "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in doc["rows"]] == ["own loop", "hook loop", "libCacheSim"]
    assert len({r["hits"] for r in doc["rows"]}) == 1
    assert doc["rows"][-1]["ratio_to_libcachesim"] == 1.0
    assert doc["needed_for_5x_ns"] == doc["rows"][-1]["ns_per_request"] / 5


def test_arc_loops_script_text_output(capsys):
    assert _arc_loops().main(["--steps", "3000", "--objects", "300", "--capacity", "20"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:3]] == ["own", "hook", "libCacheSim"]
    assert lines[-1].startswith("5x libCacheSim needs ")
