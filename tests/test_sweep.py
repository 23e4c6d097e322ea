"""``semcache sweep``: serial equals Dask, kill and Ctrl-C then resume, bad input, JSON."""

import glob
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from simulator import runner
from simulator.experiments import sweep as sw
from simulator.experiments.sweep import cluster as sweep_cluster
from simulator.cli import main
from simulator.experiments.sweep import Grid, sweep
from simulator.experiments.sweep.store import load_results, load_rows

SMALL = Grid("clusters", params={"steps": [200], "topics": [4, 8]}, seeds=[0, 1, 2],
             policies=["fifo", "lru", "solar", "unlimited"], capacities=[5, 10],
             qualities=["hit", "precision"])
# the sweep that tests kill: long enough (40 chunks) to be caught between parts
KILLED = ["--workload", "clusters", "--param", "steps=2000", "--param", "dim=64",
          "--policy", "fifo,solar", "--capacity", "5,10", "--seeds", "0-39"]
KILLED_GRID = Grid("clusters", params={"steps": [2000], "dim": [64]}, seeds=list(range(40)),
                   policies=["fifo", "solar"], capacities=[5, 10])
CLI_SMALL = ["--workload", "clusters", "--param", "steps=200", "--policy", "fifo,lru",
             "--capacity", "4,8", "--seeds", "0-1"]
SUMMARY_KEYS = {"path", "rows_total", "rows_written", "rows_skipped", "duplicates_dropped",
                "chunks", "workers",
                "scheduler", "cluster_start_s", "first_chunk_s", "median_chunk_s", "elapsed_s"}


def _strip(rows):
    """Rows without ``elapsed_s``, the one field that differs from run to run."""
    return [{k: v for k, v in r.items() if k != "elapsed_s"} for r in rows]


def _serial_rows(grid, tmp_path, name="serial"):
    sweep(grid, str(tmp_path / name), workers=0)
    return _strip(load_rows(str(tmp_path / name)))


@pytest.fixture(scope="module")
def client():
    """One LocalCluster (2 worker processes) shared by the tests of this module."""
    helper = sweep_cluster.start_local(2)
    client = sweep_cluster.connect_local(helper, threading.Event())
    yield client
    client.close()
    sweep_cluster.stop_local(helper)


@pytest.fixture(scope="module")
def killed_reference(tmp_path_factory):
    """The rows of a fresh serial run of ``KILLED_GRID``."""
    return _serial_rows(KILLED_GRID, tmp_path_factory.mktemp("reference"))


def _cli(capsys, argv):
    code = main(["sweep", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("grid", [
    SMALL,  # six traces: one chunk per trace
    Grid("clusters", params={"steps": [300]}, seeds=[4], policies=["fifo", "arc", "solar_e"],
         capacities=[3, 6]),  # one trace, fewer than the workers: split by policy
], ids=["per-trace", "split-by-policy"])
def test_dask_rows_equal_serial_rows(client, tmp_path, grid):
    serial = _serial_rows(grid, tmp_path)
    result = sweep(grid, str(tmp_path / "dask"), client=client)
    assert result.rows_written == result.rows_total == len(grid.tasks()) == len(serial)
    assert result.workers == 2 and len(result.first_chunk_s) <= 2  # the cluster is shared
    assert _strip(load_rows(str(tmp_path / "dask"))) == serial


def test_rows_hold_the_run_record_params_and_a_unique_task_id(tmp_path):
    rows = _serial_rows(SMALL, tmp_path)
    # unlimited runs once per (params, seed, quality), whatever the capacities
    assert len(rows) == 2 * 3 * 2 * (3 * 2 + 1)
    assert len({r["task_id"] for r in rows}) == len(rows)
    row = next(r for r in rows if r["policy"] == "solar" and r["param.topics"] == 8
               and r["seed"] == 2 and r["capacity"] == 10 and r["quality"] == "precision")
    import workloads

    trace = workloads.get("clusters").generate({"steps": 200, "topics": 8}, 2)
    record = runner.run(trace, "solar", capacity=10, quality="precision", seed=2).summary()
    record["params"] = json.dumps(record["params"])
    del record["elapsed_s"]
    assert {k: row[k] for k in record} == record
    assert row["workload"] == "clusters" and row["param.steps"] == 200
    assert row["param.dim"] == 128  # defaults are recorded too
    assert [r["capacity"] for r in rows if r["policy"] == "unlimited"] == [None] * 12


def test_task_ids_are_stable_and_name_one_run():
    ids = {t["task_id"] for t in SMALL.tasks()}
    reordered = Grid("clusters", params={"topics": ["8", "4"], "steps": ["200"]},
                     seeds=[2, 1, 0], policies=["unlimited", "solar", "lru", "fifo"],
                     capacities=[10, 5], qualities=["precision", "hit"])
    assert {t["task_id"] for t in reordered.tasks()} == ids
    wider = Grid(**{**SMALL.__dict__, "capacities": [5, 10, 20]})
    assert ids < {t["task_id"] for t in wider.tasks()}


def test_chunks_group_runs_by_trace_or_by_trace_and_policy():
    tasks = SMALL.tasks()
    assert len(sw.chunks(tasks)) == 6
    assert len(sw.chunks(tasks, split_by_policy=True)) == 6 * 4
    assert sorted(t["task_id"] for c in sw.chunks(tasks) for t in c["runs"]) == \
        sorted(t["task_id"] for t in tasks)


def test_resume_runs_only_what_the_store_lacks(tmp_path):
    out = str(tmp_path / "store")
    first = Grid(**{**SMALL.__dict__, "capacities": [5]})
    assert sweep(first, out, workers=0).rows_written == len(first.tasks())
    result = sweep(SMALL, out, workers=0, resume=True)
    assert result.rows_skipped == len(first.tasks())
    assert result.rows_written == len(SMALL.tasks()) - len(first.tasks())
    assert _strip(load_rows(out)) == _serial_rows(SMALL, tmp_path)
    again = sweep(SMALL, out, workers=0, resume=True)
    assert (again.rows_written, again.chunks) == (0, 0)


TINY = Grid("clusters", params={"steps": [50]}, seeds=[0], policies=["fifo"], capacities=[3])


def test_rows_carry_the_code_that_ran_them(tmp_path):
    from simulator.experiments.code_id import code_id

    out = str(tmp_path / "store")
    sweep(TINY, out, workers=0)
    assert {row["code"] for row in load_rows(out)} == {code_id()}


@pytest.mark.parametrize("stored, shown", [("0123456789ab", "has code 0123456789ab"),
                                           (None, "has code none")])
def test_resume_refuses_a_store_begun_by_another_version(tmp_path, stored, shown):
    """A part with no code manifest (as parts were written before they kept one)."""
    from simulator.errors import InputError
    from simulator.experiments.sweep.store import write_part

    out = str(tmp_path / "store")
    os.mkdir(out)
    row = {"task_id": "elsewhere", "policy": "fifo"}
    write_part(out, "old", [row if stored is None else dict(row, code=stored)])
    with pytest.raises(InputError, match=f"holds runs of another version of semcache "
                                         f"\\(part 'part-old.parquet' {shown} and no "
                                         "manifest of its code; this one is "):
        sweep(TINY, out, workers=0, resume=True)
    assert os.listdir(out) == ["part-old.parquet"]  # nothing was run or written


def test_a_worker_with_another_version_stops_the_sweep(tmp_path, monkeypatch):
    """A worker of a version before manifests: its rows carry its own code and no
    manifest comes back."""
    from simulator.errors import InputError

    def elsewhere(chunk):
        rows, info = run_chunk(chunk)
        del info["manifest"]
        return [dict(r, code="0123456789ab") for r in rows], info

    run_chunk = sw.run_chunk
    monkeypatch.setattr(sw, "run_chunk", elsewhere)
    with pytest.raises(InputError, match="runs another version of semcache"):
        sweep(TINY, str(tmp_path / "store"), workers=0)
    assert not (tmp_path / "store").exists()  # bad input leaves nothing behind


def _start(tmp_path, argv):
    """``semcache sweep`` in its own process group, so a signal reaches its workers too."""
    return subprocess.Popen([sys.executable, "-m", "simulator.cli", "sweep", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path, start_new_session=True)


def _signal_after_first_part(proc, store, sig):
    deadline = time.monotonic() + 120
    while not glob.glob(os.path.join(store, "part-*.parquet")):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no part file within 120 s"
        time.sleep(0.01)
    os.killpg(proc.pid, sig)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def _group_gone(pgid):
    """Every process of the group (client, nanny and worker processes) has exited."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_killed_sweep_resumes_without_losing_or_duplicating_rows(client, tmp_path, capsys,
                                                                 killed_reference):
    store = str(tmp_path / "store")
    proc = _start(tmp_path, [*KILLED, "--out", store, "--workers", "2"])
    code, _, _ = _signal_after_first_part(proc, store, signal.SIGKILL)
    assert code == -signal.SIGKILL and _group_gone(proc.pid)
    kept = load_rows(store)
    assert 0 < len(kept) < len(KILLED_GRID.tasks())
    address = client.scheduler.address
    code, out, err = _cli(capsys, [*KILLED, "--out", store, "--resume", "--scheduler", address,
                                   "--json"])
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["rows_skipped"] == len(kept)
    assert doc["rows_written"] + doc["rows_skipped"] == doc["rows_total"] == 40 * 4
    final = _strip(load_rows(store))
    assert len({r["task_id"] for r in final}) == len(final) == 40 * 4
    assert final == killed_reference


def test_ctrl_c_keeps_finished_rows_and_stops_the_cluster(tmp_path, killed_reference):
    store = str(tmp_path / "store")
    proc = _start(tmp_path, [*KILLED, "--out", store, "--workers", "2", "--json"])
    code, out, err = _signal_after_first_part(proc, store, signal.SIGINT)
    assert (code, out, err) == (130, "", "semcache: interrupted\n")
    assert _group_gone(proc.pid)
    assert not [n for n in os.listdir(store) if not n.startswith("part-")]
    kept = _strip(load_rows(store))
    assert 0 < len(kept) < 40 * 4
    serial = {r["task_id"]: r for r in killed_reference}
    assert all(serial[r["task_id"]] == r for r in kept)


def test_a_killed_worker_loses_no_rows(client, tmp_path, killed_reference):
    """Dask reruns a dead worker's chunk elsewhere; the store gets its rows once."""
    victim = next(iter(client.run(os.getpid).values()))
    store = str(tmp_path / "store")

    def kill_after_first_part():
        deadline = time.monotonic() + 120
        while not glob.glob(os.path.join(store, "part-*")) and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(victim, signal.SIGKILL)

    killer = threading.Thread(target=kill_after_first_part)
    killer.start()
    result = sweep(KILLED_GRID, store, client=client)
    killer.join()
    assert victim not in client.run(os.getpid).values()
    assert result.rows_written == 40 * 4
    assert _strip(load_rows(store)) == killed_reference


def test_ctrl_c_in_process_keeps_whole_chunks(tmp_path, capsys, monkeypatch):
    calls = []
    real = runner.run

    def run(*args, **kwargs):
        calls.append(1)
        if len(calls) == 6:  # inside the second of two chunks of four runs
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "run", run)
    store = tmp_path / "store"
    code, out, err = _cli(capsys, [*CLI_SMALL, "--out", str(store), "--workers", "0"])
    assert (code, out, err) == (130, "", "semcache: interrupted\n")
    assert len(load_rows(str(store))) == 4 and len(os.listdir(store)) == 1


def test_json_output_contract(tmp_path, capsys):
    store = str(tmp_path / "store")
    code, out, err = _cli(capsys, [*CLI_SMALL, "--out", store, "--workers", "0", "--json"])
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert set(doc) == SUMMARY_KEYS
    assert doc["path"] == store and doc["scheduler"] is None
    assert (doc["rows_total"], doc["rows_written"], doc["rows_skipped"]) == (8, 8, 0)
    assert type(doc["elapsed_s"]) is float and doc["elapsed_s"] > 0
    code, out, err = _cli(capsys, [*CLI_SMALL, "--out", store, "--workers", "0", "--json",
                                   "--resume"])
    assert json.loads(out)["rows_skipped"] == 8 and json.loads(out)["rows_written"] == 0
    code, out, err = _cli(capsys, [*CLI_SMALL, "--out", str(tmp_path / "b"), "--workers",
                                   "0"])
    assert code == 0 and "wrote 8 rows" in out and err == ""


def test_progress_bar_goes_to_stderr(tmp_path, capsys):
    grid = Grid("clusters", params={"steps": [100]}, policies=["fifo"], capacities=[4])
    sweep(grid, str(tmp_path / "s"), workers=0, progress=True)
    captured = capsys.readouterr()
    assert captured.out == "" and "sweep" in captured.err and "1/1" in captured.err


@pytest.mark.parametrize("extra, message", [
    (["--capacity", ""], "--capacity has an empty value"),
    (["--capacity", "5,x"], "--capacity expects integers"),
    (["--capacity", "0"], "--capacity must be an integer >= 1"),
    (["--top-k", "2,2"], "--top-k gives '2' twice"),
    (["--switch-cost", "-1"], "--switch-cost must be a finite number >= 0"),
    (["--quality", "hit,best"], "--quality must be one of"),
    (["--seeds", "3-1"], "--seeds range '3-1' is empty"),
    (["--seeds", "0-2,2"], "--seeds gives seed 2 twice"),
    (["--seeds", "-1"], "--seeds expects integers >= 0 or ranges"),
    (["--policy", "fifo,nope"], "unknown policy 'nope'"),
    (["--policy", "belady"], "--policy: belady is not defined in semantic mode"),
    (["--param", "topics="], "--param: topics has no values"),
    (["--param", "colour=red"], "workload 'clusters' has no parameter 'colour'"),
    (["--param", "topics=0,3"], "parameter 'topics' must be >= 1"),
    (["--policy-param", "alpha=0.2"], "policy 'fifo' has no parameter 'alpha'"),
    (["--workers", "-1"], "--workers must be an integer >= 0"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:9"], "cannot be used with a scheduler"),
    (["--scheduler", "tcp://127.0.0.1:9"], "--scheduler 'tcp://127.0.0.1:9': cannot connect"),
])
def test_bad_input_is_one_line_naming_the_option(tmp_path, capsys, monkeypatch, extra,
                                                 message):
    monkeypatch.setattr(sweep_cluster, "SCHEDULER_TIMEOUT_S", 1)
    options = {"--workload": "clusters", "--param": "steps=100", "--policy": "fifo",
               "--out": str(tmp_path / "s")}
    options.update(zip(extra[::2], extra[1::2]))  # an option is given once (docs/model.md §7)
    argv = [word for pair in options.items() for word in pair]
    code, out, err = _cli(capsys, argv)
    assert (code, out) == (2, "")
    assert err.startswith("semcache: error: ") and err.count("\n") == 1, err
    assert message in err
    assert not glob.glob(str(tmp_path / "s" / "part-*"))


def test_out_must_be_a_new_or_empty_store_or_resumed(tmp_path, capsys):
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    code, _, err = _cli(capsys, [*CLI_SMALL, "--out", str(other), "--workers", "0"])
    assert code == 2 and "is a directory that is not a sweep store" in err
    (tmp_path / "file").write_text("x")
    code, _, err = _cli(capsys, [*CLI_SMALL, "--out", str(tmp_path / "file")])
    assert code == 2 and "is a file, not a sweep store" in err
    code, _, err = _cli(capsys, [*CLI_SMALL, "--out", str(tmp_path / "no" / "s")])
    assert code == 2 and "does not exist" in err
    store = str(tmp_path / "store")
    assert _cli(capsys, [*CLI_SMALL, "--out", store, "--workers", "0"])[0] == 0
    code, _, err = _cli(capsys, [*CLI_SMALL, "--out", store, "--workers", "0"])
    assert code == 2 and "(--resume)" in err and err.count("\n") == 1
    assert len(load_rows(store)) == 8  # untouched
    assert (other / "notes.txt").read_text() == "mine"


def test_resume_removes_temporary_files_of_a_killed_writer(tmp_path):
    out = tmp_path / "store"
    grid = Grid("clusters", params={"steps": [100]}, policies=["fifo"], capacities=[4])
    sweep(grid, str(out), workers=0)
    (out / ".semcache-abc123.part.tmp").write_bytes(b"PAR1 half")
    sweep(grid, str(out), workers=0, resume=True)
    assert [p.name for p in out.iterdir()] == [os.path.basename(p) for p in
                                               glob.glob(str(out / "part-*"))]


def test_load_results_of_an_empty_and_a_missing_store(tmp_path):
    (tmp_path / "empty").mkdir()
    assert load_results(str(tmp_path / "empty")).num_rows == 0
    from simulator.errors import InputError

    with pytest.raises(InputError, match="does not exist"):
        load_results(str(tmp_path / "missing"))


def test_an_unsized_task_keeps_the_id_it_had_before_sizes():
    """Ids pinned from a store written before workloads took ``sizes``: a resumed store
    still finds its runs.  A sized task gets an id of its own."""
    grid = Grid("working_set", params={"topics": [10]}, seeds=[0], policies=["fifo"],
                capacities=[10])
    assert [t["task_id"] for t in grid.tasks()] == ["2d5b4a004d09bf9522a9"]
    sized = Grid("working_set", params={"topics": [10], "sizes": ["lognormal"]}, seeds=[0],
                 policies=["fifo"], capacities=[10])
    assert [t["task_id"] for t in sized.tasks()] != ["2d5b4a004d09bf9522a9"]
    # solar gained evict_rank: at its default the id is the one from before it
    solar = Grid("working_set", params={"topics": [10]}, seeds=[0], policies=["solar"],
                 capacities=[10])
    assert [t["task_id"] for t in solar.tasks()] == ["61179b27624d3be668ec"]
    other = Grid("working_set", params={"topics": [10]}, seeds=[0], policies=["solar"],
                 capacities=[10], policy_params={"evict_rank": "per_size"})
    assert [t["task_id"] for t in other.tasks()] != ["61179b27624d3be668ec"]
