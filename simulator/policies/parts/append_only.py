"""What ``amem`` and ``zep`` share: their sources keep every item, so a full cache is ours.

A-MEM's notes and Graphiti's edges are never removed for room (neither has a capacity);
run with a count limit or a budget, both evict the oldest admission
(:func:`~simulator.policies.parts.admission_order.oldest`), the rule that adds least of
our own to an append-only store.  Not a policy.
"""

import numpy as np

from simulator.config import njit
from simulator.engine.kernels import similarities
from simulator.policies.base import slot_keys, slot_vectors


@njit
def cosines(x, cache, out):
    """``out[s]`` = cos(x, slot s) for every slot, the engine's float32 cosine
    (docs/model.md §1.2); free slots get a value too, which callers skip."""
    similarities(x, slot_vectors(cache), slot_keys(cache).shape[0], out)
    return out


def scratch(ctx) -> tuple:
    """(the arriving vector, float32 [dim]; cosines, float32 [slots])."""
    return np.zeros(ctx.dim, np.float32), np.zeros(ctx.slots, np.float32)

