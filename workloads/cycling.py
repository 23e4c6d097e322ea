"""Cycling topics: m topics in strict round-robin, the thrashing workload of paper §6.5.1.

A fixed pool of ``items_per_topic`` items per topic is drawn once (the published generator;
see :mod:`workloads.data.topic_space` for centres, noise and presets).  Time is cut into *dwells*
of ``dwell`` steps; the current topic at step t is a_t = ⌊t / dwell⌋ mod m, where m =
``topics``.  With the default ``dwell = 1`` the topic changes every step: 0, 1, …, m − 1, 0, …
(the paper's strict round-robin, Table 8).  At step t:

- the query is a fresh noisy member of topic a_t (centre + N(0, σ_query²), re-normalised),
  made before this step's item arrives;
- the arriving item is topic a_t's next pool item in round-robin order: the n-th arrival of a
  topic is its pool item n mod ``items_per_topic``, with one key per pool item, so from the
  second pass on an arriving item may already be cached (``item_keys``).

Every step is scored (weight 1); an item is relevant iff its topic is the query's.  With
``dwell = 1`` and capacity K < m, FIFO holds items of the K topics before a_t only, never
a_t's, so its hit rate is exactly 0 by construction; with m ≤ K, a_t's latest item is always
cached after the first cycle, and FIFO hits whenever retrieval ranks it in the top k (every
step, with the default noise: own-topic cosine ≈ 0.58 against ≈ 0 ± 0.09 for the
others).  Table 8 uses K = 10, m ∈ {10, 15, 20, 30, 50} and 10 cycles (``steps = 10·m``;
the default 200 is 10 cycles of the default 20 topics).

Examples
--------
>>> tr = WORKLOAD.generate({"topics": 3, "items_per_topic": 2, "steps": 7, "dim": 8}, seed=0)
>>> tr.query_topics.tolist(), tr.item_keys.tolist()
([0, 1, 2, 0, 1, 2, 0], [0, 1, 2, 3, 4, 5, 0])
"""

from __future__ import annotations

import numpy as np

from simulator.engine import memory_estimate as mem
from workloads.data import topic_space as ts
from workloads.base import Workload

PARAMS = {"steps": 200, "topics": 20, "items_per_topic": 5, "dwell": 1, "dim": 128,
          **ts.NOISE_PARAMS}


def _check(p: dict) -> str | None:
    return (ts.check_minimums(p, {"steps": 1, "topics": 1, "items_per_topic": 1, "dwell": 1,
                                  "dim": 1})
            or ts.check_noise(p))


def _make(p: dict, seed: int):
    rng = np.random.default_rng(seed)
    item_sigma, query_sigma = ts.noise_levels(p)
    centres = ts.gaussian_centres(rng, p["topics"], p["dim"])
    topic_seq = (np.arange(p["steps"]) // p["dwell"]) % p["topics"]
    return ts.topic_stream_trace(rng, centres, p["items_per_topic"], topic_seq, item_sigma,
                                 query_sigma, {"workload": "cycling", "params": dict(p),
                                               "seed": seed})


def _footprint(p: dict) -> int:
    """Rough bytes to generate the trace (:mod:`simulator.engine.memory_estimate`)."""
    return mem.semantic_trace(p["steps"], p["topics"] * (p["items_per_topic"] + 1), p["dim"])


WORKLOAD = Workload(
    name="cycling",
    summary="m topics in strict round-robin over a fixed item pool (paper Table 8)",
    make=_make, params=PARAMS, check_params=_check, sized=True,
    footprint=_footprint)
