"""What a run's ``counts`` array holds: the layout the engine, the run objects and the
policies' accessors (:mod:`simulator.policies.base`) share, and :func:`new_counts`, a run's
counts before its first step."""

import numpy as np

# What the ``counts`` array of a run holds: the number of cached items, the count limit,
# the height of the free-slot stack, and the high-water mark (slots at or above it were
# never used, so retrieval scans below it only).  A paging run, which retrieves nothing,
# keeps its tallies of hits, admissions and evictions in slots 3-5 instead (a semantic run
# counts those from its per-step outputs, simulator.live_run).  Then the sizes
# (docs/model.md §1.8): the total size cached, the budget, the largest total held, the arrivals
# too large to admit, the sizes requested and hit (paging),
# the evictions logged so far (semantic) and the size of the item arriving now.  Last,
# for rules that forget and rewrite (docs/model.md §1.9): whether ``delete`` is asked
# again after each deletion of a semantic step (1: the policy's ``repeat_delete``), the
# deletions logged so far (such a policy's), and the in-place rewrites the policy has
# noted (``note_rewrites``).
SIZE, CAPACITY, FREE, HIGH_WATER = range(4)
HITS, ADMISSIONS, EVICTIONS = 3, 4, 5
OCCUPIED, BUDGET, MAX_OCCUPANCY, TOO_LARGE, REQUESTED_SIZE, HIT_SIZE, LOGGED, ARRIVING = \
    range(6, 14)
REPEAT_DELETE, DELETES_LOGGED, REWRITES = 14, 15, 16
COUNTS = 17
# The first argument of the error a compiled loop raises when a policy's victim() or
# delete() names a slot that holds no item (or no slot at all); step and slot follow
# (simulator.engine.policy_faults says it in one line).
BAD_VICTIM = "bad victim slot"
BAD_DELETE = "bad delete slot"


def new_counts(capacity: int, n_slots: int, budget: int | None, no_budget: int,
               repeat_delete: bool = False):
    """The ``counts`` of an empty cache of ``n_slots`` slots (``budget`` None: no budget,
    held as ``no_budget``, a number no total reaches; ``repeat_delete``: the policy's)."""
    counts = np.zeros(COUNTS, np.int64)
    counts[REPEAT_DELETE] = int(repeat_delete)
    counts[CAPACITY], counts[FREE] = capacity, n_slots
    counts[BUDGET] = no_budget if budget is None else budget
    counts[ARRIVING] = 1
    return counts
