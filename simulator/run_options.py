"""The options every run takes, checked once: :class:`RunOptions`, the model options K, k,
λ and the quality measure (docs/model.md §1), the budget (docs/model.md §1.8), the seed,
and the policy with its parameters.

The front doors (``simulator.run``, ``LiveRun``, ``stream_run``, ``theory.opt.opt``,
``theory.ratio.competitive_ratio``, the commands) build one with :meth:`RunOptions.build`
from their keywords; below them it is passed on as it is and not checked again:
``simulator.run`` and ``LiveRun`` take a built one as ``options=``, and
``simulator.stream_run.stream_with``, ``theory.opt.opt_with`` and
``simulator.closed_loop.run`` take it directly.  :meth:`RunOptions.with_policy` and
:meth:`RunOptions.with_seed` give several runs one set of options, checking only what they
add.  Each field has its own checker (:func:`check_capacity`, :func:`check_top_k`,
:func:`check_switch_cost`, :func:`check_quality`, :func:`budget_value`,
:func:`simulator.rng.check_seed`), which a grid of values (a sweep) applies value by value.

A bad option raises :class:`~simulator.errors.InputError` naming the parameter; the
command line shows the flag instead.  Counts (K, k) are integers in [1, 2**53]
(:data:`simulator.params.MAX_INT`), so every product the kernels form with them fits
int64; so is the budget, so a policy's share of it times a ratio of at most 1000 fits as
well, and the sizes it is compared with are bounded by :mod:`simulator.engine.size_limits`.
Within range a request too large for this machine's memory is refused by
:mod:`simulator.engine.memory_estimate`.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
import types
from collections.abc import Mapping

import numpy as np

from simulator import policies
from simulator.engine import memory_estimate
from simulator.errors import InputError
from simulator.engine.kernels import QUALITY_CODES
from simulator.params import MAX_INT
from simulator.policies.base import Policy
from simulator.rng import check_seed

# the budget of a run without one: never reached, since the total cached is at most a
# trace's total size (2**61) and an arrival at most 2**53 (simulator.engine.size_limits)
NO_BUDGET = 1 << 62
MAX_BUDGET = MAX_INT
_DIGITS = re.compile(r"[0-9]+")  # ASCII only: str.isdigit takes '²' (and int() refuses it)
DEFAULT_CAPACITY = 10  # K when neither a capacity nor a budget is given
_NO_PARAMS = types.MappingProxyType({})  # the parameters of options without a policy
_SUFFIXES = {"": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}


def budget_value(budget) -> int | None:
    """A budget (docs/model.md §1.8) as an integer in the trace's size unit: an integer
    >= 1, or text with a binary suffix; None stays None.

    >>> budget_value("128MiB"), budget_value("1gib"), budget_value(4096), budget_value(None)
    (134217728, 1073741824, 4096, None)
    """
    if budget is None:
        return None
    if isinstance(budget, str):
        text = budget.strip().lower().replace(" ", "")
        number = text.rstrip("kmgtib")
        unit = text[len(number):]
        shown = repr(budget if len(budget) <= 40 else budget[:37] + "...")
        if unit not in _SUFFIXES or not _DIGITS.fullmatch(number):
            raise InputError(f"budget must be an integer >= 1, optionally with a binary suffix "
                             f"(KiB, MiB, GiB, TiB), got {shown}", "budget")
        if len(number.lstrip("0")) > 16:  # past 2**53 whatever the suffix; int() not needed
            raise InputError(f"budget must be an integer >= 1 and <= 2**53, got {shown}",
                             "budget")
        budget = int(number.lstrip("0") or "0") * _SUFFIXES[unit]
    if not _count(budget, MAX_BUDGET):
        raise InputError(f"budget must be an integer >= 1 and <= 2**53, got {budget!r}",
                         "budget")
    return int(budget)


def _count(value, most: int = MAX_INT) -> bool:
    """Whether ``value`` is an integer in [1, most] (not a bool)."""
    return (not isinstance(value, bool) and isinstance(value, (int, np.integer))
            and 1 <= value <= most)


def check_capacity(capacity) -> int | None:
    """K as an int; None stays None (no count limit: a budget's run, or the default)."""
    if capacity is not None and not _count(capacity):
        raise InputError(f"capacity must be an integer >= 1 and <= 2**53, got {capacity!r}",
                         "capacity")
    return None if capacity is None else int(capacity)


def check_top_k(top_k) -> int:
    """k as an int, refused when its retrieval buffers cannot fit in memory."""
    if not _count(top_k):
        raise InputError(f"top_k must be an integer >= 1 and <= 2**53, got {top_k!r}", "top_k")
    # the retrieval buffers hold k entries whatever the trace
    memory_estimate.require(16 * int(top_k), f"top_k {memory_estimate.power(int(top_k))}",
                            "retrieval buffers", "top_k")
    return int(top_k)


def check_switch_cost(switch_cost) -> float:
    """λ as a float: finite and >= 0."""
    if isinstance(switch_cost, bool) or not isinstance(switch_cost, (int, float, np.number)) \
            or not math.isfinite(switch_cost) or switch_cost < 0:
        raise InputError(f"switch_cost must be a finite number >= 0, got {switch_cost!r}",
                         "switch_cost")
    return float(switch_cost)


def check_quality(quality) -> str:
    """The quality measure, one of :data:`simulator.engine.kernels.QUALITY_CODES`."""
    if not isinstance(quality, str) or quality not in QUALITY_CODES:
        raise InputError(f"quality must be one of {', '.join(QUALITY_CODES)}, got {quality!r}",
                         "quality")
    return quality


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """The checked options of a run: build it with :meth:`build`, never field by field.

    Attributes
    ----------
    capacity : int or None
        K; None when not given (a run then has 10, or no count limit with a budget).
    top_k : int
        k, the retrieval depth.
    switch_cost : float
        λ, the cost of a change to the cache.
    quality : str
        The quality measure (``hit``, ``precision`` or ``similarity``).
    budget : int or None
        B, the total size the cache may hold, in the trace's size unit.
    seed : int
        The only source of the policy's randomness.
    policy : Policy or None
        The policy, looked up once; None for what runs no policy (the offline optimum).
    params : Mapping
        The policy's parameters, defaults filled in and checked (read-only; empty without
        a policy).
    """

    capacity: int | None
    top_k: int
    switch_cost: float
    quality: str
    budget: int | None
    seed: int
    policy: Policy | None
    params: Mapping

    @classmethod
    def build(cls, *, policy=None, capacity=None, top_k=3, switch_cost=0.0, quality="hit",
              budget=None, seed=0, params=None) -> RunOptions:
        """Check every option, in this order, and return them as one object.

        Parameters
        ----------
        policy : str or Policy, optional
            A registry name or a :class:`~simulator.policies.base.Policy`; None for the
            offline optimum, which runs none.
        capacity, top_k, switch_cost, quality
            K, k, λ and the quality measure (docs/model.md §1).
        budget : int or str, optional
            An integer, or text with a binary suffix (``"128MiB"``, :func:`budget_value`).
        seed : int
            In [0, 2**63 - 1] (:func:`simulator.rng.check_seed`).
        params : dict, optional
            The policy's parameters; unknown names or bad values raise InputError.

        Examples
        --------
        >>> o = RunOptions.build(policy="lru", capacity=4, budget="1KiB")
        >>> o.capacity, o.budget, o.policy.name, o.seed
        (4, 1024, 'lru', 0)
        >>> RunOptions.build(top_k=0)  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        simulator.errors.InputError: top_k must be an integer >= 1 and <= 2**53, got 0
        """
        model = cls(capacity=check_capacity(capacity), top_k=check_top_k(top_k),
                    switch_cost=check_switch_cost(switch_cost), quality=check_quality(quality),
                    budget=budget_value(budget), seed=check_seed(seed), policy=None,
                    params=_NO_PARAMS)
        if policy is None:
            if params is not None:
                raise InputError("params are a policy's: give the policy too", "params")
            return model
        return model.with_policy(policy, params)

    def with_policy(self, policy, params=None) -> RunOptions:
        """These options for ``policy`` (a name or a Policy) with ``params`` resolved; the
        other options, already checked, are kept (several policies share one set)."""
        pol = policies.resolve(policy)
        return dataclasses.replace(self, policy=pol, params=types.MappingProxyType(
            pol.resolve_params(params)))

    def with_seed(self, seed) -> RunOptions:
        """These options with another seed (checked): a run per seed of one set."""
        return dataclasses.replace(self, seed=check_seed(seed))

    def run_limits(self) -> tuple:
        """``(K, B)``, the limits a run of these options applies: K is
        :data:`DEFAULT_CAPACITY` when neither is given, and an unbounded policy has none.

        >>> RunOptions.build(policy="fifo").run_limits()
        (10, None)
        """
        if self.policy is not None and self.policy.unbounded:
            return None, None
        if self.capacity is None and self.budget is None:
            return DEFAULT_CAPACITY, None
        return self.capacity, self.budget


# the model keywords of the front doors and their defaults, as build() has them
_KEYWORDS = {name: p.default for name, p in inspect.signature(RunOptions.build).parameters.items()
             if name != "policy"}


def given_or_built(options, policy, **keywords) -> RunOptions:
    """What a front door (``simulator.run``, ``LiveRun``) runs with: ``options``, built
    already by the caller and not checked again, or else the options built from ``policy``
    and the model ``keywords``.  Both at once are refused.

    >>> shared = RunOptions.build(capacity=4)
    >>> given_or_built(None, "fifo", capacity=4).policy.name
    'fifo'
    >>> given_or_built(shared, None, top_k=2)  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    simulator.errors.InputError: options are built already: give them, or ...
    """
    if options is None:
        return RunOptions.build(policy=policy, **keywords)
    if not isinstance(options, RunOptions):
        raise InputError(f"options must be a RunOptions (RunOptions.build), got "
                         f"{type(options).__name__}", "options")
    # a keyword counts as given unless it is its default, of the default's very type
    given = [name for name, value in keywords.items() if not (
        value is _KEYWORDS[name] or (type(value) is type(_KEYWORDS[name])
                                     and value == _KEYWORDS[name]))]
    if policy is not None or given:
        raise InputError("options are built already: give them, or the policy and its "
                         f"options ({', '.join(['policy'] * (policy is not None) + given)}), "
                         "not both", "options")
    return options
