"""What ``amem`` and ``zep`` share: their sources keep every item, so a full cache is ours.

A-MEM's notes and Graphiti's edges are never removed for room (neither has a capacity);
run with a count limit or a budget, both evict the oldest admission (then the smaller
key), the rule that adds least of our own to an append-only store.  Not a policy.
"""

import numpy as np

from simulator.config import njit
from simulator.engine.kernels import similarities
from simulator.policies.base import admission_steps, slot_keys, slot_vectors


@njit
def oldest(cache):
    """The slot of the earliest admission, then the smaller key (-1 for an empty cache)."""
    slot_key, slot_adm = slot_keys(cache), admission_steps(cache)
    best = -1
    for s in range(slot_key.shape[0]):
        if slot_key[s] < 0:
            continue
        if best < 0 or slot_adm[s] < slot_adm[best] or (
                slot_adm[s] == slot_adm[best] and slot_key[s] < slot_key[best]):
            best = s
    return best


@njit
def cosines(x, cache, out):
    """``out[s]`` = cos(x, slot s) for every slot, the engine's float32 cosine
    (docs/model.md §1.2); free slots get a value too, which callers skip."""
    similarities(x, slot_vectors(cache), slot_keys(cache).shape[0], out)
    return out


def scratch(ctx) -> tuple:
    """(the arriving vector, float32 [dim]; cosines, float32 [slots])."""
    return np.zeros(ctx.dim, np.float32), np.zeros(ctx.slots, np.float32)

