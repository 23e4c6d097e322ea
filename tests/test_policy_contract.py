"""The shared policy contract (:mod:`simulator.policy_checks`) over every registry entry."""

import pytest

from simulator import policies
from simulator.runner import run
from simulator.policy_checks import (K, check_policy, is_gated, is_random, paging_checks,
                                     semantic_checks, zipf_requests)


@pytest.mark.parametrize("name, check", semantic_checks(),
                         ids=[f"{n}-{c.__name__}" for n, c in semantic_checks()])
def test_semantic_contract(name, check):
    check(name)


@pytest.mark.parametrize("name, check", paging_checks(),
                         ids=[f"{n}-{c.__name__}" for n, c in paging_checks()])
def test_paging_contract(name, check):
    check(name)


def test_every_policy_runs_somewhere():
    for name, pol in policies.REGISTRY.items():
        assert set(pol.modes) <= {"semantic", "paging"} and pol.modes, name


def test_classification_of_known_policies():
    """The contract's reading of the parameters matches the policies' docstrings."""
    assert {n for n in policies.REGISTRY if is_random(n)} >= {"solar_e", "solar"}
    assert {n for n in policies.REGISTRY if is_gated(n)} >= {"solar_a", "solar"}
    for name in ("unlimited", "fifo", "lru", "lfu", "arc", "belady", "solar_a"):
        if name in policies.REGISTRY:
            assert not is_random(name), name


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

    from simulator.policies import fifo

    monkeypatch.setattr(policies, "REGISTRY", dict(policies.REGISTRY))
    policies.REGISTRY["user_fifo"] = dataclasses.replace(fifo.POLICY, name="user_fifo")
    assert check_policy("user_fifo")[-1] == "check_paging"
    # a policy whose init hands every run the same arrays: its bookkeeping outlives the run
    # (the ring is larger than any capacity here, so nothing is written out of bounds)
    shared = (np.zeros(64, np.int64), np.zeros(2, np.int64))
    policies.REGISTRY["user_leaky"] = dataclasses.replace(
        fifo.POLICY, name="user_leaky", init=lambda ctx: shared)
    with pytest.raises(AssertionError, match="^policy 'user_leaky' fails check_determinism: "
                                             "fresh: same seed, different runs$"):
        check_policy("user_leaky")
