"""The compiled step function: a semantic step and a paging request (docs/model.md §1), once.

:func:`_steps` runs steps ``t0 .. t1-1`` of a run held in a
:class:`~simulator.live_run.LiveRun`'s compiled arrays, in three phases:

* ``RETRIEVE`` — retrieval of R_t, relevance, scoring and the ``on_hit`` calls (steps 2–3);
* ``FEEDBACK`` — ``on_feedback`` with step t's miss cost and quality (step 4);
* ``ARRIVE`` — re-arrival, admission, eviction and deletion for item e_t (step 5).

The fast engine calls it once with every phase over the whole trace; the SimPy engine
(:mod:`simulator.engine.simpy`) calls it for one step and one phase at a time from its
events, so feedback can come late.  (One compiled function per phase was tried: the call
boundaries in the loop cost the fast engine about 15%.  A second copy compiled with the
phases fixed, so that their tests leave the loop, ran within 2% of this one and took a
third of each policy's compile time.)  :func:`_paging_steps` is the same for paging
requests; there :func:`_paging_whole`, the copy with the phases fixed, is kept: a paging
loop is a few instructions a request, and the tests in it cost FIFO and LRU 7-11%.

For each policy, :func:`steps_for` makes copies of these functions whose global hook
names (``_on_hit``, ``_victim`` …) are bound to that policy's compiled hooks, so numba
inlines them and no Python runs per step.  Each copy gets its own qualified name, salted
with a hash of the engine's files, of the hooks' names and of the files and constants the
hooks reach (:mod:`simulator.engine.kernel_cache`), so numba's on-disk cache keeps one entry per
policy and never reloads code compiled against an older hook: a second process loads them
instead of compiling, and editing one policy recompiles only its own loops.  Two processes
wanting one loop at once take turns on a lock file: one compiles, the other loads.  A
policy whose hooks have no file behind them (defined in a notebook cell, or by ``exec``)
is compiled in every process and never cached.

A policy that gives its own ``paging_loop`` (ARC) has whole paging traces run by that
loop instead, through :func:`own_paging_loop` (cached the same way).
"""

from __future__ import annotations

import types

import numpy as np

from simulator.engine import kernel_cache
from simulator.engine.counts import (ADMISSIONS, ARRIVING, BAD_DELETE, BAD_VICTIM, BUDGET,
                                     CAPACITY, DELETES_LOGGED, EVICTIONS, FREE, HIGH_WATER,
                                     HIT_SIZE, HITS, LOGGED, MAX_OCCUPANCY, OCCUPIED,
                                     REPEAT_DELETE, REQUESTED_SIZE, SIZE, TOO_LARGE)
from simulator.config import njit
from simulator.engine.fast_index import at
from simulator.engine.kernels import (BLOCK, block_row, block_start, is_relevant, quality_of,
                                      retrieve, top_k)

_KERNELS: dict = {}
HOOKS = ("on_hit", "on_feedback", "admit", "victim", "on_insert", "on_evict", "on_rearrival",
         "delete")
# The phases of one step, as bits of the ``phases`` argument of the step function.
RETRIEVE, FEEDBACK, ARRIVE = 1, 2, 4
WHOLE = RETRIEVE | FEEDBACK | ARRIVE
# Whether a copy of the step functions tracks sizes and a budget: a constant of each copy
# (steps_for), so the unit-size copies compile without any of it.
_SIZED = False
# Whether the policy has a ``delete`` hook: a paging request then asks it which slots to
# drop (a constant of each copy, so the other policies' paging loops compile without it).
_DROPS = False


# How items leave the slot cache: bodies compiled per policy like the step functions
# below (the hooks ``_on_evict``, ``_victim``, ``_delete`` and ``_SIZED`` bound in).
def remove_slot(s, t, state, slot_key, key_slot, counts, slot_size):
    """Shared by eviction and deletion: empty slot ``s`` and tell the policy.

    The caller either refills the slot at once (the last eviction for an admission: the
    same slot a LIFO free stack would hand out next) or pushes it on the free stack.
    """
    key = slot_key[s]
    _on_evict(state, s, key, t)  # noqa: F821  (bound per policy)
    key_slot[key] = -1
    slot_key[s] = -1
    counts[SIZE] -= 1
    if _SIZED:
        counts[OCCUPIED] -= slot_size[s]
    return key


def drop_deleted(t, state, cache, key_slot, free, slot_size, occupied):
    """After paging request t (a hit, or an admission), remove every slot the policy's
    ``delete`` names, until it names none (W-TinyLFU: what libCacheSim evicts during a
    hit); returns the total size cached, which the caller keeps in a register."""
    slot_key, counts = cache[0], cache[3]
    d = _delete(state, t, cache)  # noqa: F821
    if d == -1:
        return occupied
    if _SIZED:
        counts[OCCUPIED] = occupied  # remove_slot counts each dropped size out
    while d != -1:
        if d < 0 or d >= slot_key.shape[0] or slot_key[d] < 0:
            raise RuntimeError(BAD_DELETE, t, d)
        remove_slot(d, t, state, slot_key, key_slot, counts, slot_size)
        free[counts[FREE]] = d
        counts[FREE] += 1
        counts[EVICTIONS] += 1
        d = _delete(state, t, cache)  # noqa: F821
    return counts[OCCUPIED] if _SIZED else occupied


def evict_more(v, t, key, x, state, cache, key_slot, free, slot_size):
    """A sized arrival that one victim ``v`` did not make room for: ``v``'s slot is
    emptied and freed, and victims follow until the arrival fits; returns the slot the
    arrival takes (the last victim's)."""
    slot_key, counts = cache[0], cache[3]
    size = counts[ARRIVING]
    slot_key[v] = -1  # v was left for a refill: now it is only emptied
    counts[SIZE] -= 1
    while True:
        free[counts[FREE]] = v
        counts[FREE] += 1
        v = _victim(state, t, key, x, cache)  # noqa: F821
        if v < 0 or v >= slot_key.shape[0] or slot_key[v] < 0:
            raise RuntimeError(BAD_VICTIM, t, v)
        remove_slot(v, t, state, slot_key, key_slot, counts, slot_size)
        counts[EVICTIONS] += 1
        if counts[OCCUPIED] + size <= counts[BUDGET]:
            # remove_slot counted v out; the caller refills it as a victim's slot, so it is
            # counted back in
            counts[SIZE] += 1
            return v


def _steps(run, t0, t1, phases):
    """Run ``phases`` (bits RETRIEVE, FEEDBACK, ARRIVE) of steps ``t0 .. t1-1`` in the
    model's order (docs/model.md §1).

    A policy with ``repeat_delete`` is asked ``delete`` again after each deletion of a
    step, until it says -1; each deletion is logged in ``run.delete_log`` and the step's
    ``deleted`` record keeps the first.

    ``run`` is a :class:`~simulator.live_run.LiveRun`'s compiled arrays.  Writes step t's
    loss, hit, precision and quality (RETRIEVE) and its admitted, evicted and deleted keys
    and the cache size after it (ARRIVE); FEEDBACK reads the loss and quality that
    RETRIEVE wrote.

    Whole steps over a stretch (the fast engine) retrieve BLOCK steps at a time: their
    similarities come from one pass over the cache at the block's start, patched for the
    slots the block's own admissions fill (:func:`~simulator.engine.kernels.block_start`,
    :func:`~simulator.engine.kernels.block_row`).
    """
    queries, items, state, k, qcode = run.queries, run.items, run.state, run.k, run.qcode
    qtopic, itopic, weights, keys = (run.query_topics, run.item_topics, run.weights,
                                     run.item_keys)
    ev_ptr, ev_idx, has_ev = run.evidence_indptr, run.evidence_indices, run.has_evidence
    slot_key, slot_vec, slot_adm, slot_topic = (run.slot_key, run.slot_vec, run.slot_adm,
                                                run.slot_topic)
    key_slot, free, counts, sims, cross = (run.key_slot, run.free, run.counts, run.sims,
                                           run.cross)
    r_slot, r_sim = run.r_slot, run.r_sim
    out_loss, out_hit, out_prec, out_qual = run.loss, run.hit, run.precision, run.quality
    out_adm, out_evi, out_del, out_size = run.admitted, run.evicted, run.deleted, run.size
    sizes, slot_size, evict_log = run.item_sizes, run.slot_size, run.evict_log
    delete_log = run.delete_log
    n_slots = slot_key.shape[0]
    cache = (slot_key, slot_vec, slot_adm, counts)
    end = t0  # the current block is steps end-BLOCK .. end-1
    for t in range(t0, t1):
        if phases & RETRIEVE:  # docs/model.md §1 steps 2-3: retrieve R_t, tell the policy, score
            hwm = counts[HIGH_WATER]
            dense = counts[SIZE] == hwm
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
                _on_hit(state, s, t, rel)  # noqa: F821  (bound per policy by steps_for)
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
            size = 1
            if _SIZED:
                size = sizes[t]
                counts[ARRIVING] = size  # a unit-size run keeps it 1 from the start
            out_adm[t] = -1
            out_evi[t] = -1
            out_del[t] = -1
            if key_slot[key] >= 0:
                _on_rearrival(state, key_slot[key], t)  # noqa: F821
            elif _SIZED and size > counts[BUDGET]:
                counts[TOO_LARGE] += 1  # never admitted, so the policy is not asked
            elif _admit(state, t, key, items[t], cache):  # noqa: F821
                s = -1  # evict until it fits: one victim, or several when sizes differ
                while counts[SIZE] >= counts[CAPACITY] or (
                        _SIZED and counts[OCCUPIED] + size > counts[BUDGET]):
                    if s >= 0:  # an earlier victim's slot goes back on the free stack
                        free[counts[FREE]] = s
                        counts[FREE] += 1
                    s = _victim(state, t, key, items[t], cache)  # noqa: F821
                    if s < 0 or s >= n_slots or slot_key[s] < 0:
                        raise RuntimeError(BAD_VICTIM, t, s)
                    gone = remove_slot(s, t, state, slot_key, key_slot, counts, slot_size)
                    if out_evi[t] < 0:
                        out_evi[t] = gone
                    if _SIZED:
                        evict_log[counts[LOGGED], 0] = t
                        evict_log[counts[LOGGED], 1] = gone
                        counts[LOGGED] += 1
                if s < 0:
                    counts[FREE] -= 1
                    s = free[counts[FREE]]
                if s >= counts[HIGH_WATER]:
                    counts[HIGH_WATER] = s + 1
                slot_key[s] = key
                slot_vec[:, s] = items[t]
                slot_adm[s] = t
                slot_topic[s] = itopic[t]
                key_slot[key] = s
                counts[SIZE] += 1
                if _SIZED:
                    slot_size[s] = size
                    counts[OCCUPIED] += size
                    counts[MAX_OCCUPANCY] = max(counts[MAX_OCCUPANCY], counts[OCCUPIED])
                out_adm[t] = key
                _on_insert(state, s, key, t)  # noqa: F821
            dl = _delete(state, t, cache)  # noqa: F821
            while dl != -1:  # -1: delete nothing (more)
                # a slot that holds nothing is refused, so a policy that never says -1
                # stops at the empty cache: at most one deletion per cached item
                if dl < 0 or dl >= n_slots or slot_key[dl] < 0:
                    raise RuntimeError(BAD_DELETE, t, dl)
                gone = remove_slot(dl, t, state, slot_key, key_slot, counts, slot_size)
                free[counts[FREE]] = dl
                counts[FREE] += 1
                if out_del[t] < 0:  # the step's record keeps the first key deleted
                    out_del[t] = gone
                if counts[REPEAT_DELETE] == 0:
                    break
                # every deletion of a repeating policy is logged: a step may delete several
                delete_log[counts[DELETES_LOGGED], 0] = t
                delete_log[counts[DELETES_LOGGED], 1] = gone
                counts[DELETES_LOGGED] += 1
                dl = _delete(state, t, cache)  # noqa: F821
            out_size[t] = counts[SIZE]


def _paging_steps(run, t0, t1, phases):
    """Paging-mode phases of requests ``t0 .. t1-1`` (docs/model.md §1.7) of a
    :class:`~simulator.live_run.LiveRun`'s compiled arrays: :func:`_paging_kernel`."""
    _paging_kernel(t0, t1, phases, run.base, run.requests, run.slot_key,  # noqa: F821
                   run.slot_vec, run.slot_adm, run.key_slot, run.free, run.counts, run.state,
                   run.hit, run.request_sizes, run.slot_size)


def _paging_kernel(t0, t1, phases, base, requests, slot_key, slot_vec, slot_adm, key_slot,
                   free, counts, state, out_hit, sizes, slot_size):
    """RETRIEVE: the request is a hit iff its object is cached (``on_hit``); FEEDBACK: loss 1
    on a miss, 0 on a hit; ARRIVE: on a miss the object arrives and the policy decides.

    The arrays come as arguments, not from the run's bundle: read from the bundle inside
    this loop, they made a paging request about 7% slower (5.3 against 4.9 ms a million
    FIFO requests, measured in one process).  Indices go through
    :func:`~simulator.engine.fast_index.at` (keys are validated, victims checked); a prefetch, as
    in ARC's own loop, measured no faster here.

    ``requests``, ``out_hit`` and ``sizes`` hold requests ``base ..`` (row t - base is
    request t): a streamed run passes one chunk at a time, while the policy still sees
    each request's step t.
    """
    cache = (slot_key, slot_vec, slot_adm, counts)
    x = np.zeros(0, np.float32)
    capacity = counts[CAPACITY]
    n_slots = slot_key.shape[0]  # below capacity when a budget limits the run
    # the total size cached and the size tallies, which no policy reads, stay in registers
    # during the call (in counts, the total measured 1.41x the unit loop); the budget and
    # the rarer tallies stay in counts, leaving registers to the loop
    requested = hit_size = 0
    occupied = counts[OCCUPIED]
    for t in range(t0, t1):
        row = t - base
        key = requests[at(row)]
        size = 1
        if _SIZED:
            size = sizes[at(row)]
        if phases & RETRIEVE:
            s = key_slot[at(key)]
            hit = s >= 0
            out_hit[at(row)] = hit
            if _SIZED:
                requested += size
            if hit:
                counts[HITS] += 1
                if _SIZED:
                    hit_size += size
                _on_hit(state, s, t, True)  # noqa: F821
                if _DROPS:
                    occupied = drop_deleted(t, state, cache, key_slot, free, slot_size, occupied)
        else:
            hit = out_hit[at(row)] != 0
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
        if _SIZED:
            if size > counts[BUDGET]:
                counts[TOO_LARGE] += 1  # never admitted, so the policy is not asked
                continue
            counts[ARRIVING] = size
        if not _admit(state, t, key, x, cache):  # noqa: F821
            continue
        if counts[SIZE] >= capacity or (_SIZED and occupied + size > counts[BUDGET]):
            # the common case, one victim whose slot is refilled at once (so size and
            # slot_key end as they were), shares its code with the unit-size copy
            v = _victim(state, t, key, x, cache)  # noqa: F821
            if v < 0 or v >= n_slots or slot_key[v] < 0:
                raise RuntimeError(BAD_VICTIM, t, v)
            old = slot_key[at(v)]
            _on_evict(state, v, old, t)  # noqa: F821
            key_slot[at(old)] = -1
            counts[EVICTIONS] += 1
            if _SIZED:
                occupied -= slot_size[at(v)]
                if occupied + size > counts[BUDGET]:
                    counts[OCCUPIED] = occupied  # evict_more counts its victims out
                    v = evict_more(v, t, key, x, state, cache, key_slot, free, slot_size)
                    occupied = counts[OCCUPIED]
            s = v
        else:
            counts[FREE] -= 1
            s = free[counts[FREE]]
            counts[SIZE] += 1
        if _SIZED:
            slot_size[at(s)] = size
            occupied += size
            if occupied > counts[MAX_OCCUPANCY]:
                counts[MAX_OCCUPANCY] = occupied
        slot_key[at(s)] = key
        slot_adm[at(s)] = t
        key_slot[at(key)] = s
        counts[ADMISSIONS] += 1
        _on_insert(state, s, key, t)  # noqa: F821
        if _DROPS:
            occupied = drop_deleted(t, state, cache, key_slot, free, slot_size, occupied)
    if _SIZED:
        counts[OCCUPIED] = occupied
        counts[REQUESTED_SIZE] += requested
        counts[HIT_SIZE] += hit_size


def _paging_whole(run):
    """Every request the run's arrays hold, whole: :func:`_paging_steps` with its phases
    known when it is compiled, so the phase tests leave the loop; the whole trace, or a
    streamed run's chunk (requests ``run.base ..``)."""
    _paging_steps(run, run.base, run.base + run.requests.shape[0],  # noqa: F821
                  WHOLE)


def _own_paging(requests, n_keys, capacity, state, out_hit):
    """A paging run by the policy's own whole-trace loop (``Policy.paging_loop``)."""
    return _paging_loop(requests, n_keys, capacity, state, out_hit)  # noqa: F821


# only ever called from compiled code, so never disk-cached (their callers carry them)
_INNER = (remove_slot, _paging_kernel, evict_more, drop_deleted)


def hooks_of(policy) -> tuple:
    """The names of the functions of ``policy`` compiled into its loops (and hashed into
    their cache names): :data:`HOOKS`, and ``paging_loop`` when it has one."""
    return HOOKS + (("paging_loop",) if policy.paging_loop is not None else ())


def _key(policy, sized: bool) -> tuple:
    # keyed by the hooks themselves: a policy registered again under its name with new
    # hooks (a notebook cell run twice) gets new loops; _KERNELS keeps the hooks alive
    return (policy.name, sized, *(id(getattr(policy, hook)) for hook in hooks_of(policy)))


def built_name(policy, sized: bool = False) -> tuple | None:
    """``(disk_cached, suffix)`` of the loops this process has built for ``policy``'s
    hooks (:func:`~simulator.engine.kernel_cache.suffix`, before ``_sized``), or None
    before they are built.  Once built, a loop keeps the name it was built under for the
    rest of the process, whatever its hooks' files do since: asking again would walk the
    hooks for every run."""
    env = _KERNELS.get(_key(policy, sized))
    return None if env is None else env["_BUILT"]


def _compile(policy, sized: bool = False) -> dict:
    """The engine functions with ``policy``'s hooks bound, under salted names (built once
    per policy and ``sized``, the copies' ``_SIZED``).

    ``remove_slot`` and ``_paging_kernel`` are not disk-cached: they are never called from
    Python, and the cached functions that call them carry their code.  Nothing is, for a
    policy whose hooks have no source file (:func:`~simulator.engine.kernel_cache.disk_cached`).
    """
    own = policy.paging_loop is not None
    hooks = hooks_of(policy)
    key = _key(policy, sized)
    if key not in _KERNELS:
        cached = kernel_cache.disk_cached(policy, hooks)
        from simulator.policies.base import no_delete  # not at import: policies import us

        env = dict(globals(), _SIZED=sized, _DROPS=policy.delete is not no_delete)
        for hook in hooks:
            env["_" + hook] = getattr(policy, hook)
        named = kernel_cache.suffix(policy, hooks)
        env["_BUILT"] = (cached, named)  # read by built_name
        suffix = named + ("_sized" if sized else "")
        for body in (remove_slot, evict_more, drop_deleted, _steps, _paging_kernel,
                     _paging_steps, _paging_whole, *((_own_paging,) if own else ())):
            fn = types.FunctionType(body.__code__, env, f"{body.__name__}_{suffix}")
            fn.__qualname__ = fn.__name__
            # the only disk-cached functions that call into other files: the salt covers them
            disk = cached and body not in _INNER
            loop = njit(fn, cache=disk)
            env[body.__name__] = kernel_cache.locked(loop) if disk else loop
        _KERNELS[key] = env
    return _KERNELS[key]


def steps_for(policy, mode: str = "semantic", sized: bool = False):
    """``policy``'s compiled step function: ``fn(run, t0, t1, phases)``.

    ``run`` is a :class:`~simulator.live_run.LiveRun`'s compiled arrays (``mode``
    ``"semantic"`` or ``"paging"``); :meth:`LiveRun.step <simulator.live_run.LiveRun.step>`
    calls it.  ``sized``: the copy that tracks sizes and a budget (docs/model.md §1.8).
    """
    return _compile(policy, sized)["_steps" if mode == "semantic" else "_paging_steps"]


def paging_whole_for(policy, sized: bool = False):
    """``policy``'s compiled whole paging run: ``fn(run)`` runs every request of a paging
    run's arrays, whole (what :meth:`LiveRun.run_all <simulator.live_run.LiveRun.run_all>`
    and :meth:`LiveRun.feed <simulator.live_run.LiveRun.feed>` call; a semantic run's is
    its step function over every step)."""
    return _compile(policy, sized)["_paging_whole"]


def own_paging_loop(policy):
    """``policy``'s own whole-trace paging loop, compiled, or None when it has none:
    ``fn(requests, n_keys, capacity, state, out_hit) -> (hits, admissions, evictions)``."""
    return _compile(policy).get("_own_paging") if policy.paging_loop is not None else None


def loaded_from_disk(policy, mode: str, sized: bool = False) -> bool:
    """Whether the compiled functions this process ran for ``policy`` in ``mode`` came from
    numba's on-disk cache rather than a compilation here."""
    loops = [steps_for(policy, mode, sized)]
    if mode == "paging":
        loops.append(paging_whole_for(policy, sized))
    if mode == "paging" and policy.paging_loop is not None and not sized:
        loops.append(own_paging_loop(policy))
    return any(sum(loop.stats.cache_hits.values()) > 0 for loop in loops)
