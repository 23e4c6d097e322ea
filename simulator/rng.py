"""A tiny seeded random stream kept inside a policy's state (no global RNG).

SplitMix64 (Steele, Lea & Flood 2014) for uniforms; Marsaglia–Tsang for Gamma, hence Beta.
The stream lives in a one-element ``uint64`` array, so a policy's randomness depends on
the run's seed and its own call sequence only: identical across engines, processes and
machines.  ``tests/helpers/naive.py`` holds the plain-Python twin used to check it.

Seeds.  A seed is an integer in [0, 2**63 - 1] (:data:`MAX_SEED`); :func:`check_seed`
enforces it for the command line's ``--seed`` and for ``Workload.generate``.  Within that
range no seed wraps: :func:`new_stream` reduces ``seed · golden`` modulo 2**64 (so 2**64
would give seed 0's stream again), numpy's generators take any non-negative integer,
count-min hashing reads the seed as a uint64, and results store it in int64 columns.

The compiled functions call nothing outside this file, so each is cached on disk on its
own (numba checks a cached function against its own file: ``simulator/config.py``).
"""

import numpy as np

from simulator.config import njit
from simulator.errors import InputError

MAX_SEED = 2**63 - 1  # see the module docstring


def check_seed(seed, name: str = "seed") -> int:
    """``seed`` as an int, or InputError naming ``name`` when it is not in [0, MAX_SEED].

    >>> check_seed(3)
    3
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) \
            or not 0 <= seed <= MAX_SEED:
        raise InputError(f"{name} must be an integer in [0, 2**63 - 1], got {seed!r}", name)
    return int(seed)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def new_stream(seed: int, salt: int = 0) -> np.ndarray:
    """The state array of a stream for ``seed`` (``salt`` separates streams of one run)."""
    return np.array([(int(seed) * 0x9E3779B97F4A7C15 + int(salt) * 0xD1B54A32D192ED03)
                     % 2**64], dtype=np.uint64)


@njit(cache=True)
def next_u64(s):
    s[0] += _GOLDEN
    z = s[0]
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def uniform(s):
    """Uniform on [0, 1) with 53 random bits."""
    return np.float64(next_u64(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def normal(s):
    """Standard normal by Box–Muller (one of the pair is used, so each call costs two draws)."""
    u1 = 1.0 - uniform(s)  # in (0, 1]
    u2 = uniform(s)
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


@njit(cache=True)
def gamma(s, shape):
    """Gamma(shape, 1) by Marsaglia & Tsang (2000); shape < 1 via the boost U^(1/shape)."""
    boost = 1.0
    if shape < 1.0:
        boost = (1.0 - uniform(s)) ** (1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    while True:
        x = normal(s)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = 1.0 - uniform(s)
        if np.log(u) < 0.5 * x * x + d - d * v + d * np.log(v):
            return d * v * boost


@njit(cache=True)
def beta(s, a, b):
    """Beta(a, b) as X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b)."""
    x = gamma(s, a)
    y = gamma(s, b)
    return x / (x + y)


@njit(cache=True)
def randbelow(s, n):
    """Uniform integer in [0, n) (n < 2**53; the bias is below 2**-40 for n < 2**13)."""
    return np.int64(uniform(s) * n)
