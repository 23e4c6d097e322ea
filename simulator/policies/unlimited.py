"""Unlimited memory ("Embedder" in the SOLAR paper): admit everything, never evict."""

from simulator.config import njit
from simulator.policies.base import Policy, empty_state


def _init(ctx):
    return empty_state()


@njit
def _victim(state, t, key, x, cache):
    return -1  # never called: the engine gives an unbounded policy one slot per item


POLICY = Policy(name="unlimited", summary="no capacity; admits every item, never evicts",
                init=_init, victim=_victim, unbounded=True, modes=("semantic",))
