"""Regret-gated admission (SOLAR paper, Alg. 1), shared by ``solar_a`` and ``solar``.

Not a policy by itself.  Every step (scored or not) adds its miss cost to an accumulator c
(Alg. 1: c ← c + δ_t with δ_t = ℓ_t); the arriving item is admitted when c ≥ τ, and
then c ← 0 and τ ← (1 − α)τ + α·ℓ_t (the last step's miss cost).  With ``tau`` set the
threshold is fixed (the variant of Theorem 5.4, e.g. ``tau = 2λ``).

Default τ₀ (``tau0=None``): 2λ when λ > 0 — admit once the regret accumulated since the
last admission would have paid for two switches, the rent-or-buy threshold of
Theorem 5.4 — and 1 when λ = 0 (admit after one full miss).  No warm-up rule: an empty
cache misses, so c reaches τ₀ within ⌈τ₀⌉ steps.

Sizes (docs/model.md §2.5): the gate counts miss costs, not sizes.  An arrival larger
than the budget never reaches it (the engine counts it in ``too_large`` and c keeps
growing); an admission resets c once, whatever the item's size and however many victims
it evicts.
"""

import numpy as np

from simulator.config import njit

PARAMS = {"alpha": 0.1, "tau0": None, "tau": None}
_C, _TAU, _ALPHA, _FIXED, _LAST = range(5)


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
GATE = 0  # the gate's array (new_state), first in the state of a policy using on_feedback


def check(params):
    """A problem sentence for bad gate parameters, or None."""
    if not 0.0 <= params["alpha"] <= 1.0:
        return f"parameter 'alpha' must be in [0, 1], got {params['alpha']}"
    for name in ("tau0", "tau"):
        if params[name] is not None and params[name] < 0:
            return f"parameter '{name}' must be >= 0, got {params[name]}"
    return None


def initial_tau(params, switch_cost):
    """τ₀ for a run: fixed ``tau`` if given, else ``tau0``, else the documented default."""
    if params["tau"] is not None:
        return params["tau"]
    if params["tau0"] is not None:
        return params["tau0"]
    return 2.0 * switch_cost if switch_cost > 0 else 1.0


def new_state(params, switch_cost):
    """The gate's state: [c, τ, α, fixed?, last loss]."""
    return np.array([0.0, initial_tau(params, switch_cost), params["alpha"],
                     1.0 if params["tau"] is not None else 0.0, 0.0])


@njit
def observe(g, loss):
    """Alg. 1, line 4: accumulate this step's regret."""
    g[_C] += loss
    g[_LAST] = loss


@njit
def on_feedback(state, t, loss, quality):
    """The policy hook, for policies whose state tuple starts with the gate's state."""
    observe(state[GATE], loss)


@njit
def admit(g):
    """Alg. 1, lines 5–8: admit when the accumulated regret reaches τ."""
    if g[_C] < g[_TAU]:
        return False
    g[_C] = 0.0
    if g[_FIXED] == 0.0:
        g[_TAU] = (1.0 - g[_ALPHA]) * g[_TAU] + g[_ALPHA] * g[_LAST]
    return True
