"""Hostile conditions that only real processes show: two sweeps racing for one store, a
writer killed with SIGKILL, a file size limit reached while writing.

The in-process searches of these kinds are in :mod:`test_hostile_writes`; each test here
runs ``python -m simulator.cli`` in its own processes, so it is pinned, not searched.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time

import pytest

from helpers.hostile_contract import snapshot

SWEEP = ["sweep", "--workload", "zipf_paging", "--param", "steps=300", "--param",
         "objects=20", "--policy", "fifo,lru,lfu", "--seeds", "0-3", "--workers", "0",
         "--out", "st"]


def _cli(argv, cwd, **kwargs) -> subprocess.Popen:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.Popen([sys.executable, "-m", "simulator.cli", *map(str, argv)],
                            cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kwargs)


def test_two_sweeps_started_together_store_each_run_once(tmp_path):
    """Two overlapping grids on one store: once the loser resumes, every run of both
    grids is stored exactly once (the unlocked store held a third of its rows twice)."""
    from simulator.experiments.sweep.store import load_rows

    grids = [["--capacity", "2,3,4"], ["--capacity", "3,4,5"]]
    procs = [_cli(SWEEP + grid, tmp_path) for grid in grids]
    results = [(p.wait(timeout=300), *p.communicate()) for p in procs]
    for (code, out, err), grid in zip(results, grids):
        if code != 0:  # the store was held: one line, and a resume finishes the grid
            assert code == 2 and err.count("\n") == 1 and "another sweep" in err, err
            again = _cli(SWEEP + grid + ["--resume"], tmp_path)
            assert again.wait(timeout=300) == 0, again.communicate()
    ids = [row["task_id"] for row in load_rows(str(tmp_path / "st"))]
    assert len(ids) == len(set(ids)) == 3 * 4 * 4  # policies x seeds x capacities 2..5


def test_a_killed_writers_partial_goes_with_the_next_write(tmp_path):
    proc = _cli(["workload", "make", "zipf_paging", "--param", "steps=20000000",
                 "--out", "big.oracleGeneral.zst"], tmp_path)
    deadline = time.monotonic() + 120
    while not [n for n in os.listdir(tmp_path) if n.endswith(".tmp.zst")]:
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    partial = next(n for n in os.listdir(tmp_path) if n.endswith(".tmp.zst"))
    os.utime(tmp_path / partial, (0, 1e9))  # older than the grace period
    again = _cli(["workload", "make", "zipf_paging", "--param", "steps=100", "--out",
                  "small.oracleGeneral.zst"], tmp_path)
    assert again.wait(timeout=120) == 0, again.communicate()
    assert sorted(os.listdir(tmp_path)) == ["small.oracleGeneral.zst"]


def _file_size_limit(limit: int):
    def apply():  # what a full disk does to a writer: EFBIG past ``limit`` bytes a file
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@pytest.mark.parametrize("name", ["z.oracleGeneral", "z.oracleGeneral.zst", "z.npz"])
def test_a_file_limit_reached_while_writing_is_one_line(tmp_path, name):
    (tmp_path / name).write_bytes(b"an earlier trace")
    before = snapshot(tmp_path)
    proc = _cli(["workload", "make", "zipf_paging", "--param", "steps=400000", "--out",
                 name], tmp_path, preexec_fn=_file_size_limit(100_000))
    code = proc.wait(timeout=300)
    out, err = proc.communicate()
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1 and err.startswith("semcache: error: ") and "--out" in err
    assert snapshot(tmp_path) == before
