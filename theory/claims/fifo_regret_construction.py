"""Theorem 5.5's own construction: FIFO on cycling over m > K topics, two comparators.

The paper's proof runs FIFO on ``cycling`` with m = K + 1 topics and compares it with "the
best fixed-eviction policy on the same admit-all sequence": since FIFO admits every item,
the competitor *evicts each newly admitted item at once* and keeps the first K topics for
ever, missing 1/(K + 1) of the steps, so R_T = (T − K) − T/(K + 1).

Definition 2.3's comparator, as :mod:`theory.regret` reads it, must take each admission and
evict one of the items it already holds (never the arrival itself).  Both readings are
measured here, each with a feasible comparator schedule, so each measured R_T is a *lower
bound* on the regret against that reading's best comparator, which is all an Ω(T) claim
needs:

``evict the arrival`` (the paper's)
    S_t = the first min(t, K) arrivals (the fill), untouched afterwards;
``keep the arrival`` (ours)
    take every arrival; when full, evict a cached item whose topic another cached item (or
    the arrival) already covers, else the one whose topic is queried furthest in the future.

Losses are the engine's ℓ_t of each set (:func:`theory.opt.model.set_loss`), FIFO's come
from its run.  Regret counts miss cost only (Definition 2.3), so λ plays no part.
"""

from __future__ import annotations

import numpy as np

from theory.opt.model import set_loss


def _loss_of(model, t: int, members: list) -> float:
    arr = np.array(sorted(members), dtype=np.int64)
    return float(set_loss(t, arr, arr.size, model.sim, model.rel, model.w, model.top_k,
                          model.qcode))


def _evict_arrival(trace, K: int, model) -> float:
    held: list = []
    total = 0.0
    for t in range(trace.steps):
        total += _loss_of(model, t, held)
        if len(held) < K and all(trace.item_keys[i] != trace.item_keys[t] for i in held):
            held.append(t)
    return total


def _keep_arrival(trace, K: int, model) -> float:
    topics, keys = trace.item_topics, trace.item_keys
    next_query = _next_query_times(trace.query_topics)
    held: list = []
    total = 0.0
    for t in range(trace.steps):
        total += _loss_of(model, t, held)
        if any(keys[i] == keys[t] for i in held):
            continue  # a re-arrival of a cached key admits nothing (docs/model.md §6)
        if len(held) == K:
            covered = [i for i in held if topics[i] == topics[t] or
                       sum(topics[j] == topics[i] for j in held) > 1]
            victim = covered[0] if covered else max(
                held, key=lambda i: next_query[t].get(int(topics[i]), trace.steps))
            held.remove(victim)
        held.append(t)
    return total


def _next_query_times(query_topics) -> list:
    """next_query[t][topic] = the first step > t that queries ``topic``."""
    out, upcoming = [None] * len(query_topics), {}
    for t in range(len(query_topics) - 1, -1, -1):
        out[t] = dict(upcoming)
        upcoming[int(query_topics[t])] = t
    return out


def measure(K: int, m: int, top_k: int, cycles: int, seed: int = 0) -> dict:
    """FIFO's miss cost and R_T against both comparators on one cycling trace."""
    import workloads
    from simulator.runner import run
    from theory.opt.model import build_model

    trace = workloads.get("cycling").generate(
        {"topics": m, "steps": cycles * m, "items_per_topic": 2, "dim": 32}, seed)
    fifo = float(run(trace, "fifo", capacity=K, top_k=top_k).summary()["cost"])
    model = build_model(trace, top_k, "hit")
    T = trace.steps
    paper = fifo - _evict_arrival(trace, K, model)
    ours = fifo - _keep_arrival(trace, K, model)
    return dict(K=K, topics=m, top_k=top_k, steps=T, fifo_misses=fifo,
                regret_evict_arrival=paper, regret_keep_arrival=ours,
                paper_formula=(T - K) - T / (K + 1), rate=K / m, trace=trace)
