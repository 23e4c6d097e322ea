"""Drive every policy's compiled hooks directly, without an engine, against its naive twin.

A :class:`HookDriver` plays the engine's part by hand: it owns a slot cache, calls the
hooks in engine order (retrieval worst match first, feedback, arrival with admit / victim /
insert, delete) and also removes arbitrary items, as a deletion strategy would.  It puts
new items into a *random* free slot, so a policy that depends on slot numbers rather than
on keys and steps shows up.  Every answer (admit, victim, delete) is checked against the
policy's plain-Python twin in ``tests/naive.py``.

The hypothesis state machine picks the sequence of calls; a few pinned sequences are
plain unit tests at the bottom.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition,
                                 rule)

from simulator import policies
from simulator.cache_slots import ARRIVING, BUDGET, CAPACITY, COUNTS, FREE
from simulator.kernels import normalize_rows
from simulator.policies.base import Context
from simulator.run_options import NO_BUDGET
from simulator.trace import PagingTrace
from naive import POLICIES, Ctx, Item

N_KEYS = 10
STEPS = 40  # state machine steps; a paging run never runs out of requests
DIM = 3


class HookDriver:
    """The engine's side of the hook interface, one call at a time."""

    def __init__(self, name, capacity, seed, params, mode, requests=None, vectors=None):
        self.name = name
        self.pol = policies.REGISTRY[name]
        self.mode = mode
        resolved = self.pol.resolve_params(params)
        if mode == "paging":
            trace = PagingTrace.from_requests(np.array(requests, np.int64))
            self.requests = trace.requests.tolist()
            n_keys, dim = trace.n_keys, 0
        else:
            trace, self.requests, n_keys, dim = None, None, N_KEYS, DIM
        if self.pol.unbounded:
            capacity = n_keys
        self.capacity = capacity
        ids = None if trace is None else trace.object_ids
        ctx = Context(capacity, n_keys, dim, resolved, seed, 0.0, trace, mode=mode,
                      object_ids=ids)
        self.state = self.pol.init(ctx)
        # as the engines: one slot per item the count limit allows, never more than the
        # keys (a policy sizes its per-slot state so; a slot beyond it would write out of
        # bounds in a compiled hook)
        self.slot_key = np.full(ctx.slots, -1, np.int64)
        self.slot_vec = np.zeros((dim, ctx.slots), np.float32)
        self.slot_adm = np.zeros(ctx.slots, np.int64)
        # the engines' counts layout (unit sizes, no budget): hooks read it by index
        self.counts = np.zeros(COUNTS, np.int64)
        self.counts[CAPACITY], self.counts[FREE] = capacity, ctx.slots
        self.counts[BUDGET], self.counts[ARRIVING] = NO_BUDGET, 1
        self.cache = (self.slot_key, self.slot_vec, self.slot_adm, self.counts)
        if vectors is None or mode == "paging":  # the paging engine passes empty vectors
            vectors = np.zeros((n_keys, dim), np.float32)
        self.vectors = vectors
        self.naive = POLICIES[name](Ctx(capacity, dict(params), seed, 0.0, self.requests, mode,
                                        None if ids is None else ids.tolist()))
        self.items: dict = {}  # the naive twin's view of the same cache
        self.t = 0

    # -- helpers
    def occupied(self):
        return [s for s in range(self.slot_key.size) if self.slot_key[s] >= 0]

    def free(self):
        return [s for s in range(self.slot_key.size) if self.slot_key[s] < 0]

    def slot_of(self, key):
        hits = np.flatnonzero(self.slot_key == key)
        return int(hits[0]) if hits.size else -1

    def _remove(self, s):
        key = int(self.slot_key[s])
        self.pol.on_evict(self.state, s, key, self.t)
        self.naive.on_evict(self.t, key)
        self.slot_key[s] = -1
        self.counts[0] -= 1
        del self.items[key]
        return key

    def _check_victim(self, v, want):
        assert 0 <= v < self.capacity and self.slot_key[v] >= 0, \
            f"{self.name}: victim slot {v} is not occupied ({self.slot_key.tolist()})"
        got = int(self.slot_key[v])
        if self.name == "belady":  # ties among never-requested-again objects are free
            want, got = self._next_use(want), self._next_use(got)
        assert got == want, f"{self.name}: victim {got}, naive twin says {want}"

    def _next_use(self, key):
        later = self.requests[self.t + 1:]
        return later.index(key) if key in later else len(later)

    # -- engine steps
    def retrieve(self, slots, relevant):
        """R_t = ``slots`` best first; hooks see it worst first."""
        for s, rel in zip(reversed(slots), reversed(relevant)):
            self.pol.on_hit(self.state, s, self.t, rel)
        self.naive.on_retrieve(self.t, [int(self.slot_key[s]) for s in slots], relevant)

    def feedback(self, loss):
        self.pol.on_feedback(self.state, self.t, loss, 1.0 - loss)
        self.naive.on_feedback(self.t, loss, 1.0 - loss)

    def arrive(self, key, slot_pick):
        """Arrival of ``key``; ``slot_pick`` chooses among free slots.  Ends the step."""
        x = self.vectors[key]
        s = self.slot_of(key)
        ok = False
        if s >= 0:
            self.pol.on_rearrival(self.state, s, self.t)
            self.naive.on_rearrival(self.t, key)
        else:
            ok = bool(self.pol.admit(self.state, self.t, key, x, self.cache))
            assert ok == self.naive.admit(self.t, key, x, self.items), f"{self.name}: admit"
            if ok:
                if self.counts[0] >= self.capacity:
                    v = int(self.pol.victim(self.state, self.t, key, x, self.cache))
                    want = self.naive.victim(self.t, key, x, self.items)
                    self._check_victim(v, want)
                    self._remove(v)
                free = self.free()
                s = free[slot_pick % len(free)]
                self.slot_key[s] = key
                self.slot_vec[:, s] = x
                self.slot_adm[s] = self.t
                self.counts[0] += 1
                self.items[key] = Item(key, x.tolist(), -1, self.t)
                self.pol.on_insert(self.state, s, key, self.t)
                self.naive.on_insert(self.t, key)
        if self.mode == "semantic":
            self.delete()
        elif ok:
            self.drop()
        self.t += 1

    def delete(self):
        """Ask ``delete`` once and remove what it names; whether it named a slot."""
        d = int(self.pol.delete(self.state, self.t, self.cache))
        want = self.naive.delete(self.t, self.items)
        assert d == -1 if want is None else self.slot_key[d] == want, f"{self.name}: delete"
        if d >= 0:
            self._remove(d)
        return d >= 0

    def drop(self):
        """Paging: after a hit or an admission, ``delete`` until it names no slot."""
        while self.delete():
            pass

    def request(self, slot_pick):
        """Paging mode: the next request of the pre-drawn sequence."""
        key = self.requests[self.t]
        s = self.slot_of(key)
        if s >= 0:
            self.retrieve([s], [True])
            self.drop()
            self.feedback(0.0)
            self.t += 1
        else:
            self.feedback(1.0)
            self.arrive(key, slot_pick)

    def remove_any(self, s):
        """A deletion the policy did not choose (the engine's ``remove_slot`` of any slot)."""
        self._remove(s)

    def check(self):
        occ = self.occupied()
        assert self.counts[0] == len(occ) <= self.capacity
        assert sorted(int(self.slot_key[s]) for s in occ) == sorted(self.items)


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


def machine_for(name):
    pol = policies.REGISTRY[name]
    param_names = sorted(set(pol.params) & set(PARAMS))

    class PolicyMachine(RuleBasedStateMachine):
        driver: HookDriver

        @initialize(mode=st.sampled_from(pol.modes), capacity=st.integers(1, 5),
                    seed=st.integers(0, 3),
                    params=st.fixed_dictionaries({}, optional={
                        n: st.sampled_from(PARAMS[n]) for n in param_names}),
                    requests=st.lists(st.integers(0, 7), min_size=STEPS, max_size=STEPS + 10),
                    vectors=st.lists(st.lists(st.integers(-2, 2), min_size=DIM,
                                              max_size=DIM).filter(any),
                                     min_size=N_KEYS, max_size=N_KEYS))
        def start(self, mode, capacity, seed, params, requests, vectors):
            vecs = normalize_rows(np.array(vectors, np.float32))
            self.driver = HookDriver(name, capacity, seed, params, mode, requests, vecs)
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

    PolicyMachine.__name__ = f"PolicyMachine_{name}"
    return PolicyMachine


for _name in policies.REGISTRY:
    _machine = machine_for(_name)
    _machine.TestCase.settings = settings(max_examples=25, stateful_step_count=STEPS)
    globals()[f"TestHooks_{_name}"] = _machine.TestCase


# --------------------------------------------------------------------------- pinned sequences

def _vectors():
    rows = [[1, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 1],
            [1, 1, 1], [-1, 0, 0], [0, -1, 0]]
    return normalize_rows(np.array(rows, np.float32))


SEMANTIC = [n for n, p in policies.REGISTRY.items() if "semantic" in p.modes]


@pytest.mark.parametrize("name", SEMANTIC)
def test_fill_hit_evict_and_restream(name):
    """Fill, retrieve in ranked order, evict, re-stream an evicted key, delete foreign."""
    # evaluator-gated memory strategies admit nothing on feedback 1.0: fill in warm-up
    warm = {"warmup": 3} if "warmup" in policies.REGISTRY[name].params else {}
    d = HookDriver(name, 3, 0, warm, "semantic", vectors=_vectors())
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
    d = HookDriver(name, 2, 1, {}, "semantic", vectors=vecs)
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
    d = HookDriver(name, 3, 0, {}, "paging", requests=reqs)
    for pick in range(len(reqs)):
        d.request(pick)
        d.check()


@pytest.mark.parametrize("name", SEMANTIC)
def test_foreign_deletion_inside_the_order_then_refill_and_evict(name):
    """A deletion the policy did not choose, of an item in the middle of its order, its
    slot refilled at once, then evictions checked against the naive twin: a policy that
    keeps a removed slot linked (or treats it as its own victim) picks wrong victims."""
    warm = {"warmup": 3} if "warmup" in policies.REGISTRY[name].params else {}
    d = HookDriver(name, 3, 0, warm, "semantic", vectors=_vectors())
    for key in (0, 1, 2):
        d.feedback(1.0)
        d.arrive(key, key)
    for first, second in ((0, 1), (2, 0)):  # an order that is neither admission nor slots
        d.retrieve([d.slot_of(first), d.slot_of(second)], [True, True])
        d.feedback(0.0)
        d.arrive(first, 0)  # a re-arrival: nothing is admitted
    d.remove_any(d.slot_of(0))  # neither the most nor the least recent
    for key in (5, 6, 7, 8, 9):  # the first refills the freed slot, the others evict
        d.feedback(1.0)
        d.arrive(key, 0)
        d.check()
