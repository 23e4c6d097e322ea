"""Stationary utilities: items with latent Bernoulli relevance, for regret experiments.

A pool of ``items`` items (default 50); item i has a latent utility p_i, drawn once
uniformly from [``p_min``, ``p_max``] (default [0, 0.3]) and stored, indexed by item key, in
``meta["utilities"]``.  Relevance model: at every step t, each pool item i is relevant to the
step's query independently with probability p_i (U_{t,i} < p_i for i.i.d. uniform U), whether
or not it is cached or has arrived yet; the step's relevant set is its evidence (docs/model.md §6
CSR).  So P(item i relevant at step t) = p_i exactly, independently across items and steps,
and a cache S whose items are all retrieved (top_k ≥ capacity) hits with probability
1 − Π_{i∈S} (1 − p_i); the best fixed cache is the K items of highest p_i.

Vectors carry no information about utility: items and queries are independent normalised
Gaussian vectors in ``dim`` dimensions, and no step has a topic.  Arrivals come in blocks of
``items`` steps: block 0 streams items 0, 1, …, N − 1 in key order (the p_i are i.i.d., so the
order reveals nothing), every later block a fresh random permutation, so each item re-arrives
once per block (``item_keys``).  ``steps`` must be at least ``items``.  Every step is scored.

Examples
--------
>>> tr = WORKLOAD.generate({"items": 4, "steps": 6, "dim": 8}, seed=0)
>>> tr.item_keys.tolist()[:4], len(tr.meta["utilities"]), tr.has_evidence
([0, 1, 2, 3], 4, True)
"""

from __future__ import annotations

import numpy as np

from simulator.engine import memory_estimate as mem
from simulator.trace import Trace
from workloads.data import topic_space as ts
from workloads.base import Workload

PARAMS = {"items": 50, "steps": 2000, "p_min": 0.0, "p_max": 0.3, "dim": 128}


def _check(p: dict) -> str | None:
    problem = ts.check_minimums(p, {"items": 1, "steps": 1, "dim": 1, "p_min": 0.0})
    if problem:
        return problem
    if not p["p_min"] <= p["p_max"] <= 1:
        return f"parameter 'p_max' must be in [p_min, 1] = [{p['p_min']}, 1], got {p['p_max']}"
    if p["steps"] < p["items"]:
        return (f"parameter 'steps' must be >= items ({p['items']}) so that every item "
                f"arrives, got {p['steps']}")
    return None


def _make(p: dict, seed: int) -> Trace:
    rng = np.random.default_rng(seed)
    n, steps = p["items"], p["steps"]
    utility = rng.uniform(p["p_min"], p["p_max"], size=n)
    vectors = ts.unit_rows(rng.standard_normal((n, p["dim"])))
    blocks = -(-steps // n)
    keys = np.concatenate([np.arange(n)] + [rng.permutation(n) for _ in range(blocks - 1)])
    keys = keys[:steps]
    queries = ts.unit_rows(rng.standard_normal((steps, p["dim"])))
    relevant = rng.random((steps, n)) < utility
    rows, cols = np.nonzero(relevant)
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=steps))]
    meta = {"workload": "stationary", "params": dict(p), "seed": seed,
            "utilities": utility.tolist()}
    return Trace.from_arrays(queries=queries.astype(np.float32),
                             items=vectors[keys].astype(np.float32), item_keys=keys,
                             evidence_indptr=indptr, evidence_indices=cols, meta=meta)


def _footprint(p: dict) -> int:
    """Rough bytes to generate the trace (:mod:`simulator.engine.memory_estimate`)."""
    # relevance is drawn per step and item (float64 draws, a boolean mask)
    return (mem.semantic_trace(p["steps"], p["items"], p["dim"])
            + 9 * p["steps"] * p["items"])


WORKLOAD = Workload(
    name="stationary",
    summary="latent Bernoulli item utilities p_i, relevance drawn per step as evidence "
            "(regret experiments)",
    make=_make, params=PARAMS, check_params=_check, sized=True,
    footprint=_footprint)
