"""Random replacement: always admit; evict a uniformly random cached item.

The cached items sit in an array in this order: an admission appends, a removal moves the
last entry into the hole.  The victim is entry ``randbelow(n)`` of the n entries, drawn from
the run's seeded stream (``rng.new_stream(seed, 0x52414E44)``), so a run depends only on its
seed and the order is a function of keys and steps, never of slot numbers.  Every hook is
O(1).  Retrievals and re-arrivals change nothing.

libCacheSim's ``Random`` draws from its own generator (seeded from the clock), so hit counts
cannot agree request for request; ``tests/test_paging_oracles_more.py`` compares the mean hit
count over seeds with the mean of repeated libCacheSim runs instead.
"""

import numpy as np

from simulator import rng
from simulator.config import njit
from simulator.policies.base import Policy, Traits

_SALT = 0x52414E44  # "RAND": separates this stream from any other stream of the run


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
_ENTRIES = 0  # the cached slots in array order (the first _COUNT entries)
_POSITION = 1  # per slot: its index in _ENTRIES
_COUNT = 2  # [n], how many entries are cached
_STREAM = 3  # the run's random stream for this policy


def _init(ctx):
    k = ctx.slots
    return (np.zeros(k, np.int64), np.zeros(k, np.int64), np.zeros(1, np.int64),
            rng.new_stream(ctx.seed, _SALT))


@njit
def _on_insert(state, slot, key, t):
    n = state[_COUNT][0]
    state[_ENTRIES][n] = slot
    state[_POSITION][slot] = n
    state[_COUNT][0] = n + 1


@njit
def _on_evict(state, slot, key, t):
    n = state[_COUNT][0] - 1
    i = state[_POSITION][slot]
    last = state[_ENTRIES][n]
    state[_ENTRIES][i] = last
    state[_POSITION][last] = i
    state[_COUNT][0] = n


@njit
def _victim(state, t, key, x, cache):
    return state[_ENTRIES][rng.randbelow(state[_STREAM], state[_COUNT][0])]


POLICY = Policy(name="random", summary="always admit; evict a uniformly random item (seeded)",
                init=_init, victim=_victim, on_insert=_on_insert, on_evict=_on_evict,
                traits=Traits(randomized=True), modes=("semantic", "paging"))
