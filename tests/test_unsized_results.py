"""Sizes changed no result: on unsized traces every policy of the registry gives, in each
mode it has, exactly the runs of the code before sizes entered the model.

``tests/data/unsized_digests.json`` was written by ``tests/helpers/unsized_digests.py`` run
against commit 1ff6f3d (the last before sizes); see that module for what a digest holds.
tinylfu's two paging digests were pinned again when its paging runs came to follow
libCacheSim exactly (its sketch hashes the trace's object ids; protected gets ⌊4M/5⌋;
what libCacheSim evicts during a hit leaves then).
Every registered policy must be pinned there, so a policy added later gets pinned when
it is added (run the module and add its lines).
"""

import json
import pathlib

import pytest

from simulator import policies
from helpers.unsized_digests import digests

PINNED = json.loads((pathlib.Path(__file__).parent / "data" / "unsized_digests.json")
                    .read_text())


def test_every_policy_is_pinned():
    pinned = {key.split("/")[2] for key in PINNED}
    assert set(policies.REGISTRY) <= pinned


@pytest.mark.parametrize("policy", sorted(policies.REGISTRY))
def test_unsized_runs_are_those_before_sizes(policy):
    # the fast engine for every policy; the SimPy engine is held equal to it elsewhere
    # (test_engine_simpy.py), and here for a few below
    engines = ("fast", "simpy") if policy in ("fifo", "solar", "arc", "tinylfu") else ("fast",)
    now = digests([policy], engines)
    assert now == {k: PINNED[k] for k in now}
