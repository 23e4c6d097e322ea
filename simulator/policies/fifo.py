"""First-in, first-out: always admit; evict the oldest admission.

State is a ring of slots in admission order, a named tuple (:class:`Ring`); the hooks
unpack it, so a plain tuple of the same two arrays (a user's own ``init`` around FIFO's
hooks) still works.  Hooks stay tiny and free of ``%`` so that numba inlines them into the
paging loop: a hook that is not inlined costs a call with reference counting on every
miss, which alone made FIFO three times slower than LRU.
"""

from typing import NamedTuple

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy


class Ring(NamedTuple):
    """FIFO's state."""

    ring: np.ndarray  # slots in admission order, from ptr[0] on, wrapping around
    ptr: np.ndarray  # [head, length]


def _init(ctx):
    return Ring(ring=np.zeros(ctx.slots, np.int64), ptr=np.zeros(2, np.int64))


@njit
def _on_insert(state, slot, key, t):
    ring, ptr = state
    i = ptr[0] + ptr[1]
    if i >= ring.shape[0]:
        i -= ring.shape[0]
    ring[i] = slot
    ptr[1] += 1


@njit
def _on_evict(state, slot, key, t):
    ring, ptr = state
    n = ring.shape[0]
    # FIFO's own victim is the head (no iteration).  A foreign deletion walks from the
    # head carrying each entry one place later until it overwrites ``slot``; the head
    # then advances, so the survivors keep their order.
    i = ptr[0]
    carry = ring[i]
    while carry != slot:
        i += 1
        if i == n:
            i = 0
        nxt = ring[i]
        ring[i] = carry
        carry = nxt
    head = ptr[0] + 1
    ptr[0] = 0 if head == n else head
    ptr[1] -= 1


@njit
def _victim(state, t, key, x, cache):
    ring, ptr = state
    return ring[ptr[0]]


POLICY = Policy(name="fifo", summary="always admit; evict the oldest admission",
                init=_init, victim=_victim, on_insert=_on_insert, on_evict=_on_evict,
                modes=("semantic", "paging"))
