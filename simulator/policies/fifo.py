"""First-in, first-out: always admit; evict the oldest admission."""

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy


def _init(ctx):
    # ring of slots in admission order; ptr = [head, length]
    return (np.zeros(ctx.capacity, np.int64), np.zeros(2, np.int64))


@njit
def _on_insert(state, slot, key, t):
    ring, ptr = state
    ring[(ptr[0] + ptr[1]) % ring.shape[0]] = slot
    ptr[1] += 1


@njit
def _on_evict(state, slot, key, t):
    ring, ptr = state
    # FIFO itself only ever evicts the head; a foreign deletion is removed in place
    n = ring.shape[0]
    for i in range(ptr[1]):
        if ring[(ptr[0] + i) % n] == slot:
            for j in range(i, 0, -1):
                ring[(ptr[0] + j) % n] = ring[(ptr[0] + j - 1) % n]
            ptr[0] = (ptr[0] + 1) % n
            ptr[1] -= 1
            return


@njit
def _victim(state, t, key, x, cache):
    ring, ptr = state
    return ring[ptr[0]]


POLICY = Policy(name="fifo", summary="always admit; evict the oldest admission",
                init=_init, victim=_victim, on_insert=_on_insert, on_evict=_on_evict)
