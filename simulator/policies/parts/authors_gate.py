"""The SOLAR authors' admission gate (``SolarARunner.should_admit``), shared by
``solar_a_ref`` and ``solar_ref``.  Not a policy by itself.

Regret here is an information-gain score of the arriving item x, not the miss cost:

    IG = max(ig_novelty · clip01(1 − max_i cos(x, i)) − ig_density · clip01(mean of the 5
         largest cos(x, i)), 0)

over the cached items i (IG = 1 for an empty cache; fewer than 5 items: all of them).  Every
arrival adds IG to the accumulator c and to a history.  Once the history holds ``window``
values, L̂ = max(2 · std of the last ``window`` (population std), 0.1) is smoothed as
L ← 0.7·L + 0.3·L̂ (the first L̂ is taken as it is) and τ = clip(√(2·lam / L), tau_min,
tau_max); before that τ = √(2·lam / lipschitz) (√5 by default).  Then the item is admitted,
with c ← 0, while the cache holds fewer than ``bootstrap`` items (default
min(max(K // 2, 5), 25)), or when c > τ (strictly).  Defaults are the runner's: lam = 5,
lipschitz = 2, window = 30, tau_min = 0.1, tau_max = 5, ig_novelty = 0.6, ig_density = 0.4.
The run's switch cost λ and miss costs play no part.

A re-arrival of a cached item goes through the gate too, as in the runner (it calls
``should_admit`` before it notices the item is cached): it counts as a candidate, adds its IG
to the history and may reset c, but nothing is admitted.  Its IG is taken as 0 (it is in the
cache: novelty 0; the runner's float arithmetic can leave about 1e-7 there, which the density
term then cancels unless the item's cached neighbours are nearly opposite to it).

The agents used for the LLM benchmarks (``src/agent/solar.py``, ``solar_a.py``) differ: from
FAISS squared L2 distances d², novelty = 1 − exp(−d²_nn / (2·dim)) and density =
exp(−mean d² of the 5 nearest / (2·dim)), deleted entries included until a compaction every
20 evictions; the warm-up counts live entries; ``add_memory_experience_gated`` accumulates
1 − feedback score instead of IG.

Sizes (docs/model.md §2.5; ours): the gate counts items, not sizes.  IG looks at the cached
items whatever their sizes, the warm-up admits while fewer than ``bootstrap`` *items* are
cached, and an arrival larger than the budget never reaches the gate (the engine counts it
in ``too_large``; it is not a candidate).
"""

import numpy as np

from simulator.config import njit
from simulator.params import MAX_INT
from simulator.policies.parts import authors_views

PARAMS = {"lam": 5.0, "lipschitz": 2.0, "window": 30, "tau_min": 0.1, "tau_max": 5.0,
          "ig_novelty": 0.6, "ig_density": 0.4, "bootstrap": None}
DENSITY_K = 5
# g: accumulator, τ, smoothed L (< 0: none yet), candidates seen, cached items, then the
# parameters, then the number of IG values seen
(_C, _TAU, _L, _SEEN, _SIZE, _BOOT, _LAM, _WIN, _TMIN, _TMAX, _WN, _WD, _COUNT) = range(13)


def check(p):
    """A problem sentence for bad gate parameters, or None."""
    for name in ("lam", "lipschitz"):
        if p[name] <= 0:
            return f"parameter '{name}' must be > 0, got {p[name]}"
    if p["window"] < 1:
        return f"parameter 'window' must be >= 1, got {p['window']}"
    if not 0 < p["tau_min"] <= p["tau_max"]:
        return f"parameters 'tau_min' and 'tau_max' need 0 < tau_min <= tau_max, got " \
               f"{p['tau_min']} and {p['tau_max']}"
    b = p["bootstrap"]
    if b is not None and not (0 <= b <= MAX_INT and b == int(b)):
        return f"parameter 'bootstrap' must be an integer in [0, 2**53], got {b}"
    return None


def bootstrap(p, capacity):
    """The warm-up size below which every arrival is admitted."""
    if p["bootstrap"] is not None:
        return int(p["bootstrap"])
    return min(max(capacity // 2, 5), 25)


def state_bytes(p, slots, n_keys):
    """Rough bytes of :func:`new_state`: the information-gain ring and the scratch."""
    return 8 * int(p["window"]) + 32 * slots


def new_state(p, capacity, slots):
    """(g, IG history ring, scratch): see the layout above."""
    g = np.array([0.0, np.sqrt(2.0 * p["lam"] / p["lipschitz"]), -1.0, 0.0, 0.0,
                  bootstrap(p, capacity), p["lam"], p["window"], p["tau_min"], p["tau_max"],
                  p["ig_novelty"], p["ig_density"], 0.0])
    return (g, np.zeros(int(p["window"]), np.float64), authors_views.scratch(slots))


@njit
def info_gain(gs, x, cache):
    g, (_, sims32, vals, buf) = gs[0], gs[2]
    n = authors_views.occupied_sims(x, cache, sims32, vals)  # IG does not depend on the order
    if n == 0:
        return 1.0
    best = vals[0]
    for i in range(1, n):
        best = max(best, vals[i])
    novelty = authors_views.clip01(1.0 - best)
    density = authors_views.clip01(authors_views.top_mean(vals, n, min(DENSITY_K, n), -1, buf))
    return max(g[_WN] * novelty - g[_WD] * density, 0.0)


@njit
def _observe(gs, ig):
    """Accumulate one candidate's IG and adapt τ (``_adapt_threshold``)."""
    g, hist = gs[0], gs[1]
    w = hist.shape[0]
    g[_SEEN] += 1.0
    g[_C] += ig
    count = int(g[_COUNT])
    hist[count % w] = ig
    count += 1
    g[_COUNT] = count
    if count < w:
        return
    mean = 0.0
    for i in range(w):  # oldest first
        mean += hist[(count + i) % w]
    mean /= w
    var = 0.0
    for i in range(w):
        d = hist[(count + i) % w] - mean
        var += d * d
    new_l = max(np.sqrt(var / w) * 2.0, 0.1)
    g[_L] = new_l if g[_L] < 0.0 else 0.7 * g[_L] + 0.3 * new_l
    g[_TAU] = min(max(np.sqrt(2.0 * g[_LAM] / g[_L]), g[_TMIN]), g[_TMAX])


@njit
def _decide(g):
    if g[_SIZE] < g[_BOOT] or g[_C] > g[_TAU]:
        g[_C] = 0.0
        return True
    return False


@njit
def admit(gs, x, cache):
    """``should_admit``: observe the arriving item's IG, then warm-up or c > τ."""
    _observe(gs, info_gain(gs, x, cache))
    return _decide(gs[0])


@njit
def rearrival(gs):
    """A cached item arrives again: a candidate with IG 0; the decision is dropped."""
    _observe(gs, 0.0)
    _decide(gs[0])


@njit
def on_insert(gs):
    gs[0][_SIZE] += 1.0


@njit
def on_evict(gs):
    gs[0][_SIZE] -= 1.0


@njit
def candidates(gs):
    """Candidates seen so far, this arrival included (``_candidates_seen``)."""
    return gs[0][_SEEN]
