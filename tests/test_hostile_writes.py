"""Hostile conditions for outputs: a second writer, a full disk, a killed writer.

* Two sweeps on one store: the second, started while the first holds the store, keeps
  the bad-input contract and leaves the store as it was; two started together leave each
  run once; a store holding runs twice is repaired by ``--resume``, no run lost.
* ``reproduce --out DIR`` failing at any write (a full disk, searched over which file and
  which rename fails) leaves ``DIR`` exactly as it was, never new files beside old ones.
* ``workload make``: its disk estimate bounds the file it writes, and a disk too small or
  full is one line with nothing left behind.
* A writer killed with SIGKILL leaves a hidden partial; the next write into the folder
  removes it, and never a partial that a live writer owns.

:mod:`test_hostile_durable` holds the tests that run real processes (races, kills, file
size limits).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import os
import shutil
from unittest import mock

import pyarrow.parquet as pq
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from helpers.hostile_contract import assert_rejected
from helpers.hostile_files import outcome, workdir

SWEEP = ["sweep", "--workload", "zipf_paging", "--param", "steps=40", "--param",
         "objects=8", "--policy", "fifo,lru", "--workers", "0"]


def _few(n: int):
    return settings(max_examples=n, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------- sweeps

@_few(8)
@given(capacities=st.sets(st.sampled_from("2345"), min_size=1).map(lambda s: ",".join(sorted(s))),
       resume=st.booleans(), stored=st.booleans())
@example(capacities="2,3", resume=False, stored=False)  # overlapping grids, one store
def test_a_sweep_on_a_held_store_is_one_line(capacities, resume, stored):
    from simulator.experiments.sweep import store as sweep_store

    folder = workdir()
    try:
        if stored:
            assert outcome(SWEEP + ["--capacity", "2", "--out", "st"], folder) is None
        with sweep_store.locked(str(folder / "st")):  # another sweep holds it
            assert_rejected(SWEEP + ["--capacity", capacities, "--out", "st"]
                            + (["--resume"] if resume else []), folder, "another sweep")
    finally:
        shutil.rmtree(folder)


def _rows(store) -> list:
    from simulator.experiments.sweep.store import load_rows

    return load_rows(str(store))


@_few(8)
@given(parts=st.lists(st.lists(st.integers(0, 7), min_size=1, max_size=8), min_size=1,
                      max_size=4))
@example(parts=[[0, 1, 2, 3], [2, 3, 4, 5], [2, 3]])  # two grids' overlap, and a copy
def test_resume_drops_rows_stored_twice(parts):
    """A store whose parts hold runs twice (what two unlocked sweeps left) is resumed:
    every run of the grid once, none lost."""
    from simulator.experiments.sweep import store as sweep_store

    folder = workdir()
    try:
        assert outcome(SWEEP + ["--capacity", "2,3,4,5", "--out", "full"], folder) is None
        rows = sorted(_rows(folder / "full"), key=lambda r: r["task_id"])
        for i, picks in enumerate(parts):
            sweep_store.write_part(str(folder / "st"), f"p{i}", [rows[p] for p in picks])
        held = [rows[p]["task_id"] for picks in parts for p in picks]
        code, out = _json(SWEEP + ["--capacity", "2,3,4,5", "--out", "st", "--resume", "--json"],
                          folder)
        assert code == 0
        assert out["duplicates_dropped"] == len(held) - len(set(held))
        assert out["rows_written"] == len(rows) - len(set(held))
        after = [r["task_id"] for r in _rows(folder / "st")]
        assert sorted(after) == sorted(r["task_id"] for r in rows)
    finally:
        shutil.rmtree(folder)


def _json(argv, folder) -> tuple:
    import io

    from simulator.cli import main

    out, cwd = io.StringIO(), os.getcwd()
    try:
        os.chdir(folder)
        with contextlib.redirect_stdout(out):
            code = main(argv)
    finally:
        os.chdir(cwd)
    return code, json.loads(out.getvalue()) if code == 0 else None


# --------------------------------------------------------------------------- reproduce --out

def _fast_table8():
    """table8 with canned cells: its files, not its measurement, are under test."""
    from simulator.experiments.reproduce import REGISTRY
    from simulator.experiments.reproduce.base import cell

    def measure(quick, seeds):
        return [cell(p, c, s, 0.25 * i) for i, p in enumerate(("fifo", "lru"))
                for c in ("m/K=1", "m/K=2") for s in seeds], ["canned"]

    return dataclasses.replace(REGISTRY["table8"], measure=measure, findings=None)


def _full_disk(at: int, where: str):
    """``os.replace`` or the stage's writes failing as a full disk does, at call ``at``."""
    from simulator.experiments.reproduce import base

    calls = []
    real = base.write_atomically if where == "write" else os.replace

    def failing(*args, **kwargs):
        calls.append(args)
        if len(calls) - 1 == at and (where == "write" or ".semcache-stage-" in str(args[0])):
            if where == "write":  # half a file written, then the disk is full
                with open(args[0], "wb") as f:
                    f.write(b"partial")
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, **kwargs)

    target = "simulator.experiments.reproduce.base.write_atomically" if where == "write" \
        else "os.replace"
    return mock.patch(target, failing)


@_few(20)
@given(before=st.sampled_from(["missing", "empty", "old files", "old and others"]),
       where=st.sampled_from(["write", "rename"]), at=st.integers(0, 4))
@example(before="old files", where="write", at=1)  # a new parquet beside an old png
@example(before="old files", where="write", at=0)
@example(before="missing", where="write", at=2)
@example(before="old and others", where="rename", at=1)
def test_a_failed_reproduce_leaves_its_folder_as_it_was(before, where, at):
    from simulator.experiments.reproduce import REGISTRY

    folder = workdir()
    out = folder / "out"
    if before != "missing":
        out.mkdir()
    if before.startswith("old"):
        for ext in ("png", "parquet", "json"):
            (out / f"table8.{ext}").write_bytes(f"an earlier {ext}".encode())
    if before == "old and others":
        (out / "notes.txt").write_text("someone else's\n")
    try:
        with mock.patch.dict(REGISTRY, {"table8": _fast_table8()}), _full_disk(at, where):
            line = outcome(["reproduce", "table8", "--quick", "--seeds", "0", "--out",
                            "out"], folder)
        if line is None:  # fewer writes or renames than ``at``: it succeeded whole
            assert {p.name for p in out.iterdir()} >= {"table8.png", "table8.parquet",
                                                         "table8.json"}
            assert not [p for p in out.iterdir() if p.name.startswith(".semcache-")]
            return
        assert "--out" in line and "space" in line
    finally:
        shutil.rmtree(folder)


def test_a_reproduction_lands_all_its_files():
    from simulator.experiments.reproduce import REGISTRY

    folder = workdir()
    try:
        with mock.patch.dict(REGISTRY, {"table8": _fast_table8()}):
            assert outcome(["reproduce", "table8", "--quick", "--seeds", "0", "--out", "o",
                            "--json"], folder) is None
        assert sorted(os.listdir(folder / "o")) == ["table8.json", "table8.parquet",
                                                    "table8.png"]
        assert len(pq.read_table(folder / "o" / "table8.parquet")) == 4
    finally:
        shutil.rmtree(folder)


# --------------------------------------------------------------------------- workload make

@_few(12)
@given(steps=st.integers(1, 3000), objects=st.sampled_from([1, 50, 10**6]),
       alpha=st.sampled_from([0, 0.9]), sized=st.booleans(), zst=st.booleans(),
       seed=st.integers(0, 3))
@example(steps=3000, objects=10**6, alpha=0, sized=True, zst=True, seed=0)  # barely compress
def test_the_disk_estimate_bounds_the_file(steps, objects, alpha, sized, zst, seed):
    from simulator.cli.workload import disk_bound

    folder = workdir()
    name = "z.oracleGeneral" + (".zst" if zst else "")
    try:
        argv = ["workload", "make", "zipf_paging", "--param", f"steps={steps}", "--param",
                f"objects={objects}", "--param", f"alpha={alpha}", "--seed", str(seed),
                "--out", name]
        argv += ["--param", "sizes=lognormal"] if sized else []
        assert outcome(argv, folder) is None
        assert os.path.getsize(folder / name) <= disk_bound(name, steps)
    finally:
        shutil.rmtree(folder)


@_few(6)
@given(free=st.integers(0, 24 * 999), zst=st.booleans())
@example(free=1000, zst=True)  # passed at 1 byte a request, then died writing
def test_a_disk_too_small_for_the_bound_is_one_line(free, zst):
    import shutil as sh

    folder = workdir()
    usage = sh.disk_usage(folder)._replace(free=free)
    try:
        with mock.patch("shutil.disk_usage", lambda path: usage):
            line = assert_rejected(["workload", "make", "zipf_paging", "--param", "steps=1000",
                                    "--out", "z.oracleGeneral" + (".zst" if zst else "")],
                                   folder, "disk")
        assert "--out" in line
    finally:
        shutil.rmtree(folder)


@_few(6)
@given(at=st.integers(0, 2), zst=st.booleans())
@example(at=1, zst=True)  # an OSError traceback, the partial left behind
def test_a_full_disk_while_writing_is_one_line(at, zst):
    from simulator.trace_formats import streams

    folder = workdir()
    real, calls = streams.create_bytes, []

    @contextlib.contextmanager
    def filling(path, level=3):
        with real(path, level) as out:
            class Full:
                def write(self, data):
                    calls.append(len(data))
                    if len(calls) > at:
                        raise OSError(errno.ENOSPC, "No space left on device")
                    return out.write(data)
            yield Full()

    try:
        with mock.patch("simulator.trace_formats.oracle_general.create_bytes", filling):
            assert_rejected(["workload", "make", "zipf_paging", "--param", "steps=2500000",
                             "--out", "z.oracleGeneral" + (".zst" if zst else "")], folder,
                            "space")
    finally:
        shutil.rmtree(folder)


# --------------------------------------------------------------------------- partials

PARTIALS = [".semcache-abcd1234.tmp.zst", ".semcache-abcd1234.npz", ".semcache-x.part.tmp",
            ".semcache-y.tmp", ".semcache-stage-z/", ".semcache-report-q/"]
WRITERS = {
    "run --out": ["run", "--workload", "zipf_paging", "--param", "steps=30", "--policy",
                  "fifo", "--out", "r.json"],
    "workload make": ["workload", "make", "zipf_paging", "--param", "steps=30", "--out",
                      "z.oracleGeneral.zst"],
    "trace import": ["trace", "import", "t.txt", "--out", "t.npz"],
}


@_few(25)
@given(name=st.sampled_from(PARTIALS), old=st.booleans(), owned=st.booleans(),
       writer=st.sampled_from(sorted(WRITERS)))
@example(name=".semcache-abcd1234.tmp.zst", old=True, owned=False, writer="workload make")
@example(name=".semcache-abcd1234.npz", old=True, owned=False, writer="trace import")
@example(name=".semcache-report-q/", old=True, owned=False, writer="run --out")
@example(name=".semcache-y.tmp", old=True, owned=True, writer="run --out")  # a live writer's
def test_the_next_write_removes_what_a_killed_writer_left(name, old, owned, writer):
    from simulator.files import partial_files

    folder = workdir()
    (folder / "t.txt").write_bytes(b"1\n2\n1\n")
    path = folder / name.rstrip("/")
    if name.endswith("/"):
        path.mkdir()
        (path / "half.png").write_bytes(b"half")
    else:
        path.write_bytes(b"half a file")
    if old:
        os.utime(path, (0, 1e9))  # 2001: long before the grace period
    partial_files._CLEANED.discard(str(folder))
    try:
        with contextlib.ExitStack() as hold:
            if owned and name.startswith(partial_files.REPORT_STAGE):
                hold.enter_context(partial_files.building_in(str(folder)))  # a live report
            elif owned:  # a live writer's own lock on its partial
                fd = os.open(path, os.O_RDONLY)
                hold.callback(os.close, fd)
                partial_files.own(fd)
            assert outcome(WRITERS[writer], folder) is None
        assert path.exists() == (not old or owned), sorted(os.listdir(folder))
    finally:
        shutil.rmtree(folder)


def test_a_kept_previous_report_is_never_removed():
    from simulator.files import partial_files

    folder = workdir()
    kept = folder / ".semcache-old-report-abc"
    kept.mkdir()
    (kept / "report").mkdir()
    os.utime(kept, (0, 1e9))
    try:
        partial_files._CLEANED.discard(str(folder))
        assert partial_files.clean(str(folder)) == []
        assert (kept / "report").is_dir()
    finally:
        shutil.rmtree(folder)
