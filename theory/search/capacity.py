"""Scaling K: the worst case searched and grown at each capacity, and its limit as a
function of K.

A space has one capacity, so block repetition cannot scale K; :func:`across_capacity`
runs :func:`~theory.search.worst_case` once per K (each space scales with it: K + 1 pages
or topics by default) and fits the grown families' limits on K by least squares, so "LRU's
ratio tends to K" reads as limits of slope about 1 and intercept about 0.  A K whose
grown score grows has no limit and is left out of the fit (its verdict says so).

>>> scaled = across_capacity("fifo", [2, 3], budget=150)
>>> [row["verdict"] for row in scaled["rows"]], round(scaled["limit_fit"]["slope"], 1)
(['bounded', 'bounded'], 1.0)
"""

from __future__ import annotations

import numpy as np

from simulator.errors import InputError
from theory.kit.user_code import shown


def across_capacity(policy, capacities, **kwargs) -> dict:
    """:func:`~theory.search.worst_case` at each K of ``capacities`` (its other keywords
    as given), with ``grow=True``.

    Returns ``{"rows": [{"capacity", "score", "verdict", "limit", "largest"}, ...],
    "limit_fit": {"slope", "intercept", "capacities"} or None, "results": [SearchResult,
    ...]}``; the fit needs two K whose families are bounded.
    """
    from theory.search.worst_case import worst_case

    if isinstance(capacities, (str, bytes)) or not hasattr(capacities, "__iter__"):
        raise InputError(f"capacities must be a list of capacities, got {shown(capacities)}",
                         "capacities")
    capacities = list(capacities)
    if not capacities or len(set(capacities)) != len(capacities):
        raise InputError(f"capacities must be distinct and at least one, got "
                         f"{shown(capacities)}", "capacities")
    if "capacity" in kwargs or kwargs.get("grow") is False:
        raise InputError("across_capacity sets capacity and grows each worst case; give "
                         "capacities only", "capacity")
    results = [worst_case(policy, capacity=K, **kwargs) for K in capacities]
    rows = [{"capacity": K, "score": r.best["score"], "verdict": r.grown["verdict"],
             "limit": r.grown["limit"], "largest": max(r.grown["scores"])}
            if r.grown is not None else
            {"capacity": K, "score": r.best["score"], "verdict": None, "limit": None,
             "largest": None}
            for K, r in zip(capacities, results)]
    bounded = [row for row in rows if row["limit"] is not None]
    fit = None
    if len(bounded) >= 2:
        slope, intercept = np.polyfit([r["capacity"] for r in bounded],
                                      [r["limit"] for r in bounded], 1)
        fit = {"slope": float(slope), "intercept": float(intercept),
               "capacities": [r["capacity"] for r in bounded]}
    return {"rows": rows, "limit_fit": fit, "results": results}
