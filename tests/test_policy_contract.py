"""The shared policy contract (:mod:`simulator.testing.contract`) over every registry entry."""

import pytest

from helpers.cached_hooks import cached_hooks
from simulator import policies
from simulator.runner import run
from simulator.testing.contract import (K, check_policy, declared, paging_checks,
                                     semantic_checks, zipf_requests)


def _by_policy(checks):
    """``{policy: [check, ...]}`` in the contract's order."""
    out = {}
    for name, check in checks:
        out.setdefault(name, []).append(check)
    return out


SEMANTIC = _by_policy(semantic_checks())
PAGING = _by_policy(paging_checks())


# One test per policy (its loops compile once, on one worker) and one subtest per check,
# so a failure still names its policy and check.
@pytest.mark.parametrize("name, checks", SEMANTIC.items(), ids=list(SEMANTIC))
def test_semantic_contract(name, checks, subtests):
    for check in checks:
        with subtests.test(check=check.__name__):
            check(name)


@pytest.mark.parametrize("name, checks", PAGING.items(), ids=list(PAGING))
def test_paging_contract(name, checks, subtests):
    for check in checks:
        with subtests.test(check=check.__name__):
            check(name)


def test_every_policy_runs_somewhere():
    for name, pol in policies.REGISTRY.items():
        assert set(pol.modes) <= {"semantic", "paging"} and pol.modes, name


def test_declared_traits_of_known_policies():
    """What the policies declare matches their docstrings (the contract verifies it)."""
    randomized = {"random", "solar_e", "solar", "solar_e_ref", "solar_ref", "coarse",
                  "memorybank", "memorybank_shipped"}
    assert {n for n in policies.REGISTRY if declared(n).randomized} == randomized
    assert {n for n in policies.REGISTRY if declared(n).regret_gated} == {"solar_a", "solar"}
    assert {n for n in policies.REGISTRY if declared(n).offline} == {"belady"}


@pytest.mark.parametrize("name", ["periodic", "history", "combined"])
def test_a_judge_that_can_err_makes_a_strategy_randomized(name):
    """A parameter can decide a trait: with the noisy judge a strategy draws from the seed,
    and the contract holds it to that declaration."""
    assert not declared(name).randomized
    coarse = {"addition": "coarse"}
    assert declared(name, coarse).randomized
    assert not declared(name, {**coarse, "false_positive": 0.0}).randomized
    assert "check_randomized" in check_policy(name, coarse)


def test_the_contract_verifies_what_a_policy_declares(monkeypatch):
    """A random policy declared deterministic, a deterministic one declared randomized or
    regret-gated, and a policy that reads the trace without declaring itself offline each
    fail the check that verifies that declaration."""
    import dataclasses

    from simulator.policies.base import Traits

    # fifo's and random's hooks as disk-cached copies (helpers/cached_hooks.py): a policy
    # with an init of its own has them typed alone, which would compile every session
    fifo, random = cached_hooks("fifo"), cached_hooks("random")
    monkeypatch.setattr(policies, "REGISTRY", dict(policies.REGISTRY))
    cases = {
        "undeclared_random": (dataclasses.replace(random, traits=Traits()),
                              "check_randomized: fresh: the seed changed a run"),
        "claims_random": (dataclasses.replace(fifo, traits=Traits(randomized=True)),
                          "check_randomized: 4 seeds, identical runs"),
        "claims_gated": (dataclasses.replace(fifo, traits=Traits(regret_gated=True)),
                         "check_feedback: declared regret-gated"),
        "reads_the_trace": (dataclasses.replace(
            fifo, init=lambda ctx: fifo.init(ctx) + (ctx.trace.steps,)),
            "check_capacity: InputError: policy 'reads_the_trace': init raised "
            "AttributeError"),
    }
    for name, (policy, failure) in cases.items():
        policies.REGISTRY[name] = dataclasses.replace(policy, name=name)
        with pytest.raises(AssertionError, match=f"^policy '{name}' fails {failure}"):
            check_policy(name)


@pytest.mark.parametrize("capacity", [1, 3, K, 10])
def test_belady_is_optimal_in_paging(capacity):
    """No paging policy hits more often than Belady's MIN on the same requests."""
    if "belady" not in policies.REGISTRY:
        pytest.skip("no belady")
    tr = zipf_requests(seed=capacity)
    best = run(tr, "belady", capacity=capacity).summary()["hits"]
    for name, pol in policies.REGISTRY.items():
        if "paging" in pol.modes:
            for seed in range(2):
                hits = run(tr, name, capacity=capacity, seed=seed).summary()["hits"]
                assert hits <= best, (name, hits, best)


def test_check_policy_names_the_policy_and_the_failed_check(monkeypatch):
    import dataclasses

    import numpy as np

    fifo = cached_hooks("fifo")  # as above
    monkeypatch.setattr(policies, "REGISTRY", dict(policies.REGISTRY))
    policies.REGISTRY["user_fifo"] = dataclasses.replace(fifo, name="user_fifo")
    assert check_policy("user_fifo")[-2:] == ["check_paging", "check_paging_budget"]
    # a policy whose init hands every run the same arrays: its bookkeeping outlives the run
    # (the ring is larger than any capacity here, so nothing is written out of bounds)
    shared = (np.zeros(64, np.int64), np.zeros(2, np.int64))
    policies.REGISTRY["user_leaky"] = dataclasses.replace(
        fifo, name="user_leaky", init=lambda ctx: shared)
    with pytest.raises(AssertionError, match="^policy 'user_leaky' fails check_determinism: "
                                             "fresh: same seed, different runs$"):
        check_policy("user_leaky")
