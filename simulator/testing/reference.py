"""The reference engine: docs/model.md §1 step by step, in plain Python, running twins.

Slow and obvious on purpose.  Written from docs/model.md and the policies' docstrings, not
from the simulator's engine code: no numba, nothing from ``simulator`` but a trace's
arrays and the argument checks (the model is :mod:`simulator.testing.reference_model`;
a bad argument is one :class:`~simulator.errors.InputError` naming it, from
:mod:`simulator.testing.arguments`, before the first step).  The cache is a dict of
:class:`~simulator.testing.reference_model.Item` keyed by item key; a policy is a
:class:`~simulator.testing.twin.Twin` subclass that sees whole steps (R_t best first) and
answers by item key, never by slot.  :func:`reference_run` gives the per-step arrays and
the summary counters of :func:`simulator.run` (floats bit for bit), so a compiled policy
can be held to its twin step by step
(:func:`simulator.testing.assert_same_as_reference`).

>>> from simulator.testing.twin import Twin
>>> class Unlimited(Twin):
...     unbounded = True
>>> reference_paging_run([0, 1, 0, 2, 0], Unlimited, capacity=1)["hit"]
[0, 0, 1, 0, 1]
"""

from __future__ import annotations

import math

from simulator.errors import InputError
from simulator.engine.size_limits import MAX_SIZE
from simulator.testing import arguments
from simulator.testing.reference_model import Item, TwinContext, quality_of, retrieve
from simulator.testing.twin import twin_class


def reference_run(trace, twin, capacity, top_k=3, switch_cost=0.0, quality="hit", seed=0,
                  params=None, budget=None) -> dict:
    """One run of the :class:`~simulator.testing.twin.Twin` subclass ``twin`` on the
    semantic ``trace``: per-step lists and summary counters.

    Takes :func:`simulator.run`'s options (``capacity`` None: 10, or no count limit
    beside a budget).
    The lists are ``loss``, ``hit``, ``precision``, ``quality``, ``admitted``,
    ``evicted`` and ``deleted`` (a key or -1: the first one), ``size`` (items cached after
    the step), ``evicted_all`` and ``deleted_all`` (every key evicted, deleted at the step:
    a twin with ``repeat_delete`` is asked ``delete`` until it says None); the counters
    are those of
    ``RunResult.summary()`` (``hits``, ``hit_rate``, ``modifications``, ``rewrites``: what
    the twin noted with ``note_rewrites``, ``cost`` ...).
    With sizes or a budget (§1.8) an arrival larger than the budget is never offered and
    an admitted one evicts until the count and the total size fit.
    """
    trace = arguments.semantic_trace("trace", trace)
    cls = twin_class("twin", twin)
    checked = arguments.model_options(capacity=capacity, top_k=top_k,
                                      switch_cost=switch_cost, quality=quality, seed=seed,
                                      budget=budget)
    params = arguments.twin_params("params", cls, params)
    (capacity, budget), k = checked.run_limits(), checked.top_k
    switch_cost, seed = checked.switch_cost, checked.seed
    if cls.unbounded:
        capacity = budget = math.inf
    # the policy plans with K, or with a budget alone with B (the most items B can hold)
    plan = capacity if capacity is not None else (budget if budget is not None else math.inf)
    if capacity is None:
        capacity = math.inf
    budget = math.inf if budget is None else budget
    sizes = trace.item_sizes.tolist()
    pol = cls(TwinContext(plan, dict(params or {}), seed, switch_cost,
                          times=None if trace.times is None else trace.times.tolist(),
                          supersedes=None if trace.supersedes is None else
                          trace.supersedes.tolist()))
    pol.item_sizes = sizes  # what a size-aware twin reads (Twin.arriving_size)
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
                                 "deleted", "size", "evicted_all", "deleted_all")}
    cache: dict = {}
    held = {}  # key -> size
    mods = too_large = 0
    most = 0
    for t in range(T):
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
                assert gone in cache, f"{cls.__name__} chose a victim {gone} that is not cached"
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
        all_deleted = []
        # one deletion a step, or (a twin with repeat_delete) until it says None
        while (gone := pol.delete(t, cache)) is not None:
            assert gone in cache, f"{cls.__name__} deleted {gone}, which is not cached"
            del cache[gone]
            del held[gone]
            pol.on_evict(t, gone)
            all_deleted.append(gone)
            if not cls.repeat_delete:
                break
        dele = all_deleted[0] if all_deleted else -1
        # an admission, an eviction or a deletion changes the cache (docs/model.md §1.6),
        # even an arrival admitted and deleted within its own step
        mods += adm >= 0 or bool(all_evicted) or bool(all_deleted)
        for name, v in (("loss", loss), ("hit", hit), ("precision", prec), ("quality", qual),
                        ("admitted", adm), ("evicted", evi), ("deleted", dele),
                        ("size", len(cache)), ("evicted_all", all_evicted),
                        ("deleted_all", all_deleted)):
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
        modifications=mods, rewrites=pol.rewrites,
        admissions=sum(a >= 0 for a in out["admitted"]),
        evictions=sum(map(len, out["evicted_all"])) + sum(map(len, out["deleted_all"])),
        miss_cost=miss_cost, cost=miss_cost + switch_cost * (mods + pol.rewrites),
        miss_cost_all=math.fsum(out["loss"]), max_occupancy=most, too_large=too_large)
    return out


def reference_paging_run(requests, twin, capacity, seed=0, params=None, sizes=None,
                         budget=None, object_ids=None) -> dict:
    """Paging mode: hit iff cached; a miss offers the requested object for admission.

    ``requests`` are dense keys (``PagingTrace.requests``); ``twin`` a
    :class:`~simulator.testing.twin.Twin` subclass; ``capacity`` None is 10, or no count
    limit beside a budget, as in :func:`simulator.run`.  Returns ``hit``, ``admitted`` and
    ``evicted`` per request (a key or -1: the first one evicted), and ``hits``,
    ``evictions`` (all of them), ``hit_size``, ``requested_size`` and ``too_large``.  With
    sizes or a budget (§1.8): a miss larger than the budget is never offered; an admission takes
    the size of the request that
    missed and evicts until it fits.  After a hit, and after an admission, every key the
    twin's ``delete`` names leaves (it is an eviction).  ``object_ids``: the trace's own
    id of each key (``PagingTrace.object_ids``), for twins that hash them.
    """
    requests = arguments.int_list("requests", requests)
    twin = twin_class("twin", twin)
    checked = arguments.model_options(capacity=capacity, budget=budget, seed=seed)
    (capacity, budget), seed = checked.run_limits(), checked.seed
    params = arguments.twin_params("params", twin, params)
    if sizes is not None:
        sizes = arguments.int_list("sizes", sizes, 1, MAX_SIZE, len(requests))
    if object_ids is not None:
        object_ids = arguments.int_list("object_ids", object_ids, 0, 2**64 - 1)
        if len(object_ids) <= max(requests, default=-1):
            raise InputError(f"object_ids must hold an id for every key (0 .. "
                             f"{max(requests)}), got {len(object_ids)}", "object_ids")
    if twin.unbounded:
        capacity = budget = math.inf
    told = sizes is not None
    sizes = [int(x) for x in sizes] if told else [1] * len(requests)
    capacity = math.inf if capacity is None else capacity
    budget = math.inf if budget is None else budget
    ids = None if object_ids is None else [int(i) for i in object_ids]
    pol = twin(TwinContext(capacity, dict(params or {}), seed, 0.0, requests, "paging", ids))
    if told:  # sizes given: the twin is told them, as in semantic mode
        pol.item_sizes = list(sizes)
    cache: dict = {}
    held = {}
    hit = []
    admitted = []
    evicted = []
    hit_size = too_large = 0
    removed = [0]  # every eviction: victims and deletions

    def drop(t):
        gone = []
        while (key := pol.delete(t, cache)) is not None:
            assert key in cache, f"{twin.__name__} deleted {key}, which is not cached"
            del cache[key]
            del held[key]
            pol.on_evict(t, key)
            gone.append(key)
        removed[0] += len(gone)
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
                removed[0] += n
                cache[key] = Item(key, [], -1, t)
                held[key] = sizes[t]
                pol.on_insert(t, key)
                adm = key
                gone = drop(t)
                evi = gone[0] if evi < 0 and gone else evi
        admitted.append(adm)
        evicted.append(evi)
    return dict(hit=hit, hits=sum(hit), admitted=admitted, evicted=evicted, hit_size=hit_size,
                requested_size=sum(sizes), too_large=too_large, evictions=removed[0])
