"""A policy a user writes outside the package: registered, run, edited and run again.

The engine's compiled loops are cached on disk under names that the package sources
salt (:mod:`simulator.engine.kernel_cache`).  A user's hooks are salted by the bytes of their own
files, so an edited hook runs its new code in the next process; hooks with no file behind
them are never cached; and a policy registered again under its name gets new loops.
"""

import dataclasses
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import simulator
from simulator import policies
from simulator.engine import fast as engine_fast
from simulator.engine import kernel_cache
from simulator.config import njit
from simulator.policies import fifo
from simulator.runner import run
from simulator.trace import PagingTrace

TRACE = PagingTrace.from_requests(np.arange(60) % 7)


@njit
def _every_other(state, t, key, x, cache):
    return t % 2 == 0


@njit
def _every_third(state, t, key, x, cache):
    return t % 3 == 0


def _gated(admit, name="user_gate"):
    return dataclasses.replace(fifo.POLICY, name=name, admit=admit, summary="fifo, gated")


@pytest.fixture
def registry(monkeypatch):
    monkeypatch.setattr(policies, "REGISTRY", dict(policies.REGISTRY))
    return policies.REGISTRY


def test_hooks_with_a_source_file_are_cached_and_others_are_not():
    assert all(kernel_cache.disk_cached(p, engine_fast.HOOKS)
               for p in policies.REGISTRY.values())
    # this file is on disk, so its hash names the loops: an edit compiles anew
    assert kernel_cache.disk_cached(_gated(_every_other), engine_fast.HOOKS)
    assert kernel_cache.suffix(_gated(_every_other), engine_fast.HOOKS) != \
        kernel_cache.suffix(dataclasses.replace(_gated(_every_other), name="fifo"),
                            engine_fast.HOOKS)
    cell = {}  # a notebook cell: no file behind it, nothing to hash
    exec(compile("from simulator.config import njit\n@njit\ndef gate(state, t, key, x, cache):"
                 "\n    return True\n", "<notebook cell>", "exec"), cell)
    assert not kernel_cache.disk_cached(_gated(cell["gate"]), engine_fast.HOOKS)


def test_cache_names_follow_the_hooks_not_only_the_name():
    same_name = _gated(fifo.POLICY.admit, name="fifo")
    assert kernel_cache.suffix(same_name, engine_fast.HOOKS) == \
        kernel_cache.suffix(fifo.POLICY, engine_fast.HOOKS)
    other = dataclasses.replace(fifo.POLICY, admit=policies.get("lru").admit,
                                on_hit=policies.get("lru").on_hit)
    assert kernel_cache.suffix(other, engine_fast.HOOKS) != \
        kernel_cache.suffix(fifo.POLICY, engine_fast.HOOKS)


def test_registering_again_under_the_same_name_runs_the_new_hooks(registry):
    registry["user_gate"] = _gated(_every_other)
    first = run(TRACE, "user_gate", capacity=3).summary()["admissions"]
    registry["user_gate"] = _gated(_every_third)
    second = run(TRACE, "user_gate", capacity=3).summary()["admissions"]
    misses_at = np.flatnonzero(run(TRACE, "user_gate", capacity=3).hit == 0)
    assert first != second
    assert second == sum(1 for t in misses_at if t % 3 == 0)


MODULE = """
from simulator.config import njit
from simulator.policies import fifo
from simulator.policies.base import Policy

@njit
def _admit(state, t, key, x, cache):
    return t % {every} == 0

POLICY = Policy(name="mine", summary="fifo admitting some arrivals", init=fifo._init,
                victim=fifo._victim, on_insert=fifo._on_insert, on_evict=fifo._on_evict,
                admit=_admit, modes=("semantic", "paging"))
"""
HELPER = """
from simulator.config import njit

@njit
def gate(t):
    return t % {every} == 0
"""
VIA_MODULE = MODULE.replace("from simulator.config import njit",
                            "import mine_helpers\nfrom simulator.config import njit").replace(
    "return t % {every} == 0", "return mine_helpers.gate(t)").replace('"mine"', '"mine_via"')
SCRIPT = """
import numpy as np
import mine, mine_via
from simulator import policies
from simulator.runner import run
from simulator.trace import PagingTrace

trace = PagingTrace.from_requests(np.arange(60) % 7)
for module in (mine, mine_via):
    policies.REGISTRY[module.POLICY.name] = module.POLICY
    print(run(trace, module.POLICY.name, capacity=3).summary()["admissions"])
"""


def test_an_edited_hook_or_helper_runs_its_new_code_in_the_next_process(tmp_path):
    """Two user policies, run in one new process after each edit (every = 2, then 3):
    ``mine``, whose hook is edited, and ``mine_via``, whose file is not but whose hook
    calls a helper of another file, reached as a module's attribute, which is.  Each is
    its own loop, named after its own files, so each must run its new code."""
    (tmp_path / "script.py").write_text(SCRIPT)
    (tmp_path / "mine_via.py").write_text(textwrap.dedent(VIA_MODULE))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    counts = []
    for every in (2, 3):
        for name, text in (("mine.py", MODULE), ("mine_helpers.py", HELPER)):
            (tmp_path / name).write_text(textwrap.dedent(text.format(every=every)))
        done = subprocess.run([sys.executable, str(tmp_path / "script.py")], env=env,
                              capture_output=True, text=True, timeout=300, check=True)
        counts.append([int(n) for n in done.stdout.split()])
    # requests cycle over 7 keys with capacity 3, so every request misses
    assert counts == [[len(range(0, 60, 2))] * 2, [len(range(0, 60, 3))] * 2]


def test_a_sweep_on_workers_refuses_a_policy_no_plugin_defines(registry, tmp_path):
    from simulator.errors import InputError
    from simulator.experiments.sweep import Grid, sweep
    from simulator.experiments.sweep.store import load_rows

    registry["user_gate"] = _gated(_every_other)
    grid = Grid("zipf_paging", params={"steps": [200], "objects": [20]}, seeds=[0],
                policies=["user_gate"], capacities=[3])
    with pytest.raises(InputError, match="registered in this process only, so Dask workers"):
        sweep(grid, str(tmp_path / "a"), workers=2)
    # the package's own hooks under a new name: still unknown to a worker's registry
    registry["fifo_again"] = dataclasses.replace(fifo.POLICY, name="fifo_again")
    again = Grid("zipf_paging", params={"steps": [200], "objects": [20]}, seeds=[0],
                 policies=["fifo_again"], capacities=[3])
    with pytest.raises(InputError, match="'fifo_again' is registered in this process only"):
        sweep(again, str(tmp_path / "c"), workers=2)
    sweep(grid, str(tmp_path / "b"), workers=0)
    assert [row["policy"] for row in load_rows(str(tmp_path / "b"))] == ["user_gate"]


def test_the_contract_takes_a_policy_object_without_registering_it():
    mine = _gated(_every_other, name="never_registered")
    assert "check_capacity" in simulator.check_policy(mine)
    assert "never_registered" not in policies.REGISTRY
    assert run(TRACE, mine, capacity=3).config["policy"] == "never_registered"
