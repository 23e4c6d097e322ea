"""A user's own test file, written against the public kit only (``simulator.testing``).

A user has a new policy, ``even_fifo``: FIFO that admits only at even steps, with its own
state and compiled hooks.  The file shows what a user's CI does with it: a false bound is
refuted by a counterexample that hypothesis shrinks to a step or two and saves with the
commands that replay it; a true bound passes; and the compiled hooks are held to a
plain-Python twin through the reference engine and through the hook driver, where a
wrong twin is caught.
"""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simulator
from simulator.testing import (HookDriver, Instance, Twin, assert_ratio_at_most,
                               assert_same_as_reference, hook_machine, instances, traces)


def _init(ctx):
    return (np.zeros(ctx.slots, np.int64),)  # the step each slot's item was admitted at


@simulator.njit
def _admit(state, t, key, x, cache):
    return t % 2 == 0


@simulator.njit
def _on_insert(state, slot, key, t):
    state[0][slot] = t


@simulator.njit
def _victim(state, t, key, x, cache):
    slot_key = cache[0]
    oldest = -1
    for s in range(slot_key.size):
        if slot_key[s] >= 0 and (oldest < 0 or state[0][s] < state[0][oldest]):
            oldest = s
    return oldest


EVEN_FIFO = simulator.Policy(name="even_fifo", summary="FIFO that admits at even steps",
                             init=_init, admit=_admit, on_insert=_on_insert, victim=_victim,
                             modes=("semantic", "paging"))


class EvenFifo(Twin):
    """The policy as its docstring says it: admit at even steps, evict the oldest."""

    def admit(self, t, key, x, cache):
        return t % 2 == 0

    def victim(self, t, key, x, cache):
        return min(cache.values(), key=lambda item: item.adm).key


class EvenNewest(EvenFifo):
    """A wrong twin: evicts the newest item."""

    def victim(self, t, key, x, cache):
        return max(cache.values(), key=lambda item: item.adm).key


QUICK = settings(max_examples=30, deadline=None)


def test_a_false_bound_is_refuted_by_a_shrunk_saved_instance(tmp_path):
    @settings(QUICK, database=None)
    @given(instances())
    def within_opt(inst):
        assert_ratio_at_most(EVEN_FIFO, inst, c=1.0, folder=str(tmp_path))

    with pytest.raises(AssertionError) as failure:
        within_opt()
    message = str(failure.value)
    steps = int(re.search(r"\((\d+) steps?\)", message).group(1))
    assert steps <= 3  # shrunk: the instance itself, not a seed
    path = re.search(r"instance: (\S+\.npz)", message).group(1)
    assert simulator.load(path).steps == steps
    # a new process registers even_fifo by loading this file as a plugin
    assert f"semcache run --plugin {__file__} --trace {path} --policy even_fifo " \
           "--capacity" in message
    assert f"semcache opt --trace {path} --capacity" in message
    assert [p.name for p in tmp_path.iterdir()] == [path.rsplit("/", 1)[1]]  # the shrunk one


@settings(QUICK)
@given(instances())
def test_a_true_bound_passes(inst):
    # every step costs at most its weight and one modification
    assert_ratio_at_most(EVEN_FIFO, inst, c=1.0,
                         additive=inst.steps * (1.0 + inst.options["switch_cost"]))


@settings(QUICK)
@given(instances(max_steps=12, sized=True), st.integers(0, 3))
def test_the_compiled_policy_equals_its_twin(inst, seed):
    assert_same_as_reference(EVEN_FIFO, EvenFifo, inst, seed=seed)


@settings(QUICK)
@given(traces("paging", max_steps=30), st.integers(1, 4))
def test_the_compiled_policy_equals_its_twin_on_paging_traces(trace, capacity):
    assert_same_as_reference(EVEN_FIFO, EvenFifo, Instance(trace, {"capacity": capacity}))


def test_a_wrong_twin_is_caught_by_the_reference_engine():
    trace = simulator.PagingTrace.from_requests([0, 1, 2, 3, 4, 0])
    with pytest.raises(AssertionError, match="'hit' differs first at step 5"):
        assert_same_as_reference(EVEN_FIFO, EvenNewest, Instance(trace, {"capacity": 2}))


TestEvenFifoHooks = hook_machine(EVEN_FIFO, EvenFifo).TestCase
TestEvenFifoHooks.settings = settings(max_examples=20, stateful_step_count=30, deadline=None)


def test_a_wrong_twin_is_caught_by_the_hook_driver():
    vectors = np.eye(3, dtype=np.float32)
    right = HookDriver(EVEN_FIFO, EvenFifo, capacity=2, vectors=vectors)
    wrong = HookDriver(EVEN_FIFO, EvenNewest, capacity=2, vectors=vectors)
    for key in (0, 1):  # steps 0 and 2 admit; step 1 refuses key 2
        for driver in (right, wrong):
            driver.arrive(key, pick=0)
            driver.arrive(2, pick=0)
    right.arrive(2, pick=0)  # step 4: admit 2, evict the oldest (0)
    right.check()
    with pytest.raises(AssertionError, match="victim 0, the twin says 1"):
        wrong.arrive(2, pick=0)
