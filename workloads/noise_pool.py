"""Retrieval noise: many confusable topics, a frozen-pool probe and a stream (Tables 10, 11).

``topics`` × ``items_per_topic`` pool items (default 50 × 100) around topic centres whose
pairwise cosine distance is ``separation`` (default 0.30, i.e. centre cosine 0.70; built by
:func:`workloads.data.topic_space.correlated_centres`, exact when topics < dim).  Items carry
intra-topic noise σ = 0.15 and queries σ = 0.05 (the ``paper`` preset of this workload).  The
published code asks for a *minimum* separation that never binds at d = 128, so its centres are
nearly orthogonal (``separation=1`` is close to that); the paper's text and docs/model.md
§3 call for centres at distance 0.30, which is what this workload builds.

The ``queries`` evaluation queries (default 1000) each pick a topic uniformly.  Relevance:
with ``relevant = 0`` (default) an item is relevant iff its topic is the query's
(docs/model.md §1.3); with ``relevant = r ≥ 1`` each query (warm-up ones too) gets r
distinct items of its topic drawn uniformly, as the published code does, listed as the
step's evidence (only items that arrive somewhere in the trace can be listed); the query's
topic is then kept in ``meta["query_topic"]`` and ``query_topics`` is −1.

``mode = stream`` (Table 11).  Steps 0 … N − 1 (N = topics·items_per_topic) stream the whole
pool in a random order, one item per step, each step's query a fresh noisy member of the
arriving item's topic; these warm-up steps are unscored but weigh 1, so admission policies
get their feedback.  Then come the ``queries`` scored evaluation steps.

``mode = frozen`` (Table 10's probe).  Steps 0 … P − 1 (P = ``pool``) are an unscored prefix
that delivers the frozen pool: P distinct pool items (drawn uniformly without replacement; with
``relevant ≥ 1`` the published rule: every item some evaluation query lists, plus uniform
distractors, or a uniform subset of those items when P is smaller), each step's query aimed at
the arriving item's topic with weight 0 (a query that needs no memory: it costs nothing and
opens no regret gate).  Then come the ``queries`` scored evaluation steps.  Run it with
capacity K ≥ P (Table 10 sets K = P) and an always-admit policy, and the cache after the
prefix is exactly the pool.

In both modes every evaluation step's arrival re-streams the key of the last item the prefix
delivered, so nothing new can enter: for an always-admit policy that item is cached (nothing
was admitted after it), the re-arrival changes nothing, and the scored steps probe a frozen
cache.  A gated policy that declined that item may admit it once, and nothing else.

Examples
--------
>>> p = {"topics": 4, "items_per_topic": 5, "queries": 6, "mode": "frozen", "pool": 3, "dim": 16}
>>> tr = WORKLOAD.generate(p, seed=0)
>>> tr.steps, tr.n_keys, tr.scored.tolist()[2:4], tr.weights.tolist()[:3]
(9, 3, [False, True], [0.0, 0.0, 0.0])
"""

from __future__ import annotations

import numpy as np

from simulator.engine import memory_estimate as mem
from simulator.trace import Trace
from workloads.data import topic_space as ts
from workloads.base import Workload

MODES = ("stream", "frozen")
PARAMS = {"mode": "stream", "topics": 50, "items_per_topic": 100, "separation": 0.30,
          "queries": 1000, "pool": 50, "relevant": 0, "dim": 128, **ts.NOISE_PARAMS}


def _check(p: dict) -> str | None:
    problem = ts.check_minimums(p, {"topics": 1, "items_per_topic": 1, "queries": 1,
                                    "pool": 1, "relevant": 0, "dim": 2})
    if problem:
        return problem
    if p["mode"] not in MODES:
        return f"parameter 'mode' must be one of {', '.join(MODES)}, got {p['mode']!r}"
    if not 0 < p["separation"] <= 1:
        return f"parameter 'separation' must be in (0, 1], got {p['separation']}"
    if p["pool"] > p["topics"] * p["items_per_topic"]:
        return (f"parameter 'pool' must be <= topics · items_per_topic = "
                f"{p['topics'] * p['items_per_topic']}, got {p['pool']}")
    if p["relevant"] > p["items_per_topic"]:
        return (f"parameter 'relevant' must be <= items_per_topic ({p['items_per_topic']}), "
                f"got {p['relevant']}")
    return ts.check_noise(p)


def _relevant_sets(rng, topic, per_topic, r):
    """r distinct pool keys of each query's topic, uniformly ([n, r])."""
    picks = np.argsort(rng.random((topic.size, per_topic)), axis=1)[:, :r]
    return topic[:, None] * per_topic + picks


def _frozen_pool(rng, n_items, size, listed):
    """The published pool rule: every listed item plus uniform distractors, or a subset."""
    if listed is None:
        return rng.choice(n_items, size=size, replace=False)
    listed = np.unique(listed)
    if size < listed.size:
        return rng.choice(listed, size=size, replace=False)
    others = np.setdiff1d(np.arange(n_items), listed)
    chosen = np.concatenate([listed, rng.choice(others, size=size - listed.size, replace=False)])
    return rng.permutation(chosen)


def _make(p: dict, seed: int) -> Trace:
    rng = np.random.default_rng(seed)
    item_sigma, query_sigma = ts.noise_levels(p, paper_item_noise=0.15)
    per, r = p["items_per_topic"], p["relevant"]
    centres = ts.correlated_centres(rng, p["topics"], p["dim"], 1.0 - p["separation"])
    pool_vecs, pool_topic = ts.member_pool(rng, centres, per, item_sigma)
    n_items = pool_topic.size
    eval_topic = rng.integers(0, p["topics"], size=p["queries"])
    eval_q = ts.noisy_members(rng, centres, eval_topic, query_sigma)
    eval_rel = _relevant_sets(rng, eval_topic, per, r) if r else None
    if p["mode"] == "stream":
        delivered = rng.permutation(n_items)
        prefix_weight = 1.0
    else:
        delivered = _frozen_pool(rng, n_items, p["pool"], eval_rel)
        prefix_weight = 0.0
    prefix_topic = pool_topic[delivered]
    prefix_q = ts.noisy_members(rng, centres, prefix_topic, query_sigma)
    prefix_rel = _relevant_sets(rng, prefix_topic, per, r) if r else None
    n_pre, n_eval = delivered.size, p["queries"]
    keys = np.concatenate([delivered, np.full(n_eval, delivered[-1])])
    q_topic = np.concatenate([prefix_topic, eval_topic])
    meta = {"workload": "noise_pool", "params": dict(p), "seed": seed,
            "item_noise": item_sigma, "query_noise": query_sigma,
            "centre_cosine": ts.pairwise_cosine_summary(centres), "prefix_steps": int(n_pre)}
    arrays = dict(queries=np.concatenate([prefix_q, eval_q]).astype(np.float32),
                  items=pool_vecs[keys].astype(np.float32), item_topics=pool_topic[keys],
                  item_keys=keys, query_topics=q_topic,
                  weights=np.r_[np.full(n_pre, prefix_weight), np.ones(n_eval)],
                  scored=np.r_[np.zeros(n_pre, bool), np.ones(n_eval, bool)])
    if r:
        rel = np.concatenate([prefix_rel, eval_rel])
        present = np.isin(rel, delivered)
        arrays.update(evidence_indptr=np.r_[0, np.cumsum(present.sum(axis=1))],
                      evidence_indices=rel[present], query_topics=np.full(q_topic.size, -1))
        meta["query_topic"] = q_topic
    return Trace.from_arrays(**arrays, meta=meta)


def _footprint(p: dict) -> int:
    """Rough bytes to generate the trace (:mod:`simulator.engine.memory_estimate`)."""
    return (mem.semantic_trace(p["queries"] + p["topics"] * p["items_per_topic"],
                               p["topics"] * (p["items_per_topic"] + 1), p["dim"])
            + 8 * p["queries"] * p["relevant"])


WORKLOAD = Workload(
    name="noise_pool",
    summary="confusable topics (centre cosine distance 0.30): frozen-pool probe or stream "
            "(paper Tables 10, 11)",
    make=_make, params=PARAMS, check_params=_check, sized=True,
    footprint=_footprint)
