"""Slow, plain-Python reference of docs/model.md §1 and of every policy, for the engine tests.

Written from docs/model.md and the policies' docstrings, not from the simulator's code: no
numba, and nothing from ``simulator`` but a trace's arrays.  The cache is a dict of
:class:`Item` keyed by item key; a policy is a small class that sees whole steps (R_t best
first) and answers by item key, never by slot.

Similarity follows ``simulator.kernels``: IEEE single precision, the float32 product of
each coordinate pair added to a float32 accumulator in index order (no fused multiply-add).
Here every operation is done on Python floats and rounded to float32 by :func:`f32`;
a float64 result rounded once to float32 is the correctly rounded float32 result of a
+ or × of two float32 values (53 >= 2·24 + 2 bits), so the two agree bit for bit, ties
included.

The model lives in naive_model.py, the policies in naive_policies.py (the SOLAR paper's
and the classic ones), naive_policies_modern.py (docs/model.md §2.3) and naive_policies_ref.py (the
authors' runner); this module runs them.
"""

from __future__ import annotations

import math

# re-exported: the tests import the model from here
from naive_model import (MASK, Ctx, Item, SplitMix64, f32,  # noqa: F401
                         quality_of, retrieve, similarity)
from naive_policies import (Arc, Belady, Fifo, Lfu, Lru, Solar, SolarA, SolarE,
                            Unlimited)
from naive_policies_modern import RandomEvict, S3Fifo, Sieve, TinyLfu, TwoQ
from naive_policies_ref import ArcRef, LruRef, SolarARef, SolarERef, SolarRef

POLICIES = {
    "unlimited": Unlimited,
    "fifo": Fifo,
    "lru": Lru,
    "lfu": Lfu,
    "arc": Arc,
    "belady": Belady,
    "solar_e": SolarE,
    "solar_a": SolarA,
    "solar": Solar,
    "sieve": Sieve,
    "s3fifo": S3Fifo,
    "twoq": TwoQ,
    "tinylfu": TinyLfu,
    "random": RandomEvict,
    "lru_ref": LruRef,
    "arc_ref": ArcRef,
    "solar_e_ref": SolarERef,
    "solar_a_ref": SolarARef,
    "solar_ref": SolarRef,
}

# The memory-management study.
from naive_policies_memory import (AddAll, Coarse, Combined, Fixed, History,  # noqa: E402
                                   Periodic, Strict)

POLICIES.update({"fixed": Fixed, "add_all": AddAll, "strict": Strict, "coarse": Coarse,
                 "periodic": Periodic, "history": History, "combined": Combined})



def naive_run(trace, policy, capacity, top_k=3, switch_cost=0.0, quality="hit", seed=0,
              params=None, budget=None) -> dict:
    """docs/model.md §1 step by step; per-step lists and summary counters of one run.

    With sizes or a budget (§1.8): an arrival larger than the budget is never offered;
    an admitted one evicts until the count and the total size fit.  ``evicted_all``
    lists, per step, every key evicted then.
    """
    k = top_k
    cls = POLICIES[policy]
    if cls.unbounded:
        capacity = budget = math.inf
    # the policy plans with K, or with a budget alone with B (the most items B can hold)
    plan = capacity if capacity is not None else (budget if budget is not None else math.inf)
    if capacity is None:
        capacity = math.inf
    budget = math.inf if budget is None else budget
    sizes = trace.item_sizes.tolist()
    pol = cls(Ctx(plan, dict(params or {}), seed, switch_cost))
    pol.item_sizes = sizes  # what a size-aware twin reads (naive_policies.arriving_size)
    queries = trace.queries.tolist()
    items = trace.items.tolist()
    qtopic = trace.query_topics.tolist()
    itopic = trace.item_topics.tolist()
    weights = trace.weights.tolist()
    scored = trace.scored.tolist()
    keys = trace.item_keys.tolist()
    ptr = trace.evidence_indptr.tolist()
    ev = trace.evidence_indices.tolist()
    has_ev = bool(trace.has_evidence)
    T = len(queries)
    out = {name: [] for name in ("loss", "hit", "precision", "quality", "admitted", "evicted",
                                 "deleted", "size", "evicted_all")}
    cache: dict = {}
    held = {}  # key -> size
    mods = too_large = 0
    most = 0
    for t in range(T):
        before = set(cache)
        ranked = retrieve(queries[t], cache, k)
        evidence = set(ev[ptr[t]:ptr[t + 1]]) if has_ev else set()
        rel = [(qtopic[t] >= 0 and cache[key].topic == qtopic[t]) or key in evidence
               for key, _ in ranked]
        hit, prec, qual = quality_of(quality, sum(rel), len(ranked), k,
                                     ranked[0][1] if ranked else 0.0)
        loss = weights[t] * (1.0 - qual)
        pol.on_retrieve(t, [key for key, _ in ranked], rel)
        pol.on_feedback(t, loss, qual)
        adm = evi = dele = -1
        all_evicted = []
        key = keys[t]
        if key in cache:
            pol.on_rearrival(t, key)
        elif sizes[t] > budget:
            too_large += 1
        elif pol.admit(t, key, items[t], cache):
            while len(cache) >= capacity or sum(held.values()) + sizes[t] > budget:
                gone = pol.victim(t, key, items[t], cache)
                assert gone in cache, f"naive {policy} chose a victim {gone} that is not cached"
                del cache[gone]
                del held[gone]
                pol.on_evict(t, gone)
                all_evicted.append(gone)
            evi = all_evicted[0] if all_evicted else -1
            cache[key] = Item(key, items[t], itopic[t], t)
            held[key] = sizes[t]
            most = max(most, sum(held.values()))
            pol.on_insert(t, key)
            adm = key
        gone = pol.delete(t, cache)
        if gone is not None:
            assert gone in cache
            del cache[gone]
            del held[gone]
            pol.on_evict(t, gone)
            dele = gone
        mods += set(cache) != before
        for name, v in (("loss", loss), ("hit", hit), ("precision", prec), ("quality", qual),
                        ("admitted", adm), ("evicted", evi), ("deleted", dele),
                        ("size", len(cache)), ("evicted_all", all_evicted)):
            out[name].append(v)
    sc = [t for t in range(T) if scored[t]]
    n = len(sc)
    miss_cost = math.fsum(out["loss"][t] for t in sc)
    hits = sum(out["hit"][t] for t in sc)
    out.update(
        # nothing scored: no rate (docs/model.md §7.2), not a rate of 0
        scored_steps=n, hits=hits, hit_rate=hits / n if n else None,
        mean_precision=math.fsum(out["precision"][t] for t in sc) / n if n else None,
        mean_quality=math.fsum(out["quality"][t] for t in sc) / n if n else None,
        modifications=mods,
        admissions=sum(a >= 0 for a in out["admitted"]),
        evictions=sum(map(len, out["evicted_all"])) + sum(e >= 0 for e in out["deleted"]),
        miss_cost=miss_cost, cost=miss_cost + switch_cost * mods,
        miss_cost_all=math.fsum(out["loss"]), max_occupancy=most, too_large=too_large)
    return out


def naive_paging_run(requests, policy, capacity, seed=0, params=None, sizes=None,
                     budget=None, object_ids=None) -> dict:
    """Paging mode: hit iff cached; a miss offers the requested object for admission.

    With sizes or a budget (§1.8): a miss larger than the budget is never offered; an
    admission takes the size of the request that missed and evicts until it fits.  After
    a hit, and after an admission, every key the policy's ``delete`` names leaves (it is
    an eviction).  ``object_ids``: the trace's own id of each key (``PagingTrace``'s).
    """
    requests = [int(r) for r in requests]
    sizes = [1] * len(requests) if sizes is None else [int(x) for x in sizes]
    capacity = math.inf if capacity is None else capacity
    budget = math.inf if budget is None else budget
    ids = None if object_ids is None else [int(i) for i in object_ids]
    pol = POLICIES[policy](Ctx(capacity, dict(params or {}), seed, 0.0, requests, "paging",
                               ids))
    cache: dict = {}
    held = {}
    hit = []
    admitted = []
    evicted = []
    hit_size = too_large = 0

    def drop(t):
        gone = []
        while (key := pol.delete(t, cache)) is not None:
            assert key in cache, f"naive {policy} deleted {key}, which is not cached"
            del cache[key]
            del held[key]
            pol.on_evict(t, key)
            gone.append(key)
        return gone

    for t, key in enumerate(requests):
        adm = evi = -1
        if key in cache:
            hit.append(1)
            hit_size += sizes[t]
            pol.on_retrieve(t, [key], [True])
            gone = drop(t)
            evi = gone[0] if gone else -1
            pol.on_feedback(t, 0.0, 1.0)
        else:
            hit.append(0)
            pol.on_feedback(t, 1.0, 0.0)
            if sizes[t] > budget:
                too_large += 1
            elif pol.admit(t, key, [], cache):
                n = 0
                while len(cache) >= capacity or sum(held.values()) + sizes[t] > budget:
                    gone = pol.victim(t, key, [], cache)
                    assert gone in cache
                    del cache[gone]
                    del held[gone]
                    pol.on_evict(t, gone)
                    evi = gone if n == 0 else evi
                    n += 1
                cache[key] = Item(key, [], -1, t)
                held[key] = sizes[t]
                pol.on_insert(t, key)
                adm = key
                gone = drop(t)
                evi = gone[0] if evi < 0 and gone else evi
        admitted.append(adm)
        evicted.append(evi)
    return dict(hit=hit, hits=sum(hit), admitted=admitted, evicted=evicted, hit_size=hit_size,
                requested_size=sum(sizes), too_large=too_large)


