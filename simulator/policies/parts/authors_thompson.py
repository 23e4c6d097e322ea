"""The SOLAR authors' Thompson-sampling eviction (``SolarERunner`` / ``SolarRunner``), shared
by ``solar_e_ref`` and ``solar_ref``.  Not a policy by itself.

Every cached item i keeps Beta(α_i, β_i), starting at (``prior_alpha``, ``prior_beta``) =
(2, 1) when admitted.  α_i += 1 in every step in which i is retrieved.  At the feedback of
every ``decay_every``-th step (t + 1 a multiple of it; the runner counts its retrieval calls,
one per step, from the first step on, cache empty or not), β_i += ``decay_amount`` for every
cached item not retrieved in that step.

To evict, go through the cached items in admission order; for each draw θ_i ~ Beta(α_i, β_i)
from the run's seeded stream and score θ_i + ``novelty_bonus`` · clip01(1 − m_i), m_i the mean
cosine of i to its ``neighbours`` (3) most similar other cached items (fewer if the cache is
smaller; with i alone, the term is ``novelty_bonus`` · 0.5).  The first lowest score goes.
A high bonus keeps items far from the others: near-duplicates are evicted first.  Defaults
are the runner's: 2, 1, 5, 0.05, 0.3, 3.

Sizes (docs/model.md §2.5; ours, the runner has none).  One draw per arrival: the first
eviction of step t draws θ_i for every item then cached (admission order, as above); when
the arrival needs more room, the next victims keep those θ_i and recompute only the
bonus, over the items still cached (so when one of two near-duplicates goes, the other is
no longer penalised for it).  The first lowest score goes each time.  A step draws from
the stream exactly once whatever it evicts (with unit sizes: exactly as before).  Sizes
do not enter the scores.

The agents (``src/agent/solar_e.py``, ``solar.py``) differ: the bonus is
1 − exp(−mean d² / (2·dim)) over the 2 nearest other vectors by FAISS squared L2 (deleted
entries included until compaction), draws come from the unseeded global ``np.random``, α
grows for up to k retrieved live entries, and the decay counter counts only retrievals that
returned something.

Cost: the arriving item's cosines to the cache are computed once, before it is admitted
(O(K·d)); each cached item keeps its ``neighbours`` highest cosines, repaired when one of
them leaves (O(K·neighbours) per insertion or eviction on average), so an eviction is O(K)
plus K Beta draws.  The slot-by-slot cosines take K² floats.
"""

import numpy as np

from simulator import rng
from simulator.config import njit
from simulator.engine.kernels import similarities
from simulator.policies.base import slot_keys, slot_vectors

PARAMS = {"prior_alpha": 2.0, "prior_beta": 1.0, "decay_every": 5, "decay_amount": 0.05,
          "novelty_bonus": 0.3, "neighbours": 3}
_SALT = 0x52455454  # "RETT": this stream only; not the paper variant's stream


def check(p):
    """A problem sentence for bad eviction parameters, or None."""
    for name in ("prior_alpha", "prior_beta"):
        if p[name] <= 0:
            return f"parameter '{name}' must be > 0, got {p[name]}"
    if p["decay_every"] < 1:
        return f"parameter 'decay_every' must be >= 1, got {p['decay_every']}"
    for name in ("decay_amount", "novelty_bonus", "neighbours"):
        if p[name] < 0:
            return f"parameter '{name}' must be >= 0, got {p[name]}"
    return None


def state_bytes(p, slots, n_keys):
    """Rough bytes of :func:`new_state`: the slots' cosine matrix and neighbour lists."""
    w = max(int(p["neighbours"]), 1)
    return 4 * slots * slots + 16 * slots * w + 64 * slots


def new_state(ctx):
    """See the layout below; every array has one row per slot."""
    p, k = ctx.params, ctx.slots
    prm = np.array([p["prior_alpha"], p["prior_beta"], p["decay_every"], p["decay_amount"],
                    p["novelty_bonus"], p["neighbours"]], np.float64)
    w = max(int(p["neighbours"]), 1)
    # α, β, step of last retrieval, occupied?, parameters, random stream, occupied slots in
    # admission order, [their number], cosines between slots, the arriving item's cosines,
    # each slot's highest cosines to others (descending), whose they are, how many; each
    # slot's θ in the last draw and [the step of that draw]
    return (np.zeros(k), np.zeros(k), np.full(k, -1, np.int64), np.zeros(k, np.bool_), prm,
            rng.new_stream(ctx.seed, _SALT), np.zeros(k, np.int64), np.zeros(1, np.int64),
            np.zeros((k, k), np.float32), np.zeros(k, np.float32), np.zeros((k, w)),
            np.zeros((k, w), np.int64), np.zeros(k, np.int64), np.zeros(k),
            np.full(1, -1, np.int64))


@njit
def note_arrival(ts, x, cache):
    """Before an admission: the arriving item's cosine to every slot."""
    similarities(x, slot_vectors(cache), slot_keys(cache).shape[0], ts[9])


@njit
def _offer(ts, o, v, src):
    """Slot ``src`` at cosine ``v`` joins slot ``o``'s highest cosines if it ranks."""
    top, who, count = ts[10], ts[11], ts[12]
    k = int(ts[4][5])
    m = count[o]
    if k == 0 or (m == k and v <= top[o, m - 1]):
        return
    j = m if m < k else k - 1
    while j > 0 and top[o, j - 1] < v:
        top[o, j] = top[o, j - 1]
        who[o, j] = who[o, j - 1]
        j -= 1
    top[o, j] = v
    who[o, j] = src
    if m < k:
        count[o] = m + 1


@njit
def _rebuild(ts, o):
    ts[12][o] = 0
    order, n = ts[6], ts[7][0]
    for i in range(n):
        if order[i] != o:
            _offer(ts, o, np.float64(ts[8][o, order[i]]), order[i])


@njit
def on_hit(ts, slot, t):
    ts[0][slot] += 1.0
    ts[2][slot] = t


@njit
def on_feedback(ts, t):
    """The batched β decay, once every ``decay_every`` steps."""
    prm = ts[4]
    if (t + 1) % int(prm[2]) != 0:
        return
    for s in range(ts[3].shape[0]):
        if ts[3][s] and ts[2][s] != t:
            ts[1][s] += prm[3]


@njit
def on_insert(ts, slot):
    """Priors, the item's cosines (from :func:`note_arrival`) and neighbour lists."""
    ts[0][slot] = ts[4][0]
    ts[1][slot] = ts[4][1]
    ts[2][slot] = -1
    pair, row, order, n = ts[8], ts[9], ts[6], ts[7]
    ts[12][slot] = 0
    for i in range(n[0]):
        o = order[i]
        pair[slot, o] = row[o]
        pair[o, slot] = row[o]
        _offer(ts, o, np.float64(row[o]), slot)
        _offer(ts, slot, np.float64(row[o]), o)
    order[n[0]] = slot  # admissions come in time order
    n[0] += 1
    ts[3][slot] = True


@njit
def on_evict(ts, slot):
    ts[3][slot] = False
    order, n = ts[6], ts[7]
    i = 0
    while order[i] != slot:
        i += 1
    for j in range(i, n[0] - 1):
        order[j] = order[j + 1]
    n[0] -= 1
    who, count = ts[11], ts[12]
    for i in range(n[0]):
        o = order[i]
        for j in range(count[o]):
            if who[o, j] == slot:
                _rebuild(ts, o)
                break


@njit
def victim(ts, t):
    """The first lowest posterior sample plus neighbour-distance bonus, in admission order;
    a later victim of step ``t`` keeps the samples drawn for its first."""
    alpha, beta, prm, stream, order, top = ts[0], ts[1], ts[4], ts[5], ts[6], ts[10]
    thetas, drawn = ts[13], ts[14]
    n = ts[7][0]
    fresh = drawn[0] != t
    drawn[0] = t
    k_nn = min(int(prm[5]), n - 1)
    best = -1
    best_score = np.inf
    for i in range(n):
        s = order[i]
        if fresh:
            thetas[s] = rng.beta(stream, alpha[s], beta[s])
        theta = thetas[s]
        novelty = 0.5
        if k_nn > 0:
            total = 0.0
            for j in range(k_nn):  # largest first
                total += top[s, j]
            novelty = min(max(1.0 - total / k_nn, 0.0), 1.0)
        score = theta + prm[4] * novelty
        if score < best_score:
            best_score = score
            best = s
    return best
