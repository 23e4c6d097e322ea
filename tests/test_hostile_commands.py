"""Hostile commands: outputs, side effects and hangs.

Each property starts from a valid command (a sweep with a small grid and a store, a
reproduction with its ``--out`` or ``--report``, ``opt`` and ``run`` with ``--out``, ...) and
breaks one thing: the output path (an existing file where a folder is needed, a folder
where a file is, a missing or file parent, a folder that takes no file), the seed range,
the scheduler address, the store, the switch cost.  The command must then meet the
contract of :mod:`helpers.hostile_contract`: exit 2, one line, nothing on stdout and
nothing left behind.  An unscored trace is the one valid case: it succeeds with null
rates.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib
import sys
import time

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from helpers.hostile_contract import assert_rejected, assert_rejected_in_process  # noqa: E402


def _few(n: int):
    """At most ``n`` examples (commands start slowly); the tmp_path fixture is only the
    root of a fresh folder per example, so reusing it across examples is fine."""
    return settings(max_examples=n, suppress_health_check=[
        HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


UNWRITABLE = "/proc/semcache-hostile"  # no file can be made in /proc, even by root

# Valid commands; OUT is replaced by the (broken) target.  File targets, then folders.
FILE_COMMANDS = {
    "run": ["run", "--workload", "clusters", "--param", "steps=30", "--policy", "fifo",
            "--out", "OUT"],
    "opt": ["opt", "--workload", "clusters", "--param", "steps=30", "--capacity", "2",
            "--top-k", "2", "--json", "--out", "OUT"],
    "workload make": ["workload", "make", "clusters", "--param", "steps=30", "--out", "OUT"],
    "trace import": ["trace", "import", "requests.csv", "--trace-param", "obj-id-col=1",
                     "--out", "OUT"],
    "delay-study": ["delay-study", "--quick", "--plot", "OUT"],
}
FOLDER_COMMANDS = {
    "sweep": ["sweep", "--workload", "clusters", "--param", "steps=30", "--policy", "fifo",
              "--workers", "0", "--out", "OUT"],
    "reproduce": ["reproduce", "table8", "--quick", "--seeds", "0", "--out", "OUT"],
    "reproduce all": ["reproduce", "all", "--quick", "--seeds", "0", "--report", "OUT"],
    "claims": ["claims", "--quick", "--only", "thm5.1", "--out", "OUT"],
    "search": ["search", "--policy", "fifo", "--capacity", "2", "--budget", "20", "--out",
               "OUT"],
}
SUFFIX = {"workload make": ".npz", "trace import": ".npz", "delay-study": ".png"}


def _workdir(root: pathlib.Path) -> pathlib.Path:
    """A fresh folder with an input file, a file, a folder and a file in a folder."""
    work = root / f"w{time.perf_counter_ns()}"
    work.mkdir()
    (work / "requests.csv").write_text("1\n2\n1\n3\n")
    (work / "afile").write_text("not a folder\n")
    (work / "adir").mkdir()
    (work / "adir" / "keep.txt").write_text("someone else's\n")
    return work


def _with(argv: list, target: str) -> list:
    return [target if a == "OUT" else a for a in argv]


@given(command=st.sampled_from(sorted(FILE_COMMANDS)),
       broken=st.sampled_from(["adir", "missing/x", "afile/x", UNWRITABLE]))
@example(command="run", broken=UNWRITABLE)
@example(command="opt", broken="adir")
@_few(20)
def test_a_bad_file_target_is_refused_before_any_work(tmp_path, command, broken):
    work = _workdir(tmp_path)
    target = broken + SUFFIX.get(command, "") if broken != "adir" else broken
    argv = FILE_COMMANDS[command]
    assert_rejected(_with(argv, target), work, argv[argv.index("OUT") - 1])


@given(command=st.sampled_from(sorted(FOLDER_COMMANDS)),
       broken=st.sampled_from(["afile", "missing/x", "afile/x", UNWRITABLE]))
@example(command="reproduce", broken="afile")  # FileExistsError after the work
@example(command="sweep", broken=UNWRITABLE)
@example(command="search", broken="afile/x")
@_few(20)
def test_a_bad_folder_target_is_refused_before_any_work(tmp_path, command, broken):
    argv = FOLDER_COMMANDS[command]
    assert_rejected(_with(argv, broken), _workdir(tmp_path), argv[argv.index("OUT") - 1])


@pytest.mark.skipif(os.geteuid() == 0, reason="access bits do not bind root")
@pytest.mark.parametrize("command", ["run", "sweep", "reproduce"])
def test_a_read_only_folder_is_refused(tmp_path, command):
    work = _workdir(tmp_path)
    (work / "ro").mkdir(mode=0o555)
    argv = {**FILE_COMMANDS, **FOLDER_COMMANDS}[command]
    try:
        assert_rejected(_with(argv, "ro/x"), work, "cannot")
    finally:
        (work / "ro").chmod(0o755)


def test_a_report_over_a_foreign_folder_is_refused(tmp_path):
    assert_rejected(_with(FOLDER_COMMANDS["reproduce all"], "adir"), _workdir(tmp_path),
                    "--report")


SWEEP = FOLDER_COMMANDS["sweep"]
BAD_SEEDS = st.one_of(
    st.sampled_from(["3-1", "0-2,2", "-1", "1-", "a", "0,,1", "0-100000000",
                     "9" * 5000, "0-9223372036854775808", "0-999999,1000000-1000001"]),
    st.integers(1_000_001, 10**12).map(lambda n: f"0-{n}"),  # over MAX_TASKS
    st.text(st.sampled_from("0123456789-, x"), min_size=1, max_size=12).filter(
        lambda t: not _valid_seeds(t)))


def _valid_seeds(text: str) -> bool:
    from simulator.cli.sweep import seeds
    from simulator.errors import InputError

    try:
        seeds(text)
    except InputError:
        return False
    return True


@given(text=BAD_SEEDS)
@example(text="0-100000000")  # was quadratic: minutes before any answer
@_few(30)
def test_a_bad_seed_range_is_refused_at_once(tmp_path, text):
    start = time.perf_counter()
    assert_rejected(SWEEP + ["--seeds", text], _workdir(tmp_path), "--seeds")
    assert time.perf_counter() - start < 5


def test_seed_expansion_is_linear():
    from simulator.cli.sweep import seeds

    start = time.perf_counter()
    assert len(seeds("0-499999,500000-999999")) == 10**6
    assert time.perf_counter() - start < 5  # the list scan took hours


@given(address=st.sampled_from(["tcp://127.0.0.1:1", "tcp://127.0.0.1:99999",
                                "tcp://127.0.0.1", "tcp://:8786"]))
@example(address="tcp://127.0.0.1:1")  # left an empty store behind
@_few(4)
def test_an_unreachable_scheduler_leaves_no_store(tmp_path, address):
    argv = [a for a in SWEEP if a not in ("--workers", "0")]
    assert_rejected(argv + ["--scheduler", address], _workdir(tmp_path), "--scheduler")


def _store(work: pathlib.Path, code: str | None = None, rows: int = 1) -> None:
    """A store of another grid (``rows`` lru rows), of this code or of ``code``."""
    from simulator.experiments.sweep import store as sweep_store
    from simulator.experiments.code_id import code_id

    row = {"task_id": "another-grid", "workload": "clusters", "policy": "lru",
           "code": code or code_id()}
    sweep_store.write_part(str(work / "st"), "old",
                           [dict(row, task_id=f"another-grid-{i}") if i else row
                            for i in range(rows)])


@pytest.mark.parametrize("code, resume", [(None, False), ("0123456789ab", True)])
def test_a_store_that_cannot_be_continued_is_left_as_it_was(tmp_path, code, resume):
    work = _workdir(tmp_path)
    _store(work, code)
    assert_rejected(_with(SWEEP, "st") + (["--resume"] if resume else []), work, "--out")


# a resumed sweep reads each part's task_id and code: each damaged one way
DAMAGES = {"int": lambda n: pa.array(range(1, n + 1)), "float": lambda n: pa.array([0.5] * n),
           "list": lambda n: pa.array([[1]] * n), "null": lambda n: pa.nulls(n, pa.string()),
           "null type": pa.nulls, "absent": None}


@given(column=st.sampled_from(["task_id", "code"]), damage=st.sampled_from(sorted(DAMAGES)))
@example(column="code", damage="int")  # a TypeError while naming the store's versions
@example(column="task_id", damage="int")  # the stored runs were run and written again
@example(column="task_id", damage="null")
@_few(12)
def test_a_damaged_store_is_refused_on_resume(tmp_path, column, damage):
    import pyarrow.parquet as pq

    work = _workdir(tmp_path)
    _store(work, rows=2)
    part = work / "st" / "part-old.parquet"
    table = pq.read_table(part)
    at = table.column_names.index(column)
    table = (table.remove_column(at) if DAMAGES[damage] is None
             else table.set_column(at, column, DAMAGES[damage](table.num_rows)))
    pq.write_table(table, part)
    line = assert_rejected(_with(SWEEP, "st") + ["--resume"], work, column)
    assert "--out" in line, line


HUGE = st.one_of(st.sampled_from(["1e308", "1.7e308", "4e298"]),  # T = 30: over 1e300
                 st.floats(1e299, 1.7e308).map(repr))


@given(command=st.sampled_from(["run", "run --json", "opt", "sweep"]), lam=HUGE)
@example(command="run --json", lam="1e308")  # json.dumps raised on inf
@example(command="sweep", lam="1e308")  # the store kept inf
@_few(15)
def test_an_overflowing_switch_cost_is_refused_up_front(tmp_path, command, lam):
    # "afile" exists: an --out file written before must stay as it was
    argv = {"run": _with(FILE_COMMANDS["run"], "afile"),
            "run --json": _with(FILE_COMMANDS["run"], "afile") + ["--json"],
            "opt": _with(FILE_COMMANDS["opt"], "afile"), "sweep": _with(SWEEP, "st")}
    assert_rejected(argv[command] + ["--switch-cost", lam], _workdir(tmp_path),
                    "--switch-cost")


def test_an_overflowing_switch_cost_in_a_real_process(tmp_path):
    assert_rejected_in_process(_with(FILE_COMMANDS["opt"], "afile") + ["--switch-cost", "1e308"],
                               _workdir(tmp_path), "--switch-cost")


def test_a_switch_cost_just_under_the_bound_runs(tmp_path):
    code, out, _ = _cli(FILE_COMMANDS["run"][:-2] + ["--switch-cost", "3e298", "--json"],
                        _workdir(tmp_path))
    assert code == 0 and json.loads(out)["runs"][0]["cost"] <= 1e300


@pytest.mark.parametrize("limit", ["0", "-1", "nan", "inf", "1e400", "abc", "", "nonee"])
def test_opt_refuses_a_bad_time_limit(tmp_path, limit):
    assert_rejected(FILE_COMMANDS["opt"][:-2] + ["--time-limit", limit], _workdir(tmp_path),
                    "--time-limit")


def _cli(argv: list, work: pathlib.Path) -> tuple:
    from simulator.cli import main

    out, err, cwd = io.StringIO(), io.StringIO(), os.getcwd()
    try:
        os.chdir(work)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        os.chdir(cwd)
    return code, out.getvalue(), err.getvalue()


def _unscored(work: pathlib.Path) -> None:
    from simulator.trace import Trace
    from simulator.trace_formats import save

    centres = np.random.default_rng(0).normal(size=(4, 8)).astype(np.float32)
    topics = np.arange(40) % 4
    save(Trace.from_arrays(queries=centres[topics], items=centres[topics],
                           query_topics=topics, item_topics=topics,
                           scored=np.zeros(40, bool)), str(work / "unscored.npz"))


def test_an_unscored_trace_has_null_rates(tmp_path):
    work = _workdir(tmp_path)
    _unscored(work)
    code, out, err = _cli(["run", "--trace", "unscored.npz", "--policy", "fifo,lru",
                           "--switch-cost", "0.5", "--json", "--out", "r.json"], work)
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert json.loads((work / "r.json").read_text()) == doc
    for r in doc["runs"]:
        assert r["scored_steps"] == 0
        assert (r["hit_rate"], r["mean_precision"], r["mean_quality"]) == (None,) * 3
        assert r["cost"] == 0.5 * r["modifications"]
    code, out, err = _cli(["run", "--trace", "unscored.npz", "--policy", "fifo"], work)
    assert code == 0 and "no step is scored" in out and "—" in out
    code, out, _ = _cli(["opt", "--trace", "unscored.npz", "--json"], work)
    assert code == 0 and json.loads(out)["opt_cost"] == 0.0


def test_a_store_keeps_null_rates(tmp_path):
    from simulator.experiments.sweep import store as sweep_store

    row = {"task_id": "t", "policy": "fifo", "hit_rate": None, "mean_precision": None}
    sweep_store.write_part(str(tmp_path / "st"), "a", [row])
    assert sweep_store.load_rows(str(tmp_path / "st")) == [row]


def test_opt_time_limit_returns_certified_bounds():
    import workloads
    from theory.opt import opt

    trace = workloads.get("clusters").generate({"steps": 60, "topics": 6}, 0)
    exact = opt(trace, 3, 1, 0.5)
    assert exact.exact
    phases = []
    cut = opt(trace, 3, 1, 0.5, time_limit=1e-9, progress=phases.append)
    assert not cut.exact and cut.opt_cost is None and cut.config["stopped_early"]
    assert cut.lower_bound <= exact.opt_cost <= cut.upper_bound
    assert phases and phases[0].startswith("bounds")
    again = opt(trace, 3, 1, 0.5, time_limit=600)
    assert (again.opt_cost, again.config["stopped_early"]) == (exact.opt_cost, False)


def test_opt_progress_goes_to_stderr_only(tmp_path):
    code, out, err = _cli(FILE_COMMANDS["opt"][:-2] + ["--progress"], _workdir(tmp_path))
    assert code == 0 and json.loads(out)["exact"]
    assert err.startswith("semcache opt:") and "exact method" in err


# an empty path or format is no path or format (abspath('') is the current folder)
EMPTY = {
    "run --out": (FILE_COMMANDS["run"], "--out"),
    "run --trace": (["run", "--trace", "OUT", "--policy", "fifo"], "--trace"),
    "run --trace-format": (["run", "--trace", "requests.csv", "--trace-param", "obj-id-col=1",
                            "--trace-format", "OUT", "--policy", "fifo"], "--trace-format"),
    "run --stream --trace-format": (["run", "--trace", "requests.csv", "--trace-param",
                                     "obj-id-col=1", "--trace-format", "OUT", "--stream",
                                     "--policy", "lru"],
                                    "--trace-format"),
    "opt --out": (FILE_COMMANDS["opt"], "--out"),
    "workload make --out": (FILE_COMMANDS["workload make"], "--out"),
    "trace import --out": (FILE_COMMANDS["trace import"], "--out"),
    "trace import FILE": (["trace", "import", "OUT", "--out", "t.npz"], "trace file"),
    "delay-study --plot": (FILE_COMMANDS["delay-study"], "--plot"),
    "sweep --out": (FOLDER_COMMANDS["sweep"], "--out"),
    "reproduce --out": (FOLDER_COMMANDS["reproduce"], "--out"),
    "reproduce --report": (FOLDER_COMMANDS["reproduce all"], "--report"),
    "claims --out": (FOLDER_COMMANDS["claims"], "--out"),
    "reproduce --update": (["reproduce", "table8", "--quick", "--seeds", "0", "--update",
                            "OUT"], "--update"),
    "claims --update": (["claims", "--quick", "--only", "thm5.1", "--update", "OUT"],
                        "--update"),
}


@given(case=st.sampled_from(sorted(EMPTY)))
@example(case="reproduce --report")  # wrote the report into the current folder
@example(case="run --trace-format")  # taken as absent: the format from the name
@example(case="reproduce --update")  # a page named by an empty path
@_few(13)
def test_an_empty_path_or_format_is_refused(tmp_path, case):
    argv, word = EMPTY[case]
    assert_rejected(_with(argv, ""), _workdir(tmp_path), word)
