"""Replay lines reproduce as printed: the ``semcache run`` line of a violated claim names
the ``--plugin`` that defines its policy, however the claim got the policy, and a claims
file may import the modules beside it, in ``claims --file`` and in the replay alike.

One user policy for the module: FIFO's hooks under another name (``fifo_twin``), so its
loops compile once and load from numba's disk cache in every later process.  Each replay
runs in a fresh process whose import path does not hold the claims' folder, and must
give the cost that the claim check stored.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys

import pytest

import theory

TWIN = '''
"""FIFO under another name: a user's policy in a file of its own."""
import dataclasses

from simulator.policies import REGISTRY

POLICY = dataclasses.replace(REGISTRY["fifo"], name="fifo_twin")
'''
FAMILY = '''
FAM = families.grid("cycling", params={"topics": lambda K: K + 1, "items_per_topic": 1,
                                       "dim": 8}, capacity=[1, 2], top_k=[1], steps=[6])
COSTS_LITTLE = bounds.predicate(lambda run, opt, inst: (run.summary()["cost"] < 2,
                                                        {"cost": run.summary()["cost"]}),
                                "cost < 2")
'''
INLINE = '''
import dataclasses
import theory
from simulator.policies import REGISTRY
from theory import bounds, families
''' + FAMILY + '''
CLAIM = theory.Claim(id="inline-twin", statement="FIFO costs little", instances=FAM,
                     policy=dataclasses.replace(REGISTRY["fifo"], name="fifo_twin"),
                     bound=COSTS_LITTLE)
'''
BESIDE = '''
import theory
from theory import bounds, families

import twin_rules  # beside this file, not on the import path of the command
''' + FAMILY + '''
CLAIM = theory.Claim(id="beside-twin", statement="FIFO costs little", instances=FAM,
                     policy=twin_rules.POLICY, bound=COSTS_LITTLE)
'''


def _semcache(args, cwd) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "simulator.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    assert done.returncode == 0, done.stderr
    return done


def _replayed_cost(line: str, cwd) -> float:
    """The cost that the printed ``semcache run`` line gives, run as printed."""
    argv = shlex.split(line)
    assert argv[:2] == ["semcache", "run"], line
    return json.loads(_semcache([*argv[1:], "--json"], cwd).stdout)["runs"][0]["cost"]


def test_a_policy_built_inside_the_claim_replays_as_printed(tmp_path):
    (tmp_path / "claims.py").write_text(INLINE)
    printed = _semcache(["claims", "--file", "claims.py", "--out", "co"], tmp_path).stdout
    line = next(x.strip() for x in printed.splitlines() if x.strip().startswith("semcache run"))
    assert f"--plugin {tmp_path / 'claims.py'}" in line and "--policy fifo_twin" in line
    assert "[VIOLATED] inline-twin" in printed
    stored = float(re.search(r"steps: cost ([0-9.]+)", printed).group(1))  # the evidence
    assert _replayed_cost(line, tmp_path) == stored >= 2


def test_a_claims_file_imports_the_policy_beside_it_and_the_replay_does_too(tmp_path):
    (tmp_path / "twin_rules.py").write_text(TWIN)
    (tmp_path / "claims.py").write_text(BESIDE)
    done = _semcache(["claims", "--file", "claims.py", "--out", "co", "--json"], tmp_path)
    claim = json.loads(done.stdout)["claims"][0]
    run_line = claim["instance"]["reproduce"][0]
    assert f"--plugin {tmp_path / 'claims.py'}" in run_line
    assert _replayed_cost(run_line, tmp_path) == claim["measured"]["shrunk"]["cost"]


def test_a_policy_object_given_in_python_replays_from_its_own_file(tmp_path, monkeypatch):
    """theory.check of a claim whose policy was imported from a module file: the line
    names that file, since no plugin registered the policy."""
    from simulator import policies
    from theory import bounds, families

    monkeypatch.setattr(policies, "REGISTRY", dict(policies.REGISTRY))
    (tmp_path / "twin_rules.py").write_text(TWIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    space = {"families": families, "bounds": bounds}
    exec(FAMILY, space)
    try:
        import twin_rules

        claim = theory.Claim(id="python-twin", statement="FIFO costs little",
                             policy=twin_rules.POLICY, instances=space["FAM"],
                             bound=space["COSTS_LITTLE"])
        result = theory.check(claim, out_dir=str(tmp_path / "co"))
    finally:
        sys.modules.pop("twin_rules", None)
    run_line = result.instance["reproduce"][0]
    assert f"--plugin {tmp_path / 'twin_rules.py'}" in run_line
    assert _replayed_cost(run_line, tmp_path) == result.measured["shrunk"]["cost"]


@pytest.mark.parametrize("held", ["a script's __main__", "a function's local"])
def test_a_policy_no_file_defines_gets_no_plugin(held, tmp_path, monkeypatch):
    """No module's top level holds it: the line has no --plugin rather than a wrong one."""
    import dataclasses

    from simulator import policies
    from theory.claims.base import plugin_of

    monkeypatch.setattr(policies, "REGISTRY", dict(policies.REGISTRY))
    policy = dataclasses.replace(policies.REGISTRY["fifo"], name="fifo_nowhere")
    if held == "a script's __main__":
        monkeypatch.setattr(sys.modules["__main__"], "POLICY", policy, raising=False)
    assert plugin_of(policy) is None


FROM_PLUGIN = '''
import theory
from theory import bounds, families

from twin_rules import POLICY  # also given as --plugin: one module, one policy
''' + FAMILY + '''
CLAIM = theory.Claim(id="plugin-twin", statement="FIFO costs little", instances=FAM,
                     policy=POLICY, bound=COSTS_LITTLE)
'''


def test_a_plugin_that_the_claims_file_imports_again_is_one_module(tmp_path, monkeypatch,
                                                                   capsys):
    """``--plugin twin_rules.py claims --file claims.py`` where the claims file imports
    twin_rules by name: the import is the plugin itself, so its policy is registered once
    (a second copy of the module clashed with the first: 'already registered')."""
    from simulator import policies
    from simulator.cli import main
    from simulator.experiments import plugins
    from theory import claims

    for module in (policies, claims):
        monkeypatch.setattr(module, "REGISTRY", dict(module.REGISTRY))
        monkeypatch.setattr(module, "ORIGINS", dict(module.ORIGINS))
    monkeypatch.setattr(plugins, "_LOADED", dict(plugins._LOADED))
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "twin_rules.py").write_text(TWIN)
    (tmp_path / "claims.py").write_text(FROM_PLUGIN)
    before = set(sys.modules)
    try:
        assert main(["--plugin", str(tmp_path / "twin_rules.py"), "claims", "--file",
                     str(tmp_path / "claims.py"), "--out", str(tmp_path / "co"),
                     "--json"]) == 0, capsys.readouterr().err
        assert sys.modules["twin_rules"].POLICY is policies.REGISTRY["fifo_twin"]
    finally:
        for name in set(sys.modules) - before:
            if "twin_rules" in name or name.startswith("semcache_plugin_claims"):
                del sys.modules[name]
    assert json.loads(capsys.readouterr().out)["claims"][0]["verdict"] == "violated"
