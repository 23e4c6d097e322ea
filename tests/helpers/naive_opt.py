"""Plain-Python exhaustive search for the offline optimum of docs/model.md §4, for the OPT tests.

Nothing from ``simulator`` or ``theory``: the per-step retrieval and scoring are those of
:mod:`tests.naive` (the reference the engines are tested against).  From each state every
decision S_{t+1} ⊆ S_t ∪ {e_t}, |S_{t+1}| <= K is tried, and every decision sequence is
covered; the search memoises on the full state (step, cached items with their admission
steps), which is exactly what the future depends on, so it stays fast on tiny traces.

Sizes (docs/model.md §1.8): with a ``budget`` B a cache is feasible only if its items'
sizes (``trace.item_sizes``, one per arrival) total at most B, and the count limit may be
absent (``capacity`` None).  :func:`brute_paging_misses` is the same search for a paging
trace with sizes: the fewest misses of any schedule under a byte budget.
"""

from __future__ import annotations

import functools
import itertools
import math

from simulator.testing.reference_model import Item, quality_of, retrieve


def step_loss(trace, t, cache: dict, k: int, quality: str) -> float:
    """ℓ_t of the cache ``{key: Item}`` (0 on unscored steps, as the runner counts cost)."""
    ranked = retrieve(trace.queries[t].tolist(), cache, k)
    ptr, idx = trace.evidence_indptr, trace.evidence_indices
    ev = set(idx[ptr[t]:ptr[t + 1]].tolist()) if trace.has_evidence else set()
    a = int(trace.query_topics[t])
    rel = [(a >= 0 and cache[key].topic == a) or key in ev for key, _ in ranked]
    _, _, q = quality_of(quality, sum(rel), len(ranked), k, ranked[0][1] if ranked else 0.0)
    w = float(trace.weights[t]) if trace.scored[t] else 0.0
    return w * (1.0 - q)


def brute_opt(trace, capacity: int | None, top_k: int, switch_cost: float, quality: str,
              restricted: bool = False, budget: int | None = None) -> float:
    """min over all feasible decision sequences of Σ ℓ_t + λ·N, from an empty cache.

    ``restricted`` allows only keep, add e_t (when not full) and swap one item for e_t:
    the class that suffices when the miss cost is monotone in the cache (docs/model.md §4).
    ``budget``: every cache's sizes total at most B (then ``capacity`` may be None).
    """
    T = trace.steps
    items = trace.items.tolist()
    topics = trace.item_topics.tolist()
    keys = trace.item_keys.tolist()
    sizes = trace.item_sizes.tolist()
    limit = T if capacity is None else capacity  # no cache holds more than T arrivals

    def fits(cache) -> bool:
        return budget is None or sum(sizes[adm] for _, adm in cache) <= budget

    @functools.lru_cache(maxsize=None)
    def best(t, state):  # state: sorted tuple of (key, admission step)
        if t == T:
            return 0.0
        cache = {key: Item(key, items[adm], topics[adm], adm) for key, adm in state}
        here = step_loss(trace, t, cache, top_k, quality)
        pool = list(state)
        if keys[t] not in cache:  # a re-arrival of a cached key admits nothing (docs/model.md §6)
            pool.append((keys[t], t))
        out = math.inf
        for n in range(min(limit, len(pool)) + 1):
            for nxt in itertools.combinations(pool, n):
                nxt = tuple(sorted(nxt))
                if not fits(nxt) or restricted and not _simple(state, nxt, limit):
                    continue
                cost = (0.0 if nxt == state else switch_cost) + best(t + 1, nxt)
                out = min(out, cost)
        return here + out

    return best(0, ())


def _simple(state, nxt, capacity) -> bool:
    """Keep, add the arrival to a cache with room, or swap one cached item for it."""
    if nxt == state:
        return True
    kept = set(state) & set(nxt)
    added = set(nxt) - set(state)
    return len(added) == 1 and (len(kept) == len(state) < capacity
                                or len(kept) == len(state) - 1)


def brute_paging_misses(requests, sizes, budget: int, capacity: int | None = None,
                        always_admit: bool = False) -> int:
    """The fewest misses over all schedules of a paging trace with sizes (docs/model.md §1.7,
    §1.8), from an empty cache.

    Request t hits iff its object is cached.  On a miss the object (with this request's
    size) may be admitted if it is not larger than B, evicting victims one at a time until
    the cache has room (fewer than K items, sizes plus the arrival's at most B); any order
    of victims is tried, so the victim sets are those whose last victim was still needed.
    ``always_admit`` admits on every miss that can fit (as Belady's policy does).
    """
    T = len(requests)
    limit = T if capacity is None else capacity

    def room(cache, w) -> bool:
        return len(cache) < limit and sum(s for _, s in cache) + w <= budget

    @functools.lru_cache(maxsize=None)
    def best(t, cache):  # cache: sorted tuple of (object, size)
        if t == T:
            return 0
        o, w = requests[t], sizes[t]
        if any(obj == o for obj, _ in cache):
            return best(t + 1, cache)
        out = math.inf if always_admit and w <= budget else best(t + 1, cache)
        if w <= budget:
            for n in range(len(cache) + 1):
                for victims in itertools.combinations(cache, n):
                    kept = tuple(x for x in cache if x not in victims)
                    # the engine stops asking once the arrival fits: the last victim was needed
                    needed = n == 0 or any(not room(kept + (v,), w) for v in victims)
                    if room(kept, w) and needed:
                        out = min(out, best(t + 1, tuple(sorted(kept + ((o, w),)))))
        return 1 + out

    return best(0, ())
