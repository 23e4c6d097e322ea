"""The methods of :func:`theory.opt.opt`, one record each
(:class:`~theory.opt.record.Method`), and the plan an ``auto`` or ``bounds`` call says
before its work.

:data:`EXACT_METHODS` holds the exact methods in the order ``auto`` tries them, and
:data:`BOUND_METHODS` the certified bounds used when none applies (one for a count limit,
one for a budget that binds; the lower bounds they choose from are records too, in
:mod:`theory.opt.bounds`).  Every record says when it applies and what its limits are
without solving, and solves with one signature, ``solve(trace, problem)``; choosing a
method is a walk down the table, never a test of its name.
"""

from __future__ import annotations

from theory.opt import bounds, clock, counts, flow, items, sized, topics, upper
from theory.opt.model import build_model
from theory.opt.record import Method, Problem, always, any_size

FLOW_MAX_T = 10**6
TOPICS_MAX_M = 16
TOPICS_MAX_BACK = 5 * 10**7
TOPICS_MAX_T_SEPARATION = 30_000
COUNTS_MAX_STATES = 2 * 10**5
COUNTS_MAX_BACK = 3 * 10**7
ITEMS_MAX_T = 3_000
ITEMS_MAX_BACK = 4 * 10**7
ITEMS_MAX_K = 62  # set_loss keeps a bitmask of the cached members


def _flow_fits(trace, problem):
    if trace.steps > FLOW_MAX_T:
        return f"flow: T = {trace.steps} > {FLOW_MAX_T}"
    if problem.top_k < problem.capacity and trace.steps > TOPICS_MAX_T_SEPARATION:
        return f"flow: k < K needs a separation check, limited to T <= " \
               f"{TOPICS_MAX_T_SEPARATION}"
    return None


def _topics_fits(trace, problem):
    m = topics.useful_topics(trace).size
    if m > TOPICS_MAX_M or trace.steps * 2**m > TOPICS_MAX_BACK:
        return f"topics: {m} useful topics over {trace.steps} steps (limit m <= {TOPICS_MAX_M}, " \
               f"T·2^m <= {TOPICS_MAX_BACK:.0e})"
    if problem.top_k < problem.capacity and trace.steps > TOPICS_MAX_T_SEPARATION:
        return f"topics: k < K needs a separation check, limited to T <= " \
               f"{TOPICS_MAX_T_SEPARATION}"
    return None


def _topical(trace, problem, quick):
    """Whether relevance is by topic and the topics separate (shared by flow and topics)."""
    p = problem
    if quick:
        return topics.applies(trace, p.capacity, p.top_k, p.quality, separation=False)
    if "topical" not in p.memo:
        clock.phase("checking topic separation (O(T²·d))")
        p.memo["topical"] = topics.applies(trace, p.capacity, p.top_k, p.quality)
    return p.memo["topical"]


def _separated_if(problem):
    return " if the topics prove separated" if problem.top_k < problem.capacity else ""


def _counts_fits(trace, problem):
    n_types = counts.types_of(trace)[1].size
    if n_types >= trace.steps:
        return "counts: no two arrivals share a type"
    states = counts.count_states(n_types, min(problem.capacity, trace.steps))
    if states > COUNTS_MAX_STATES or trace.steps * states > COUNTS_MAX_BACK:
        return f"counts: {states} count vectors over {trace.steps} steps (limit " \
               f"{COUNTS_MAX_STATES:.0e} states, {COUNTS_MAX_BACK:.0e} state-steps)"
    return None


def _interchangeable(trace, problem, quick):
    return None if quick else counts.applies(trace)


def _items_fits(trace, problem):
    T, K = trace.steps, min(problem.capacity, trace.steps)
    if T > ITEMS_MAX_T:
        return f"items: T = {T} > {ITEMS_MAX_T}"
    if K > ITEMS_MAX_K:
        return f"items: K = {K} > {ITEMS_MAX_K}"
    n = items.state_steps(T, K)
    if n > ITEMS_MAX_BACK:
        return f"items: {n} state-steps for T = {T}, K = {K} (limit {ITEMS_MAX_BACK:.0e})"
    return None


def _solve_flow(trace, problem):
    return flow.solve(trace, problem.capacity, problem.switch_cost)


def _solve_topics(trace, problem):
    return topics.solve(trace, problem.capacity, problem.switch_cost)


def _solve_counts(trace, problem):
    p = problem
    return counts.solve(trace, p.capacity, p.top_k, p.switch_cost, p.quality)


def _solve_items(trace, problem):
    p = problem
    limits = (p.budget.sizes, p.budget.budget) if p.sized else ()
    return items.solve(build_model(trace, p.top_k, p.quality), p.capacity, p.switch_cost,
                       *limits)


def _budget_binds(trace, problem, quick=False):
    return None if problem.sized else "no budget binds"


def _count_bounds(trace, problem):
    p = problem
    return bounds.bounds(trace, p.capacity, p.top_k, p.switch_cost, p.quality)


def _budget_bounds(trace, problem):
    p = problem
    return sized.bounds(trace, p.budget, p.top_k, p.switch_cost, p.quality)


EXACT_METHODS = (
    Method("flow", True, f"T <= {FLOW_MAX_T:.0e}; T <= {TOPICS_MAX_T_SEPARATION} when k < K "
           "(the separation check)", _flow_fits, _topical, _solve_flow,
           proviso=_separated_if),
    Method("topics", True, f"m <= {TOPICS_MAX_M} useful topics, T·2^m <= "
           f"{TOPICS_MAX_BACK:.0e}; T <= {TOPICS_MAX_T_SEPARATION} when k < K",
           _topics_fits, _topical, _solve_topics, proviso=_separated_if),
    Method("counts", True, f"fewer item types than arrivals; C(K + τ, τ) <= "
           f"{COUNTS_MAX_STATES:.0e} states, T·C(K + τ, τ) <= {COUNTS_MAX_BACK:.0e}",
           _counts_fits, _interchangeable, _solve_counts,
           proviso=lambda problem: " if its types are interchangeable"),
    Method("items", True, f"T <= {ITEMS_MAX_T}, K <= {ITEMS_MAX_K}, "
           f"Σ_t Σ_(j<=K) C(t + 1, j) <= {ITEMS_MAX_BACK:.0e}", _items_fits, always,
           _solve_items, takes_sizes=True),
)
BOUND_METHODS = (
    Method("bounds", False, "none: some lower bound and one schedule always come",
           any_size, always, _count_bounds),
    Method("bounds", False, "none: some lower bound and one schedule always come",
           any_size, _budget_binds, _budget_bounds, takes_sizes=True),
)
EXACT = tuple(m.name for m in EXACT_METHODS)
BY_NAME = {m.name: m for m in EXACT_METHODS}


def describe_plan(trace, problem: Problem, method: str, compiling: bool = True) -> list:
    """What ``auto`` or ``bounds`` will run on this instance, in words, found without
    solving: the exact methods it may try, in order (a condition that only trying shows
    is said), those that cannot apply and why, then the bounds computed when none does,
    and (``compiling``) the policies' loops their upper bound would compile, unless an
    exact method surely applies (the budget, if any, picks the loops)."""
    lines = []
    tries, certain = [], False
    if method == "auto":
        not_tried = []
        for m in EXACT_METHODS:
            if problem.sized and not m.takes_sizes:
                not_tried.append(f"{m.name}: item sizes bind, only the item DP takes them")
                continue
            why = m.fits(trace, problem) or m.applies(trace, problem, True)
            if why is None:
                note = m.proviso(problem)
                tries.append(m.name + note)
                certain = certain or not note
            else:
                not_tried.append(f"{m.name}: {why.removeprefix(m.name + ': ')}")
        lines.append("exact methods, the first that applies: " + (", ".join(tries) or "none")
                     + (f" (not {'; '.join(not_tried)})" if not_tried else ""))
    head = "else certified bounds" if method == "auto" else "certified bounds (forced)"
    lines.append(f"{head}: " + bounds.describe(trace, problem.capacity, problem.quality,
                                               problem.sized))
    if compiling and not certain:
        budget = None if problem.budget is None else problem.budget.budget
        lines += upper.compiling_line(trace, budget, surely=not tries)
    return lines
