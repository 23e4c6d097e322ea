"""Seeded sizes for the synthetic workloads: the parameters ``sizes``, ``size_median`` and
``size_sigma`` that every synthetic workload takes (docs/model.md §1.8).

``sizes=none`` (the default) leaves every size 1 and the trace exactly as without these
parameters (its ``meta["params"]`` does not list them either).  ``sizes=lognormal``
gives each item key (semantic) or object id (paging) the size
``max(1, round(size_median · exp(size_sigma · z)))`` with z standard normal, drawn from a
stream of its own (seeded by the workload's seed), so the requests, vectors and
topics are the same as unsized: only the sizes are added.  Key or id i always gets the
i-th draw, so a prefix of a trace has the sizes of the whole.  The median is in the
trace's size unit (bytes, tokens); sigma = 1 spreads the middle half over about a factor
of 4 (e^±0.67).  Sizes are clipped to at most :data:`MAX_SIZE` (1 TiB).

Examples
--------
>>> p = {"sizes": "lognormal", "size_median": 256, "size_sigma": 1.0}
>>> draw(5, p, seed=0).tolist()
[666, 184, 165, 543, 83]
"""

from __future__ import annotations

import dataclasses

import numpy as np

from simulator.trace import PagingTrace

PARAMS = {"sizes": "none", "size_median": 256, "size_sigma": 1.0}
KINDS = ("none", "lognormal")
_STREAM = 0x51CE  # the sizes' own random stream, beside the workload's
# The largest size drawn (1 TiB): a lognormal tail with size_sigma up to 10 would pass
# int64, and sums of sizes over a trace must stay within it.
MAX_SIZE = 2**40


def check(p: dict) -> str | None:
    """A problem with the size parameters, or None."""
    if p["sizes"] not in KINDS:
        return f"parameter 'sizes' must be one of {', '.join(KINDS)}, got {p['sizes']!r}"
    if not 1 <= p["size_median"] <= MAX_SIZE:
        return f"parameter 'size_median' must be in [1, 2**40], got {p['size_median']}"
    if not 0 <= p["size_sigma"] <= 10:
        return f"parameter 'size_sigma' must be in [0, 10], got {p['size_sigma']}"
    return None


def draw(n: int, p: dict, seed: int) -> np.ndarray:
    """Sizes (int64 in [1, MAX_SIZE]) of keys or ids ``0 .. n-1``."""
    z = np.random.default_rng([seed, _STREAM]).normal(size=n)
    with np.errstate(over="ignore"):  # exp overflows to inf, clipped below
        raw = np.rint(p["size_median"] * np.exp(p["size_sigma"] * z))
    return np.clip(raw, 1, MAX_SIZE).astype(np.int64)


def with_sizes(trace, p: dict, seed: int):
    """``trace`` with the sizes ``p`` asks for (itself when ``sizes=none``)."""
    if p["sizes"] == "none":
        return trace
    meta = dict(trace.meta, params=dict(trace.meta.get("params", {}),
                                        **{k: p[k] for k in PARAMS}))
    if isinstance(trace, PagingTrace):
        ids = trace.object_ids.astype(np.int64)  # a workload's ids are small and >= 0
        by_id = draw(int(ids.max()) + 1, p, seed)
        return dataclasses.replace(trace, request_sizes=by_id[ids][trace.requests], meta=meta)
    by_key = draw(int(trace.item_keys.max()) + 1, p, seed)
    return dataclasses.replace(trace, item_sizes=by_key[trace.item_keys], meta=meta)
