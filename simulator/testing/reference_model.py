"""The plain-Python model of docs/model.md §1 that the reference engine runs: items,
similarity, retrieval, quality, and the SplitMix64/Beta twin of ``simulator.rng``.

Written from docs/model.md, not from the simulator's code: no numba, nothing of the
simulator's model (only the argument checks of :mod:`simulator.testing.arguments`: a bad
argument is one :class:`~simulator.errors.InputError` naming it).

Similarity follows ``simulator.engine.kernels``: IEEE single precision, the float32
product of each coordinate pair added to a float32 accumulator in index order (no fused
multiply-add).  Here every operation is done on Python floats and rounded to float32 by
:func:`f32`; a float64 result rounded once to float32 is the correctly rounded float32
result of a + or × of two float32 values (53 >= 2·24 + 2 bits), so the two agree bit for
bit, ties included.

>>> similarity([0.6, 0.8], [0.6, 0.8]) == f32(f32(0.36) + f32(0.64))
True
>>> rng = SplitMix64(seed=7, salt=0x7450)
>>> 0.0 <= rng.uniform() < 1.0 and 0.0 < rng.beta(2.0, 3.0) < 1.0
True
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import struct

from simulator.errors import InputError
from simulator.testing import arguments

MASK = 2**64 - 1
MAX_SEED = 2**63 - 1  # the seeds of simulator.rng.check_seed


# --------------------------------------------------------------------------- randomness

class SplitMix64:
    """SplitMix64 with the stream seeding of ``simulator.rng.new_stream(seed, salt)``: a
    twin of a randomized policy draws the same numbers as its compiled hooks."""

    GOLDEN = 0x9E3779B97F4A7C15
    SALT_MUL = 0xD1B54A32D192ED03

    def __init__(self, seed: int, salt: int = 0):
        # any integers, as new_stream takes them (a run's seed is checked where it is given)
        arguments.integer("seed", seed, -math.inf, math.inf)
        arguments.integer("salt", salt, -math.inf, math.inf)
        self.state = (int(seed) * self.GOLDEN + int(salt) * self.SALT_MUL) & MASK

    def next_u64(self) -> int:
        self.state = (self.state + self.GOLDEN) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def uniform(self) -> float:
        """[0, 1) from the top 53 bits."""
        return float(self.next_u64() >> 11) * (1.0 / 2.0**53)

    def normal(self) -> float:
        """Box–Muller, first of the pair; u1 in (0, 1] so the log is finite."""
        u1 = 1.0 - self.uniform()
        u2 = self.uniform()
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)

    def gamma(self, shape: float) -> float:
        """Marsaglia–Tsang; a shape below 1 is boosted by U^(1/shape).  ``shape`` is
        finite and > 0."""
        arguments.number("shape", shape, above=0.0)
        boost = 1.0
        if shape < 1.0:
            boost = (1.0 - self.uniform()) ** (1.0 / shape)
            shape += 1.0
        d = shape - 1.0 / 3.0
        c = 1.0 / math.sqrt(9.0 * d)
        while True:
            x = self.normal()
            v = 1.0 + c * x
            if v <= 0.0:
                continue
            v = v * v * v
            u = 1.0 - self.uniform()
            if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
                return d * v * boost

    def beta(self, a: float, b: float) -> float:
        """Beta(a, b) as Gamma(a) / (Gamma(a) + Gamma(b)), in that order; ``a`` and ``b``
        finite and > 0."""
        arguments.number("a", a, above=0.0)
        arguments.number("b", b, above=0.0)
        x = self.gamma(a)
        y = self.gamma(b)
        return x / (x + y)


# --------------------------------------------------------------------------- the model

@dataclasses.dataclass
class Item:
    """A cached item as a twin sees it: its key, vector, topic and admission step."""

    key: int
    vec: list
    topic: int
    adm: int  # step at which it was admitted

    def __post_init__(self):
        arguments.integer("key", self.key, -2**63, MASK)
        if isinstance(self.vec, (str, bytes)) or not hasattr(self.vec, "__len__"):
            raise InputError(f"vec must be a list of numbers, got {arguments.shown(self.vec)}",
                             "vec")
        arguments.integer("topic", self.topic, -1, MASK)
        arguments.integer("adm", self.adm, 0, MASK)


def f32(v: float) -> float:
    """``v`` rounded to the nearest float32 (ties to even), as a Python float."""
    return struct.unpack("f", struct.pack("f", v))[0]


def similarity(q, x) -> float:
    """Cosine of two unit float32 vectors (lists of finite numbers of one length), in
    float32, index order."""
    for name, v in (("q", q), ("x", x)):
        if isinstance(v, (str, bytes)) or not hasattr(v, "__len__") or not all(
                isinstance(c, numbers.Real) and not isinstance(c, bool) and math.isfinite(c)
                for c in _floats(v)):
            raise InputError(f"{name} must be a list of finite numbers, got "
                             f"{arguments.shown(v)}", name)
    if len(q) != len(x):
        raise InputError(f"x must have the length of q ({len(q)}), got {len(x)}", "x")
    return dot32(q, x)


def _floats(v) -> list:
    return v.tolist() if hasattr(v, "tolist") else list(v)


def dot32(q, x) -> float:
    """:func:`similarity` without the checks, for the reference engine's inner loop."""
    acc = 0.0
    for j in range(len(q)):
        acc = f32(acc + f32(float(q[j]) * float(x[j])))
    return acc


def retrieve(q, cache: dict, k: int) -> list:
    """R_t best first: similarity desc, then admission step asc, then key asc."""
    scored = [(-dot32(q, it.vec), it.adm, it.key) for it in cache.values()]
    scored.sort()
    return [(key, -neg) for neg, _, key in scored[:k]]


def quality_of(setting, n_rel, n_ret, k, best_sim):
    """(hit, precision, quality) of one step under ``setting`` (docs/model.md §1.4)."""
    hit = 1 if n_rel > 0 else 0
    precision = n_rel / k
    if setting == "hit":
        return hit, precision, float(hit)
    if setting == "precision":
        return hit, precision, precision
    return hit, precision, (min(max(best_sim, 0.0), 1.0) if n_ret else 0.0)


@dataclasses.dataclass
class TwinContext:
    """What a twin may know: the run's options and, for offline ones (paging), the whole
    request sequence.  ``capacity`` is the count limit it plans with (``math.inf`` when
    unbounded); ``params`` the parameters given (the twin fills in its ``defaults``).
    ``times`` and ``supersedes`` are the trace's (``Context.times``, ``.supersedes``:
    read entry t at step t or later only), or None.  Each field is checked when built
    (one InputError naming it)."""

    capacity: float
    params: dict
    seed: int = 0
    switch_cost: float = 0.0
    requests: list | None = None  # paging mode: the whole request sequence
    mode: str = "semantic"
    object_ids: list | None = None  # a paging trace's own id of each key
    times: list | None = None  # each step's time in seconds (float), or None
    supersedes: list | None = None  # each step's superseded key (-1: none), or None

    def __post_init__(self):
        if not (isinstance(self.capacity, float) and self.capacity == math.inf):
            try:
                arguments.integer("capacity", self.capacity)
            except InputError:
                raise InputError(f"capacity must be an integer >= 1 or math.inf, got "
                                 f"{arguments.shown(self.capacity)}", "capacity") from None
        self.params = arguments.mapping("params", self.params, none=False)
        arguments.integer("seed", self.seed, 0, MAX_SEED)
        arguments.number("switch_cost", self.switch_cost, low=0.0)
        if not isinstance(self.mode, str) or self.mode not in ("semantic", "paging"):
            raise InputError(f"mode must be 'semantic' or 'paging', got "
                             f"{arguments.shown(self.mode)}", "mode")
        for name in ("requests", "object_ids"):
            if getattr(self, name) is not None:
                setattr(self, name, arguments.int_list(name, getattr(self, name), 0, MASK))
        if self.supersedes is not None:
            self.supersedes = arguments.int_list("supersedes", self.supersedes, -1, MASK)
        if self.times is not None:
            self.times = [arguments.number("times", x)
                          for x in arguments.sequence("times", self.times, single=())]

