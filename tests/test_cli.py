"""The ``semcache`` command line: the JSON contract (docs/model.md §7), tables, files,
determinism."""

import json
import os
import pathlib
import subprocess
import sys
import time

import pytest

import simulator
from simulator import policies
from simulator.cli import main

SMALL = ["--workload", "clusters", "--param", "steps=400", "--param", "dim=32",
         "--capacity", "6", "--top-k", "2", "--switch-cost", "0.5"]

INT_KEYS = ("top_k", "seed", "steps", "scored_steps", "hits", "modifications", "admissions",
            "evictions")
FLOAT_KEYS = ("switch_cost", "hit_rate", "mean_precision", "mean_quality", "cost", "elapsed_s")
STR_KEYS = ("policy", "quality")


def _policies(mode):
    return [name for name, pol in policies.REGISTRY.items() if mode in pol.modes]


def _run(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    assert captured.err == "", captured.err
    assert code == 0
    return captured.out


def _json(capsys, argv):
    return json.loads(_run(capsys, argv + ["--json"]))


def _without_elapsed(doc):
    doc = json.loads(json.dumps(doc))
    for run in doc["runs"]:
        run.pop("elapsed_s")
    return doc


def _subprocess(argv, env=None, cwd=None):
    proc = subprocess.run([sys.executable, "-m", "simulator.cli", *argv], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def small_doc():
    """One `run --json` over every semantic policy (computed once for this module)."""
    out = []

    class _Capture:
        def write(self, text):
            out.append(text)

        def flush(self):
            pass

    saved, sys.stdout = sys.stdout, _Capture()
    try:
        assert main(["run", *SMALL, "--json"]) == 0
    finally:
        sys.stdout = saved
    return json.loads("".join(out))


def test_json_has_every_spec_key_with_its_type(small_doc):
    assert set(small_doc) == {"workload", "runs"}
    for run in small_doc["runs"]:
        for key in INT_KEYS:
            assert type(run[key]) is int, (run["policy"], key)
        for key in FLOAT_KEYS:
            assert type(run[key]) is float, (run["policy"], key)
        for key in STR_KEYS:
            assert type(run[key]) is str, (run["policy"], key)
        bounded = not policies.get(run["policy"]).unbounded
        assert (type(run["capacity"]) is int) if bounded else run["capacity"] is None
        assert run["top_k"] == 2 and run["switch_cost"] == 0.5 and run["quality"] == "hit"
        assert run["steps"] == run["scored_steps"] == 400
        assert 0 <= run["hit_rate"] <= 1 and run["hits"] == round(run["hit_rate"] * 400)
        assert run["modifications"] <= run["steps"]
        assert run["cost"] >= 0.5 * run["modifications"]
        assert run["elapsed_s"] >= 0


def test_json_workload_record(small_doc):
    w = small_doc["workload"]
    assert w["name"] == "clusters" and w["seed"] == 0 and w["mode"] == "semantic"
    assert w["steps"] == 400 and w["dim"] == 32
    assert w["params"]["steps"] == 400 and w["params"]["topics"] == 10  # defaults filled in


def test_one_run_per_semantic_policy_by_default(small_doc):
    assert [r["policy"] for r in small_doc["runs"]] == _policies("semantic")


def test_policy_option_selects_and_orders(capsys):
    doc = _json(capsys, ["run", *SMALL, "--policy", "lru,fifo"])
    assert [r["policy"] for r in doc["runs"]] == ["lru", "fifo"]


def test_paging_runs_every_paging_policy(capsys):
    doc = _json(capsys, ["run", "--workload", "zipf_paging", "--param", "steps=3000",
                         "--param", "objects=200", "--paging", "--capacity", "20"])
    assert doc["workload"]["mode"] == "paging" and doc["workload"]["steps"] == 3000
    assert [r["policy"] for r in doc["runs"]] == _policies("paging")
    for run in doc["runs"]:
        assert run["mode"] == "paging" and run["capacity"] == 20
        assert type(run["hits"]) is int and 0 < run["hits"] < 3000


def test_out_writes_the_printed_json(capsys, tmp_path):
    path = tmp_path / "result.json"
    text = _run(capsys, ["run", *SMALL, "--policy", "fifo,lru", "--json", "--out", str(path)])
    assert path.read_text() == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json"]


def test_out_without_json_prints_a_table_and_writes_json(capsys, tmp_path):
    path = tmp_path / "result.json"
    text = _run(capsys, ["run", *SMALL, "--policy", "fifo", "--out", str(path)])
    assert "hit rate" in text
    assert json.loads(path.read_text())["runs"][0]["policy"] == "fifo"


def test_without_json_prints_a_table(capsys):
    text = _run(capsys, ["run", *SMALL])
    for header in ("policy", "hit rate", "mean precision", "modifications", "cost", "elapsed"):
        assert header in text
    for name in _policies("semantic"):
        assert f" {name} " in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


def test_workload_make_then_run_trace_matches_run_workload(capsys, tmp_path):
    path = tmp_path / "clusters.npz"
    params = ["--param", "steps=500", "--param", "zipf=0.8"]
    made = _json(capsys, ["workload", "make", "clusters", "--out", str(path), "--seed", "5",
                          *params])
    assert made["written"] == str(path) and path.exists()
    options = ["--capacity", "8", "--top-k", "3", "--seed", "5", "--quality", "precision"]
    from_file = _json(capsys, ["run", "--trace", str(path), *options])
    direct = _json(capsys, ["run", "--workload", "clusters", *params, *options])
    assert from_file["workload"]["trace"] == str(path)
    assert _without_elapsed(from_file)["runs"] == _without_elapsed(direct)["runs"]


def test_paging_trace_file_is_detected(capsys, tmp_path):
    path = tmp_path / "paging.npz"
    _run(capsys, ["workload", "make", "zipf_paging", "--out", str(path), "--param",
                  "steps=2000", "--param", "objects=50"])
    doc = _json(capsys, ["run", "--trace", str(path), "--policy", "lru"])
    assert doc["workload"]["mode"] == "paging" and doc["runs"][0]["mode"] == "paging"


def test_same_seed_twice_gives_identical_json(capsys, small_doc):
    again = _json(capsys, ["run", *SMALL])
    assert _without_elapsed(again) == _without_elapsed(small_doc)


def test_other_seed_gives_another_workload(capsys, small_doc):
    other = _json(capsys, ["run", *SMALL, "--seed", "1"])
    assert other["workload"]["seed"] == 1
    assert _without_elapsed(other)["runs"] != _without_elapsed(small_doc)["runs"]


def _source_stamp():
    root = pathlib.Path(simulator.__file__).parent
    return sorted((str(p), p.stat().st_mtime_ns) for p in root.rglob("*.py"))


def test_another_process_gives_identical_json_from_loops_on_disk(tmp_path, small_doc):
    """A new process gives this one's JSON; and cache=True works: ``small_doc`` ran every
    semantic policy here, so the new process loads every loop from numba's disk cache
    (the suite's own, which this session filled or found filled) instead of compiling it.

    A fresh cache, compiled and then reloaded, is ``test_compile``'s (fifo and lru, with an
    edit that recompiles only fifo's loop); this one covers every semantic policy, so each
    shared part their hooks call into (the gate, Thompson sampling, the authors' code, the
    sketch, linked rows, the memory study's rules) is among the loops that must load.  The
    wall time is printed for the record (``pytest -s``) and deliberately not asserted.
    """
    before = _source_stamp()
    start = time.perf_counter()
    other = _subprocess(["run", *SMALL, "--json"], cwd=tmp_path,
                         env=dict(os.environ, SEMCACHE_REPORT_CACHE="1"))
    wall = time.perf_counter() - start
    if _source_stamp() != before:  # loops are named after hashes of the sources
        pytest.skip("simulator sources changed while the test ran")
    print(f"\nanother `semcache run` ({len(other['runs'])} policies), loops from disk cache: "
          f"{wall:.2f} s wall")
    loaded = {r["policy"]: r.pop("compiled_from_cache") for r in other["runs"]}
    assert loaded == dict.fromkeys(_policies("semantic"), True)
    assert _without_elapsed(other) == _without_elapsed(small_doc)


def test_cache_report_is_off_by_default(small_doc):
    assert all("compiled_from_cache" not in r for r in small_doc["runs"])


def test_workload_list(capsys):
    import workloads

    doc = _json(capsys, ["workload", "list"])
    assert [w["name"] for w in doc["workloads"]] == list(workloads.REGISTRY)
    assert doc["workloads"][0]["params"] == workloads.get(doc["workloads"][0]["name"]).params
    text = _run(capsys, ["workload", "list"])
    for name in workloads.REGISTRY:
        assert name in text


def test_bench_prints_rows_from_simulator_bench(capsys, monkeypatch):
    rows = [{"name": "lru/zipf", "ours_req_per_s": 2.0e7, "baseline_req_per_s": 1.0e7,
             "ratio": 2.0, "hits_equal": True, "target_ratio": 5.0, "meets_target": False}]
    calls = []

    def run_all(quick=False):
        calls.append(quick)
        return rows

    from simulator.experiments import bench

    monkeypatch.setattr(bench, "run_all", run_all)
    assert _json(capsys, ["bench", "--quick"]) == {"benchmarks": rows}
    text = _run(capsys, ["bench"])
    assert "lru/zipf" in text and "2.00" in text and "5x missed" in text
    assert calls == [True, False]


def test_help_exits_zero(capsys):
    assert main(["--help"]) == 0
    assert "run" in capsys.readouterr().out
    assert main(["run", "--help"]) == 0
    assert "--policy-param" in capsys.readouterr().out


def test_version_prints_the_installed_version(capsys):
    from importlib import metadata

    assert main(["--version"]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == (f"semcache {metadata.version('semcache')}\n", "")
    assert simulator.__version__ == metadata.version("semcache")


HEAVY = ("numba", "scipy", "simpy", "theory", "workloads")


def _imported_by(argv: list) -> dict:
    """The heavy packages and the subcommand modules that ``semcache ARGV`` imports, in a
    fresh interpreter (this one has imported everything already)."""
    code = ("import sys\nfrom simulator.cli import main\nmain(sys.argv[1:])\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})), "
            "sorted(m for m in sys.modules if m.startswith('simulator.cli.')))")
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                          text=True, timeout=120)
    heavy, cli = done.stdout.splitlines()[-1].split("] [")
    return {"heavy": heavy.strip("[]"), "cli": cli.strip("[]")}


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["--plugin", "no_such", "-h"]])
def test_version_and_help_import_nothing_heavy(argv):
    """They answer at once: no numba, SciPy, SimPy, theory or workloads, no subcommand
    module, and no plugin (a plugin loads once the arguments parse)."""
    found = _imported_by(argv)
    assert found["heavy"] == ""
    assert found["cli"] == "'simulator.cli.args', 'simulator.cli.commands'"


def test_a_subcommands_help_imports_that_subcommand_alone():
    assert _imported_by(["trace", "--help"])["cli"] == \
        "'simulator.cli.args', 'simulator.cli.commands', 'simulator.cli.output', " \
        "'simulator.cli.trace'"


def test_the_command_table_lists_every_subcommand_module(capsys):
    from simulator.cli.commands import COMMANDS, command_in

    folder = pathlib.Path(simulator.__file__).parent / "cli"
    modules = {row.module.rpartition(".")[2] for row in COMMANDS}
    shared = {"__init__", "__main__", "args", "commands", "output", "reproduce_temporal",
              "sections", "sources"}
    assert modules == {p.stem for p in folder.glob("*.py")} - shared
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(f"{row.name:<12}" in out and row.help in out for row in COMMANDS)
    assert command_in(["--plug", "run", "opt"]) == "opt" and command_in(["-h"]) is None


def test_readme_python_examples_run(capsys, monkeypatch):
    """The README's Python blocks, in one namespace as a reader runs them: the quick start,
    then the researcher's path (a policy of one's own, against OPT, a property test)."""
    import re

    from simulator import policies

    monkeypatch.setattr(policies, "REGISTRY", dict(policies.REGISTRY))  # nothing stays
    readme = pathlib.Path(__file__).resolve().parent.parent / "README.md"
    text = readme.read_text(encoding="utf-8")
    # each block at its own lines of the README: tracebacks, and hypothesis reading a
    # test's source, find the code where it stands
    blocks = ["\n" * text[:m.start(1)].count("\n") + m.group(1)
              for m in re.finditer(r"```python\n(.*?)```", text, re.S)]
    assert len(blocks) == 4
    scope = {}  # one namespace: a later block uses the first one's trace
    for block in blocks:
        exec(compile(block, str(readme), "exec"), scope)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["fifo", "lru", "solar", "fifo_even", "opt",
                                                    "property"]
    assert all(0 <= float(line.split()[1]) <= 1 for line in lines[:4])
    _, opt_cost, method, _, ratio = lines[4].split()
    assert method == "flow" and float(opt_cost) > 0 and float(ratio) >= 1


def test_ctrl_c_exits_130_without_traceback(capsys, monkeypatch):
    from simulator import runner

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_checked", interrupted)  # what semcache run calls
    assert main(["run", *SMALL, "--policy", "fifo", "--json"]) == 130
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "semcache: interrupted\n"
