"""A growth fit: the slope of a measured quantity against a scale, with a bootstrap interval.

:func:`growth_fit` is what the kit's growth bounds (:mod:`theory.kit.growth`) judge with,
public so that you can fit your own measurements the same way.  It fits the mean of the
values at each distinct x:

- ``log=True`` (a rate): the least-squares slope of log mean(y) on log x, the exponent of
  a power law (a value that grows like T^a has slope a);
- ``log=False`` (an additive growth): the least-squares slope of mean(y) on x.

The interval is a percentile bootstrap.  When every x has the same number n ≥ 2 of values
(n seeds at every horizon), the values are read as n seeds, each a whole curve, and the
seeds are resampled with replacement (paired across x, as the paper's growth claims do:
the same draws as :func:`theory.regret_fit.bootstrap_slope`, so the same interval).
Otherwise (one value per x, or different counts) the (x, y) pairs are resampled, a
bootstrap over instances.  A resample whose fit is undefined (fewer than two distinct x,
or a non-positive mean under ``log``) is dropped and counted.

>>> fit = growth_fit([100, 200, 400, 800], [10.0, 20.0, 40.0, 80.0])
>>> round(fit.slope, 6), round(fit.low, 6), round(fit.high, 6), fit.n
(1.0, 1.0, 1.0, 4)
>>> fit = growth_fit([1, 2, 3, 4, 1, 2, 3, 4], [1, 2, 3, 4, 1, 3, 3, 5], log=False)
>>> fit.method, round(fit.slope, 2), fit.low <= fit.slope <= fit.high
('seeds', 1.1, True)
>>> growth_fit([1, 2], [1.0, float("nan")])
Traceback (most recent call last):
...
simulator.errors.InputError: growth_fit: ys must be finite numbers, got nan at position 1
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from simulator.errors import InputError
from theory.kit.user_code import is_finite, shown

METHODS = ("seeds", "instances")


@dataclasses.dataclass(frozen=True)
class GrowthFit:
    """A fitted slope (``nan`` when undefined) and its bootstrap interval [low, high].

    ``xs`` are the distinct x values and ``means`` the mean y at each; ``n`` the number of
    values fitted; ``method`` how the bootstrap resampled (:data:`METHODS`, the module
    docstring); ``resamples`` how many resamples gave a defined slope; ``log`` whether the
    fit is log–log; ``level`` the interval's coverage.
    """

    slope: float
    low: float
    high: float
    n: int
    xs: tuple
    means: tuple
    method: str
    resamples: int
    log: bool
    level: float

    @property
    def defined(self) -> bool:
        """Whether the slope and its interval could be fitted."""
        return not (math.isnan(self.slope) or math.isnan(self.low))

    def describe(self) -> str:
        """``0.51 [0.47, 0.55]``: the slope and its interval."""
        if not self.defined:
            return "undefined"
        return f"{self.slope:.3g} [{self.low:.3g}, {self.high:.3g}]"

    def as_dict(self) -> dict:
        """The fit by name, NaN as None (strict JSON has no NaN)."""
        def plain(v):
            return None if isinstance(v, float) and math.isnan(v) else v
        return {k: (tuple(plain(x) for x in v) if isinstance(v, tuple) else plain(v))
                for k, v in dataclasses.asdict(self).items()}


def growth_fit(xs, ys, log: bool = True, resamples: int = 1000, level: float = 0.95,
               seed: int = 0) -> GrowthFit:
    """Fit the growth of ``ys`` in ``xs`` (the module docstring).

    Parameters
    ----------
    xs, ys : sequences of numbers
        One (x, y) pair per measurement; x repeats for replicates (seeds).  Under ``log``
        every x must be > 0.
    log : bool
        True: slope of log mean(y) on log x; False: slope of mean(y) on x.
    resamples, level, seed
        The bootstrap: resamples drawn from ``numpy.random.default_rng(seed)``, and the
        interval's coverage.

    Returns
    -------
    GrowthFit
        The slope is NaN with fewer than two distinct x or, under ``log``, a mean y ≤ 0.
    """
    x, y = _checked(xs, ys, log, resamples, level)
    distinct = np.unique(x)
    groups = [y[x == v] for v in distinct]
    means = np.array([g.mean() for g in groups])
    slope = _slope(distinct, means[None, :], log)[0]
    sizes = {g.size for g in groups}
    rng = np.random.default_rng(seed)
    if len(sizes) == 1 and sizes != {1}:
        method = "seeds"
        per_seed = np.stack(groups, axis=1)  # [seeds, x]: replicate i of every x is seed i
        draws = rng.integers(0, per_seed.shape[0], size=(int(resamples), per_seed.shape[0]))
        slopes = _slope(distinct, per_seed[draws].mean(axis=1), log)
    else:
        method = "instances"
        draws = rng.integers(0, x.size, size=(int(resamples), x.size))
        slopes = _pairs(distinct, np.searchsorted(distinct, x)[draws], y[draws], log)
    slopes = slopes[~np.isnan(slopes)]
    low = high = math.nan
    if slopes.size and distinct.size >= 2:
        tail = 50.0 * (1.0 - level)
        low, high = (float(v) for v in np.percentile(slopes, [tail, 100.0 - tail]))
    return GrowthFit(slope=float(slope), low=low, high=high, n=int(x.size),
                     xs=tuple(float(v) for v in distinct),
                     means=tuple(float(v) for v in means), method=method,
                     resamples=int(slopes.size), log=bool(log), level=float(level))


def _slope(xs, means, log: bool) -> np.ndarray:
    """The least-squares slope of each row of ``means`` [r, x] on ``xs`` (log–log under
    ``log``: NaN for a row with a mean ≤ 0), in the closed form of
    :func:`theory.regret_fit.fit_slope` (numpy's summation order, the same on every CPU)."""
    xs = np.asarray(xs, float)
    if xs.size < 2:
        return np.full(means.shape[0], math.nan)
    if log:
        ok = (means > 0).all(axis=1)
        xs, means = np.log(xs), np.log(np.where(means > 0, means, 1.0))
    c = xs - xs.mean()
    slopes = ((means - means.mean(axis=1, keepdims=True)) * c).sum(axis=1) / (c * c).sum()
    return np.where(ok, slopes, math.nan) if log else slopes


def _pairs(xs, codes, values, log: bool) -> np.ndarray:
    """The slope of each resample of (x, y) pairs: ``codes`` [r, n] the place of each drawn
    x in ``xs``, ``values`` [r, n] its y; a fit over the x a resample holds (NaN with fewer
    than two, or under ``log`` a mean ≤ 0)."""
    onehot = codes[..., None] == np.arange(xs.size)  # [r, n, x]
    counts = onehot.sum(axis=1)
    present = counts > 0
    means = (onehot * values[..., None]).sum(axis=1) / np.maximum(counts, 1)
    bad = (present & (means <= 0)).any(axis=1) if log else np.zeros(len(codes), bool)
    x = np.log(xs) if log else np.asarray(xs, float)
    y = np.log(np.where(present & (means > 0), means, 1.0)) if log else means
    w = present.astype(float)
    n = w.sum(axis=1)
    xc = x - (w * x).sum(axis=1, keepdims=True) / n[:, None]
    yc = y - (w * y).sum(axis=1, keepdims=True) / n[:, None]
    sxx = (w * xc * xc).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        slopes = (w * xc * yc).sum(axis=1) / sxx
    return np.where(bad | (n < 2) | (sxx <= 0), math.nan, slopes)


def _checked(xs, ys, log, resamples, level) -> tuple:
    """``xs`` and ``ys`` as float arrays of one length, finite (x > 0 under ``log``); the
    bootstrap's settings in range; InputError naming the field otherwise."""
    found = []
    for name, values in (("xs", xs), ("ys", ys)):
        if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
            raise InputError(f"growth_fit: {name} must be a sequence of numbers, got "
                             f"{shown(values)}", name)
        values = list(values)
        for i, v in enumerate(values):
            if not is_finite(v):
                raise InputError(f"growth_fit: {name} must be finite numbers, got "
                                 f"{shown(v)} at position {i}", name)
        found.append(np.asarray(values, float))
    x, y = found
    if x.size != y.size or x.size == 0:
        raise InputError(f"growth_fit: xs and ys must be non-empty and of one length, got "
                         f"{x.size} and {y.size}", "ys")
    if log and (x <= 0).any():
        raise InputError("growth_fit: with log=True every x must be > 0 (a log–log fit); "
                         "pass log=False for a linear fit", "xs")
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) \
            or resamples < 1:
        raise InputError(f"growth_fit: resamples must be an integer >= 1, got "
                         f"{shown(resamples)}", "resamples")
    if not (is_finite(level) and 0 < level < 1):
        raise InputError(f"growth_fit: level must be a number in (0, 1), got {shown(level)}",
                         "level")
    return x, y
