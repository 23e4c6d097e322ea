"""SOLAR-E as the authors' code runs it: always admit; their Thompson-sampling eviction.

This is ``SolarERunner`` of ysunbp/SOLAR ``synthetic_workloads/runners.py``, the code behind
the paper's synthetic tables; the rule is in :mod:`~simulator.policies.parts.authors_thompson`.
Differences from the paper's Alg. 2 (our ``solar_e``):

* prior Beta(2, 1) (optimistic), not (1, 1);
* β grows by 0.05 once every 5 *steps* for every item not retrieved in that step (a global
  step counter), not per item for every 5 steps in which it was not retrieved;
* the bonus is 0.3 · (1 − mean cosine to the 3 most similar cached items), favouring items
  far from the others, not γ / (1 + age / Δ_nov), favouring new ones;
* items are sampled in admission order (the runner's dict order), not key order.

A re-arrival of a cached item changes nothing.  Sizes (docs/model.md §2.5; ours): every
arrival that fits the budget is admitted; one draw per arrival, and further victims of
the step keep its samples while the bonus follows the items still cached (see
``authors_thompson``).  Parameters: ``prior_alpha``, ``prior_beta``,
``decay_every``, ``decay_amount``, ``novelty_bonus``, ``neighbours``.  Semantic mode only (the
bonus needs vectors).  Randomness comes only from the run's seed; the authors draw from
``numpy.random.default_rng(seed)``, so single runs agree with theirs only in distribution.
"""

from simulator.config import njit
from simulator.policies.parts import authors_thompson
from simulator.policies.base import Policy, Traits


def _init(ctx):
    return authors_thompson.new_state(ctx)


@njit
def _on_hit(state, slot, t, relevant):
    authors_thompson.on_hit(state, slot, t)


@njit
def _on_feedback(state, t, loss, quality):
    authors_thompson.on_feedback(state, t)


@njit
def _on_insert(state, slot, key, t):
    authors_thompson.on_insert(state, slot)


@njit
def _on_evict(state, slot, key, t):
    authors_thompson.on_evict(state, slot)


@njit
def _admit(state, t, key, x, cache):
    authors_thompson.note_arrival(state, x, cache)
    return True


@njit
def _victim(state, t, key, x, cache):
    return authors_thompson.victim(state, t)


POLICY = Policy(name="solar_e_ref", summary="always admit; the authors' Thompson eviction "
                "(Beta(2, 1), batched β decay, neighbour-distance bonus)",
                init=_init, victim=_victim, on_hit=_on_hit, on_feedback=_on_feedback,
                admit=_admit, on_insert=_on_insert, on_evict=_on_evict,
                params=dict(authors_thompson.PARAMS),
                check_params=authors_thompson.check, modes=("semantic",),
                traits=Traits(randomized=True), state_bytes=authors_thompson.state_bytes)
