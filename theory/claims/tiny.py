"""Tiny instances for counterexample search, and every optimal schedule of one.

:func:`random_instance` draws a seeded tiny semantic instance over the whole model space
the claims quantify over: any K ≥ 1, λ in (0, 2], queries with no relevant item, steps of
weight 0 and 1 (docs/model.md §1), binary or soft quality.  :func:`optimal_schedules` enumerates
*all* optimal schedules (cache sets S_0 … S_T) by exhaustive DP over arrival sets, so a
condition "for every optimal schedule" is checked literally, not on one tie-break.

OPT here is the optimum *in the SOLAR paper's model* (its §2.1): a modification admits the
arrival e_t, evicting one cached item i* ∈ S_t when the cache is full, and costs λ; nothing
leaves without an admission.  :func:`theory.opt.opt` (docs/model.md §4) allows more, any
S_{t+1} ⊆ S_t ∪ {e_t} for one λ, so it is a *relaxation* of this OPT: never larger, and
equal whenever the miss cost is monotone in the cache (more items never hurt), where
keeping, adding e_t or swapping one item for it suffice.  A ratio against the relaxation is
an upper bound on the paper's ratio; ``moves="relaxed"`` gives it here, for cross-checks.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from simulator.instance import Instance
from simulator.trace import Trace
from theory.opt.model import build_model, set_loss


def random_instance(rng: np.random.Generator, max_steps: int = 8, max_capacity: int = 2,
                    deeper: int = 0):
    """One random tiny :class:`~simulator.instance.Instance`.

    ``deeper`` > 0 lets the retrieval depth k exceed the capacity by up to that much (the
    edge k ≥ K, where every cached item is retrieved); 0 keeps k ≤ K.
    """
    T = int(rng.integers(3, max_steps + 1))
    n_topics = int(rng.integers(2, 4))
    d = 4
    centres = np.eye(d)[:n_topics]
    it = rng.integers(0, n_topics, T)
    qt = rng.integers(-1, n_topics, T)  # -1: a query no item is relevant to
    noise = float(rng.choice([0.05, 0.5]))
    items = centres[it] + noise * rng.standard_normal((T, d))
    qdir = np.where(qt[:, None] >= 0, centres[np.maximum(qt, 0)], 0.0)
    queries = qdir + noise * rng.standard_normal((T, d)) + 1e-3
    weights = rng.choice([0.0, 1.0], T) if rng.random() < 0.5 else rng.random(T)
    trace = Trace.from_arrays(queries=queries.astype(np.float32),
                              items=items.astype(np.float32), query_topics=qt,
                              item_topics=it, weights=weights)
    K = int(rng.integers(1, max_capacity + 1))
    model = dict(capacity=K, top_k=int(rng.integers(1, K + 1 + deeper)),
                 switch_cost=float(rng.choice([0.05, 0.1, 0.25, 0.5, 1.0, 2.0])),
                 quality=str(rng.choice(["hit", "hit", "similarity", "precision"])))
    return Instance(trace, model, {"family": "random tiny"})


def optimal_schedules(trace, capacity: int, top_k: int, switch_cost: float, quality: str,
                      limit: int = 200, moves: str = "paper"):
    """(OPT, list of optimal set sequences), at most ``limit`` of them, by exhaustive DP.

    ``moves="paper"``: the paper's model (stay, or admit e_t evicting at most one item);
    ``moves="relaxed"``: any subset of S_t ∪ {e_t} (docs/model.md §4's OPT).
    """
    if moves not in ("paper", "relaxed"):
        raise ValueError(f"moves must be 'paper' or 'relaxed', got {moves!r}")
    model = build_model(trace, top_k, quality)
    T, keys = trace.steps, trace.item_keys

    def step_loss(t, S):
        members = np.array(sorted(S), dtype=np.int64)
        return float(set_loss(t, members, members.size, model.sim, model.rel, model.w,
                              model.top_k, model.qcode))

    def paper_moves(t, S):
        yield S
        if any(keys[i] == keys[t] for i in S):
            return  # a re-arrival of a cached key admits nothing (docs/model.md §6)
        if len(S) < capacity:
            yield S | {t}
        else:
            for i in sorted(S):
                yield S - {i} | {t}

    def relaxed_moves(t, S):
        blocked = any(keys[i] == keys[t] for i in S)
        pool = sorted(S) if blocked else sorted(S) + [t]
        for size in range(min(capacity, len(pool)) + 1):
            for nxt in itertools.combinations(pool, size):
                yield frozenset(nxt)

    step_moves = paper_moves if moves == "paper" else relaxed_moves

    @functools.lru_cache(maxsize=None)
    def value(t, S):
        if t == T:
            return 0.0
        here = step_loss(t, S)
        return here + min(switch_cost * (nxt != S) + value(t + 1, nxt)
                          for nxt in step_moves(t, S))

    best = value(0, frozenset())
    found = []

    def walk(t, S, path):
        if len(found) >= limit:
            return
        if t == T:
            found.append(path)
            return
        here = step_loss(t, S)
        for nxt in step_moves(t, S):
            total = here + switch_cost * (nxt != S) + value(t + 1, nxt)
            if abs(total - value(t, S)) <= 1e-9:
                walk(t + 1, nxt, path + [nxt])

    walk(0, frozenset(), [frozenset()])
    return best, found, step_loss
