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
forced (:func:`refusal`).  Beyond the item DP's limits, :func:`bounds` gives:

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
from theory.opt import clock, upper
from theory.opt.lp import UNIT_ROUNDOFF, arrival_lp, arrival_pairs, solve, topic_lp
from theory.opt.model import build_model, replay


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


def refusal(method: str) -> str:
    """Why a count-only method cannot solve a binding budget, and what to use instead."""
    return f"{method}: item sizes bind under this budget and only the item DP takes sizes " \
           f"(use method 'items' or 'bounds')"


def lower_bound(trace, budget_plan: BudgetPlan, top_k: int, switch_cost: float,
                quality: str, model=None):
    """``(bound, method, schedule or None)``: the best certified lower bound of the module
    docstring, with the flow's (count-limit) schedule when the bound is ``flow``."""
    T, p = trace.steps, budget_plan
    K = max(1, p.count_limit)  # a larger count limit only relaxes
    best = (count_bounds.trivial_bound(trace, K, top_k, quality, p.cacheable), "trivial", None)
    topical = not trace.has_evidence
    if quality == "hit" and topical and T <= count_bounds.FLOW_MAX_T:
        bound, sched = count_bounds.flow_bound(trace, K, switch_cost)
        best = max(best, (bound, "flow", sched), key=lambda b: b[0])
    lp = None
    if clock.expired():
        return best
    if T <= count_bounds.ARRIVAL_MAX_T:
        model = model or build_model(trace, top_k, quality)
        pairs = arrival_pairs(model, quality, count_bounds.SIM_PAIRS_PER_K * K, p.cacheable)
        last = np.full(T, -1, np.int64)
        np.maximum.at(last, pairs[1], pairs[0])
        size = np.maximum(last - np.arange(T), 0).sum() + (pairs[0].size if
                                                          quality == "similarity" else 0)
        if size <= count_bounds.ARRIVAL_MAX_VARS:
            lp, const = arrival_lp(model, K, switch_cost, quality, pairs, p.sizes, p.budget)
            name = "lp-knapsack"
    if lp is None and quality == "precision" and topical:
        lp, const = topic_lp(trace, K, top_k, switch_cost, count_bounds.TOPIC_MAX_VARS)
        name = "lp-topics"
    if lp is not None:
        clock.phase(f"lower bound: {name}")
        limit = max(clock.remaining(count_bounds.LP_TIME_LIMIT), 1e-3)
        bound = const + solve(lp, limit, ipm=name == "lp-knapsack")[1] \
            - 4 * UNIT_ROUNDOFF * const
        best = max(best, (bound, name, None), key=lambda b: b[0])
    return best


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
