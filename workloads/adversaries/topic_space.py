"""The vectors of the semantic built-in adversaries: orthonormal topic centres, one noise
draw per step made in advance (so the random stream does not depend on the target's
choices) and, for junk, centres orthogonal to the useful ones sharing one direction.

Vectors are the centre plus N(0, σ²) noise (:mod:`workloads.data.topic_space` presets),
normalised exactly as a trace loader does, so loading the trace is a no-op.
"""

from __future__ import annotations

import math

import numpy as np

from simulator.engine.kernels import normalize_rows
from workloads.data import topic_space as ts

JUNK_COSINE = 0.5


def member(centre: np.ndarray, sigma: float, noise: np.ndarray) -> np.ndarray:
    """centre + σ·noise, normalised."""
    return normalize_rows((centre + sigma * noise)[None, :].astype(np.float32))[0]


def junk_centres(rng: np.random.Generator, useful: np.ndarray, n: int) -> np.ndarray:
    """``n`` unit centres orthogonal to ``useful``, sharing one direction (cosine ≈ 0.5)."""
    def out_of(basis, x):  # x with its components along the orthonormal rows of basis removed
        coefficients = [ts.row_dots(x, b) for b in basis]  # all from x, as x @ basis.T
        for c, b in zip(coefficients, basis):
            x = x - np.outer(c, b)
        return x

    axis = ts.unit_rows(out_of(useful, rng.standard_normal((1, useful.shape[1]))))
    parts = ts.unit_rows(out_of(np.vstack([useful, axis]), rng.standard_normal((n, axis.size))))
    return ts.unit_rows(math.sqrt(JUNK_COSINE) * axis + math.sqrt(1 - JUNK_COSINE) * parts)


def draws(params: dict, rng: np.random.Generator, n_useful: int, junk: bool) -> dict:
    """The centres and the per-step noise of one build, drawn in the order the built-in
    adversaries have always drawn them, and the facts for the trace's meta."""
    T, d = params["steps"], params["dim"]
    item_sigma, query_sigma = ts.noise_levels(params)
    useful = ts.correlated_centres(rng, n_useful, d, 0.0)  # orthonormal: n_useful < d
    junk_c = junk_centres(rng, useful, T) if junk else None
    noise_q, noise_x = rng.standard_normal((T, d)), rng.standard_normal((T, d))
    meta = {"item_noise": item_sigma, "query_noise": query_sigma,
            "centre_cosine": ts.pairwise_cosine_summary(useful)}
    return dict(useful=useful, junk=junk_c, noise_q=noise_q, noise_x=noise_x,
                item_sigma=item_sigma, query_sigma=query_sigma, meta=meta)


def first_missing(view, n_useful: int):
    """The smallest useful topic of which the target holds no item, or None."""
    held = set(int(a) for a in view.cached_topics)
    return next((a for a in range(n_useful) if a not in held), None)
