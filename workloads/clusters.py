"""Topic clusters: queries and arriving items scattered around random topic centres.

Each topic has a centre, a normalised Gaussian vector.  At step t a query topic a_t and an
item topic b_t are drawn independently from the topic distribution (uniform, or Zipf over
topic ranks when ``zipf > 0``); the query is ``centre[a_t]`` plus N(0, query_noise²) per
coordinate, the item ``centre[b_t]`` plus N(0, item_noise²), both re-normalised.  Every
step is scored and weighs 1.

Examples
--------
>>> tr = WORKLOAD.generate({"steps": 50, "topics": 4, "dim": 16}, seed=0)
>>> tr.steps, tr.dim, int(tr.item_topics.max()) < 4
(50, 16, True)
"""

from __future__ import annotations

import numpy as np

from simulator.engine import memory_estimate as mem
from simulator.trace import Trace
from workloads.base import Workload

PARAMS = {"steps": 2000, "topics": 10, "dim": 128, "item_noise": 0.1, "query_noise": 0.05,
          "zipf": 0.0}


def topic_probabilities(topics: int, zipf: float) -> np.ndarray:
    """P(topic i) ∝ 1 / (i + 1)^zipf; ``zipf = 0`` is uniform."""
    with np.errstate(over="ignore"):  # a huge exponent: 1 / inf = 0, the exact limit
        weights = 1.0 / np.arange(1, topics + 1, dtype=np.float64) ** zipf
    return weights / weights.sum()


def _check(p: dict) -> str | None:
    for name in ("steps", "topics", "dim"):
        if p[name] < 1:
            return f"parameter '{name}' must be >= 1, got {p[name]}"
    for name in ("item_noise", "query_noise", "zipf"):
        if p[name] < 0:
            return f"parameter '{name}' must be >= 0, got {p[name]}"
    return None


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _make(p: dict, seed: int) -> Trace:
    rng = np.random.default_rng(seed)
    steps, topics, dim = p["steps"], p["topics"], p["dim"]
    centres = _unit(rng.standard_normal((topics, dim)))
    prob = topic_probabilities(topics, p["zipf"])
    q_topic = rng.choice(topics, size=steps, p=prob)
    i_topic = rng.choice(topics, size=steps, p=prob)
    queries = _unit(centres[q_topic] + p["query_noise"] * rng.standard_normal((steps, dim)))
    items = _unit(centres[i_topic] + p["item_noise"] * rng.standard_normal((steps, dim)))
    return Trace.from_arrays(queries=queries.astype(np.float32), items=items.astype(np.float32),
                             query_topics=q_topic.astype(np.int64),
                             item_topics=i_topic.astype(np.int64),
                             meta={"workload": "clusters", "params": dict(p), "seed": seed})


def _footprint(p: dict) -> int:
    """Rough bytes to generate the trace (:mod:`simulator.engine.memory_estimate`)."""
    return mem.semantic_trace(p["steps"], p["steps"] + p["topics"], p["dim"])


WORKLOAD = Workload(
    name="clusters",
    summary="random topic centres; noisy queries and items, topics uniform or Zipf",
    make=_make, params=PARAMS, check_params=_check, sized=True,
    footprint=_footprint)
