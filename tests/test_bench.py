"""The benchmarks run and compare like with like; speed itself is never asserted.

Run with ``--benchmark-enable`` to have pytest-benchmark time them; by default (see
``addopts``) each runs once as a plain test.
"""

import collections
import importlib.util
import json
import pathlib

import pytest

from simulator import bench
from simulator.runner import run
from simulator.trace import PagingTrace
from workloads.zipf_paging import zipf_requests

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
    assert [r["name"] for r in rows] == ["paging-fifo", "paging-lru", "paging-arc",
                                         "semantic-fifo", "simpy-fifo"]
    assert all(r["hits_equal"] for r in rows)
    assert all(r["ours_req_per_s"] > 0 and r["baseline_req_per_s"] > 0 for r in rows)
    assert [r["target_ratio"] for r in rows] == [5.0, 5.0, 5.0, 8.0, 0.5]
    assert all(r["meets_target"] == (r["ratio"] >= r["target_ratio"]) for r in rows)


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


def _arc_ceiling():
    root = pathlib.Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("arc_ceiling", root / "scripts" /
                                                  "arc_ceiling.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


@pytest.mark.parametrize("capacity, objects, alpha", [(1, 5, 0.0), (2, 7, 0.5), (3, 40, 0.9),
                                                      (50, 400, 1.2)])
def test_inlined_arc_of_the_ceiling_script_is_arc(capacity, objects, alpha):
    script = _arc_ceiling()
    req = zipf_requests(3_000, objects, alpha, seed=capacity)
    want = run(PagingTrace.from_requests(req), "arc", capacity=capacity).summary()["hits"]
    assert script.inlined_arc(req, objects, capacity, True) == want


def _two_lists_without_ghosts(req, capacity):
    """The ceiling script's "no ghosts" loop in plain Python: T1 and T2 in LRU order, a hit
    moves to the front of T2, a miss evicts the LRU of T1 (of T2 if T1 is empty) and enters
    T1 (ARC with B1 and B2 always empty, so p stays 0)."""
    t1, t2, hits = collections.OrderedDict(), collections.OrderedDict(), 0
    for key in req.tolist():
        if key in t1 or key in t2:
            hits += 1
            t1.pop(key, None)
            t2.pop(key, None)
            t2[key] = True
            continue
        if len(t1) + len(t2) == capacity:
            (t1 if t1 else t2).popitem(last=False)
        t1[key] = True
    return hits


@pytest.mark.parametrize("capacity, objects, alpha", [(1, 5, 0.0), (3, 40, 0.9),
                                                      (50, 400, 1.2)])
def test_no_ghost_loop_of_the_ceiling_script_is_arc_without_ghosts(capacity, objects, alpha):
    req = zipf_requests(3_000, objects, alpha, seed=capacity)
    assert _arc_ceiling().inlined_arc(req, objects, capacity, False) == \
        _two_lists_without_ghosts(req, capacity)


def test_arc_ceiling_script_prints_every_row(capsys):
    script = _arc_ceiling()
    assert script.main(["--steps", "20000", "--objects", "2000", "--capacity", "100",
                        "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in doc["rows"]] == ["engine", "inlined", "no ghosts",
                                                "libCacheSim"]
    assert len({r["hits"] for r in doc["rows"] if r["name"] != "no ghosts"}) == 1
    assert doc["rows"][-1]["ratio_to_libcachesim"] == 1.0
