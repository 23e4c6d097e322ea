"""The benchmarks run and compare like with like; speed itself is never asserted.

Run with ``--benchmark-enable`` to have pytest-benchmark time them; by default (see
``addopts``) each runs once as a plain test.
"""

import pytest

from simulator import bench

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
