"""The record every method of :mod:`theory.opt` is (:class:`Method`), exact or a bound, and
the instance it is asked about (:class:`Problem`)."""

from __future__ import annotations

import dataclasses
from typing import Callable


@dataclasses.dataclass(frozen=True)
class Problem:
    """One instance as a method sees it, once its options are checked.

    ``capacity`` is the count limit in effect (K, or K_B under a budget), ``budget`` the
    :class:`~theory.opt.sized.BudgetPlan` (None without a budget).  ``memo`` keeps what
    several methods use and is slow to find (the topic separation check, the dense miss
    model).
    """

    capacity: int
    top_k: int
    switch_cost: float
    quality: str
    budget: object = None
    memo: dict = dataclasses.field(default_factory=dict, compare=False, repr=False)

    @property
    def sized(self) -> bool:
        """Whether the budget binds: some set of at most K_B items overfills it."""
        return self.budget is not None and self.budget.binds


def _no_proviso(problem) -> str:
    return ""


@dataclasses.dataclass(frozen=True)
class Method:
    """One method of :func:`theory.opt.opt`: an exact method, the certified bounds, or one
    lower bound among them.

    Attributes
    ----------
    name : str
        The name ``method=`` forces and a result's ``method`` reads (bounds read
        ``"bounds:<lower>+<upper>"``, with a lower bound's name).
    exact : bool
        Whether ``solve`` gives OPT itself, ``(cost, cache sets)``; else a bound.
    limits : str
        Its size limits, in words (the docstring of :mod:`theory.opt` gives the why).
    fits : callable
        ``fits(trace, problem)``: None within the limits, else why not; never solves.
    applies : callable
        ``applies(trace, problem, quick)``: None when the method is exact (or, for a
        bound, valid and meant) for the instance, else why not; ``quick`` leaves out a
        check that only trying shows (the topic separation check is O(T²·d)).
    solve : callable
        ``solve(trace, problem)``, once ``refusal`` is None.
    takes_sizes : bool
        Whether it models item sizes, so stays valid when a budget binds.
    proviso : callable
        ``proviso(problem)``: what ``quick`` left out, said in the plan (" if ..."), or "".
    """

    name: str
    exact: bool
    limits: str
    fits: Callable
    applies: Callable
    solve: Callable
    takes_sizes: bool = False
    proviso: Callable = _no_proviso

    def refusal(self, trace, problem: Problem) -> str | None:
        """Why the method cannot solve the instance, or None (it applies and fits)."""
        if problem.sized and not self.takes_sizes:
            return f"{self.name}: item sizes bind under this budget and only the item DP " \
                   f"takes sizes (use method 'items' or 'bounds')"
        return self.fits(trace, problem) or self.applies(trace, problem, False)


def always(trace, problem, quick: bool = False) -> None:
    """``applies`` of a method valid on every instance."""
    return None


def any_size(trace, problem) -> None:
    """``fits`` of a method without size limits."""
    return None
