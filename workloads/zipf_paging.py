"""Zipf paging requests: the classical independent-reference model, for cross-checks.

Object ``i`` (rank ``i + 1``) is requested with probability ∝ 1 / (i + 1)^alpha,
independently at every step.  With ``sizes=lognormal`` object i has the i-th size of
:mod:`workloads.data.item_sizes`.  ``semcache workload make zipf_paging --out F.oracleGeneral.zst``
writes the requests in chunks, so a trace of 10⁹ requests never sits in memory.

Examples
--------
>>> tr = WORKLOAD.generate({"steps": 1000, "objects": 50}, seed=0)
>>> tr.steps, tr.n_keys <= 50
(1000, True)
"""

from __future__ import annotations

import numpy as np

from simulator.engine import memory_estimate as mem
from simulator.trace import PagingTrace
from workloads.data import item_sizes
from workloads.base import Workload

PARAMS = {"steps": 100000, "objects": 10000, "alpha": 0.9}


def _check(p: dict) -> str | None:
    for name in ("steps", "objects"):
        if p[name] < 1:
            return f"parameter '{name}' must be >= 1, got {p[name]}"
    if p["alpha"] < 0:
        return f"parameter 'alpha' must be >= 0, got {p['alpha']}"
    return None


def _popularity(objects: int, alpha: float) -> np.ndarray:
    with np.errstate(over="ignore"):  # a huge exponent: 1 / inf = 0, the exact limit
        weights = 1.0 / np.arange(1, objects + 1, dtype=np.float64) ** alpha
    return weights / weights.sum()


def zipf_requests(steps: int, objects: int, alpha: float, seed: int) -> np.ndarray:
    """``steps`` ids in ``0 .. objects-1``; id i is drawn with probability ∝ 1/(i+1)^alpha."""
    rng = np.random.default_rng(seed)
    return rng.choice(objects, size=steps, p=_popularity(objects, alpha)).astype(np.int64)


def _stream(p: dict, seed: int, chunk_requests: int = 1 << 20):
    """The requests of :func:`zipf_requests` (and their sizes) in chunks: the same draws
    from the same generator, so the chunks joined are the whole trace."""
    rng = np.random.default_rng(seed)
    popularity = _popularity(p["objects"], p["alpha"])
    by_id = item_sizes.draw(p["objects"], p, seed) if p["sizes"] != "none" else None
    for start in range(0, p["steps"], chunk_requests):
        ids = rng.choice(p["objects"], size=min(chunk_requests, p["steps"] - start),
                         p=popularity)
        yield (ids + 1).astype(np.uint64), None if by_id is None else by_id[ids]


def _make(p: dict, seed: int) -> PagingTrace:
    return PagingTrace.from_requests(
        zipf_requests(p["steps"], p["objects"], p["alpha"], seed),
        meta={"workload": "zipf_paging", "params": dict(p), "seed": seed})


def _footprint(p: dict) -> int:
    """Rough bytes to generate the trace (:mod:`simulator.engine.memory_estimate`)."""
    return mem.paging_trace(p["steps"], p["objects"])


WORKLOAD = Workload(
    name="zipf_paging",
    summary="paging requests with Zipf(alpha) popularity over a fixed set of objects",
    make=_make, params=PARAMS, check_params=_check, sized=True, stream=_stream,
    footprint=_footprint)
