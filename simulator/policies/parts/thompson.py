"""Thompson-sampling eviction (SOLAR paper, Alg. 2), shared by ``solar_e`` and ``solar``.

Not a policy by itself.  Every cached item i keeps Beta(α_i, β_i) with prior (1, 1):
α_i = 1 + (steps in which i was retrieved); β_i = 1 + ``beta_step`` for every ``delta``
steps in which i was cached and not retrieved (counted since admission, applied lazily
as ``beta_step · floor(n / delta)``).  To evict, draw θ_i ~ Beta(α_i, β_i) for every cached
item, in increasing key order, and evict argmin θ_i + γ / (1 + age_i / ``novelty_scale``),
age_i = t − (admission step of i); the bonus shields fresh items that had no chance to be
retrieved yet.

Defaults: ``delta = 5``, ``beta_step = 0.05`` (the paper's), ``gamma = 0.1``,
``novelty_scale = 10`` (ours: the bonus halves after ten steps and is small next to the
posterior spread, so it breaks near-ties towards keeping new items).

``reward`` says what counts as a success for α: ``"retrieved"`` (default; docs/model.md §2.1 and
the paper's Alg. 2: every retrieval into R_t) or ``"relevant"`` (a retrieval in which the
item was relevant — the implicit "like" of docs/model.md §1.4).  With ``"retrieved"`` and
k >= K every cached item is retrieved at every step, so the posterior carries no
information about usefulness; ``"relevant"`` is the variant the regret claim (Theorem 5.6)
is also tested with.  Steps without a success count towards β either way.
"""

import numpy as np

from simulator import rng
from simulator.config import njit

PARAMS = {"delta": 5, "beta_step": 0.05, "gamma": 0.1, "novelty_scale": 10.0,
          "reward": "retrieved"}
REWARDS = ("retrieved", "relevant")
_SALT = 0x7450  # separates this stream from any other stream of the same run


def check(params):
    """A problem sentence for bad eviction parameters, or None."""
    if params["delta"] < 1:
        return f"parameter 'delta' must be >= 1, got {params['delta']}"
    for name in ("beta_step", "gamma"):
        if params[name] < 0:
            return f"parameter '{name}' must be >= 0, got {params[name]}"
    if params["reward"] not in REWARDS:
        return (f"parameter 'reward' must be one of {', '.join(REWARDS)}, "
                f"got {params['reward']!r}")
    if params["novelty_scale"] <= 0:
        return f"parameter 'novelty_scale' must be > 0, got {params['novelty_scale']}"
    return None


def new_state(ctx):
    """(successes per slot, [delta, beta_step, gamma, novelty_scale, relevant-only?],
    random stream, occupied slots sorted by key, their keys, their number)."""
    p = ctx.params
    return (np.zeros(ctx.slots, np.int64),
            np.array([p["delta"], p["beta_step"], p["gamma"], p["novelty_scale"],
                      float(p["reward"] == "relevant")], np.float64),
            rng.new_stream(ctx.seed, _SALT), np.zeros(ctx.slots, np.int64),
            np.zeros(ctx.slots, np.int64), np.zeros(1, np.int64))


@njit
def on_hit(ts, slot, relevant):
    """A retrieval into R_t: a success unless only relevant retrievals count."""
    if relevant or ts[1][4] == 0.0:
        ts[0][slot] += 1


@njit
def on_insert(ts, slot, key):
    """Count retrievals from zero and file the slot in key order (O(K), no allocation)."""
    ts[0][slot] = 0
    order, keys, n = ts[3], ts[4], ts[5]
    i = n[0]
    while i > 0 and keys[i - 1] > key:
        order[i] = order[i - 1]
        keys[i] = keys[i - 1]
        i -= 1
    order[i] = slot
    keys[i] = key
    n[0] += 1


@njit
def on_evict(ts, slot):
    order, keys, n = ts[3], ts[4], ts[5]
    i = 0
    while order[i] != slot:
        i += 1
    for j in range(i, n[0] - 1):
        order[j] = order[j + 1]
        keys[j] = keys[j + 1]
    n[0] -= 1


@njit
def victim(ts, t, cache):
    """Alg. 2: the slot with the lowest posterior sample plus novelty bonus."""
    hits, prm, stream, order, _, n = ts
    slot_adm = cache[2]
    delta, beta_step, gamma, scale = prm[0], prm[1], prm[2], prm[3]
    best = -1
    best_score = np.inf
    for i in range(n[0]):  # samples are drawn in increasing key order
        s = order[i]
        age = t - slot_adm[s]
        idle = age - hits[s]
        a = 1.0 + hits[s]
        b = 1.0 + beta_step * np.floor(idle / delta)
        score = rng.beta(stream, a, b) + gamma / (1.0 + age / scale)
        if score < best_score:
            best_score = score
            best = s
    return best
