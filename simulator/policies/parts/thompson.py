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

Sizes (docs/model.md §1.8, §2.5; ours, the paper has unit sizes).  One draw per arrival:
the first eviction of step t draws θ_i for every item then cached (in key order, as
above) and scores each, v_i = θ_i + bonus_i; when the arrival needs more room, the next
victims come from the same scores, the lowest first (ties: the smaller key), until it
fits.  So the victims of one step are the lowest scores of one draw, and a step draws
from the stream exactly once whatever it evicts (with unit sizes: exactly as before).
``evict_rank`` says how the scores rank: ``"sample"`` (default) by v_i; ``"per_size"``
by v_i / w_i, w_i the item's size — value per unit of size, so of two items of equal
value the larger goes first, and one large victim can replace several small ones.  With
unit sizes the two are the same run.  The size of an item is recorded when it is
admitted (:func:`note_arrival` from the policy's ``admit`` hook, :func:`on_insert`).
"""

import numpy as np

from simulator import rng
from simulator.config import njit
from simulator.policies.base import admission_steps, arriving_size

PARAMS = {"delta": 5, "beta_step": 0.05, "gamma": 0.1, "novelty_scale": 10.0,
          "reward": "retrieved", "evict_rank": "sample"}
REWARDS = ("retrieved", "relevant")
RANKS = ("sample", "per_size")
_SALT = 0x7450  # separates this stream from any other stream of the same run
_DRAWN, _ARRIVING = 0, 1  # meta: the step of the last draw, the size arriving now


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
    if params["evict_rank"] not in RANKS:
        return (f"parameter 'evict_rank' must be one of {', '.join(RANKS)}, "
                f"got {params['evict_rank']!r}")
    if params["novelty_scale"] <= 0:
        return f"parameter 'novelty_scale' must be > 0, got {params['novelty_scale']}"
    return None


def new_state(ctx):
    """(successes per slot, [delta, beta_step, gamma, novelty_scale, relevant-only?,
    per-size?], random stream, occupied slots sorted by key, their keys, their number,
    score of each slot in the last draw, size of each slot, [step of the last draw, size
    arriving])."""
    p = ctx.params
    return (np.zeros(ctx.slots, np.int64),
            np.array([p["delta"], p["beta_step"], p["gamma"], p["novelty_scale"],
                      float(p["reward"] == "relevant"), float(p["evict_rank"] == "per_size")],
                     np.float64),
            rng.new_stream(ctx.seed, _SALT), np.zeros(ctx.slots, np.int64),
            np.zeros(ctx.slots, np.int64), np.zeros(1, np.int64), np.zeros(ctx.slots),
            np.ones(ctx.slots, np.int64), np.array([-1, 1], np.int64))


@njit
def on_hit(ts, slot, relevant):
    """A retrieval into R_t: a success unless only relevant retrievals count."""
    if relevant or ts[1][4] == 0.0:
        ts[0][slot] += 1


@njit
def note_arrival(ts, cache):
    """From ``admit``: the arriving item's size, which :func:`on_insert` files (the insert
    hook gets no cache view)."""
    ts[8][_ARRIVING] = arriving_size(cache)


@njit
def on_insert(ts, slot, key):
    """Count retrievals from zero and file the slot in key order (O(K), no allocation)."""
    ts[0][slot] = 0
    ts[7][slot] = ts[8][_ARRIVING]
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
    """Alg. 2: the slot with the lowest posterior sample plus novelty bonus (per unit of
    size with ``per_size``); a later victim of the same step reuses that step's draw."""
    hits, prm, stream, order, _, n, score, size, meta = ts
    if meta[_DRAWN] == t:  # not the first victim of this arrival: rank, do not draw
        best = -1
        for i in range(n[0]):  # key order and a strict <: ties go to the smaller key
            s = order[i]
            if best < 0 or score[s] < score[best]:
                best = s
        return best
    meta[_DRAWN] = t
    slot_adm = admission_steps(cache)
    delta, beta_step, gamma, scale = prm[0], prm[1], prm[2], prm[3]
    per_size = prm[5] != 0.0
    best = -1
    best_score = np.inf
    for i in range(n[0]):  # samples are drawn in increasing key order
        s = order[i]
        age = t - slot_adm[s]
        idle = age - hits[s]
        a = 1.0 + hits[s]
        b = 1.0 + beta_step * np.floor(idle / delta)
        v = rng.beta(stream, a, b) + gamma / (1.0 + age / scale)
        if per_size:
            v /= size[s]
        score[s] = v
        if v < best_score:
            best_score = v
            best = s
    return best
