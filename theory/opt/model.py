"""The miss function ℓ_t(S) (docs/model.md §1) of a given cache set S, as the optimum sees it.

OPT's candidate items are *arrivals*: arrival i (0 <= i < T) is the item that arrives at step
i, with vector ``items[i]``, topic ``item_topics[i]`` and key ``item_keys[i]``.  Only the
arriving item can enter the cache, so an arrival cached at step t was admitted at step i;
its admission step is its arrival index.  That makes the engine's retrieval tie-break
(earlier admission, then smaller key; docs/model.md §1.2) simply "smaller arrival index" and lets a
cache set be a set of arrival indices, even when a trace re-streams a key (``item_keys``):
the copy cached is the arrival that admitted it, and two arrivals of one key are never
cached together (a re-arrival of a cached key admits nothing, docs/model.md §6).

Similarities come from :func:`simulator.engine.kernels.dot` and scoring from
:func:`simulator.engine.kernels.quality_of`, the functions the engines call, so ℓ_t(S) here is the
engine's ℓ_t bit for bit.  Unscored steps (``trace.scored`` false) get weight 0: the
runner's cost Σ_scored ℓ_t + λ·N ignores their misses, and OPT is compared with it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from simulator.config import njit
from simulator.engine.cached_kernel import cached_kernel
from simulator.errors import InputError
from simulator.engine.kernels import QUALITY_CODES, dot, quality_of, similarities


@dataclasses.dataclass(frozen=True)
class MissModel:
    """Everything ℓ_t(S) depends on, as arrays a compiled DP can take.

    ``sim[t, i]`` is the float32 cosine of query t and arrival i (filled for i < t only:
    arrival i can be cached from step i + 1 on); ``rel[t, i]`` says whether arrival i is
    relevant to step t; ``w[t]`` is the effective weight (0 on unscored steps).
    """

    sim: np.ndarray
    rel: np.ndarray
    w: np.ndarray
    keys: np.ndarray
    top_k: int
    qcode: int


def effective_weights(trace) -> np.ndarray:
    """w_t on scored steps, 0 elsewhere (the runner's cost counts scored misses only)."""
    return np.where(trace.scored, trace.weights, 0.0).astype(np.float64)


@cached_kernel
def _sim_matrix(queries, items, out):
    for t in range(queries.shape[0]):
        for i in range(t):
            out[t, i] = dot(queries[t], items[i])


@cached_kernel
def _best_earlier(queries, items_t, out):
    sims = np.empty(items_t.shape[1], np.float32)
    for t in range(queries.shape[0]):
        similarities(queries[t], items_t, t, sims)
        best = np.float32(-np.inf)
        for i in range(t):
            best = max(best, sims[i])
        out[t] = best


def best_earlier_cosine(trace) -> np.ndarray:
    """``out[t]``: the largest float32 cosine of query t and an arrival i < t (``-inf`` at
    t = 0), the engine's similarity bit for bit (``sim[t].max()`` of the dense model, in
    O(T) memory; about T²·d/2 products)."""
    out = np.empty(trace.steps, np.float32)
    _best_earlier(trace.queries, np.ascontiguousarray(trace.items.T), out)
    return out


def relevance_matrix(trace) -> np.ndarray:
    """``rel[t, i]``: arrival i is relevant to step t (docs/model.md §1.3, topic or evidence)."""
    qt, it = trace.query_topics, trace.item_topics
    rel = (qt[:, None] >= 0) & (it[None, :] == qt[:, None])
    if trace.has_evidence:
        ptr, idx, keys = trace.evidence_indptr, trace.evidence_indices, trace.item_keys
        for t in range(trace.steps):
            ev = idx[ptr[t]:ptr[t + 1]]
            if ev.size:
                rel[t] |= np.isin(keys, ev)
    return rel


def build_model(trace, top_k: int, quality: str) -> MissModel:
    """The dense T x T model of ``trace`` (memory 5·T² bytes; callers bound T)."""
    if quality not in QUALITY_CODES:
        raise InputError(f"quality must be one of {', '.join(QUALITY_CODES)}, got {quality!r}",
                         "quality")
    T = trace.steps
    sim = np.zeros((T, T), np.float32)
    _sim_matrix(trace.queries, trace.items, sim)
    return MissModel(sim=sim, rel=relevance_matrix(trace), w=effective_weights(trace),
                     keys=trace.item_keys.astype(np.int64), top_k=int(top_k),
                     qcode=QUALITY_CODES[quality])


@njit
def set_loss(t, members, n, sim, rel, w, k, qcode):
    """ℓ_t of the cache holding arrivals ``members[:n]`` (any order).

    R_t is the min(k, n) members of highest similarity, ties to the smaller arrival index
    (= earlier admission; docs/model.md §1.2).  Selection by repeated minimum: n <= K is small.
    """
    if w[t] == 0.0:
        return 0.0
    m = min(k, n)
    taken = 0  # bitmask over members (n <= K <= 62): no allocation in the DP's inner loop
    n_rel = 0
    top_sim = 0.0
    for r in range(m):
        best = -1
        for j in range(n):
            if taken >> j & 1:
                continue
            if best < 0:
                best = j
                continue
            a, b = members[j], members[best]
            if sim[t, a] > sim[t, b] or (sim[t, a] == sim[t, b] and a < b):
                best = j
        taken |= 1 << best
        if rel[t, members[best]]:
            n_rel += 1
        if r == 0:
            top_sim = np.float64(sim[t, members[best]])
    _, _, q = quality_of(n_rel, m, k, top_sim, qcode)
    return w[t] * (1.0 - q)


def loss(model: MissModel, t: int, arrivals) -> float:
    """ℓ_t(S) for a cache holding the given arrival indices (each < t)."""
    members = np.asarray(sorted(arrivals), dtype=np.int64)
    return float(set_loss(t, members, members.size, model.sim, model.rel, model.w,
                          model.top_k, model.qcode))


def schedule_from_sets(keys, sets) -> dict:
    """Admissions and evictions per step from cache sets ``sets[t]`` = S_t (t = 0 … T).

    ``admitted[t]`` is the key admitted at step t (or -1) and ``evicted[t]`` the keys that
    left the cache at step t (replacements and plain deletions alike), sorted.
    """
    T = len(sets) - 1
    admitted, evicted = [], []
    for t in range(T):
        before, after = sets[t], sets[t + 1]
        admitted.append(int(keys[t]) if t in after and t not in before else -1)
        evicted.append(sorted(int(keys[i]) for i in before - after))
    return {"admitted": admitted, "evicted": evicted}


def replay(trace, schedule: dict, capacity: int | None, top_k: int, switch_cost: float,
           quality: str, budget: int | None = None) -> float:
    """Cost Σ ℓ_t + λ·N of a schedule, checking that it is feasible (docs/model.md §4).

    The schedule names keys; the cached copy of a key is the arrival that admitted it, and
    a step that evicts several keys is one change.  Raises ``ValueError`` when the schedule
    admits a key already cached, evicts one that is not, exceeds the capacity (None: no
    count limit) or, with a ``budget``, holds a total of ``trace.item_sizes`` above it
    (docs/model.md §1.8).
    """
    w = effective_weights(trace)
    qt, it, keys = trace.query_topics, trace.item_topics, trace.item_keys
    ptr, idx = trace.evidence_indptr, trace.evidence_indices
    cached: dict = {}  # key -> arrival index
    total = 0.0
    mods = 0
    for t in range(trace.steps):
        ranked = sorted(cached.values(), key=lambda i: (-float(dot(trace.queries[t],
                                                                   trace.items[i])), i))
        ranked = ranked[:top_k]
        ev = set(idx[ptr[t]:ptr[t + 1]].tolist()) if trace.has_evidence else set()
        n_rel = sum(1 for i in ranked if (qt[t] >= 0 and it[i] == qt[t]) or keys[i] in ev)
        top = float(dot(trace.queries[t], trace.items[ranked[0]])) if ranked else 0.0
        _, _, q = quality_of(n_rel, len(ranked), top_k, top, QUALITY_CODES[quality])
        total += w[t] * (1.0 - q)
        before = set(cached)
        changed = False
        for key in schedule["evicted"][t]:
            if key not in cached:
                raise ValueError(f"step {t}: evicts key {key}, which is not cached")
            del cached[key]
            changed = True
        a = schedule["admitted"][t]
        if a >= 0:
            if a != keys[t] or a in before:
                raise ValueError(f"step {t}: admits key {a}, not the arriving uncached item")
            cached[a] = t
            changed = True
        if capacity is not None and len(cached) > capacity:
            raise ValueError(f"step {t}: {len(cached)} items exceed capacity {capacity}")
        if budget is not None:
            used = sum(int(trace.item_sizes[i]) for i in cached.values())
            if used > budget:
                raise ValueError(f"step {t}: cached sizes total {used} > budget {budget}")
        mods += changed
    return total + switch_cost * mods
