"""Shared pieces of the topic-space workloads: centres, noisy members, pools and statistics.

The SOLAR authors' published generator (``synthetic_workloads/primitives.py``) draws each topic
centre as a normalised Gaussian vector in d = 128, and each item or query as the centre plus
N(0, σ²) noise per coordinate, re-normalised, with σ = 0.1 for items and 0.05 for queries.  Its
rejection step (pairwise centre cosine below 1 − ``min_sep``) never binds at d = 128: independent
unit vectors there have cosines of standard deviation 1/√128 ≈ 0.09.  So the centres here are
plain normalised Gaussians (:func:`gaussian_centres`), with no rejection.

What those noise levels mean at d = 128: ‖noise‖² ≈ dσ², so two items of one topic have cosine
≈ 1 / (1 + dσ²) = 1 / 2.28 ≈ 0.44, not the ≈ 0.9 the published docs claim, and a query and an
item of its topic ≈ 1 / √((1 + dσ_item²)(1 + dσ_query²)) ≈ 0.58.  Two presets name the choices:

``paper`` (default)
    the published σ's: items 0.1 (0.15 in ``noise_pool``), queries 0.05, whatever ``dim`` is.
``compact``
    σ_item = √(1 / (9d)) and σ_query = σ_item / 2, so same-topic item cosines are ≈ 0.9 and
    query-to-own-item cosines ≈ 0.94 in any dimension (σ_item ≈ 0.029 at d = 128).

``item_noise`` / ``query_noise`` override the preset's σ when given.
:func:`trace_statistics` measures what a generated trace actually has.

Examples
--------
>>> rng = np.random.default_rng(0)
>>> c = correlated_centres(rng, topics=4, dim=16, cosine=0.7)
>>> np.round(c @ c.T, 6)[0]
array([1. , 0.7, 0.7, 0.7])
>>> round_robin_keys(np.array([2, 2, 0, 2, 2]), per_topic=3)
array([6, 7, 0, 8, 6])
"""

from __future__ import annotations

import math

import numpy as np

from simulator.trace import Trace

PRESETS = ("paper", "compact")
# Merged into the PARAMS of every topic-space workload.
NOISE_PARAMS = {"preset": "paper", "item_noise": None, "query_noise": None}
# Pairs per topic for the minimum same-topic cosine are capped (a d × n² Gram per topic).
MAX_ITEMS_PER_TOPIC_FOR_MIN = 2000


def check_minimums(p: dict, minimums: dict) -> str | None:
    """A sentence naming the first parameter of ``p`` below its minimum, or ``None``."""
    for name, low in minimums.items():
        if p[name] < low:
            return f"parameter '{name}' must be >= {low}, got {p[name]}"
    return None


def check_noise(p: dict) -> str | None:
    """The problem with the preset / noise parameters of ``p``, or ``None``."""
    if p["preset"] not in PRESETS:
        return f"parameter 'preset' must be one of {', '.join(PRESETS)}, got {p['preset']!r}"
    for name in ("item_noise", "query_noise"):
        if p[name] is not None and p[name] < 0:
            return f"parameter '{name}' must be >= 0 (or none for the preset's), got {p[name]}"
    return None


def noise_levels(p: dict, paper_item_noise: float = 0.1,
                 paper_query_noise: float = 0.05) -> tuple[float, float]:
    """(σ_item, σ_query) of ``p``: its explicit values, else its preset's (module docstring)."""
    if p["preset"] == "compact":
        item = math.sqrt(1.0 / (9.0 * p["dim"]))
        query = item / 2.0
    else:
        item, query = paper_item_noise, paper_query_noise
    if p["item_noise"] is not None:
        item = float(p["item_noise"])
    if p["query_noise"] is not None:
        query = float(p["query_noise"])
    return item, query


def unit_rows(x: np.ndarray) -> np.ndarray:
    """Each row of ``x`` divided by its L2 norm."""
    return x / np.linalg.norm(x, axis=1, keepdims=True)


# Generators add in numpy's own order (pairwise sums along a row) and never call BLAS or
# LAPACK, whose summation order depends on the CPU: a trace made from a seed is then the
# same on every machine.  (Replacing LAPACK's QR by orthonormal_rows changed none of the
# 4.6 million float32 coordinates of noise_pool's traces, seeds 0-2, on the machine where
# it was made: the cast to float32 hides such last-bit differences almost always.)
def row_dots(x: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The dot product of each row of ``x`` with the vector ``v``."""
    return (x * v).sum(axis=-1)


def orthonormal_rows(a: np.ndarray) -> np.ndarray:
    """The rows of ``a`` made orthonormal in order (modified Gram–Schmidt): the Q of a QR
    decomposition of ``a.T`` whose R has a positive diagonal."""
    q = np.array(a, dtype=np.float64)
    for j in range(q.shape[0]):
        for i in range(j):
            q[j] -= row_dots(q[i], q[j]) * q[i]
        q[j] /= np.sqrt(row_dots(q[j], q[j]))
    return q


def gaussian_centres(rng: np.random.Generator, topics: int, dim: int) -> np.ndarray:
    """``topics`` independent normalised Gaussian vectors (the published generator's centres)."""
    return unit_rows(rng.standard_normal((topics, dim)))


def correlated_centres(rng: np.random.Generator, topics: int, dim: int,
                       cosine: float) -> np.ndarray:
    """Unit centres whose pairwise cosine is ``cosine`` (≥ 0): c_a = √ρ·u + √(1 − ρ)·v_a.

    u is one shared random direction and the v_a are unit vectors orthogonal to u.  When
    ``topics < dim`` the v_a are also orthonormal to each other (a QR of a Gaussian matrix), so
    every pairwise cosine is exactly ρ; otherwise they are independent Gaussian directions in
    u's complement and the cosines are ρ + (1 − ρ)·O(1/√d), ρ on average.
    """
    if topics < dim:
        # the columns of a Gaussian matrix, orthonormalised: a uniformly random frame
        frame = orthonormal_rows(rng.standard_normal((dim, topics + 1)).T)
        shared, parts = frame[0], frame[1:]
    else:
        shared = unit_rows(rng.standard_normal((1, dim)))[0]
        parts = rng.standard_normal((topics, dim))
        parts = unit_rows(parts - np.outer(row_dots(parts, shared), shared))
    return unit_rows(math.sqrt(cosine) * shared + math.sqrt(1.0 - cosine) * parts)


def noisy_members(rng: np.random.Generator, centres: np.ndarray, topic_of_row: np.ndarray,
                  sigma: float) -> np.ndarray:
    """One unit vector per entry of ``topic_of_row``: its centre + N(0, σ²), re-normalised."""
    noise = rng.standard_normal((topic_of_row.size, centres.shape[1]))
    return unit_rows(centres[topic_of_row] + sigma * noise)


def member_pool(rng: np.random.Generator, centres: np.ndarray, per_topic: int,
                sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """A fixed pool of ``per_topic`` items per topic, topic-major: item key = topic·per_topic + j.

    Returns the vectors ``[topics·per_topic, d]`` and each item's topic.
    """
    topic = np.repeat(np.arange(centres.shape[0], dtype=np.int64), per_topic)
    return noisy_members(rng, centres, topic, sigma), topic


def round_robin_keys(topic_seq: np.ndarray, per_topic: int) -> np.ndarray:
    """Pool keys streamed for ``topic_seq``: the n-th arrival of topic a is item n mod per_topic.

    This is the published generator's per-topic round-robin pointer; keys are those of
    :func:`member_pool`.
    """
    topic_seq = np.asarray(topic_seq, dtype=np.int64)
    order = np.argsort(topic_seq, kind="stable")
    sorted_topics = topic_seq[order]
    starts = np.flatnonzero(np.r_[True, sorted_topics[1:] != sorted_topics[:-1]])
    run_start = np.repeat(starts, np.diff(np.r_[starts, topic_seq.size]))
    occurrence = np.empty_like(topic_seq)
    occurrence[order] = np.arange(topic_seq.size) - run_start
    return topic_seq * per_topic + occurrence % per_topic


def topic_stream_trace(rng: np.random.Generator, centres: np.ndarray, per_topic: int,
                       topic_seq: np.ndarray, item_sigma: float, query_sigma: float,
                       meta: dict) -> Trace:
    """The published generator's stream over a fixed pool: one query and one arrival per step.

    A pool of ``per_topic`` items per topic is drawn first (:func:`member_pool`).  At step t
    the query is a fresh noisy member of topic ``topic_seq[t]`` and the arriving item is that
    topic's next pool item in round-robin order (:func:`round_robin_keys`); a pool item that
    arrives again keeps its key, so it may already be cached.  Every step is scored, weight 1;
    an item is relevant iff its topic is the query's.  ``meta`` gains the σ's used and the
    centres' pairwise cosines.
    """
    topic_seq = np.asarray(topic_seq, dtype=np.int64)
    pool, pool_topic = member_pool(rng, centres, per_topic, item_sigma)
    keys = round_robin_keys(topic_seq, per_topic)
    queries = noisy_members(rng, centres, topic_seq, query_sigma)
    meta = dict(meta, item_noise=item_sigma, query_noise=query_sigma,
                centre_cosine=pairwise_cosine_summary(centres))
    return Trace.from_arrays(queries=queries.astype(np.float32),
                             items=pool[keys].astype(np.float32), query_topics=topic_seq,
                             item_topics=pool_topic[keys], item_keys=keys, meta=meta)


def pairwise_cosine_summary(vectors: np.ndarray, exact: bool = True) -> dict:
    """Mean, min and max cosine over distinct pairs of rows (unit vectors), as floats.

    ``exact`` sums in numpy's own order (the same on every machine; what a generator
    records in a trace's meta); otherwise BLAS computes the Gram matrix, faster for the
    thousands of rows of a rounded report.
    """
    x = np.asarray(vectors, dtype=np.float64)
    if x.shape[0] < 2:
        return {"mean": None, "min": None, "max": None}
    if exact:
        upper = np.concatenate([row_dots(x[i + 1:], x[i]) for i in range(x.shape[0] - 1)])
    else:
        upper = (x @ x.T)[np.triu_indices(x.shape[0], 1)]
    return {"mean": float(upper.mean()), "min": float(upper.min()), "max": float(upper.max())}


def _round(value):
    return None if value is None else round(float(value), 6) + 0.0  # + 0.0: never -0.0


def trace_statistics(trace) -> dict:
    """Measured statistics of a trace (what ``semcache workload show`` prints).

    Over the *distinct* items (first arrival of each key) that have a topic:

    - ``same_topic_item_cosine_mean`` / ``_min``: cosine of two items of one topic (the minimum
      over at most the first 2000 items of each topic);
    - ``cross_topic_item_cosine_mean``: cosine of two items of different topics;
    - ``centre_cosine_estimate``: cross-topic mean / same-topic mean, a moment estimate of the
      centre cosine for isotropic noise (E[x·y] ∝ c_a·c_b for items of topics a, b);
    - ``centre_cosine_mean`` / ``_max``: the generator's own centres, and ``item_noise`` /
      ``query_noise`` the σ's it used, when it recorded them;
    - ``query_own_topic_item_cosine_mean`` / ``query_other_topic_item_cosine_mean``: cosine of a
      query to the items of its own topic / of other topics, averaged over queries.

    A query's topic is ``trace.query_topics``, or ``trace.meta["query_topic"]`` when the
    workload scores by evidence and keeps the topic only as a latent label.  Statistics that
    a trace cannot support (no topics, one item per topic) are ``None``.  A paging trace gets
    ``steps`` and ``objects`` only.
    """
    if not hasattr(trace, "queries"):
        return {"mode": "paging", "steps": trace.steps, "objects": trace.n_keys}
    _, first = np.unique(trace.item_keys, return_index=True)
    items = trace.items[first].astype(np.float64)
    topic = trace.item_topics[first]
    out = {"mode": "semantic", "steps": trace.steps, "scored_steps": int(trace.scored.sum()),
           "dim": trace.dim, "items": int(first.size),
           "topics": int(np.unique(topic[topic >= 0]).size)}
    if trace.has_evidence:
        out["evidence_per_step_mean"] = _round(np.diff(trace.evidence_indptr).mean())
    has = topic >= 0
    x, t = items[has], topic[has]
    labels, t = np.unique(t, return_inverse=True) if t.size else (np.zeros(0, np.int64), t)
    n = np.bincount(t, minlength=labels.size).astype(np.float64)
    order = np.argsort(t, kind="stable")
    sums = (np.add.reduceat(x[order], np.r_[0, np.cumsum(n)[:-1]].astype(np.int64))
            if t.size else np.zeros((0, trace.dim)))
    sq = (sums * sums).sum(axis=1)
    norms2 = np.bincount(t, weights=(x * x).sum(axis=1), minlength=labels.size)
    same_pairs = (n * (n - 1)).sum()
    same = (sq - norms2).sum() / same_pairs if same_pairs else None
    total = sums.sum(axis=0)
    cross_pairs = n.sum() ** 2 - (n * n).sum()
    cross = (row_dots(total, total) - sq.sum()) / cross_pairs if cross_pairs else None
    mins = []
    for a in range(labels.size):
        members = x[t == a][:MAX_ITEMS_PER_TOPIC_FOR_MIN]
        if members.shape[0] >= 2:
            mins.append(pairwise_cosine_summary(members, exact=False)["min"])
    out.update(same_topic_item_cosine_mean=_round(same),
               same_topic_item_cosine_min=_round(min(mins)) if mins else None,
               cross_topic_item_cosine_mean=_round(cross),
               centre_cosine_estimate=_round(cross / same) if same and cross is not None
               else None)
    if "item_noise" in trace.meta:
        out.update(item_noise=_round(trace.meta["item_noise"]),
                   query_noise=_round(trace.meta["query_noise"]))
    centres = trace.meta.get("centre_cosine") or {}
    out.update(centre_cosine_mean=_round(centres.get("mean")),
               centre_cosine_max=_round(centres.get("max")))
    own = other = None
    q_topic = np.asarray(trace.meta.get("query_topic", trace.query_topics))
    where = np.minimum(np.searchsorted(labels, q_topic), max(labels.size - 1, 0))
    known = (q_topic >= 0) & (labels[where] == q_topic) if labels.size else q_topic < -1
    if known.any():
        a = where[known]
        q = trace.queries[known].astype(np.float64)
        dot_own = (q * sums[a]).sum(axis=1)
        own = float((dot_own / n[a]).mean())
        rest = n.sum() - n[a]
        if (rest > 0).all():
            other = float(((row_dots(q, total) - dot_own) / rest).mean())
    out.update(query_own_topic_item_cosine_mean=_round(own),
               query_other_topic_item_cosine_mean=_round(other))
    return out

