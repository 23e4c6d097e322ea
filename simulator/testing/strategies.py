"""Hypothesis strategies for valid traces and tiny instances, drawn from primitives.

Every trace is built from what hypothesis draws, never from a seed: the number of steps,
the vectors (a small pool of grid or float vectors, or topic axes plus noise), the topics,
the keys, the weights, the scored mask, the evidence and the sizes; an instance adds K,
k, λ, the quality and the budget.  So a failing example shrinks to fewer steps, fewer
topics, smaller K and simpler numbers, not to another seed.

>>> from hypothesis import find
>>> inst = find(instances(), lambda i: i.options["capacity"] == 2 and i.steps >= 3)
>>> inst.steps >= 3, inst.options["capacity"]  # shrunk towards 3 steps
(True, 2)
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from simulator.instance import Instance
from simulator.trace import PagingTrace, Trace

VECTORS = ("grid", "float", "topics")
KEYS = ("fresh", "same", "changed")
QUALITIES = ("hit", "precision", "similarity")
# per-step weights: all 1 (the simplest, where shrinking ends), 0/1, or any in [0, 1]
WEIGHTS = {"one": None, "binary": st.sampled_from([0.0, 1.0]),
           "any": st.sampled_from([0.0, 1.0, 0.5, 0.3, 0.8]) | st.floats(0, 1)}


def traces(mode="semantic", *, sized=False, min_steps=1, max_steps=8, dim=3,
           vectors=VECTORS, n_topics=4, keys=KEYS, evidence=True, unscored=True,
           max_size=4, max_keys=8):
    """Valid semantic or paging traces (:class:`~simulator.trace.Trace`,
    :class:`~simulator.trace.PagingTrace`).

    Parameters
    ----------
    mode : {"semantic", "paging"}
    sized : bool
        Item sizes 1 .. ``max_size`` (semantic: one per key; paging: one per request).
    min_steps, max_steps : int
        T, the number of steps (paging: requests).
    dim : int or sequence of int
        The vector dimension, or the dimensions to draw from.
    vectors : sequence of {"grid", "float", "topics"}
        How vectors are drawn: from a small pool of vectors with coordinates in -2 .. 2
        (exact similarity ties are common) or float32 ones, or as topic axes plus noise
        (items near their topic's axis, queries near their topic's or, without a topic,
        near the diagonal).
    n_topics : int
        Topics are -1 (none) .. ``n_topics - 1``.
    keys : sequence of {"fresh", "same", "changed"}
        Every arrival a new item, or keys that re-stream with their first vector and
        topic, or with new ones (which a re-arrival of a cached key ignores).
    evidence, unscored : bool
        Whether some traces name relevant items per step, or leave steps unscored.
    max_keys : int
        Paging: the requests are over 1 .. ``max_keys`` objects.
    """
    if not 1 <= min_steps <= max_steps:
        raise ValueError(f"need 1 <= min_steps <= max_steps, got {min_steps}, {max_steps}")
    if mode == "paging":
        return _paging(sized, min_steps, max_steps, max_size, max_keys)
    if mode != "semantic":
        raise ValueError(f"mode must be 'semantic' or 'paging', got {mode!r}")
    for name, given, valid in (("vectors", vectors, VECTORS), ("keys", keys, KEYS)):
        if not given or set(given) - set(valid):
            raise ValueError(f"{name} must be some of {valid}, got {given!r}")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return _semantic(sized, min_steps, max_steps, dims, tuple(vectors), n_topics,
                     tuple(keys), evidence, unscored, max_size)


def instances(*, sized=False, max_steps=6, max_capacity=3, max_top_k=3,
              switch_costs=(0.0, 0.5, 2.0), qualities=QUALITIES, max_budget=7,
              **trace_options):
    """Tiny semantic :class:`~simulator.instance.Instance` s: a trace and its options.

    With the defaults (T ≤ 6, K ≤ 3) :func:`theory.opt.opt` is always exact.  K is drawn
    from 1 .. ``max_capacity``; k from 1 .. ``max_top_k``, or 1 .. K when it is None; λ
    from ``switch_costs``; the quality from ``qualities``.  ``sized``: items have sizes
    and a budget 1 .. ``max_budget`` is drawn, with K or without one (None).  Other
    keywords go to :func:`traces`.
    """
    return _instances(traces(sized=sized, max_steps=max_steps, **trace_options), sized,
                      max_capacity, max_top_k, tuple(switch_costs), tuple(qualities),
                      max_budget)


def policy_params(policy, values):
    """Dicts of some of ``policy``'s parameters (a :class:`~simulator.policies.base.Policy`),
    each drawn from ``values[name]``; a parameter without values keeps its default."""
    names = sorted(set(policy.params) & set(values))
    return st.fixed_dictionaries({}, optional={n: st.sampled_from(values[n]) for n in names})


@st.composite
def _instances(draw, traces, sized, max_capacity, max_top_k, switch_costs, qualities,
               max_budget):
    trace = draw(traces)
    capacity = draw(st.integers(1, max_capacity), label="capacity")
    top_k = draw(st.integers(1, max_top_k or capacity), label="top_k")
    options = dict(capacity=capacity, top_k=top_k,
                   switch_cost=draw(st.sampled_from(switch_costs), label="switch_cost"),
                   quality=draw(st.sampled_from(qualities), label="quality"))
    if sized:
        options["budget"] = draw(st.integers(1, max_budget), label="budget")
        if draw(st.booleans(), label="no count limit"):
            options["capacity"] = None
    return Instance(trace, options, {"source": "simulator.testing.instances"})


@st.composite
def _paging(draw, sized, min_steps, max_steps, max_size, max_keys):
    n = draw(st.integers(1, max_keys), label="objects")
    requests = draw(st.lists(st.integers(0, n - 1), min_size=min_steps, max_size=max_steps))
    sizes = None
    if sized:
        sizes = draw(st.lists(st.integers(1, max_size), min_size=len(requests),
                              max_size=len(requests)))
    return PagingTrace.from_requests(np.array(requests, np.int64), sizes)


def _grid(d):
    return st.lists(st.integers(-2, 2), min_size=d, max_size=d).filter(any)


def _float(d):  # a vector too short to normalise becomes the first axis
    return st.lists(st.floats(-1, 1, width=32), min_size=d, max_size=d).map(
        lambda v: v if max(map(abs, v)) > 1e-3 else [1.0] + v[1:])


def _steps(draw, n, element, label):
    return draw(st.lists(element, min_size=n, max_size=n), label=label)


def _pooled(draw, T, d, kind):
    """(queries, items): picks from a pool; a pool of 2T vectors is nearly all distinct."""
    size = draw(st.sampled_from([1, 2, 3, 4, 5, 2 * T]), label="pool size")
    pool = draw(st.lists((_grid if kind == "grid" else _float)(d), min_size=size,
                         max_size=size), label="pool")
    pick = st.integers(0, size - 1)
    return ([pool[i] for i in _steps(draw, T, pick, "queries")],
            [pool[i] for i in _steps(draw, T, pick, "items")])


def _around_topics(draw, T, d, qt, it):
    """(queries, items): each item on its topic's axis, each query on its topic's axis or
    the diagonal, plus noise in ±0.4 per coordinate."""
    noise = np.array(_steps(draw, 2 * T * d, st.floats(-0.4, 0.4), "noise")).reshape(2, T, d)
    eye = np.eye(d)
    items = eye[np.array(it) % d] * (np.array(it) >= 0)[:, None] + noise[0]
    items[np.array(it) < 0] += 0.2  # an item of no topic: near the diagonal
    queries = np.where(np.array(qt)[:, None] >= 0, eye[np.array(qt) % d], 0.2) + noise[1]
    return (queries + 1e-3).tolist(), (items + 1e-3).tolist()


@st.composite
def _semantic(draw, sized, min_steps, max_steps, dims, vectors, n_topics, keys, evidence,
              unscored, max_size):
    T = draw(st.integers(min_steps, max_steps), label="steps")
    d = draw(st.sampled_from(dims), label="dim")
    kind = draw(st.sampled_from(vectors), label="vectors")
    key_kind = draw(st.sampled_from(keys), label="keys")
    topic = st.integers(-1, n_topics - 1)
    qt = _steps(draw, T, topic, "query topics")
    it = _steps(draw, T, topic, "item topics")
    if kind == "topics":
        queries, items = _around_topics(draw, T, d, qt, it)
    else:
        queries, items = _pooled(draw, T, d, kind)
    arrays = {}
    ids = list(range(T))
    if key_kind != "fresh":
        n = draw(st.integers(1, T), label="distinct items")
        ids = [3 * k + 7 for k in _steps(draw, T, st.integers(0, n - 1), "keys")]
        arrays["item_keys"] = ids  # not dense, not in first-arrival order
        if key_kind == "same":  # a key keeps its first vector and topic
            first = {}
            for t, key in enumerate(ids):
                f = first.setdefault(key, t)
                items[t], it[t] = items[f], it[f]
    weight = WEIGHTS[draw(st.sampled_from(list(WEIGHTS)), label="weights")]
    if weight is not None:
        arrays["weights"] = _steps(draw, T, weight, "weight")
    if unscored and draw(st.booleans(), label="unscored steps"):
        arrays["scored"] = _steps(draw, T, st.booleans(), "scored")
    if evidence and draw(st.booleans(), label="evidence"):
        # repeats allowed: an id named twice is relevant once
        per_step = _steps(draw, T, st.lists(st.sampled_from(sorted(set(ids))), max_size=3),
                          "evidence")
        arrays["evidence_indptr"] = np.cumsum([0] + [len(e) for e in per_step])
        arrays["evidence_indices"] = np.array([i for e in per_step for i in e], np.int64)
    if sized:
        size = {k: draw(st.integers(1, max_size), label="size") for k in sorted(set(ids))}
        arrays["item_sizes"] = [size[k] for k in ids]
    return Trace.from_arrays(queries=np.array(queries, np.float32),
                             items=np.array(items, np.float32), query_topics=qt,
                             item_topics=it, **arrays)
