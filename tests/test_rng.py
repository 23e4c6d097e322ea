"""The compiled random stream equals its plain-Python twin, and its draws look right."""

import math

import numpy as np
import pytest

from simulator import rng
from simulator.config import njit
from simulator.testing import SplitMix64

SEEDS = [0, 1, 42, 2**40 + 3, -7]
N = 1000


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("salt", [0, 0x7450])
def test_seeding_matches(seed, salt):
    assert int(rng.new_stream(seed, salt)[0]) == SplitMix64(seed, salt).state


@pytest.mark.parametrize("seed", SEEDS)
def test_u64_uniform_normal_match(seed):
    s, twin = rng.new_stream(seed), SplitMix64(seed)
    assert [int(rng.next_u64(s)) for _ in range(N)] == [twin.next_u64() for _ in range(N)]
    assert [rng.uniform(s) for _ in range(N)] == [twin.uniform() for _ in range(N)]
    assert [rng.normal(s) for _ in range(N)] == [twin.normal() for _ in range(N)]
    assert int(s[0]) == twin.state


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("a, b", [(1.0, 1.0), (2.0, 5.0), (1.05, 3.25), (30.0, 1.0),
                                  (0.5, 0.5), (0.2, 4.0)])
def test_beta_matches(seed, a, b):
    """Includes shapes below 1 (the U^(1/shape) boost path of Marsaglia–Tsang)."""
    s, twin = rng.new_stream(seed, 0x7450), SplitMix64(seed, 0x7450)
    assert [rng.beta(s, a, b) for _ in range(N)] == [twin.beta(a, b) for _ in range(N)]
    assert int(s[0]) == twin.state  # same number of uniforms consumed (rejections too)


@njit
def _draw(kind, s, n, a, b):
    out = np.empty(n)
    for i in range(n):
        out[i] = rng.uniform(s) if kind == 0 else rng.normal(s) if kind == 1 else rng.beta(s, a, b)
    return out


def draws(kind, n, a=1.0, b=1.0):
    return _draw(kind, rng.new_stream(11), n, a, b)


def test_uniform_range_and_mean():
    u = draws(0, 20000)
    assert (u >= 0.0).all() and (u < 1.0).all()
    assert abs(u.mean() - 0.5) < 4 * math.sqrt(1 / 12 / u.size)
    # the largest possible draw, (2**53 - 1) / 2**53, is still below 1
    assert float((2**64 - 1) >> 11) * (1.0 / 2.0**53) < 1.0


def test_normal_moments():
    z = draws(1, 20000)
    assert abs(z.mean()) < 4 / math.sqrt(z.size)
    assert abs(z.var() - 1.0) < 4 * math.sqrt(2 / z.size)


@pytest.mark.parametrize("a, b", [(2.0, 5.0), (0.5, 0.5), (1.0, 1.05)])
def test_beta_mean(a, b):
    """Sample mean within 4 standard errors of a / (a + b) over 20k draws."""
    x = draws(2, 20000, a, b)
    assert ((x > 0) & (x < 1)).all()
    mean = a / (a + b)
    sd = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    assert abs(x.mean() - mean) < 4 * sd / math.sqrt(x.size)


def test_randbelow_range():
    s = rng.new_stream(3)
    vals = [rng.randbelow(s, 7) for _ in range(2000)]
    assert set(vals) == set(range(7))
