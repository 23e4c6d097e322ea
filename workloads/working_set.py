"""Working set: a stationary stream over a fixed pool of topics (paper Table 9).

``topics`` × ``items_per_topic`` pool items (default 15 × 10, the published generator; see
:mod:`workloads.data.topic_space`).  At each of the ``steps`` steps (default 500 queries) a topic
a_t is drawn independently: uniformly, or with P(topic i) ∝ 1 / (i + 1)^zipf when ``zipf > 0``
(the published code's Zipf option uses 1.2).  The query is a fresh noisy member of a_t, and the
arriving item is a_t's next pool item in round-robin order (so items re-arrive; ``item_keys``).
Every step is scored; an item is relevant iff its topic is the query's.  Table 9 sweeps the
capacity K = 5 … 200 over this one trace: the working set is ``topics`` topics, and the whole
pool is ``topics · items_per_topic`` items.

Examples
--------
>>> tr = WORKLOAD.generate({"steps": 40, "dim": 8}, seed=0)
>>> tr.steps, bool((tr.query_topics == tr.item_topics).all()), tr.n_keys <= 150
(40, True, True)
"""

from __future__ import annotations

import numpy as np

from simulator.engine import memory_estimate as mem
from workloads.data import topic_space as ts
from workloads.base import Workload
from workloads.clusters import topic_probabilities

PARAMS = {"steps": 500, "topics": 15, "items_per_topic": 10, "zipf": 0.0, "dim": 128,
          **ts.NOISE_PARAMS}


def _check(p: dict) -> str | None:
    problem = ts.check_minimums(p, {"steps": 1, "topics": 1, "items_per_topic": 1, "dim": 1,
                                    "zipf": 0})
    return problem or ts.check_noise(p)


def _make(p: dict, seed: int):
    rng = np.random.default_rng(seed)
    item_sigma, query_sigma = ts.noise_levels(p)
    centres = ts.gaussian_centres(rng, p["topics"], p["dim"])
    topic_seq = rng.choice(p["topics"], size=p["steps"],
                           p=topic_probabilities(p["topics"], p["zipf"]))
    return ts.topic_stream_trace(rng, centres, p["items_per_topic"], topic_seq, item_sigma,
                                 query_sigma, {"workload": "working_set", "params": dict(p),
                                               "seed": seed})


def _footprint(p: dict) -> int:
    """Rough bytes to generate the trace (:mod:`simulator.engine.memory_estimate`)."""
    return mem.semantic_trace(p["steps"], p["topics"] * (p["items_per_topic"] + 1), p["dim"])


WORKLOAD = Workload(
    name="working_set",
    summary="stationary uniform or Zipf topics over a fixed item pool (paper Table 9)",
    make=_make, params=PARAMS, check_params=_check, sized=True,
    footprint=_footprint)
