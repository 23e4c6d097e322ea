"""The shared policy contract (``tests/policy_contract.py``) over every registry entry."""

import pytest

from simulator import policies
from simulator.runner import run
from policy_contract import (K, is_gated, is_random, paging_checks, semantic_checks,
                             zipf_requests)


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
