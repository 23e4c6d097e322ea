"""First-in, first-out: always admit; evict the oldest admission.

State is a ring of slots in admission order.  The ring index wraps by a compare rather than
``%``: an int64 modulo costs more than the rest of a paging step.
"""

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy


def _init(ctx):
    # ring of slots in admission order; ptr = [head, length]
    return (np.zeros(ctx.capacity, np.int64), np.zeros(2, np.int64))


@njit
def _wrap(i, n):
    return i - n if i >= n else i


@njit
def _on_insert(state, slot, key, t):
    ring, ptr = state
    ring[_wrap(ptr[0] + ptr[1], ring.shape[0])] = slot
    ptr[1] += 1


@njit
def _on_evict(state, slot, key, t):
    ring, ptr = state
    n = ring.shape[0]
    head = ptr[0]
    if ring[head] == slot:  # FIFO's own eviction: always the head
        ptr[0] = _wrap(head + 1, n)
        ptr[1] -= 1
        return
    # a foreign deletion is removed in place, shifting older entries one step later
    for i in range(1, ptr[1]):
        if ring[_wrap(head + i, n)] == slot:
            for j in range(i, 0, -1):
                ring[_wrap(head + j, n)] = ring[_wrap(head + j - 1, n)]
            ptr[0] = _wrap(head + 1, n)
            ptr[1] -= 1
            return


@njit
def _victim(state, t, key, x, cache):
    ring, ptr = state
    return ring[ptr[0]]


POLICY = Policy(name="fifo", summary="always admit; evict the oldest admission",
                init=_init, victim=_victim, on_insert=_on_insert, on_evict=_on_evict)
