"""OPT under a size budget (docs/model.md §1.8, §4): when sizes matter, and what is exact.

With a budget B every cache must satisfy Σ_{i∈S_t} s_i <= B as well as |S_t| <= K (K may
be absent); an item larger than B is never cached, and one step may evict several items
(still one change, one λ).  Sizes matter only through a budget: without one a run never
reads them, and neither does OPT.

:func:`plan` reads the instance:

- the count limit in effect, K_B = min(K, n_B), with n_B the most items B can hold (the
  n_B smallest key sizes fit together and n_B + 1 do not; n_B is unbounded when all keys
  fit together).  Every feasible cache has at most K_B items.  Keys, not arrivals, are
  counted: two arrivals of one key are never cached together (docs/model.md §1.5).
- whether the budget *binds*.  It does not when no key is larger than B and the K_B
  largest key sizes fit together: then every set of at most K_B items fits, so the
  budgeted problem is exactly the count-limit problem with K = K_B and every method of
  :mod:`theory.opt` is exact on it.  With unit sizes this is always so (B acts as the
  count limit min(K, B)); so is a K that binds before B.

When the budget binds, only the item DP (:mod:`theory.opt.items`) takes sizes, exactly; the
flow, topic and count methods model counts only, so :mod:`theory.opt` refuses them when
forced (:meth:`theory.opt.record.Method.refusal`).  Beyond the item DP's limits,
:func:`bounds` gives:

lower bound, the largest of
    ``trivial``: forced losses (:func:`theory.opt.bounds.trivial_bound`), counting only
    arrivals of size <= B as ever available (``hit`` and ``precision``);
    ``flow`` (``hit``, relevance by topic): the min-cost flow of the count-limit problem
    with K_B, certified from its potentials: every budget-feasible schedule is feasible
    there, so its optimum is at most OPT;
    ``lp-knapsack``: the arrival relaxation of :mod:`theory.opt.lp` with the knapsack rows
    Σ_i s_i x_{i,t} <= B and without arrivals larger than B, certified from its duals;
    ``lp-topics`` (``precision``, by topic, when the arrival LP is too big): the topic
    relaxation with K_B, again a relaxation of the budgeted problem.
upper bound
    the cheapest real schedule among the budget-respecting beam search of
    :mod:`theory.opt.beam`, every bounded registry policy run with the budget (the engine
    evicts the policy's victims until the arrival fits) and the flow's schedule when it
    fits the budget, tried cheapest first within the time limit (:mod:`theory.opt.upper`);
    the winner is replayed with the budget (:func:`theory.opt.model.replay`), which
    checks Σ s_i <= B at every step.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from theory.opt import bounds as count_bounds
from theory.opt import upper
from theory.opt.model import build_model, replay
from theory.opt.record import Problem


@dataclasses.dataclass(frozen=True)
class BudgetPlan:
    """How a budget constrains one trace (module docstring).

    ``capacity`` is K as given (None: no count limit), ``count_limit`` K_B, ``binds``
    whether some set of at most K_B items overfills the budget, ``sizes`` s_i per arrival
    and ``cacheable`` s_i <= B per arrival.
    """

    budget: int
    capacity: int | None
    count_limit: int
    binds: bool
    sizes: np.ndarray
    cacheable: np.ndarray

    def config(self) -> dict:
        """The budget's fields of an OPT record."""
        return dict(budget=self.budget, count_limit=self.count_limit, budget_binds=self.binds)


def plan(trace, capacity: int | None, budget: int) -> BudgetPlan:
    """The :class:`BudgetPlan` of ``trace`` under count limit ``capacity`` and ``budget``."""
    sizes = np.asarray(trace.item_sizes, np.int64)
    _, first = np.unique(trace.item_keys, return_index=True)
    key_sizes = np.sort(sizes[first])
    n_fit = int(np.searchsorted(np.cumsum(key_sizes), budget, side="right"))
    if n_fit == key_sizes.size:  # every key fits at once: the budget limits no count
        limit = key_sizes.size if capacity is None else int(capacity)
    else:
        limit = n_fit if capacity is None else min(int(capacity), n_fit)
    largest = int(key_sizes[::-1][:limit].sum())
    binds = bool(key_sizes[-1] > budget or largest > budget)
    return BudgetPlan(budget=int(budget), capacity=capacity, count_limit=limit, binds=binds,
                      sizes=sizes, cacheable=sizes <= budget)


def lower_bound(trace, budget_plan: BudgetPlan, top_k: int, switch_cost: float,
                quality: str, model=None):
    """``(bound, method, schedule or None)``: the best certified lower bound of the module
    docstring (:func:`theory.opt.bounds.best_lower` with the budget), with the flow's
    (count-limit) schedule when the bound is ``flow``."""
    K = max(1, budget_plan.count_limit)  # a larger count limit only relaxes
    problem = Problem(K, top_k, switch_cost, quality, budget_plan, memo={"model": model})
    return count_bounds.best_lower(trace, problem)


def upper_bound(trace, budget_plan: BudgetPlan, top_k: int, switch_cost: float,
                quality: str, model=None, extra=(), width=None):
    """``(cost, method, schedule)``: the cheapest budget-feasible schedule found, by its
    replayed cost, tried in the order of :mod:`theory.opt.upper`.  ``extra`` adds
    ``(name, schedule)`` candidates; those that overfill the budget (a relaxation's
    schedule may) are skipped."""
    p, T = budget_plan, trace.steps

    def replayed(sched):
        return replay(trace, sched, p.capacity, top_k, switch_cost, quality, p.budget)

    cand = []
    for name, sched in extra:
        try:
            cand.append(upper.given(name, replayed(sched), sched))
        except ValueError:
            continue
    K = min(p.count_limit, T)
    if T <= count_bounds.BEAM_MAX_T and 1 <= K <= count_bounds.BEAM_MAX_K:
        model = model or build_model(trace, top_k, quality)
        cand += upper.beams(trace, model, K, switch_cost, width, p.sizes, p.budget)
    cand += upper.policies(trace, p.capacity, top_k, switch_cost, quality, p.budget)
    return upper.cheapest(cand, replayed)


def bounds(trace, budget_plan: BudgetPlan, top_k: int, switch_cost: float, quality: str,
           width: int | None = None):
    """``(lower, upper, method, schedule)`` with lower <= OPT <= upper = replay(schedule)
    under the budget; ``method`` is ``"bounds:<lower method>+<upper method>"``."""
    return count_bounds.bracket(lower_bound, upper_bound, trace, budget_plan, top_k,
                              switch_cost, quality, width)
