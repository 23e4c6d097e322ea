"""Plugins: a user's file (or module) brings its policies, workloads and claims to every
command, through ``--plugin``, ``SEMCACHE_PLUGINS`` or an entry point, to Dask workers too,
with its compiled loops cached on disk like the package's own."""

import json
import os
import pathlib
import shlex
import subprocess
import sys
import textwrap

import pytest

from simulator import policies
from simulator.cli import main
from simulator.experiments import plugins

# The plugin the tests share, a file of the checkout: its loops are named after its path
# and its bytes, so they compile in the first session and load from disk in later ones (a
# plugin written to a new temporary folder compiles in every session).  The other plugins
# are this file under other names.
SHARED = pathlib.Path(__file__).parent / "data" / "plugins" / "redundancy.py"
PLUGIN = SHARED.read_text().replace('name="redundancy"', 'name="{name}"')

CLAIMS = '''
import theory
from theory import bounds, families

from {module} import POLICY

SMALL = families.grid("cycling", params={{"topics": lambda K: K + 1, "items_per_topic": 1,
                                         "dim": 8}}, capacity=[1, 2], top_k=[1], steps=[12])
FALSE = theory.Claim(id="{name}-cr", statement="1.1-competitive on cycling", policy=POLICY,
                     instances=SMALL, bound=bounds.ratio_at_most(1.1))
TRUE = theory.Claim(id="{name}-n", statement="at most T changes", policy=POLICY,
                    instances=SMALL, bound=bounds.modifications_at_most(lambda T: T))
'''


def _write(folder, name):
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(PLUGIN.format(name=name)))
    return path


@pytest.fixture(scope="module")
def shared_plugin():
    """The plugin file of the tests that only use it (:data:`SHARED`)."""
    return SHARED


@pytest.fixture
def forget(monkeypatch):
    """Registries and loaded plugins as they were, after the test."""
    from theory import claims

    monkeypatch.setattr(policies, "REGISTRY", dict(policies.REGISTRY))
    monkeypatch.setattr(claims, "REGISTRY", dict(claims.REGISTRY))
    monkeypatch.setattr(plugins, "_LOADED", dict(plugins._LOADED))


def _semcache(args, env=None, check=True):
    done = subprocess.run([sys.executable, "-m", "simulator.cli", *args], capture_output=True,
                          text=True, timeout=600, env={**os.environ, **(env or {})})
    if check:
        assert done.returncode == 0, done.stderr
    return done


def test_a_plugin_policy_runs_in_run_and_opt_by_flag_and_by_variable(shared_plugin, forget,
                                                                      capsys):
    path = shared_plugin
    run = ["run", "--workload", "clusters", "--param", "steps=200", "--policy",
           "redundancy,fifo", "--capacity", "5", "--json"]
    assert main(["--plugin", str(path), *run]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["policy"] for r in doc["runs"]] == ["redundancy", "fifo"]
    # the variable, in a fresh process, which loads the plugin's loops from numba's disk
    # cache (the suite's, where the run above put them; test_compile starts one empty)
    done = _semcache(run, env={"SEMCACHE_PLUGINS": str(path), "SEMCACHE_REPORT_CACHE": "1"})
    again = json.loads(done.stdout)["runs"]
    assert [r.pop("compiled_from_cache") for r in again] == [True, True]
    assert [{**r, "elapsed_s": 0} for r in again] == \
        [{**r, "elapsed_s": 0} for r in doc["runs"]]
    # and the flag after the subcommand
    assert main(["opt", "--plugin", str(path), "--workload", "clusters", "--param",
                 "steps=60", "--capacity", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["exact"]


def test_a_plugin_by_module_name_and_by_entry_point(tmp_path, forget, monkeypatch):
    _write(tmp_path, "redundancy_b")
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins.load("redundancy_b")
    assert policies.origin("redundancy_b") == "redundancy_b"

    class EntryPoint:
        value = "redundancy_c"

    _write(tmp_path, "redundancy_c")
    monkeypatch.setattr(plugins.importlib.metadata, "entry_points",
                        lambda group: [EntryPoint()] if group == plugins.GROUP else [])
    assert "redundancy_c" in plugins.load_all()
    assert "redundancy_c" in policies.REGISTRY


@pytest.mark.parametrize("text, said", [
    ("missing.py", "no such file"),
    ("not_a_module_anywhere", "cannot import it: ModuleNotFoundError"),
    ("BROKEN", "importing it raised ZeroDivisionError"),
    ("CLASH", "policy 'fifo' is already registered (by semcache)"),
])
def test_a_bad_plugin_is_one_line(text, said, tmp_path, forget, capsys):
    if text == "BROKEN":
        (tmp_path / "broken.py").write_text("x = 1 / 0\n")
        text = str(tmp_path / "broken.py")
    elif text == "CLASH":
        path = tmp_path / "clash.py"
        path.write_text(PLUGIN.format(name="fifo"))
        text = str(path)
    elif text.endswith(".py"):
        text = str(tmp_path / text)
    assert main(["run", "--plugin", text, "--workload", "clusters", "--policy", "fifo"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and "Traceback" not in err


def test_claims_from_a_file_give_a_replayable_violation_and_not_refuted(tmp_path, forget,
                                                                         shared_plugin):
    claims = tmp_path / "my_claims.py"
    claims.write_text(textwrap.dedent(CLAIMS.format(module="redundancy", name="redundancy")))
    out = tmp_path / "co"
    env = {"PYTHONPATH": os.pathsep.join([str(shared_plugin.parent), *sys.path])}
    done = _semcache(["claims", "--file", str(claims), "--out", str(out), "--json"], env=env)
    found = {c["id"]: c for c in json.loads(done.stdout)["claims"]}
    bad, good = found["redundancy-cr"], found["redundancy-n"]
    assert bad["verdict"] == "violated" and bad["basis"]["kind"] == "search"
    assert good["verdict"] == "not refuted"
    run_line, opt_line = bad["instance"]["reproduce"]
    assert f"--plugin {claims}" in run_line  # the replay names the plugin it needs
    cost = json.loads(_semcache(shlex.split(run_line)[1:] + ["--json"], env).stdout)
    best = json.loads(_semcache(shlex.split(opt_line)[1:] + ["--json"], env).stdout)
    assert cost["runs"][0]["cost"] > 1.1 * best["opt_cost"]
    # a plugin's claims join the registry: `semcache claims --only` runs them
    done = _semcache(["claims", "--only", "redundancy-n", "--out", str(out), "--json"],
                     env=dict(env, SEMCACHE_PLUGINS=str(claims)))
    assert json.loads(done.stdout)["claims"][0]["verdict"] == "not refuted"


def test_a_sweep_of_a_plugin_policy_runs_on_two_dask_workers(tmp_path, shared_plugin):
    out = tmp_path / "store"
    done = _semcache(["sweep", "--workload", "clusters", "--param", "steps=150", "--policy",
                      "redundancy,fifo", "--capacity", "3,5", "--seeds", "0", "--workers",
                      "2", "--out", str(out), "--json"],
                     env={"SEMCACHE_PLUGINS": str(shared_plugin)})
    doc = json.loads(done.stdout)
    assert doc["rows_written"] == 4 and doc["workers"] == 2
