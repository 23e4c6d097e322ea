"""SOLAR-E: always admit; Thompson-sampling eviction (paper Alg. 2, see ``thompson``).

Sizes (docs/model.md §2.5): every arrival that fits the budget is admitted; the eviction
draws once per arrival and evicts the lowest scores of that draw until the arrival fits
(``evict_rank="per_size"``: the lowest scores per unit of size).
"""

from simulator.config import njit
from simulator.policies.parts import thompson
from simulator.policies.base import Policy, Traits


def _init(ctx):
    return thompson.new_state(ctx)


@njit
def _on_hit(state, slot, t, relevant):
    thompson.on_hit(state, slot, relevant)


@njit
def _admit(state, t, key, x, cache):
    thompson.note_arrival(state, cache)
    return True


@njit
def _on_insert(state, slot, key, t):
    thompson.on_insert(state, slot, key)


@njit
def _on_evict(state, slot, key, t):
    thompson.on_evict(state, slot)


@njit
def _victim(state, t, key, x, cache):
    return thompson.victim(state, t, cache)


POLICY = Policy(name="solar_e", summary="always admit; Thompson-sampling eviction (Alg. 2)",
                init=_init, victim=_victim, on_hit=_on_hit, admit=_admit,
                on_insert=_on_insert, on_evict=_on_evict,
                params=dict(thompson.PARAMS), check_params=thompson.check,
                traits=Traits(randomized=True), modes=("semantic", "paging"))
