"""Topic drift: P phases, each with its own active topic set (non-stationarity; "CR → 1").

A fixed pool of ``items_per_topic`` items for each of ``topics`` topics is drawn once (the
published generator; see :mod:`workloads.data.topic_space`).  Phase p = 0 … ``phases`` − 1 covers
steps [p·L, (p + 1)·L), L = ``phase_length``, and its active set is the sliding window

    A_p = {p·s, p·s + 1, …, p·s + active − 1},   s = active − overlap,

so consecutive phases share exactly ``overlap`` topics and the last phase ends at topic
(phases − 1)·s + active − 1, which must be < ``topics``.  At each step a topic a_t is drawn
uniformly from the phase's active set; the query is a fresh noisy member of a_t and the
arriving item is a_t's next pool item in round-robin order (items re-arrive; ``item_keys``).
Every step is scored; an item is relevant iff its topic is the query's.  ``meta`` holds
``active_sets`` (one list per phase) and ``phase_starts``.

Defaults follow the published traces: 30 topics, 5 active per phase, overlap 1, 6 phases of
100 steps, 8 items per topic.

Examples
--------
>>> tr = WORKLOAD.generate({"phases": 3, "phase_length": 20, "dim": 8}, seed=0)
>>> tr.meta["active_sets"]
[[0, 1, 2, 3, 4], [4, 5, 6, 7, 8], [8, 9, 10, 11, 12]]
"""

from __future__ import annotations

import numpy as np

from simulator.engine import memory_estimate as mem
from workloads.data import topic_space as ts
from workloads.base import Workload

PARAMS = {"topics": 30, "active": 5, "overlap": 1, "phases": 6, "phase_length": 100,
          "items_per_topic": 8, "dim": 128, **ts.NOISE_PARAMS}


def active_sets(phases: int, active: int, overlap: int) -> list:
    """The sliding-window active topic set of every phase (module docstring)."""
    shift = active - overlap
    return [list(range(p * shift, p * shift + active)) for p in range(phases)]


def _check(p: dict) -> str | None:
    problem = ts.check_minimums(p, {"topics": 1, "active": 1, "overlap": 0, "phases": 1,
                                    "phase_length": 1, "items_per_topic": 1, "dim": 1})
    if problem:
        return problem
    if p["overlap"] >= p["active"]:
        return (f"parameter 'overlap' must be < active ({p['active']}), got {p['overlap']}; "
                "each phase must bring a new topic")
    needed = (p["phases"] - 1) * (p["active"] - p["overlap"]) + p["active"]
    if needed > p["topics"]:
        return (f"parameter 'topics' must be >= {needed} for {p['phases']} phases of "
                f"{p['active']} active topics with overlap {p['overlap']}, got {p['topics']}")
    return ts.check_noise(p)


def _make(p: dict, seed: int):
    rng = np.random.default_rng(seed)
    item_sigma, query_sigma = ts.noise_levels(p)
    centres = ts.gaussian_centres(rng, p["topics"], p["dim"])
    sets = active_sets(p["phases"], p["active"], p["overlap"])
    window = np.array(sets, dtype=np.int64)
    phase = np.repeat(np.arange(p["phases"]), p["phase_length"])
    topic_seq = window[phase, rng.integers(0, p["active"], size=phase.size)]
    meta = {"workload": "drift", "params": dict(p), "seed": seed, "active_sets": sets,
            "phase_starts": [k * p["phase_length"] for k in range(p["phases"])]}
    return ts.topic_stream_trace(rng, centres, p["items_per_topic"], topic_seq, item_sigma,
                                 query_sigma, meta)


def _footprint(p: dict) -> int:
    """Rough bytes to generate the trace (:mod:`simulator.engine.memory_estimate`)."""
    return mem.semantic_trace(p["phases"] * p["phase_length"],
                              p["topics"] * (p["items_per_topic"] + 1), p["dim"])


WORKLOAD = Workload(
    name="drift",
    summary="phases with sliding active topic sets over a fixed item pool (non-stationary)",
    make=_make, params=PARAMS, check_params=_check, sized=True,
    footprint=_footprint)
