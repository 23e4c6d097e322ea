"""``semcache compile`` fills numba's disk cache ahead of a first run, and ``semcache run``
on a terminal names what it is about to compile (simulator.compile_marks)."""

import json
import os
import re
import subprocess
import sys

import pytest

from simulator.cli import main


def _compile(argv, cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    proc = subprocess.run([sys.executable, "-m", "simulator.cli", "compile", *argv, "--json"],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


def test_compiled_loops_load_from_disk_in_the_next_process(tmp_path):
    first, said = _compile(["--policy", "fifo,lru", "--mode", "paging", "--jobs", "2"],
                           tmp_path)
    assert "compiling 2 loops (fifo, lru) on 2 processes" in said
    assert sorted(re.findall(r"semcache: compiling (\w+) \(paging\)… [0-9.]+ s", said)) == \
        ["fifo", "lru"]  # each loop as it is done
    assert [(r["policy"], r["mode"], r["from_cache"]) for r in first["compiled"]] == \
        [("fifo", "paging", False), ("lru", "paging", False)]
    again, _ = _compile(["--policy", "fifo", "--mode", "paging", "--jobs", "1"], tmp_path)
    assert [(r["policy"], r["from_cache"]) for r in again["compiled"]] == [("fifo", True)]


@pytest.mark.parametrize("argv, said", [
    (["--jobs", "0"], "--jobs must be an integer >= 1"),
    (["--policy", "nope"], "unknown policy 'nope'"),
    (["--policy", "unlimited", "--mode", "paging"], "not defined in paging mode"),
    (["--policy", "fifo,fifo"], "names 'fifo' twice"),
    (["--policy", "fifo,"], "empty name"),
])
def test_bad_options_are_one_line(argv, said, capsys):
    assert main(["compile", *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.splitlines()) == 1


def test_a_mode_alone_selects_the_policies_defined_in_it():
    import argparse

    from simulator import policies
    from simulator.cli.compile import _tasks
    tasks = _tasks(argparse.Namespace(policy=None, mode="paging"))
    assert tasks and all(mode == "paging" for _, mode in tasks)
    assert {name for name, _ in tasks} == \
        {name for name, pol in policies.REGISTRY.items() if "paging" in pol.modes}
    assert "unlimited" not in {name for name, _ in tasks}


def test_a_run_on_a_terminal_names_the_policies_it_compiles_first(tmp_path, monkeypatch,
                                                                  capsys):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # no marks there yet
    argv = ["run", "--workload", "cycling", "--param", "steps=20", "--capacity", "2",
            "--policy", "fifo,lru", "--json"]
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(argv) == 0
    head, *lines = capsys.readouterr().err.splitlines()
    assert head == "semcache: compiling fifo, lru (first run only; `semcache compile` does it " \
        "ahead)"
    assert [re.fullmatch(r"semcache: compiling (\w+) \(semantic\)… [0-9.]+ s", line).group(1)
            for line in lines] == ["fifo", "lru"]  # a line each, ended by its seconds
    assert main(argv) == 0  # marked now: nothing to say
    assert capsys.readouterr().err == ""


def test_the_install_compiles_what_make_demo_runs(tmp_path):
    """The Makefile's install step compiles the demo's policies in the demo's mode, so the
    first ``make demo`` loads every loop from disk (its first table within seconds)."""
    import pathlib
    import re
    import shlex

    makefile = (pathlib.Path(__file__).resolve().parents[1] / "Makefile").read_text()
    demo = dict(re.findall(r"^(\w+) := (.*)$", makefile, re.M))["DEMO_POLICIES"].split(",")
    compile_line = re.search(r"semcache compile (.*)$", makefile, re.M).group(1).split()
    run_line = shlex.split(re.search(r"semcache run (.*)$", makefile, re.M).group(1))
    assert compile_line == ["--policy", "$(DEMO_POLICIES)", "--mode", "semantic"]
    assert run_line[run_line.index("--policy") + 1] == "$(DEMO_POLICIES)"
    assert "--budget" not in run_line  # unsized, as compiled
    _compile(["--policy", demo[1], "--mode", "semantic"], tmp_path)
    run_line[run_line.index("--policy") + 1] = demo[1]
    run_line[run_line.index("steps=5000")] = "steps=50"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), SEMCACHE_REPORT_CACHE="1")
    proc = subprocess.run([sys.executable, "-m", "simulator.cli", "run", *run_line, "--json"],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr
    runs = json.loads(proc.stdout)["runs"]
    assert [(r["policy"], r["compiled_from_cache"]) for r in runs] == [(demo[1], True)]
