"""SOLAR as the authors' code runs it: their IG gate + their Thompson eviction.

This is ``SolarRunner`` of ysunbp/SOLAR ``synthetic_workloads/runners.py`` (the code behind
the paper's synthetic tables): admission by
:mod:`~simulator.policies.parts.authors_gate`, eviction by
:mod:`~simulator.policies.parts.authors_thompson`.  Differences from the paper's Alg. 1 (our
``solar``'s gate):

* the regret added each arrival is an information-gain score of the arriving item
  (novelty − density of the cache around it), not the step's miss cost ℓ_t;
* τ₀ = √(2λ/L) = √5 with the code's own λ = 5, L = 2 (not the run's switch cost), and τ
  follows √(2λ/L̂), L̂ an EMA (0.7/0.3) of twice the std of the last 30 IG values, clipped to
  [0.1, 5]; not τ ← (1 − α)τ + α·ℓ_t;
* admission needs c > τ (strict), not c ≥ τ;
* every arrival is admitted while the cache holds fewer than min(max(K // 2, 5), 25) items;
* a re-arrival of a cached item still goes through the gate (and can reset c).

Differences from Alg. 2 are those of ``solar_e_ref``.  Parameters: those of both modules.
Semantic mode only.  Randomness comes only from the run's seed.

Sizes (docs/model.md §2.5; ours): the gate counts items, not sizes (its warm-up admits
while fewer than ``bootstrap`` items are cached, and IG ignores sizes); the eviction draws
once per arrival and, when the arrival needs more room, keeps those samples and
recomputes the neighbour bonus over the items still cached (see ``authors_thompson``).
"""

from simulator.config import njit
from simulator.policies.parts import authors_gate, authors_thompson
from simulator.policies.base import Policy, Traits

PARAMS = {**authors_gate.PARAMS, **authors_thompson.PARAMS}


def _check(params):
    return authors_gate.check(params) or authors_thompson.check(params)


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
_GATE = 0  # the authors' gate's state
_THOMPSON = 1  # the authors' Thompson eviction's state


def _init(ctx):
    return (authors_gate.new_state(ctx.params, ctx.capacity, ctx.slots),
            authors_thompson.new_state(ctx))


@njit
def _on_hit(state, slot, t, relevant):
    authors_thompson.on_hit(state[_THOMPSON], slot, t)


@njit
def _on_feedback(state, t, loss, quality):
    authors_thompson.on_feedback(state[_THOMPSON], t)


@njit
def _admit(state, t, key, x, cache):
    if not authors_gate.admit(state[_GATE], x, cache):
        return False
    authors_thompson.note_arrival(state[_THOMPSON], x, cache)
    return True


@njit
def _on_rearrival(state, slot, t):
    authors_gate.rearrival(state[_GATE])


@njit
def _on_insert(state, slot, key, t):
    authors_gate.on_insert(state[_GATE])
    authors_thompson.on_insert(state[_THOMPSON], slot)


@njit
def _on_evict(state, slot, key, t):
    authors_gate.on_evict(state[_GATE])
    authors_thompson.on_evict(state[_THOMPSON], slot)


@njit
def _victim(state, t, key, x, cache):
    return authors_thompson.victim(state[_THOMPSON], t)


POLICY = Policy(name="solar_ref", summary="the authors' code: information-gain gate + their "
                "Thompson eviction", init=_init, victim=_victim, on_hit=_on_hit,
                on_feedback=_on_feedback, admit=_admit, on_rearrival=_on_rearrival,
                on_insert=_on_insert, on_evict=_on_evict, params=PARAMS, check_params=_check,
                modes=("semantic",), traits=Traits(randomized=True),
                state_bytes=lambda p, s, n: (authors_gate.state_bytes(p, s, n)
                                             + authors_thompson.state_bytes(p, s, n)))
