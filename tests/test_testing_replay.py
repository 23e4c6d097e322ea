"""What a failed assertion of ``simulator.testing`` leaves: one saved instance (the shrunk
one) and replay lines that reproduce it as printed, in a new process, plugin included."""

import dataclasses
import importlib.util
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import find, given, settings

from simulator import policies
from simulator.experiments import plugins
from simulator.instance import Instance
from simulator.testing import assert_ratio_at_most, instances
from simulator.testing.replay import plugin_of
from simulator.trace import Trace

ROOT = pathlib.Path(__file__).resolve().parents[1]
_X = np.eye(2, dtype=np.float32)
# one step: a policy that admits pays λ = 2 for an item no later query needs, OPT pays 1
ONE_STEP = Instance(Trace.from_arrays(queries=_X[[0]], items=_X[[1]], query_topics=[0],
                                      item_topics=[1]),
                    {"capacity": 1, "top_k": 1, "switch_cost": 2.0})
# a user's file: a policy of their own name, with FIFO's hooks (so the loop compiles once
# and the new process loads it from the disk cache)
RULES = """import dataclasses
from simulator import policies
POLICY = dataclasses.replace(policies.get("fifo"), name="replayed_fifo")
"""


@pytest.fixture
def registry(monkeypatch):
    """The policy registry, restored after the test (a plugin registers into it)."""
    monkeypatch.setattr(policies, "REGISTRY", dict(policies.REGISTRY))
    monkeypatch.setattr(policies, "ORIGINS", dict(policies.ORIGINS))


def test_a_failing_property_test_saves_only_its_shrunk_instance(tmp_path):
    failures = []

    @settings(max_examples=60, database=None, deadline=None, derandomize=True)
    @given(instances())
    def within_opt(inst):
        try:
            assert_ratio_at_most("fifo", inst, c=1.0, folder=tmp_path)
        except AssertionError:
            failures.append(inst)
            raise

    with pytest.raises(AssertionError) as failure:
        within_opt()
    named = re.search(r"instance: (\S+\.npz)", str(failure.value)).group(1)
    assert len({id(i) for i in failures}) > 1  # hypothesis shrank through several failures
    assert [str(p) for p in tmp_path.iterdir()] == [named]


def test_a_failure_nobody_reads_saves_nothing(tmp_path):
    def breaks(inst):
        try:
            assert_ratio_at_most("fifo", inst, c=1.0, folder=tmp_path)
        except AssertionError:
            return True
        return False

    assert find(instances(), breaks, settings=settings(database=None)).steps >= 1
    assert not list(tmp_path.iterdir())


def test_a_failure_that_cannot_save_says_so_and_still_fails(tmp_path):
    (tmp_path / "a_file").write_text("")
    with pytest.raises(AssertionError) as failure:
        assert_ratio_at_most("fifo", ONE_STEP, c=2.0, folder=tmp_path / "a_file" / "out")
    lines = str(failure.value).splitlines()
    assert lines[0] == "fifo: cost 3 > 2·OPT + 0 with OPT = 1"
    assert lines[1].startswith("instance: NOT SAVED to ") and "cannot replay it" in lines[1]


def _semcache(line: str) -> dict:
    """Run a printed ``semcache ...`` line in a new process, with ``--json``."""
    argv = shlex.split(line)
    assert argv[0] == "semcache"
    done = subprocess.run([sys.executable, "-m", "simulator.cli", *argv[1:], "--json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_replay_lines_reproduce_a_user_policy_as_printed(tmp_path, monkeypatch):
    rules = tmp_path / "my_rules.py"
    rules.write_text(RULES)
    spec = importlib.util.spec_from_file_location("my_rules", rules)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(sys.modules, "my_rules", module)  # imported by the user's test
    with pytest.raises(AssertionError) as failure:
        assert_ratio_at_most(module.POLICY, ONE_STEP, c=2.0, folder=tmp_path / "my out")
    message = str(failure.value)
    cost, best = map(float, re.search(r"cost (\S+) > .* OPT = (\S+)", message).groups())
    run_line, opt_line = (next(line for line in message.splitlines()
                               if line.startswith(f"semcache {cmd} ")) for cmd in ("run", "opt"))
    assert f"--plugin {rules}" in run_line and "'" in run_line  # the folder is quoted
    assert _semcache(run_line)["runs"][0]["cost"] == pytest.approx(cost)
    assert _semcache(opt_line)["opt_cost"] == pytest.approx(best)


def test_the_plugin_a_replay_names(tmp_path, registry):
    assert plugin_of(policies.get("fifo")) == (None, None)  # the package's own
    rules = tmp_path / "rules.py"
    rules.write_text(RULES.replace("replayed_fifo", "plugin_fifo"))
    plugins.load(str(rules))
    assert plugin_of(policies.get("plugin_fifo")) == (str(rules.resolve()), None)
    # defined where no new process can find it: said plainly
    here = dataclasses.replace(policies.get("fifo"), name="notebook_fifo")
    plugin, note = plugin_of(here)
    assert plugin is None and "needs it registered" in note and "--plugin" in note
    # a name another policy holds would replay that one: said plainly
    plugin, note = plugin_of(dataclasses.replace(policies.get("fifo"), summary="mine"))
    assert plugin is None and "registered to another policy (by semcache)" in note
