"""LoCoMo learning curves: a per-question metric against the question's position.

The paper's Figure 2 plots answer F1 against the evaluation step at K = 50.  Ours plots
each policy's evidence hit@3 and turn F1 (:mod:`~simulator.experiments.reproduce
.locomo_temporal`) against the *relative position* of a scored question in its
conversation, i / n_c, cut into ``BINS`` equal bins (conversations differ in length, so
bins of i / n_c let them pool): per seed, the mean over the questions of every
conversation that fall in a bin; then the mean and std over the seeds.

>>> c = binned([np.array([0., 1., 1., 1.])], bins=2)
>>> c.tolist()  # positions 0, 1 in the first half, 2, 3 in the second
[0.5, 1.0]
"""

from __future__ import annotations

import warnings

import numpy as np

BINS = 10


def binned(series: list, bins: int = BINS) -> np.ndarray:
    """Mean value per relative-position bin over the conversations' series (NaN: no
    value, left out; a bin with none is NaN)."""
    total, count = np.zeros(bins), np.zeros(bins)
    for y in series:
        y = np.asarray(y, float)
        if not len(y):
            continue
        b = np.minimum((np.arange(len(y)) * bins) // len(y), bins - 1)
        ok = ~np.isnan(y)
        np.add.at(total, b[ok], y[ok])
        np.add.at(count, b[ok], 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def curves(values: dict, seeds: list, metrics: tuple, bins: int = BINS) -> dict:
    """``{"bins", "x", "metrics": {metric: {column: {policy: {"mean", "std"}}}}}`` from the
    recorder's ``{(policy, column, seed): {metric: [series per conversation]}}``."""
    out = {"bins": bins, "x": [(b + 0.5) / bins for b in range(bins)],
           "x_label": "relative position of the question in its conversation (i / n_c)",
           "metrics": {}}
    policies = list(dict.fromkeys(k[0] for k in values))
    columns = list(dict.fromkeys(k[1] for k in values))
    for m in metrics:
        by_col = out["metrics"].setdefault(m, {})
        for c in columns:
            for p in policies:
                if not all((p, c, s) in values for s in seeds):
                    continue
                per = np.array([binned(values[(p, c, s)][m], bins) for s in seeds])
                with warnings.catch_warnings():  # a bin empty for every seed stays NaN
                    warnings.simplefilter("ignore", RuntimeWarning)
                    mean = np.nanmean(per, axis=0)
                    std = (np.nanstd(per, axis=0, ddof=1) if len(seeds) > 1
                           else np.zeros(bins))
                by_col.setdefault(c, {})[p] = {
                    "mean": [None if not np.isfinite(v) else float(v) for v in mean],
                    "std": [None if not np.isfinite(v) else float(v) for v in std]}
    return out
