"""SOLAR: regret-gated admission (Alg. 1) + Thompson-sampling eviction (Alg. 2).

Parameters are those of :mod:`~simulator.policies.parts.regret_gate` (``alpha``, ``tau0``,
``tau``) and :mod:`~simulator.policies.parts.thompson` (``delta``, ``beta_step``, ``gamma``,
``novelty_scale``, ``reward``, ``evict_rank``); all randomness comes from the run's seed.

Sizes (docs/model.md §2.5): the gate decides as with unit sizes (one admission resets c,
whatever the item's size); the eviction draws once per arrival and evicts the lowest
scores of that draw until the arrival fits, ranked by score or, with
``evict_rank="per_size"``, by score per unit of size (see ``thompson``).
"""

from simulator.config import njit
from simulator.policies.parts import regret_gate, thompson
from simulator.policies.base import Policy, Traits

PARAMS = {**regret_gate.PARAMS, **thompson.PARAMS}


def _check(params):
    return regret_gate.check(params) or thompson.check(params)


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
_GATE = regret_gate.GATE  # the gate's state (first: its on_feedback reads it there)
_THOMPSON = 1  # the Thompson eviction's state


def _init(ctx):
    return (regret_gate.new_state(ctx.params, ctx.switch_cost), thompson.new_state(ctx))


@njit
def _on_hit(state, slot, t, relevant):
    thompson.on_hit(state[_THOMPSON], slot, relevant)


@njit
def _admit(state, t, key, x, cache):
    thompson.note_arrival(state[_THOMPSON], cache)
    return regret_gate.admit(state[_GATE])


@njit
def _on_insert(state, slot, key, t):
    thompson.on_insert(state[_THOMPSON], slot, key)


@njit
def _on_evict(state, slot, key, t):
    thompson.on_evict(state[_THOMPSON], slot)


@njit
def _victim(state, t, key, x, cache):
    return thompson.victim(state[_THOMPSON], t, cache)


POLICY = Policy(name="solar", summary="regret-gated admission (Alg. 1) + Thompson eviction "
                "(Alg. 2)", init=_init, victim=_victim, on_hit=_on_hit,
                on_feedback=regret_gate.on_feedback, admit=_admit,
                on_insert=_on_insert, on_evict=_on_evict, params=PARAMS, check_params=_check,
                traits=Traits(randomized=True, regret_gated=True), modes=("semantic", "paging"))
