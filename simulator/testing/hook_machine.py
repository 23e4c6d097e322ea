"""A hypothesis state machine that holds a policy's hooks to its twin, call by call.

:func:`hook_machine` builds a ``RuleBasedStateMachine`` over a
:class:`~simulator.testing.hook_driver.HookDriver`: hypothesis picks the mode, the
capacity, the seed, the parameters, the vectors (small integer coordinates, so exact
similarity ties are common) and then a sequence of retrievals, feedbacks, arrivals (into
any free slot), paging requests and removals the policy did not choose; after every call
the slot cache must equal the twin's view.  Its ``TestCase`` is a unittest case pytest
collects.

>>> from simulator.policies import fifo
>>> from simulator.testing.twin import Twin
>>> class Fifo(Twin):
...     def victim(self, t, key, x, cache):
...         return min(cache.values(), key=lambda item: item.adm).key
>>> TestFifoHooks = hook_machine(fifo.POLICY, Fifo).TestCase
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition,
                                 rule)

from simulator.engine.kernels import normalize_rows
from simulator.testing import arguments
from simulator.testing.hook_driver import DIM, N_KEYS, HookDriver
from simulator.testing.twin import twin_class

STEPS = 40  # paging requests drawn up front: a machine of this many steps never runs out


def hook_machine(policy, twin, param_values=None, max_capacity=5):
    """A ``RuleBasedStateMachine`` subclass that drives ``policy`` against ``twin``.

    Parameters
    ----------
    policy : Policy or str
        The compiled policy (or its registry name); every mode it declares is drawn.
    twin : type
        Its :class:`~simulator.testing.twin.Twin` subclass.
    param_values : dict, optional
        Parameter name -> values worth trying; each run draws a subset of the policy's
        own parameters from it (the others keep their defaults; names of other registered
        policies' parameters are left out, as by :func:`simulator.testing.policy_params`).
    max_capacity : int
        K is drawn from 1 .. ``max_capacity``.

    Raises
    ------
    InputError
        A bad argument, named: a parameter of the policy in ``param_values`` must be the
        twin's too (``defaults``), and each of its values one the policy accepts.
    """
    pol = arguments.policy("policy", policy)
    twin = twin_class("twin", twin)
    values = arguments.param_values("param_values", pol, param_values)
    for name in values:
        arguments.twin_params("param_values", twin, {name: None})
    max_capacity = arguments.integer("max_capacity", max_capacity)
    names = sorted(values)
    vector = st.lists(st.integers(-2, 2), min_size=DIM, max_size=DIM).filter(any)

    class HookMachine(RuleBasedStateMachine):
        driver: HookDriver

        @initialize(mode=st.sampled_from(pol.modes), capacity=st.integers(1, max_capacity),
                    seed=st.integers(0, 3),
                    params=st.fixed_dictionaries({}, optional={
                        n: st.sampled_from(values[n]) for n in names}),
                    requests=st.lists(st.integers(0, 7), min_size=STEPS, max_size=STEPS + 10),
                    vectors=st.lists(vector, min_size=N_KEYS, max_size=N_KEYS))
        def start(self, mode, capacity, seed, params, requests, vectors):
            if mode == "paging":
                vecs = None
            else:
                vecs, requests = normalize_rows(np.array(vectors, np.float32)), None
            self.driver = HookDriver(pol, twin, capacity, seed, params, mode, requests, vecs)
            self.phase = 0  # 0: may retrieve, 1: may give feedback, 2: must arrive

        def semantic(self):
            return self.driver.mode == "semantic"

        @precondition(lambda self: self.semantic() and self.phase == 0
                      and self.driver.occupied())
        @rule(data=st.data())
        def retrieve(self, data):
            occ = self.driver.occupied()
            slots = data.draw(st.lists(st.sampled_from(occ), min_size=1, max_size=len(occ),
                                       unique=True), label="R_t")
            rel = data.draw(st.lists(st.booleans(), min_size=len(slots),
                                     max_size=len(slots)), label="relevant")
            self.driver.retrieve(slots, rel)
            self.phase = 1

        @precondition(lambda self: self.semantic() and self.phase <= 1)
        @rule(loss=st.sampled_from([0.0, 0.25, 1.0]) | st.floats(0, 1))
        def feedback(self, loss):
            self.driver.feedback(loss)
            self.phase = 2

        @precondition(lambda self: self.semantic())
        @rule(key=st.integers(0, N_KEYS - 1), pick=st.integers(0, 10))
        def arrive(self, key, pick):
            self.driver.arrive(key, pick)
            self.phase = 0

        @precondition(lambda self: not self.semantic()
                      and self.driver.t < len(self.driver.requests))
        @rule(pick=st.integers(0, 10))
        def request(self, pick):
            self.driver.request(pick)

        @precondition(lambda self: self.driver.occupied())
        @rule(data=st.data())
        def remove_any(self, data):
            self.driver.remove_any(data.draw(st.sampled_from(self.driver.occupied())))

        @invariant()
        def consistent(self):
            if hasattr(self, "driver"):
                self.driver.check()

    HookMachine.__name__ = HookMachine.__qualname__ = f"HookMachine_{pol.name}"
    return HookMachine
