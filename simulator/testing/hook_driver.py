"""Drive a policy's compiled hooks by hand, without an engine, against its twin.

A :class:`HookDriver` plays the engine's part one call at a time: it owns a slot cache,
calls the hooks in engine order (retrieval worst match first, feedback, arrival with
admit / victim / insert, delete) and also removes arbitrary items, as a deletion strategy
would.  It puts new items into a free slot the caller picks, so a policy that depends on
slot numbers rather than on keys and steps shows up.  Every answer (admit, victim,
delete) is checked against the policy's :class:`~simulator.testing.twin.Twin`, and
:meth:`HookDriver.check` checks the slot cache against the twin's view.  A hypothesis
state machine over these calls is :func:`simulator.testing.hook_machine`.

A twin that refuses every arrival is caught at FIFO's first admission:

>>> from simulator.testing.twin import Twin
>>> class Refuses(Twin):
...     def admit(self, t, key, x, cache):
...         return False
>>> d = HookDriver("fifo", Refuses, capacity=2, mode="paging", requests=[0, 1])
>>> d.request(0)
Traceback (most recent call last):
AssertionError: fifo: admit
"""

from __future__ import annotations

import numpy as np

from simulator.engine.counts import ARRIVING, BUDGET, CAPACITY, COUNTS, FREE
from simulator.policies.context import Context
from simulator.errors import InputError
from simulator.rng import check_seed
from simulator.run_options import NO_BUDGET
from simulator.testing import arguments
from simulator.testing.reference_model import Item, TwinContext
from simulator.testing.twin import twin_class
from simulator.trace import PagingTrace

N_KEYS = 10  # semantic mode without vectors: keys 0 .. N_KEYS - 1 may arrive, in DIM
DIM = 3


class HookDriver:
    """The engine's side of the hook interface, one call at a time.

    Parameters
    ----------
    policy : Policy or str
        The compiled policy (or its registry name).
    twin : type
        Its :class:`~simulator.testing.twin.Twin` subclass.
    capacity : int
        K (an unbounded policy gets one slot per key).
    seed : int
    params : dict, optional
        The policy's parameters, given to both.
    mode : {"semantic", "paging"}
        Semantic: keys ``0 .. n - 1`` arrive, key ``i`` with ``vectors[i]`` (``vectors``
        an [n, d] array of unit rows; default ``N_KEYS`` zero rows of ``DIM``).  Paging:
        ``requests`` is the whole request sequence, played by :meth:`request`.

    Raises
    ------
    InputError
        A bad argument, here or of any method, named, before a hook runs: a slot, key or
        step out of range would index past the compiled state's arrays.
    """

    def __init__(self, policy, twin, capacity, seed=0, params=None, mode="semantic",
                 requests=None, vectors=None):
        self.pol = arguments.policy("policy", policy)
        twin = twin_class("twin", twin)
        capacity = arguments.integer("capacity", capacity)
        seed = check_seed(seed)
        params = arguments.policy_params("params", self.pol, params)
        arguments.twin_params("params", twin, params)
        resolved = self.pol.resolve_params(params)
        self.name = self.pol.name
        if not isinstance(mode, str) or mode not in self.pol.modes:
            raise InputError(f"mode must be one of the modes of policy '{self.name}' "
                             f"({', '.join(self.pol.modes)}), got {arguments.shown(mode)}",
                             "mode")
        self.mode = mode
        if mode == "paging":
            if vectors is not None:
                raise InputError("vectors are for semantic mode; paging mode has requests",
                                 "vectors")
            requests = arguments.int_list("requests", [] if requests is None else requests)
            if not requests:
                raise InputError("requests must hold the request sequence of paging mode "
                                 "(a list of integer ids), got none", "requests")
            trace = PagingTrace.from_requests(np.array(requests, np.int64))
            self.requests = trace.requests.tolist()
            n_keys, dim = trace.n_keys, 0
        else:
            if requests is not None:
                raise InputError("requests are for paging mode; semantic mode has vectors",
                                 "requests")
            vectors = _vectors(vectors)
            trace, self.requests = None, None
            n_keys, dim = vectors.shape
        if self.pol.unbounded:
            capacity = n_keys
        self.capacity = capacity
        ids = None if trace is None else trace.object_ids
        ctx = Context(capacity=capacity, n_keys=n_keys, dim=dim, params=resolved, seed=seed,
                      trace=trace, mode=mode, object_ids=ids)
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
        if mode == "paging":  # the paging engine passes empty vectors
            vectors = np.zeros((n_keys, dim), np.float32)
        self.vectors = np.asarray(vectors, np.float32)
        self.twin = twin(TwinContext(capacity, params, seed, 0.0, self.requests, mode,
                                      None if ids is None else ids.tolist()))
        self.items: dict = {}  # the twin's view of the same cache
        self.t = 0

    def occupied(self):
        """The occupied slots."""
        return [s for s in range(self.slot_key.size) if self.slot_key[s] >= 0]

    def free(self):
        """The free slots."""
        return [s for s in range(self.slot_key.size) if self.slot_key[s] < 0]

    def slot_of(self, key):
        """The slot holding ``key``, or -1."""
        key = arguments.integer("key", key, -2**63, 2**63 - 1)
        hits = np.flatnonzero(self.slot_key == key)
        return int(hits[0]) if hits.size else -1

    def _remove(self, s):
        key = int(self.slot_key[s])
        self.pol.on_evict(self.state, s, key, self.t)
        self.twin.on_evict(self.t, key)
        self.slot_key[s] = -1
        self.counts[0] -= 1
        del self.items[key]
        return key

    def _check_victim(self, v, want):
        assert 0 <= v < self.capacity and self.slot_key[v] >= 0, \
            f"{self.name}: victim slot {v} is not occupied ({self.slot_key.tolist()})"
        got = int(self.slot_key[v])
        assert self.twin.same_victim(self.t, got, want), \
            f"{self.name}: victim {got}, the twin says {want}"

    def retrieve(self, slots, relevant):
        """R_t = ``slots`` best first (distinct occupied slots); hooks see it worst first.
        ``relevant``: a bool per slot."""
        slots = arguments.int_list("slots", slots, 0, self.slot_key.size - 1)
        wrong = next((s for s in slots if self.slot_key[s] < 0), None)
        if wrong is not None or len(set(slots)) != len(slots):
            raise InputError(f"slots must be distinct occupied slots ({self.occupied()}), got "
                             f"{arguments.shown(slots)}", "slots")
        if not isinstance(relevant, (list, tuple, np.ndarray)) \
                or len(relevant) != len(slots):
            raise InputError(f"relevant must be a list of one bool per slot ({len(slots)}), "
                             f"got {arguments.shown(relevant)}", "relevant")
        relevant = [arguments.flag("relevant", r) for r in relevant]
        for s, rel in zip(reversed(slots), reversed(relevant)):
            self.pol.on_hit(self.state, s, self.t, rel)
        self.twin.on_retrieve(self.t, [int(self.slot_key[s]) for s in slots], relevant)

    def feedback(self, loss):
        """The step's miss cost ``loss`` in [0, 1] (its quality is 1 - loss)."""
        loss = arguments.number("loss", loss, low=0.0)
        if loss > 1.0:
            raise InputError(f"loss must be a finite number in [0, 1], got {loss!r}", "loss")
        self.pol.on_feedback(self.state, self.t, loss, 1.0 - loss)
        self.twin.on_feedback(self.t, loss, 1.0 - loss)

    def arrive(self, key, pick):
        """Arrival of ``key`` (0 .. n - 1); ``pick`` (an integer >= 0) chooses among free
        slots.  Ends the step."""
        key = arguments.integer("key", key, 0, len(self.vectors) - 1)
        pick = arguments.integer("pick", pick, 0, 2**63 - 1)
        x = self.vectors[key]
        s = self.slot_of(key)
        ok = False
        if s >= 0:
            self.pol.on_rearrival(self.state, s, self.t)
            self.twin.on_rearrival(self.t, key)
        else:
            ok = bool(self.pol.admit(self.state, self.t, key, x, self.cache))
            assert ok == self.twin.admit(self.t, key, x, self.items), f"{self.name}: admit"
            if ok:
                if self.counts[0] >= self.capacity:
                    v = int(self.pol.victim(self.state, self.t, key, x, self.cache))
                    want = self.twin.victim(self.t, key, x, self.items)
                    self._check_victim(v, want)
                    self._remove(v)
                free = self.free()
                s = free[pick % len(free)]
                self.slot_key[s] = key
                self.slot_vec[:, s] = x
                self.slot_adm[s] = self.t
                self.counts[0] += 1
                self.items[key] = Item(key, x.tolist(), -1, self.t)
                self.pol.on_insert(self.state, s, key, self.t)
                self.twin.on_insert(self.t, key)
        if self.mode == "semantic" and not self.pol.repeat_delete:
            self.delete()
        elif ok or self.mode == "semantic":  # a repeating policy is asked until -1
            self.drop()
        self.t += 1

    def delete(self):
        """Ask ``delete`` once and remove what it names; whether it named a slot."""
        d = int(self.pol.delete(self.state, self.t, self.cache))
        assert d == -1 or (0 <= d < self.slot_key.size and self.slot_key[d] >= 0), \
            f"{self.name}: delete named slot {d}, which holds no item"
        want = self.twin.delete(self.t, self.items)
        assert d == -1 if want is None else self.slot_key[d] == want, f"{self.name}: delete"
        if d >= 0:
            self._remove(d)
        return d >= 0

    def drop(self):
        """``delete`` until it names no slot: paging after a hit or an admission, and a
        semantic step of a policy with ``repeat_delete``."""
        while self.delete():
            pass

    def request(self, pick):
        """Paging mode: the next request of the pre-drawn sequence."""
        if self.mode != "paging":
            raise InputError("mode is semantic: request() plays paging mode's requests; "
                             "call arrive()", "mode")
        if self.t >= len(self.requests):
            raise InputError(f"every request has been played ({len(self.requests)}); give "
                             "a longer requests list", "requests")
        pick = arguments.integer("pick", pick, 0, 2**63 - 1)
        key = self.requests[self.t]
        s = self.slot_of(key)
        if s >= 0:
            self.retrieve([s], [True])
            self.drop()
            self.feedback(0.0)
            self.t += 1
        else:
            self.feedback(1.0)
            self.arrive(key, pick)

    def remove_any(self, s):
        """A deletion the policy did not choose (the engine's ``remove_slot`` of any
        occupied slot ``s``)."""
        s = arguments.integer("s", s, 0, self.slot_key.size - 1)
        if self.slot_key[s] < 0:
            raise InputError(f"s must be an occupied slot ({self.occupied()}), got {s}", "s")
        self._remove(s)

    def check(self):
        """The slot cache holds what the twin's view holds, within the capacity."""
        occ = self.occupied()
        assert self.counts[0] == len(occ) <= self.capacity
        assert sorted(int(self.slot_key[s]) for s in occ) == sorted(self.items)


def _vectors(vectors) -> np.ndarray:
    """Semantic mode's vectors: an [n, d] array of finite numbers, n, d >= 1."""
    if vectors is None:
        return np.zeros((N_KEYS, DIM), np.float32)
    try:
        with np.errstate(over="ignore"):  # a value past float32 becomes inf, refused below
            array = np.asarray(vectors, np.float32)
    except (TypeError, ValueError):
        array = None
    if array is None or array.ndim != 2 or 0 in array.shape \
            or not np.isfinite(array).all():
        raise InputError("vectors must be an [n, d] array of finite numbers (a vector per "
                         f"key, n and d >= 1), got {arguments.shown(vectors)}", "vectors")
    return array
