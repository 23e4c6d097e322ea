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

from simulator.errors import InputError
from simulator.instance import Instance
from simulator.run_options import check_top_k
from simulator.runner import MAX_COST
from simulator.engine.size_limits import MAX_SIZE, MAX_TOTAL
from simulator.testing import arguments
from simulator.trace import PagingTrace, Trace

VECTORS = ("grid", "float", "topics")
KEYS = ("fresh", "same", "changed")
QUALITIES = ("hit", "precision", "similarity")
MAX_STEPS = 1000  # traces are tiny: hypothesis shrinks them, OPT solves them
MAX_DIM = 64
CHOICES = 4096  # half of what hypothesis draws for one example at most (8192 choices)
# the mode-specific arguments of traces() and their defaults (one given to the other mode
# is refused)
_DEFAULTS = dict(dim=(3,), vectors=VECTORS, n_topics=4, keys=KEYS, evidence=True,
                 unscored=True, max_keys=8)
_INSTANCE_ARGUMENTS = {"sized", "max_steps", "max_capacity", "max_top_k", "switch_costs",
                       "qualities", "max_budget", "min_steps", "max_size", *_DEFAULTS}
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
        T, the number of steps (paging: requests), at most :data:`MAX_STEPS`.
    dim : int or sequence of int
        The vector dimension, or the dimensions to draw from (1 .. :data:`MAX_DIM`).
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

    Raises
    ------
    InputError
        A bad value, named: ``dim``, ``vectors``, ``n_topics``, ``keys``, ``evidence``
        and ``unscored`` are for semantic traces, ``max_keys`` for paging ones, and one
        given to the other mode is refused.  Hypothesis draws at most 8192 choices for
        one example, so the smallest trace asked for must fit in half of that: a
        semantic step draws about 2·dim + 8 of them.

    Notes
    -----
    A sequence argument also takes a single value (``vectors="grid"``).
    """
    mode = _mode(mode)
    sized, evidence, unscored = (arguments.flag(n, v) for n, v in (
        ("sized", sized), ("evidence", evidence), ("unscored", unscored)))
    min_steps = arguments.integer("min_steps", min_steps, 1, MAX_STEPS)
    max_steps = arguments.integer("max_steps", max_steps, 1, MAX_STEPS)
    if max_steps < min_steps:
        raise InputError(f"max_steps must be >= min_steps ({min_steps}), got {max_steps}",
                         "max_steps")
    max_size = arguments.integer("max_size", max_size, 1, MAX_SIZE)
    if max_size * max_steps > MAX_TOTAL:
        raise InputError(f"max_size × max_steps must be at most 2**61 (a trace's total "
                         f"size), got {max_size} × {max_steps}", "max_size")
    max_keys = arguments.integer("max_keys", max_keys)
    dims = arguments.sequence("dim", dim, single=(int, np.integer))
    dims = tuple(arguments.integer("dim", d, 1, MAX_DIM) for d in dims)
    vectors = arguments.names("vectors", vectors, VECTORS)
    keys = arguments.names("keys", keys, KEYS)
    n_topics = arguments.integer("n_topics", n_topics, 0)
    given = dict(dim=dims, vectors=vectors, n_topics=n_topics, keys=keys, evidence=evidence,
                 unscored=unscored, max_keys=max_keys)
    for name, value in given.items():
        if (name == "max_keys") == (mode == "semantic") and value != _DEFAULTS[name]:
            raise InputError(f"{name} is for {'paging' if mode == 'semantic' else 'semantic'}"
                             f" traces, not {mode} ones; leave it out", name)
    if mode == "paging":
        if min_steps * (1 + sized) > CHOICES:
            raise InputError(f"min_steps must be at most {CHOICES // (1 + sized)} for "
                             f"{'sized ' * sized}paging traces (hypothesis' limit on one "
                             f"example), got {min_steps}", "min_steps")
        return _paging(sized, min_steps, max_steps, max_size, max_keys)
    if min_steps * (2 * max(dims) + 8) > CHOICES:
        raise InputError(f"min_steps × (2·dim + 8) must be at most {CHOICES} (hypothesis' "
                         f"limit on one example), got {min_steps} × (2·{max(dims)} + 8): "
                         "give fewer steps or a smaller dim", "min_steps")
    return _semantic(sized, min_steps, max_steps, dims, vectors, n_topics, keys, evidence,
                     unscored, max_size)


def instances(*, sized=False, max_steps=6, max_capacity=3, max_top_k=3,
              switch_costs=(0.0, 0.5, 2.0), qualities=QUALITIES, max_budget=7,
              **trace_options):
    """Tiny semantic :class:`~simulator.instance.Instance` s: a trace and its options.

    With the defaults (T ≤ 6, K ≤ 3) :func:`theory.opt.opt` is always exact.  K is drawn
    from 1 .. ``max_capacity``; k from 1 .. ``max_top_k``, or 1 .. K when it is None; λ
    from ``switch_costs`` (finite, >= 0; one number or several); the quality from
    ``qualities``.  ``sized``: items have sizes and a budget 1 .. ``max_budget`` is drawn,
    with K or without one (None).  Other keywords go to :func:`traces` (semantic mode
    only); a bad argument is one :class:`~simulator.errors.InputError` naming it.
    """
    wrong = sorted(set(trace_options) - set(_DEFAULTS) - {"min_steps", "max_size", "mode"})
    if wrong:
        raise InputError(f"{wrong[0]} is not an argument of instances() or traces(); they "
                         f"take {', '.join(sorted(_INSTANCE_ARGUMENTS))}", wrong[0])
    if trace_options.get("mode", "semantic") != "semantic":
        raise InputError(f"mode must be 'semantic' for instances(), got "
                         f"{arguments.shown(trace_options['mode'])}: for paging, draw "
                         "traces('paging') and build Instance(trace, {'capacity': K})", "mode")
    max_capacity = arguments.integer("max_capacity", max_capacity)
    max_top_k = arguments.integer("max_top_k", max_top_k, none=True)
    if max_top_k is not None:
        try:  # a k whose retrieval buffers cannot fit would fail every drawn instance
            check_top_k(max_top_k)
        except InputError as exc:
            raise InputError(f"max_top_k: {exc}", "max_top_k") from None
    max_budget = arguments.integer("max_budget", max_budget)
    qualities = arguments.names("qualities", qualities, QUALITIES)
    steps = traces(sized=sized, max_steps=max_steps, **trace_options)  # checks them
    costs = arguments.sequence("switch_costs", switch_costs,
                               single=(int, float, np.integer, np.floating))
    for cost in costs:
        arguments.number("switch_costs", cost, low=0.0)
        if max_steps * (1.0 + cost) > MAX_COST:
            raise InputError(f"switch_costs: {cost:g} makes the largest cost T·(1 + λ) over "
                             f"{max_steps} steps exceed {MAX_COST:g}", "switch_costs")
    return _instances(steps, sized, max_capacity, max_top_k, tuple(map(float, costs)),
                      qualities, max_budget)


def policy_params(policy, values):
    """Dicts of some of ``policy``'s parameters (a :class:`~simulator.policies.base.Policy`
    or a registered name), each drawn from ``values[name]`` (a list of values, or one
    value); a parameter without values keeps its default.  One ``values`` may serve
    several policies: names of other registered policies' parameters are left out.  A
    name that is no policy's parameter, or a value the policy refuses, is one InputError
    naming ``values``."""
    pol = arguments.policy("policy", policy)
    values = arguments.param_values("values", pol, values, none=False)
    return st.fixed_dictionaries({}, optional={n: st.sampled_from(v)
                                               for n, v in sorted(values.items())})


def _mode(mode):
    if not isinstance(mode, str) or mode not in ("semantic", "paging"):
        raise InputError(f"mode must be 'semantic' or 'paging', got {arguments.shown(mode)}",
                         "mode")
    return mode


@st.composite
def _instances(draw, traces, sized, max_capacity, max_top_k, switch_costs, qualities,
               max_budget):
    trace = draw(traces)
    capacity = draw(st.integers(1, max_capacity), label="capacity")
    top_k = draw(st.integers(1, capacity if max_top_k is None else max_top_k), label="top_k")
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
    # one list a vector: a list of 2·T·d would pass hypothesis' limit on one list
    noise = np.array(_steps(draw, 2 * T, st.lists(st.floats(-0.4, 0.4), min_size=d,
                                                  max_size=d), "noise")).reshape(2, T, d)
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
