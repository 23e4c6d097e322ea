"""The fast engine: one compiled loop over the whole trace, specialised per policy.

One semantic step (SPEC §1) is written once, in :func:`_steps`, as three phases:

* ``RETRIEVE`` — retrieval of R_t, relevance, scoring and the ``on_hit`` calls (steps 2–3);
* ``FEEDBACK`` — ``on_feedback`` with step t's miss cost and quality (step 4);
* ``ARRIVE`` — re-arrival, admission, eviction and deletion for item e_t (step 5).

``_steps(t0, t1, phases, ...)`` runs the chosen phases for steps ``t0 .. t1-1``.  The fast
loop :func:`_semantic` is one call with every phase over the whole trace; the SimPy engine
(:mod:`simulator.engine_simpy`) calls it, through :func:`_run_steps`, for one step and one
phase at a time from its events, so feedback can come late.  Between calls the cache
lives in the arrays of :func:`_empty_cache`, which the caller owns.  (One compiled
function per phase was tried: the call boundaries in the loop cost the fast engine about
15%.)

For each policy, :func:`kernel_for` makes copies of these functions whose global hook
names (``_on_hit``, ``_victim`` …) are bound to that policy's compiled hooks, so numba
inlines them and no Python runs per step.  Each copy gets its own qualified name, salted
with a hash of the package sources and of the hooks' names
(:mod:`simulator.kernel_cache`), so numba's on-disk cache keeps one entry per policy and
never reloads code compiled against an older hook.  Both entry points, the loops and
``_run_steps``, are cached that way, and so is ``_steps``, which both of them call: a
second process loads them instead of compiling.  A policy whose hooks live outside the
package (one a user registers from a script or a notebook) is compiled in every process
and never cached.

A policy that gives its own ``paging_loop`` (ARC) has paging traces run by that loop
instead of :func:`_paging`, through :func:`_own_paging` (cached the same way);
``kernel_for(policy, "paging", hooks=True)`` still gives the hook loop.
"""

from __future__ import annotations

import types

import numpy as np
from numba.core import types as nbtypes
from numba.experimental import structref

from simulator import kernel_cache
from simulator.config import njit
from simulator.fast_index import at
from simulator.kernels import (BLOCK, block_row, block_start, is_relevant, quality_of, retrieve,
                               top_k)

_KERNELS: dict = {}
HOOKS = ("on_hit", "on_feedback", "admit", "victim", "on_insert", "on_evict", "on_rearrival",
          "delete")
# The phases of one step, as bits of the ``phases`` argument of _steps.
RETRIEVE, FEEDBACK, ARRIVE = 1, 2, 4
WHOLE = RETRIEVE | FEEDBACK | ARRIVE
# counts[:] = size, capacity, free-stack height, high-water mark (slots at or above it
# have never been used, so retrieval scans below it only); paging mode keeps its tallies
# (hits, admissions, evictions) after the first three
_SIZE, _CAPACITY, _FREE, _HWM = range(4)
_HITS, _ADMISSIONS, _EVICTIONS = 3, 4, 5


def _remove(s, t, state, slot_key, key_slot, counts):
    """Shared by eviction and deletion: empty slot ``s`` and tell the policy.

    The caller either refills the slot at once (an eviction for an admission: the same
    slot a LIFO free stack would hand out next) or pushes it on the free stack.
    """
    key = slot_key[s]
    _on_evict(state, s, key, t)  # noqa: F821  (bound per policy by kernel_for)
    key_slot[key] = -1
    slot_key[s] = -1
    counts[0] -= 1
    return key


@njit(cache=True)  # self-contained: safe to cache on its own
def _empty_cache(n_slots, n_keys, d, capacity, k):
    """The engine's side of an empty cache: every array that ``_steps`` reads and writes.

    ``(slot_key, slot_vec, slot_adm, slot_topic, key_slot, free, counts, sims, cross,
    r_slot, r_sim)``: ``slot_vec`` is transposed (column s is slot s), ``free`` is a stack
    that pops slot 0 first, and ``sims`` ([BLOCK, slots]), ``cross`` ([BLOCK, BLOCK]),
    ``r_slot``, ``r_sim`` are retrieval scratch.
    """
    slot_key = np.full(n_slots, -1, np.int64)
    slot_vec = np.zeros((d, n_slots), np.float32)
    slot_adm = np.zeros(n_slots, np.int64)
    slot_topic = np.full(n_slots, -1, np.int64)
    key_slot = np.full(n_keys, -1, np.int64)
    free = np.arange(n_slots - 1, -1, -1).astype(np.int64)
    counts = np.zeros(4, np.int64)
    counts[_CAPACITY] = capacity
    counts[_FREE] = n_slots
    return (slot_key, slot_vec, slot_adm, slot_topic, key_slot, free, counts,
            np.empty((BLOCK, n_slots), np.float32), np.empty((BLOCK, BLOCK), np.float32),
            np.empty(k, np.int64), np.empty(k, np.float64))


def _steps(t0, t1, phases, queries, items, qtopic, itopic, weights, keys, ev_ptr, ev_idx,
           has_ev, k, qcode, slot_key, slot_vec, slot_adm, slot_topic, key_slot, free, counts,
           sims, cross, r_slot, r_sim, state, out_loss, out_hit, out_prec, out_qual, out_adm,
           out_evi, out_del, out_size):
    """Run ``phases`` (bits RETRIEVE, FEEDBACK, ARRIVE) of steps ``t0 .. t1-1``, in SPEC order.

    Writes step t's loss, hit, precision and quality (RETRIEVE) and its admitted, evicted
    and deleted keys and the cache size after it (ARRIVE); FEEDBACK reads the loss and
    quality that RETRIEVE wrote.

    Whole steps over a stretch (the fast loop) retrieve BLOCK steps at a time: their
    similarities come from one pass over the cache at the block's start, patched for the
    slots the block's own admissions fill (:func:`~simulator.kernels.block_start`,
    :func:`~simulator.kernels.block_row`).
    """
    n_slots = slot_key.shape[0]
    cache = (slot_key, slot_vec, slot_adm, counts)
    end = t0  # the current block is steps end-BLOCK .. end-1
    for t in range(t0, t1):
        if phases & RETRIEVE:  # SPEC §1 steps 2-3: retrieve R_t, tell the policy, score
            hwm = counts[_HWM]
            dense = counts[_SIZE] == hwm
            if t >= end and phases == WHOLE and t + BLOCK <= t1:
                block_start(queries, items, t, slot_vec, hwm, sims, cross)
                end = t + BLOCK
            if t < end:
                row = block_row(t - end + BLOCK, end - BLOCK, sims, cross, out_adm, key_slot)
                n_ret = top_k(row, slot_key, slot_adm, hwm, k, r_slot, r_sim, dense)
            else:
                n_ret = retrieve(queries[t], slot_vec, slot_key, slot_adm, hwm, k, sims[0],
                                 r_slot, r_sim, dense)
            n_rel = 0
            for j in range(n_ret - 1, -1, -1):  # worst match first (see policies.base)
                s = r_slot[j]
                rel = is_relevant(slot_key[s], slot_topic[s], qtopic[t], has_ev, ev_idx,
                                  ev_ptr[t], ev_ptr[t + 1])
                n_rel += rel
                _on_hit(state, s, t, rel)  # noqa: F821  (bound per policy by kernel_for)
            hit, prec, qual = quality_of(n_rel, n_ret, k, r_sim[0] if n_ret > 0 else 0.0,
                                         qcode)
            out_loss[t] = weights[t] * (1.0 - qual)
            out_hit[t] = hit
            out_prec[t] = prec
            out_qual[t] = qual
        if phases & FEEDBACK:  # step 4: the miss cost and quality reach the policy
            _on_feedback(state, t, out_loss[t], out_qual[t])  # noqa: F821
        if phases & ARRIVE:  # step 5: item e_t arrives and the policy decides
            key = keys[t]
            out_adm[t] = -1
            out_evi[t] = -1
            out_del[t] = -1
            if key_slot[key] >= 0:
                _on_rearrival(state, key_slot[key], t)  # noqa: F821
            elif _admit(state, t, key, items[t], cache):  # noqa: F821
                if counts[_SIZE] >= counts[_CAPACITY]:
                    v = _victim(state, t, key, items[t], cache)  # noqa: F821
                    if v < 0 or v >= n_slots or slot_key[v] < 0:
                        raise RuntimeError("policy chose a victim slot that is not occupied")
                    out_evi[t] = _remove(v, t, state, slot_key, key_slot, counts)
                    s = v
                else:
                    counts[_FREE] -= 1
                    s = free[counts[_FREE]]
                if s >= counts[_HWM]:
                    counts[_HWM] = s + 1
                slot_key[s] = key
                slot_vec[:, s] = items[t]
                slot_adm[s] = t
                slot_topic[s] = itopic[t]
                key_slot[key] = s
                counts[_SIZE] += 1
                out_adm[t] = key
                _on_insert(state, s, key, t)  # noqa: F821
            dl = _delete(state, t, cache)  # noqa: F821
            if dl >= 0:
                if dl >= n_slots or slot_key[dl] < 0:
                    raise RuntimeError("policy chose to delete a slot that is not occupied")
                out_del[t] = _remove(dl, t, state, slot_key, key_slot, counts)
                free[counts[_FREE]] = dl
                counts[_FREE] += 1
            out_size[t] = counts[_SIZE]


@structref.register
class _RunType(nbtypes.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, nbtypes.unliteral(typ)) for name, typ in fields)


class RunArrays(structref.StructRefProxy):
    """Every argument of :func:`_steps` after ``phases``, held in one compiled object.

    A call from Python then unboxes one argument instead of thirty (about 0.5 µs instead
    of 3.4 µs), which is what a discrete-event engine pays once per event.
    """


RUN_FIELDS = ("queries", "items", "qtopic", "itopic", "weights", "keys", "ev_ptr", "ev_idx",
              "has_ev", "k", "qcode", "slot_key", "slot_vec", "slot_adm", "slot_topic",
              "key_slot", "free", "counts", "sims", "cross", "r_slot", "r_sim", "state",
              "out_loss", "out_hit", "out_prec", "out_qual", "out_adm", "out_evi", "out_del",
              "out_size")
structref.define_proxy(RunArrays, _RunType, list(RUN_FIELDS))


@njit(cache=True)  # self-contained: safe to cache on its own
def _bundle(*arrays):
    return RunArrays(*arrays)


def _run_steps(run, t0, t1, phases):
    """:func:`_steps` on the arrays of a :class:`RunArrays`."""
    _steps(t0, t1, phases, run.queries, run.items, run.qtopic, run.itopic,  # noqa: F821
           run.weights, run.keys, run.ev_ptr, run.ev_idx, run.has_ev, run.k, run.qcode,
           run.slot_key, run.slot_vec, run.slot_adm, run.slot_topic, run.key_slot, run.free,
           run.counts, run.sims, run.cross, run.r_slot, run.r_sim, run.state, run.out_loss,
           run.out_hit, run.out_prec, run.out_qual, run.out_adm, run.out_evi, run.out_del,
           run.out_size)


def _semantic(queries, items, qtopic, itopic, weights, keys, ev_ptr, ev_idx, has_ev,
              n_slots, n_keys, capacity, k, qcode, state,
              out_loss, out_hit, out_prec, out_qual, out_adm, out_evi, out_del, out_size):
    T, d = queries.shape
    (slot_key, slot_vec, slot_adm, slot_topic, key_slot, free, counts, sims, cross, r_slot,
     r_sim) = _empty_cache(n_slots, n_keys, d, capacity, k)
    _steps(0, T, WHOLE, queries, items, qtopic, itopic, weights, keys, ev_ptr,  # noqa: F821
           ev_idx, has_ev, k, qcode, slot_key, slot_vec, slot_adm, slot_topic, key_slot, free,
           counts, sims, cross, r_slot, r_sim, state, out_loss, out_hit, out_prec, out_qual,
           out_adm, out_evi, out_del, out_size)


@njit(cache=True)  # self-contained: safe to cache on its own
def _empty_paging_cache(n_keys, capacity):
    """``(slot_key, slot_vec, slot_adm, key_slot, free, counts)`` of an empty paging cache.

    ``counts`` = size, capacity, free-stack height, then the tallies hits, admissions,
    evictions.  ``key_slot`` is int32: half the bytes, so more of it stays in cache.
    """
    counts = np.zeros(6, np.int64)
    counts[_CAPACITY] = capacity
    counts[_FREE] = capacity
    return (np.full(capacity, -1, np.int64), np.zeros((0, capacity), np.float32),
            np.zeros(capacity, np.int64), np.full(n_keys, -1, np.int32),
            np.arange(capacity - 1, -1, -1).astype(np.int64), counts)


def _paging_steps(t0, t1, phases, requests, slot_key, slot_vec, slot_adm, key_slot, free,
                  counts, state, out_hit):
    """Paging-mode phases of requests ``t0 .. t1-1`` (SPEC §1, last paragraph).

    RETRIEVE: the request is a hit iff its object is cached (``on_hit``); FEEDBACK: loss 1
    on a miss, 0 on a hit; ARRIVE: on a miss the object arrives and the policy decides.

    Indices go through :func:`~simulator.fast_index.at` (keys are validated, victims
    checked); a prefetch, as in ARC's own loop, measured no faster here.
    """
    cache = (slot_key, slot_vec, slot_adm, counts)
    x = np.zeros(0, np.float32)
    capacity = counts[_CAPACITY]
    for t in range(t0, t1):
        key = requests[at(t)]
        if phases & RETRIEVE:
            s = key_slot[at(key)]
            hit = s >= 0
            out_hit[at(t)] = hit
            if hit:
                counts[_HITS] += 1
                _on_hit(state, s, t, True)  # noqa: F821
        else:
            hit = out_hit[at(t)] != 0
        if phases & FEEDBACK:
            miss = 0.0 if hit else 1.0
            _on_feedback(state, t, miss, 1.0 - miss)  # noqa: F821
        if not (phases & ARRIVE) or hit:
            continue
        # admitted by an earlier miss still in flight (SimPy only: a miss found just now
        # in this call is not cached)
        if not (phases & RETRIEVE) and key_slot[key] >= 0:
            _on_rearrival(state, key_slot[key], t)  # noqa: F821
            continue
        if not _admit(state, t, key, x, cache):  # noqa: F821
            continue
        if counts[_SIZE] >= capacity:
            v = _victim(state, t, key, x, cache)  # noqa: F821
            if v < 0 or v >= capacity or slot_key[v] < 0:
                raise RuntimeError("policy chose a victim slot that is not occupied")
            # the victim's slot is refilled at once: size and slot_key end as they were
            old = slot_key[at(v)]
            _on_evict(state, v, old, t)  # noqa: F821
            key_slot[at(old)] = -1
            counts[_EVICTIONS] += 1
            s = v
        else:
            counts[_FREE] -= 1
            s = free[counts[_FREE]]
            counts[_SIZE] += 1
        slot_key[at(s)] = key
        slot_adm[at(s)] = t
        key_slot[at(key)] = s
        counts[_ADMISSIONS] += 1
        _on_insert(state, s, key, t)  # noqa: F821


def _paging(requests, n_keys, capacity, state, out_hit):
    slot_key, slot_vec, slot_adm, key_slot, free, counts = _empty_paging_cache(n_keys, capacity)
    _paging_steps(0, requests.shape[0], WHOLE, requests, slot_key,  # noqa: F821
                  slot_vec, slot_adm, key_slot, free, counts, state, out_hit)
    return counts[_HITS], counts[_ADMISSIONS], counts[_EVICTIONS]


@structref.register
class _PagingRunType(nbtypes.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, nbtypes.unliteral(typ)) for name, typ in fields)


class PagingRunArrays(structref.StructRefProxy):
    """Every argument of :func:`_paging_steps` after ``phases``, as one compiled object."""


PAGING_RUN_FIELDS = ("requests", "slot_key", "slot_vec", "slot_adm", "key_slot", "free",
                     "counts", "state", "out_hit")
structref.define_proxy(PagingRunArrays, _PagingRunType, list(PAGING_RUN_FIELDS))


@njit(cache=True)  # self-contained: safe to cache on its own
def _paging_bundle(*arrays):
    return PagingRunArrays(*arrays)


def _run_paging_steps(run, t0, t1, phases):
    """:func:`_paging_steps` on the arrays of a :class:`PagingRunArrays`."""
    _paging_steps(t0, t1, phases, run.requests, run.slot_key, run.slot_vec,  # noqa: F821
                  run.slot_adm, run.key_slot, run.free, run.counts, run.state, run.out_hit)


def _own_paging(requests, n_keys, capacity, state, out_hit):
    """A paging run by the policy's own whole-trace loop (``Policy.paging_loop``)."""
    return _paging_loop(requests, n_keys, capacity, state, out_hit)  # noqa: F821


def _compile(policy) -> dict:
    """The engine functions with ``policy``'s hooks bound, under salted names (built once).

    ``_remove`` is not disk-cached: it is never called from Python, and the cached
    functions that call it carry its code.  Nothing is, for a policy from outside the
    package (:func:`~simulator.kernel_cache.disk_cached`).
    """
    # keyed by the hooks themselves: a policy registered again under its name with new
    # hooks (a notebook cell run twice) gets new loops; _KERNELS keeps the hooks alive
    own = policy.paging_loop is not None
    hooks = HOOKS + (("paging_loop",) if own else ())
    key = (policy.name, *(id(getattr(policy, hook)) for hook in hooks))
    if key not in _KERNELS:
        cached = kernel_cache.disk_cached(policy, hooks)
        env = dict(globals())
        for hook in hooks:
            env["_" + hook] = getattr(policy, hook)
        suffix = kernel_cache.suffix(policy, hooks)
        for body in (_remove, _steps, _run_steps, _semantic, _paging_steps,
                     _run_paging_steps, _paging, *((_own_paging,) if own else ())):
            fn = types.FunctionType(body.__code__, env, f"{body.__name__}_{suffix}")
            fn.__qualname__ = fn.__name__
            # the only disk-cached functions that call into other files: the salt covers them
            env[body.__name__] = njit(fn, cache=cached and body is not _remove)
        _KERNELS[key] = env
    return _KERNELS[key]


def kernel_for(policy, mode: str, hooks: bool = False):
    """The compiled loop (``"semantic"`` or ``"paging"``) with ``policy``'s hooks inlined.

    In paging mode a policy's own ``paging_loop``, if it has one, unless ``hooks``.
    """
    env = _compile(policy)
    if mode == "semantic":
        return env["_semantic"]
    own = policy.paging_loop is not None and not hooks
    return env["_own_paging" if own else "_paging"]


def steps_for(policy, mode: str = "semantic"):
    """``policy``'s compiled step function, for engines that drive the phases themselves.

    Call it as ``fn(run, t0, t1, phases)`` with ``run = bundle(...)`` (semantic) or
    ``run = paging_bundle(...)`` (paging).
    """
    return _compile(policy)["_run_steps" if mode == "semantic" else "_run_paging_steps"]


def bundle(*arrays) -> RunArrays:
    """The arguments of :func:`_steps` after ``phases`` (see ``RUN_FIELDS``), as one object."""
    return _bundle(*arrays)


def paging_bundle(*arrays) -> PagingRunArrays:
    """The arguments of :func:`_paging_steps` after ``phases`` (``PAGING_RUN_FIELDS``)."""
    return _paging_bundle(*arrays)


def empty_paging_cache(n_keys: int, capacity: int) -> tuple:
    """A fresh, empty paging cache: the arrays :func:`_paging_steps` takes after ``requests``."""
    return _empty_paging_cache(n_keys, capacity)


def empty_cache(n_slots: int, n_keys: int, dim: int, capacity: int, k: int) -> tuple:
    """A fresh, empty engine cache: the arrays :func:`_steps` takes after ``qcode``."""
    return _empty_cache(n_slots, n_keys, dim, capacity, k)
