"""Drive every policy's compiled hooks directly, without an engine, against its twin.

:class:`simulator.testing.HookDriver` plays the engine's part by hand (hook calls in engine
order, new items into a *random* free slot, removals the policy did not choose) and checks
every answer against the policy's plain-Python twin (``tests/helpers/naive.py``).  The state
machine of :func:`simulator.testing.hook_machine` picks the sequence of calls, one machine
per registered policy; a few pinned sequences are plain unit tests at the bottom.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import settings

from simulator import policies
from simulator.engine.kernels import normalize_rows
from simulator.testing import HookDriver, hook_machine
from simulator.testing.hook_driver import DIM, N_KEYS
from simulator.testing.hook_machine import STEPS
from helpers.cached_hooks import cached_hooks
from helpers.naive import POLICIES


def driver(name, capacity, seed, params, mode, **given):
    """The hook driver of the registered policy ``name`` and its twin."""
    return HookDriver(cached_hooks(name), POLICIES[name], capacity, seed, params, mode,
                      **given)


PARAMS = {"tie": ["admission", "bucket"], "alpha": [0.0, 0.5], "tau0": [0.0, 0.5, 2.0],
          "tau": [0.3, 1.0], "delta": [1, 3], "beta_step": [0.0, 0.5], "gamma": [0.0, 1.0],
          "novelty_scale": [1.0], "reward": ["retrieved", "relevant"], "w_recency": [0.0, 1.0],
          "w_use": [0.0, 1.0],
          "w_novelty": [0.0, 1.0], "age_scale": [1.0], "small_ratio": [0.0, 0.3, 1.0],
          "ghost_ratio": [0.0, 2.0], "move_threshold": [1, 3], "in_ratio": [0.0, 0.6, 1.0],
          "out_ratio": [0.0, 2.0], "window_ratio": [0.0, 0.3],
          "lam": [0.05, 5.0], "window": [1, 3], "tau_max": [0.2, 5.0], "bootstrap": [0, 2],
          "prior_alpha": [0.5, 2.0], "decay_every": [1, 2], "decay_amount": [0.0, 1.0],
          "novelty_bonus": [0.0, 2.0], "neighbours": [0, 1, 3],
          "warmup": [0, 3], "addition": ["all", "strict", "coarse"], "threshold": [0.5, 1.0],
          "false_positive": [0.0, 0.5], "min_retrievals": [1, 2], "beta": [0.5, 1.0],
          "period": [1, 3], "stale_after": [1, 4], "min_uses": [1, 2], "min_size": [1, 2]}


# The hooks are loaded from numba's disk cache, not compiled in every session
# (helpers/cached_hooks.py): the same code, compiled once.
for _name in policies.REGISTRY:
    _machine = hook_machine(cached_hooks(_name), POLICIES[_name], PARAMS)
    _machine.TestCase.settings = settings(max_examples=25, stateful_step_count=STEPS)
    globals()[f"TestHooks_{_name}"] = _machine.TestCase


# --------------------------------------------------------------------------- pinned sequences

def _vectors():
    rows = [[1, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 1],
            [1, 1, 1], [-1, 0, 0], [0, -1, 0]]
    return normalize_rows(np.array(rows, np.float32))


SEMANTIC = [n for n, p in policies.REGISTRY.items() if "semantic" in p.modes]


def _steady(name):
    """Parameters under which the pinned sequences' items stay until evicted: a warm-up
    for the evaluator-gated strategies, and for rules that forget with time, steps one
    second apart (so every step falls on one day), and for rules that update a similar
    memory in place of adding, a threshold only an equal vector reaches."""
    params = policies.REGISTRY[name].params
    return {**({"warmup": 3} if "warmup" in params else {}),
            **({"step_seconds": 1.0} if "step_seconds" in params else {}),
            **{p: 1.0 for p in ("update_threshold", "noop_threshold") if p in params}}


@pytest.mark.parametrize("name", SEMANTIC)
def test_fill_hit_evict_and_restream(name):
    """Fill, retrieve in ranked order, evict, re-stream an evicted key, delete foreign."""
    # evaluator-gated memory strategies admit nothing on feedback 1.0: fill in warm-up
    d = driver(name, 3, 0, _steady(name), "semantic", vectors=_vectors())
    for key in (0, 1, 2):  # fill through the free slots 2, 0, 1
        d.feedback(1.0)
        d.arrive(key, [2, 0, 0][key])
    for step in range(6):
        occ = d.occupied()
        d.retrieve([occ[step % len(occ)], occ[(step + 1) % len(occ)]], [True, False])
        d.feedback(0.5)
        d.arrive(3 + step % 4 if step != 4 else 0, step)  # key 0 again after its eviction
        d.check()
    d.remove_any(d.occupied()[-1])
    d.feedback(1.0)
    d.arrive(9, 0)
    d.check()


@pytest.mark.parametrize("name", SEMANTIC)
def test_ties_everywhere(name):
    """Identical vectors, identical retrieval counts: only the documented tie-breaks decide."""
    vecs = normalize_rows(np.ones((N_KEYS, DIM), np.float32))
    d = driver(name, 2, 1, {}, "semantic", vectors=vecs)
    for key in range(N_KEYS):
        occ = d.occupied()
        if occ:
            d.retrieve(occ[::-1], [False] * len(occ))
        d.feedback(1.0)
        d.arrive(key, key)
        d.check()


@pytest.mark.parametrize("name", [n for n, p in policies.REGISTRY.items()
                                  if "paging" in p.modes])
def test_paging_cycle(name):
    """A cyclic scan one larger than the cache, then a ghost-heavy tail (ARC's cases II–IV)."""
    reqs = [0, 1, 2, 3] * 3 + [0, 0, 4, 1, 4, 2, 5, 0, 5, 3, 1, 1, 2]
    d = driver(name, 3, 0, {}, "paging", requests=reqs)
    for pick in range(len(reqs)):
        d.request(pick)
        d.check()


@pytest.mark.parametrize("name", SEMANTIC)
def test_foreign_deletion_inside_the_order_then_refill_and_evict(name):
    """A deletion the policy did not choose, of an item in the middle of its order, its
    slot refilled at once, then evictions checked against the naive twin: a policy that
    keeps a removed slot linked (or treats it as its own victim) picks wrong victims."""
    d = driver(name, 3, 0, _steady(name), "semantic", vectors=_vectors())
    for key in (0, 2, 3):  # distinct vectors (keys 0 and 1 share one): a rule that
        d.feedback(1.0)    # updates a memory equal to the arrival adds each
        d.arrive(key, key)
    for first, second in ((0, 2), (3, 0)):  # an order that is neither admission nor slots
        d.retrieve([d.slot_of(first), d.slot_of(second)], [True, True])
        d.feedback(0.0)
        d.arrive(first, 0)  # a re-arrival: nothing is admitted
    d.remove_any(d.slot_of(0))  # neither the most nor the least recent
    for key in (5, 6, 7, 8, 9):  # the first refills the freed slot, the others evict
        d.feedback(1.0)
        d.arrive(key, 0)
        d.check()
