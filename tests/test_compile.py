"""``semcache compile`` fills numba's disk cache ahead of a first run, and ``semcache run``
on a terminal names what it is about to compile (simulator.engine.compile_marks)."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from simulator.cli import main

_CHECKOUT = pathlib.Path(__file__).resolve().parents[1]


def _compile(argv, cache, package=None):
    """``semcache compile argv --json`` in a new process with numba's cache in ``cache``;
    ``package``: a folder holding a copy of ``simulator`` to run instead of this one."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    if package is not None:  # the copy first, the rest of the checkout after it
        env["PYTHONPATH"] = os.pathsep.join([str(package), str(_CHECKOUT)])
    proc = subprocess.run([sys.executable, "-m", "simulator.cli", "compile", *argv, "--json"],
                          capture_output=True, text=True, env=env, timeout=900,
                          cwd=cache if package is not None else None)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


def test_compiled_loops_load_from_disk_until_their_own_policy_changes(tmp_path):
    """A loop is named after the files compiled into it: an edit to fifo.py recompiles
    fifo's loop and lru's still loads from disk (in a copy of the package)."""
    import simulator

    package = tmp_path / "package"
    shutil.copytree(pathlib.Path(simulator.__file__).parent, package / "simulator",
                    ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    cache.mkdir()
    first, said = _compile(["--policy", "fifo,lru", "--mode", "paging", "--jobs", "2"],
                           cache, package)
    assert "compiling 2 loops (fifo, lru) on 2 processes" in said
    assert sorted(re.findall(r"semcache: compiling (\w+) \(paging\)… [0-9.]+ s", said)) == \
        ["fifo", "lru"]  # each loop as it is done
    assert [(r["policy"], r["mode"], r["from_cache"]) for r in first["compiled"]] == \
        [("fifo", "paging", False), ("lru", "paging", False)]
    with open(package / "simulator" / "policies" / "fifo.py", "a") as f:
        f.write("# an edit that changes no code still changes the file\n")
    again, _ = _compile(["--policy", "fifo,lru", "--mode", "paging", "--jobs", "1"],
                        cache, package)
    assert [(r["policy"], r["from_cache"]) for r in again["compiled"]] == \
        [("fifo", False), ("lru", True)]


def _demo_lines():
    """The Makefile's demo policies, and the arguments of its compile and run lines."""
    import shlex

    makefile = (_CHECKOUT / "Makefile").read_text()
    demo = dict(re.findall(r"^(\w+) := (.*)$", makefile, re.M))["DEMO_POLICIES"].split(",")
    compile_line = re.search(r"semcache compile (.*)$", makefile, re.M).group(1).split()
    run_line = shlex.split(re.search(r"semcache run (.*)$", makefile, re.M).group(1))
    return demo, compile_line, run_line


@pytest.fixture(scope="module")
def demo_cache(tmp_path_factory):
    """An empty cache into which two processes at once compile one of ``make demo``'s loops
    as its install does (its second policy, fifo: the loop that compiles fastest), and
    what each said.  The lock test reads what they said and the install test runs the
    demo's line from the cache, so the loop compiles from nothing once for both."""
    cache = tmp_path_factory.mktemp("demo-cache")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    argv = [sys.executable, "-m", "simulator.cli", "compile", "--policy", _demo_lines()[0][1],
            "--mode", "semantic", "--jobs", "1", "--json"]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) for _ in range(2)]
    outs = [p.communicate(timeout=900) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    return cache, [json.loads(out) for out, _ in outs]


def test_two_processes_wanting_one_loop_compile_it_once(demo_cache):
    """The per-loop lock: the process that waited loads what the other compiled."""
    cache, docs = demo_cache
    name = _demo_lines()[0][1]
    assert [doc["compiled"][0]["policy"] for doc in docs] == [name, name]
    assert sorted(doc["compiled"][0]["from_cache"] for doc in docs) == [False, True]
    assert list((cache / "semcache-locks").glob(f"_steps_{name}_*.lock"))


def _reach(name):
    from simulator import policies
    from simulator.engine import kernel_cache
    from simulator.engine.fast import hooks_of

    pol = policies.get(name)
    files, values = kernel_cache.reached([getattr(pol, h) for h in hooks_of(pol)])
    return {str(f.relative_to(_CHECKOUT)) for f in files}, values


def test_a_loop_is_named_after_the_files_its_hooks_reach_and_the_engine():
    from simulator import policies
    from simulator.engine import kernel_cache
    from simulator.engine.fast import hooks_of

    assert _reach("fifo")[0] == {"simulator/policies/base.py", "simulator/policies/fifo.py"}
    # ARC's own paging loop and the linked rows its hooks call are part of its loops
    assert _reach("arc")[0] == {"simulator/policies/base.py", "simulator/policies/arc.py",
                                "simulator/policies/parts/arc_paging_loop.py",
                                "simulator/policies/parts/linked_rows.py"}
    names = {n: kernel_cache.suffix(policies.get(n), hooks_of(policies.get(n)))
             for n in ("fifo", "lru")}
    fifo, lru = (names[n].split("_") for n in ("fifo", "lru"))
    assert fifo[2] == lru[2] == kernel_cache.ENGINE_HASH  # the engine is shared ...
    assert fifo[3] != lru[3]  # ... the files the hooks reach are their own


def test_an_imported_constant_is_part_of_the_name(monkeypatch):
    """numba freezes a global's value into the code: a constant imported from another
    module (policies/base.py's ``arriving_size``, which tinylfu calls, reads ``ARRIVING``
    from engine/counts) names the loop by its value."""
    from simulator import policies
    from simulator.engine import kernel_cache
    from simulator.engine.fast import hooks_of
    from simulator.policies import base

    pol = policies.get("tinylfu")
    assert "simulator.policies.base.arriving_size:ARRIVING" in _reach("tinylfu")[1]
    before = kernel_cache.suffix(pol, hooks_of(pol))
    monkeypatch.setattr(base, "ARRIVING", base.ARRIVING + 1)
    assert kernel_cache.suffix(pol, hooks_of(pol)) != before


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


def test_the_install_compiles_what_make_demo_runs(demo_cache):
    """The Makefile's install step compiles the demo's policies in the demo's mode, so the
    first ``make demo`` loads every loop from disk (its first table within seconds)."""
    demo, compile_line, run_line = _demo_lines()
    assert compile_line == ["--policy", "$(DEMO_POLICIES)", "--mode", "semantic"]
    assert run_line[run_line.index("--policy") + 1] == "$(DEMO_POLICIES)"
    assert "--budget" not in run_line  # unsized, as compiled
    cache, _ = demo_cache  # demo[1] compiled there, as by the compile line
    run_line[run_line.index("--policy") + 1] = demo[1]
    run_line[run_line.index("steps=5000")] = "steps=50"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), SEMCACHE_REPORT_CACHE="1")
    proc = subprocess.run([sys.executable, "-m", "simulator.cli", "run", *run_line, "--json"],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr
    runs = json.loads(proc.stdout)["runs"]
    assert [(r["policy"], r["compiled_from_cache"]) for r in runs] == [(demo[1], True)]


def test_your_files_are_followed_and_an_edit_since_loading_is_never_cached(tmp_path,
                                                                           monkeypatch):
    """A hook in your file calling a helper of another file as a module's attribute: both
    files and the helper's constant name the loop.  Edited after it was loaded, the
    hook's file no longer holds its code, so it is compiled, never cached."""
    import dataclasses
    import importlib

    from simulator.engine import kernel_cache
    from simulator.engine.fast import hooks_of
    from simulator.policies import fifo

    (tmp_path / "kc_probe_helpers.py").write_text(
        "from simulator.config import njit\n\nLIMIT = 3\n\n\n"
        "@njit\ndef gate(t):\n    return t % LIMIT == 0\n")
    hooks = tmp_path / "kc_probe_hooks.py"
    hooks.write_text("import kc_probe_helpers as helpers\nfrom simulator.config import njit\n"
                     "\n\n@njit\ndef admit(state, t, key, x, cache):\n"
                     "    return helpers.gate(t)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("kc_probe_helpers", "kc_probe_hooks"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    pol = dataclasses.replace(fifo.POLICY, name="probe",
                              admit=importlib.import_module("kc_probe_hooks").admit)
    files, values = kernel_cache.reached([getattr(pol, h) for h in hooks_of(pol)])
    assert {f.name for f in files} >= {"kc_probe_hooks.py", "kc_probe_helpers.py"}
    assert values["kc_probe_helpers.gate:LIMIT"] == "int:3"
    assert kernel_cache.disk_cached(pol, hooks_of(pol))
    hooks.write_text(hooks.read_text().replace("helpers.gate(t)", "not helpers.gate(t)"))
    assert not kernel_cache.disk_cached(pol, hooks_of(pol))
