"""A run's slot cache: what its ``counts`` array holds, and how items leave it.

The functions are bodies for :mod:`simulator.engine.fast`, which compiles a copy of each
per policy with the policy's hooks (``_on_evict``, ``_victim``, ``_delete``) and its
``_SIZED`` bound in, as it does its step functions; they are never called as they are
here.  :func:`new_counts` is plain Python: a run's counts before its first step.
"""

import numpy as np

# What the ``counts`` array of a run holds: the number of cached items, the count limit,
# the height of the free-slot stack, and the high-water mark (slots at or above it were
# never used, so retrieval scans below it only).  A paging run, which retrieves nothing,
# keeps its tallies of hits, admissions and evictions in slots 3-5 instead (a semantic run
# counts those from its per-step outputs, simulator.live_run).  Then the sizes
# (docs/model.md §1.8): the total size cached, the budget, the largest total held, the arrivals
# too large to admit, the sizes requested and hit (paging),
# the evictions logged so far (semantic) and the size of the item arriving now.
SIZE, CAPACITY, FREE, HIGH_WATER = range(4)
HITS, ADMISSIONS, EVICTIONS = 3, 4, 5
OCCUPIED, BUDGET, MAX_OCCUPANCY, TOO_LARGE, REQUESTED_SIZE, HIT_SIZE, LOGGED, ARRIVING = \
    range(6, 14)
COUNTS = 14
# The first argument of the error a compiled loop raises when a policy's victim() or
# delete() names a slot that holds no item (or no slot at all); step and slot follow
# (simulator.engine.policy_faults says it in one line).
BAD_VICTIM = "bad victim slot"
BAD_DELETE = "bad delete slot"
# Whether the copy tracks sizes and a budget: set per copy (engine_fast's ``_SIZED``).
_SIZED = False


def new_counts(capacity: int, n_slots: int, budget: int | None, no_budget: int):
    """The ``counts`` of an empty cache of ``n_slots`` slots (``budget`` None: no budget,
    held as ``no_budget``, a number no total reaches)."""
    counts = np.zeros(COUNTS, np.int64)
    counts[CAPACITY], counts[FREE] = capacity, n_slots
    counts[BUDGET] = no_budget if budget is None else budget
    counts[ARRIVING] = 1
    return counts


def remove_slot(s, t, state, slot_key, key_slot, counts, slot_size):
    """Shared by eviction and deletion: empty slot ``s`` and tell the policy.

    The caller either refills the slot at once (the last eviction for an admission: the
    same slot a LIFO free stack would hand out next) or pushes it on the free stack.
    """
    key = slot_key[s]
    _on_evict(state, s, key, t)  # noqa: F821  (bound per policy, as in engine_fast)
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
