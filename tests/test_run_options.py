"""The options of a run (simulator.run_options.RunOptions): checked once, at the front door,
and passed below as one frozen object that nothing checks again."""

import dataclasses
import json

import numpy as np
import pytest

import simulator
from simulator import closed_loop, live_run, policies, run_options, runner
from simulator.engine import memory_estimate
from simulator.cli import main
from simulator.errors import InputError
from simulator.policies.base import Policy
from simulator.run_options import RunOptions
from simulator.trace import PagingTrace
from simulator.trace_formats import oracle_general

CHECKERS = ("check_capacity", "check_top_k", "check_switch_cost", "check_quality",
            "budget_value", "check_seed")


@pytest.fixture
def calls(monkeypatch):
    """How often each field checker ran, each policy parameter set was resolved and each
    policy was looked up in the registry."""
    counts = dict.fromkeys(CHECKERS + ("resolve_params", "policies.get"), 0)

    def counting(name, real):
        def wrapper(*args, **kwargs):
            counts[name] += 1
            return real(*args, **kwargs)
        return wrapper

    for name in CHECKERS:
        monkeypatch.setattr(run_options, name, counting(name, getattr(run_options, name)))
    monkeypatch.setattr(Policy, "resolve_params",
                        counting("resolve_params", Policy.resolve_params))
    monkeypatch.setattr(policies, "get", counting("policies.get", policies.get))
    return counts


@pytest.fixture
def run_checks(monkeypatch):
    """How often a run's three whole checks ran: the engine and its options, the memory
    estimate, and the choice between built options and keywords."""
    counts = dict.fromkeys(("check_engine", "check_run", "given_or_built"), 0)

    def counting(name, real):
        def wrapper(*args, **kwargs):
            counts[name] += 1
            return real(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(runner, "check_engine", counting("check_engine", runner.check_engine))
    monkeypatch.setattr(memory_estimate, "check_run",
                        counting("check_run", memory_estimate.check_run))
    chooser = counting("given_or_built", run_options.given_or_built)
    for module in (runner, live_run):  # each front door holds its own name for it
        monkeypatch.setattr(module, "given_or_built", chooser)
    return counts


def test_a_run_makes_each_whole_check_once(run_checks):
    trace = PagingTrace.from_requests([1, 2, 3, 1, 2, 4, 1])
    simulator.run(trace, "lru", capacity=2)
    assert run_checks == dict.fromkeys(run_checks, 1)  # before: given_or_built twice
    simulator.run(trace, options=RunOptions.build(policy="lru", capacity=2))
    assert run_checks == dict.fromkeys(run_checks, 2)


def test_a_live_run_makes_each_whole_check_once(run_checks):
    simulator.LiveRun(PagingTrace.from_requests([1, 2, 1]), "lru", capacity=2)
    assert run_checks == dict(check_engine=0, check_run=1, given_or_built=1)


def test_a_command_line_run_checks_memory_once_a_run_and_the_engine_once(run_checks, capsys):
    argv = ["run", "--workload", "zipf_paging", "--param", "steps=50", "--param",
            "objects=10", "--policy", "lru,fifo", "--capacity", "3", "--json"]
    assert main(argv) == 0
    assert len(json.loads(capsys.readouterr().out)["runs"]) == 2
    # the options are built once by the command, never chosen again (before: the engine
    # checked 3 times, the memory 4 times, given_or_built 4 times)
    assert run_checks == dict(check_engine=1, check_run=2, given_or_built=0)


def test_a_streamed_run_checks_memory_once_a_policy(run_checks, tmp_path):
    path = str(tmp_path / "t.oracleGeneral")
    oracle_general.write(path, [(np.array([5, 6, 5, 7, 5], np.uint64), None)])
    simulator.stream_run(path, ["lru", "fifo"], capacity=2)
    assert run_checks == dict(check_engine=0, check_run=2, given_or_built=0)


def test_a_closed_loop_checks_once_what_its_two_runs_share(run_checks):
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(6, 4))
    buf = closed_loop.buffer(vectors, vectors, np.ones(6, bool), 1)
    closed_loop.run(buf, RunOptions.build(policy="fifo", capacity=2, top_k=1),
                    lambda t, keys, sims: keys[:1])
    # the live run and the certifying re-run of the finished trace: the re-run's memory
    # is the buffer's, checked with the live run (before: 2, 2 and 3 times)
    assert run_checks == dict(check_engine=1, check_run=1, given_or_built=0)


def test_a_run_checks_each_option_once(calls):
    trace = PagingTrace.from_requests([1, 2, 3, 1, 2, 4, 1])
    simulator.run(trace, "lru", capacity=2, budget="1KiB", params={})
    assert calls == dict.fromkeys(calls, 1)  # before: K, k, λ and quality twice


def test_a_command_line_run_checks_each_option_once(calls, capsys):
    argv = ["run", "--workload", "clusters", "--param", "steps=60", "--policy", "lru",
            "--capacity", "3", "--budget", "64", "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["policy"] == "lru"
    # before: K, k, λ and quality three times, the budget three times, the parameters
    # resolved three times and the policy looked up five times
    assert calls == dict.fromkeys(calls, 1)


def test_the_options_are_frozen():
    options = RunOptions.build(policy="solar", capacity=4, params={"alpha": 0.2})
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.capacity = 0
    with pytest.raises(TypeError):
        options.params["alpha"] = 5.0  # the resolved parameters are read-only too
    assert options.params["alpha"] == 0.2 and options.policy is policies.get("solar")


def test_each_option_is_checked_with_the_message_of_its_parameter():
    for given, param in ((dict(capacity=0), "capacity"), (dict(top_k=True), "top_k"),
                         (dict(switch_cost=-1.0), "switch_cost"), (dict(quality="f1"), "quality"),
                         (dict(budget="1XB"), "budget"), (dict(seed=-1), "seed"),
                         (dict(params={"alpha": 1}), "params")):
        with pytest.raises(InputError, match=f"^{param} ") as err:
            RunOptions.build(**given)
        assert err.value.param == param


def test_shared_options_take_a_policy_and_a_seed_without_a_second_check(calls):
    shared = RunOptions.build(capacity=2, top_k=1)
    lru, fifo = shared.with_policy("lru"), shared.with_policy("fifo").with_seed(3)
    assert (lru.policy.name, fifo.policy.name, fifo.seed, shared.policy) == \
        ("lru", "fifo", 3, None)
    assert calls["check_top_k"] == 1 and calls["check_seed"] == 2
    trace = PagingTrace.from_requests([5, 6, 5, 7, 5])
    assert simulator.run(trace, options=lru).summary() | {"elapsed_s": 0} == \
        simulator.run(trace, "lru", capacity=2, top_k=1).summary() | {"elapsed_s": 0}


def test_a_run_needs_a_policy():
    with pytest.raises(InputError, match="needs a policy"):
        simulator.LiveRun(PagingTrace.from_requests([1]), options=RunOptions.build())


def test_limits_of_a_run():
    assert RunOptions.build(policy="fifo").run_limits() == (10, None)
    assert RunOptions.build(policy="fifo", budget=8).run_limits() == (None, 8)
    assert RunOptions.build(policy="unlimited", capacity=3, budget=8).run_limits() == \
        (None, None)


def test_built_options_or_keywords_not_both():
    trace = PagingTrace.from_requests([1, 2, 1])
    built = RunOptions.build(policy="lru", capacity=2)
    for mixed in (dict(policy="fifo"), dict(top_k=2), dict(seed=1), dict(switch_cost=0),
                  dict(top_k=3), dict(capacity=None)):  # a default's value is given too
        with pytest.raises(InputError, match="^pass either options= or keywords"):
            simulator.run(trace, options=built, **mixed)
    with pytest.raises(InputError, match="^options must be a RunOptions"):
        simulator.LiveRun(trace, options={"capacity": 2})
