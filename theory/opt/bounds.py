"""Bounds on OPT where no exact method fits (docs/model.md §4): a certified lower bound and the
cheapest real schedule found.

Lower bounds, all certified from a dual vector (:func:`theory.opt.lp.certify`), never from a
solver's primal value; each is a record of :data:`LOWER_BOUNDS`, and the largest of those
that apply within their limits is returned (:func:`best_lower`, also under a budget,
:mod:`theory.opt.sized`):

``flow``
    ``hit`` quality, relevance by topic (no evidence), T <= 10⁶.  The min-cost flow of
    :mod:`theory.opt.flow` ignores the retrieval depth: a real hit needs a cached item of
    topic a_t, so its "flow <= OPT" half holds for any k (and whatever the key topics).
    Certified from the flow's node potentials.
``lp-arrivals``
    :func:`theory.opt.lp.arrival_lp`, any quality; T <= 3 000 and at most 30 000
    variables (HiGHS' interior-point method, about 4 s at 20 000); for ``similarity`` the
    4·K most similar earlier arrivals of each step are kept, the rest under a floor.
``lp-topics``
    :func:`theory.opt.lp.topic_lp`, ``precision`` with relevance by topic; at most
    100 000 variables (HiGHS' simplex, about 5 s at 60 000).
``trivial``
    Forced losses, always computed: quality_t is at most 1 if some earlier arrival is
    relevant (``hit``), min(n_t, K, k)/k with n_t the relevant keys arrived (``precision``),
    or the largest clipped cosine of an earlier arrival, computed as the engine computes
    it (``similarity``, T <= 10 000; beyond, 1).

So ``hit`` without evidence always gets ``flow``; ``precision`` and ``similarity`` on long
traces fall back to ``lp-topics`` or ``trivial``.

Upper bound: the cheapest of, for ``hit``, the flow's schedule (optimal when k >= K), the
beam search of :mod:`theory.opt.beam` (T <= 3 000, K <= 62) and every bounded semantic
registry policy (seed 0), ranked by their own costs and tried cheapest first within the
time limit (:mod:`theory.opt.upper`); the winner is replayed with
:func:`theory.opt.model.replay`, which must reproduce its cost.
"""

from __future__ import annotations

import math

import numpy as np

from simulator.engine.kernels import QUALITY_CODES
from theory.opt import beam, clock, flow, upper
from theory.opt.lp import (UNIT_ROUNDOFF, LinearProgram, arrival_lp, arrival_pairs, certify,
                           solve, topic_lp)
from theory.opt.model import (best_earlier_cosine, build_model, effective_weights, replay,
                               schedule_from_sets)
from theory.opt.record import Method, Problem, always, any_size

FLOW_MAX_T = 10**6
ARRIVAL_MAX_T = 3_000
ARRIVAL_MAX_VARS = 30_000
TOPIC_MAX_VARS = 100_000
TRIVIAL_SIM_MAX_T = 10_000  # an O(T²·d) pass
SIM_PAIRS_PER_K = 4  # similarity pairs kept per step: the 4·K most similar arrivals
BEAM_MAX_T = 3_000
BEAM_MAX_K = 62
LP_TIME_LIMIT = 120.0  # seconds; a time-limited solve still certifies a weaker bound


def trivial_bound(trace, capacity: int, top_k: int, quality: str, cacheable=None) -> float:
    """Σ_t w_t(1 − q̄_t) with q̄_t >= quality_t whatever the cache (forced losses).

    ``cacheable`` (bool per arrival, e.g. size <= budget): for ``hit`` and ``precision``
    only those arrivals count as available (the others are never cached).
    """
    T, w = trace.steps, effective_weights(trace)
    qt, it, keys = trace.query_topics, trace.item_topics, trace.item_keys
    if quality == "similarity":
        if T > TRIVIAL_SIM_MAX_T:
            return 0.0
        # the engine's own float32 cosines, so no error margin and the same on every CPU
        qbar = np.clip(best_earlier_cosine(trace).astype(np.float64), 0.0, 1.0)
    else:
        by_topic: dict = {}
        arrived: set = set()
        ptr, idx = trace.evidence_indptr, trace.evidence_indices
        n_rel = np.zeros(T, np.int64)
        for t in range(T):
            mine = by_topic.get(int(qt[t]), set()) if qt[t] >= 0 else set()
            extra = {int(e) for e in idx[ptr[t]:ptr[t + 1]]} & arrived - mine \
                if trace.has_evidence else set()
            n_rel[t] = len(mine) + len(extra)
            if cacheable is None or cacheable[t]:
                by_topic.setdefault(int(it[t]), set()).add(int(keys[t]))
                arrived.add(int(keys[t]))
        if quality == "hit":
            qbar = (n_rel > 0).astype(np.float64)
        else:
            qbar = np.minimum(np.minimum(n_rel, capacity), top_k) / top_k
    total = math.fsum((w * (1.0 - qbar)).tolist())
    return total - 4 * (T + 2) * UNIT_ROUNDOFF * total


def flow_bound(trace, capacity: int, switch_cost: float):
    """``(bound, schedule)``: the certified flow value and the flow's (k >= K) schedule."""
    net = flow.build(trace, capacity, switch_cost)
    x, pi = flow.min_cost_flow(net)
    lp = LinearProgram(c=net["cost"], lb=np.zeros_like(net["cap"]), ub=net["cap"],
                       A_eq=flow.incidence(net), b_eq=net["supply"])
    const = net["constant"]
    bound = const + certify(lp, y_eq=-pi) - 4 * UNIT_ROUNDOFF * const
    sets = flow.schedule_sets(trace, capacity, net, x)
    return bound, schedule_from_sets(trace.item_keys, sets)


def _trivial(trace, problem):
    p = problem
    clock.phase("lower bound: forced losses")
    cacheable = None if p.budget is None else p.budget.cacheable
    return trivial_bound(trace, p.capacity, p.top_k, p.quality, cacheable), None


def _flow_fits(trace, problem):
    return None if trace.steps <= FLOW_MAX_T else f"T = {trace.steps} > {FLOW_MAX_T}"


def _by_topic_hits(trace, problem, quick=False):
    if problem.quality != "hit":
        return "quality is not 'hit'"
    return "relevance is by evidence" if trace.has_evidence else None


def _flow(trace, problem):
    clock.phase("lower bound: min-cost flow")  # fast, and without a budget the best bound
    return flow_bound(trace, problem.capacity, problem.switch_cost)


def _arrivals_fit(trace, problem):
    return None if trace.steps <= ARRIVAL_MAX_T else f"T = {trace.steps} > {ARRIVAL_MAX_T}"


def _count_limit_beyond_flow(trace, problem, quick=False):
    if problem.budget is not None:
        return "a budget: the knapsack LP instead"
    if FLOW_BOUND.refusal(trace, problem) is None:
        return "without a budget the flow bound is the bound for hit"
    return None


def _budgeted(trace, problem, quick=False):
    return None if problem.budget is not None else "no budget"


def _by_topic_precision(trace, problem, quick=False):
    if problem.quality != "precision":
        return "quality is not 'precision'"
    return "relevance is by evidence" if trace.has_evidence else None


def _arrival_lp(trace, problem):
    """The arrival LP's bound (with the knapsack rows under a budget), or None when it
    has more than ARRIVAL_MAX_VARS variables (known once its pairs are found)."""
    p, T = problem, trace.steps
    model = p.memo.get("model") or build_model(trace, p.top_k, p.quality)
    cacheable = None if p.budget is None else p.budget.cacheable
    pairs = arrival_pairs(model, p.quality, SIM_PAIRS_PER_K * p.capacity, cacheable)
    last = np.full(T, -1, np.int64)
    np.maximum.at(last, pairs[1], pairs[0])
    size = np.maximum(last - np.arange(T), 0).sum() + (pairs[0].size if
                                                      p.quality == "similarity" else 0)
    if size > ARRIVAL_MAX_VARS:
        return None
    sizes = () if p.budget is None else (p.budget.sizes, p.budget.budget)
    lp, const = arrival_lp(model, p.capacity, p.switch_cost, p.quality, pairs, *sizes)
    name = "lp-arrivals" if p.budget is None else "lp-knapsack"
    return _certified(lp, const, name, ipm=True), None


def _topic_lp(trace, problem):
    """The topic LP's bound, or None when it has more than TOPIC_MAX_VARS variables."""
    p = problem
    lp, const = topic_lp(trace, p.capacity, p.top_k, p.switch_cost, TOPIC_MAX_VARS)
    return None if lp is None else (_certified(lp, const, "lp-topics", ipm=False), None)


def _certified(lp, const, name, ipm):
    clock.phase(f"lower bound: {name}")
    limit = clock.remaining(LP_TIME_LIMIT)  # a time-limited solve still certifies
    return const + solve(lp, max(limit, 1e-3), ipm=ipm)[1] - 4 * UNIT_ROUNDOFF * const


# The lower bounds of the module docstring, in the order they are tried: every direct bound
# that applies, then, while time remains, the first LP that applies and is small enough.
FLOW_BOUND = Method("flow", False, f"T <= {FLOW_MAX_T:.0e}", _flow_fits, _by_topic_hits,
                    _flow, takes_sizes=True)
LOWER_BOUNDS = (
    Method("trivial", False, f"similarity: T <= {TRIVIAL_SIM_MAX_T} (beyond, 0)", any_size,
           always, _trivial, takes_sizes=True),
    FLOW_BOUND,
    Method("lp-arrivals", False, f"T <= {ARRIVAL_MAX_T}, {ARRIVAL_MAX_VARS} variables",
           _arrivals_fit, _count_limit_beyond_flow, _arrival_lp),
    Method("lp-knapsack", False, f"T <= {ARRIVAL_MAX_T}, {ARRIVAL_MAX_VARS} variables",
           _arrivals_fit, _budgeted, _arrival_lp, takes_sizes=True),
    Method("lp-topics", False, f"{TOPIC_MAX_VARS} variables", any_size, _by_topic_precision,
           _topic_lp, takes_sizes=True),
)
DIRECT = 2  # the first two are computed whenever they apply; then one LP at most


def best_lower(trace, problem: Problem):
    """``(bound, method, schedule or None)``: the largest of :data:`LOWER_BOUNDS` that
    apply, and the flow's schedule when the bound is ``flow``."""
    best = None
    for m in LOWER_BOUNDS[:DIRECT]:
        if m.refusal(trace, problem) is None:
            bound, schedule = m.solve(trace, problem)
            best = max(best or (bound, m.name, schedule), (bound, m.name, schedule),
                       key=lambda b: b[0])
    if clock.expired():
        return best
    for m in LOWER_BOUNDS[DIRECT:]:
        if m.refusal(trace, problem) is None:
            found = m.solve(trace, problem)
            if found is not None:
                return max(best, (found[0], m.name, None), key=lambda b: b[0])
    return best


def lower_bound(trace, capacity: int, top_k: int, switch_cost: float, quality: str,
                model=None):
    """``(bound, method, schedule or None)``: the best lower bound of the module docstring
    (:func:`best_lower`), and the flow's schedule when the bound is ``flow``.  ``model``
    (from :func:`~theory.opt.model.build_model`) is built when needed and not given."""
    problem = Problem(capacity, top_k, switch_cost, quality, memo={"model": model})
    return best_lower(trace, problem)


def upper_bound(trace, capacity: int, top_k: int, switch_cost: float, quality: str,
                model=None, extra=(), width=None):
    """``(cost, method, schedule)``: the cheapest real schedule found, by its replayed cost,
    tried in the order of :mod:`theory.opt.upper`.

    ``extra`` adds ``(name, schedule)`` candidates (e.g. a relaxation's schedule).
    """
    T, K = trace.steps, min(int(capacity), trace.steps)

    def replayed(sched):
        return replay(trace, sched, capacity, top_k, switch_cost, quality)

    cand = [upper.given(name, replayed(sched), sched) for name, sched in extra]
    if T <= BEAM_MAX_T and K <= BEAM_MAX_K:
        model = model or build_model(trace, top_k, quality)
        cand += upper.beams(trace, model, K, switch_cost, width)
    cand += upper.policies(trace, capacity, top_k, switch_cost, quality)
    return upper.cheapest(cand, replayed)


def describe(trace, capacity: int, quality: str, sized: bool = False) -> str:
    """What :func:`bounds` (``sized``: :func:`theory.opt.sized.bounds`, which also tries the
    LPs after the flow) will compute on this instance, in words, before it starts; an LP
    named here is solved only if its size, known once it is built, is within its limit."""
    T, topical = trace.steps, not trace.has_evidence
    K = min(capacity, T)
    by_flow = quality == "hit" and topical and T <= FLOW_MAX_T
    lowers = ["forced losses"] + (["the min-cost flow"] if by_flow else [])
    topic_lp = quality == "precision" and topical
    if sized or not by_flow:  # without a budget the flow is the bound for hit: no LP
        if T <= ARRIVAL_MAX_T:
            lp = "the knapsack LP" if sized else "the arrival LP"
            lowers.append(f"{lp} (or the topic LP if it is too big)" if topic_lp else lp)
        elif topic_lp:
            lowers.append("the topic LP")
    uppers = ["the flow's schedule"] if by_flow else []
    if T <= BEAM_MAX_T and 1 <= K <= BEAM_MAX_K:
        uppers.append(f"beam search ({len(beam.HORIZONS)} horizons)")
    uppers.append(f"{len(beam.policy_names())} policies' runs")
    return (f"lower bound from {', '.join(lowers)}; upper bound the cheapest of "
            f"{', '.join(uppers)}, tried cheapest first (policies already compiled before "
            f"the beam search, those to compile last)")


def bounds(trace, capacity: int, top_k: int, switch_cost: float, quality: str,
           width: int | None = None):
    """``(lower, upper, method, schedule)`` with lower <= OPT <= upper = replay(schedule).

    ``method`` is ``"bounds:<lower method>+<upper method>"``.
    """
    if quality not in QUALITY_CODES:
        raise ValueError(quality)
    return bracket(lower_bound, upper_bound, trace, capacity, top_k, switch_cost, quality,
                   width)


def bracket(lower_fn, upper_fn, trace, limit, top_k: int, switch_cost: float, quality: str,
            width: int | None = None):
    """:func:`bounds` with the two bound functions given (``limit``: their second
    argument, a capacity here, a budget plan in :mod:`theory.opt.sized`): the lower
    bound's relaxed schedule joins the upper bound's candidates, and the two are checked
    against each other."""
    needed = trace.steps <= max(ARRIVAL_MAX_T, BEAM_MAX_T)  # the dense T x T model
    model = build_model(trace, top_k, quality) if needed else None
    lb, lb_name, relaxed = lower_fn(trace, limit, top_k, switch_cost, quality, model)
    extra = [("flow-schedule", relaxed)] if relaxed is not None else []
    ub, ub_name, sched = upper_fn(trace, limit, top_k, switch_cost, quality, model, extra, width)
    if lb > ub + 1e-9 * max(1.0, abs(ub)):
        raise RuntimeError(f"lower bound {lb} ({lb_name}) exceeds upper bound {ub} ({ub_name})")
    return float(min(lb, ub)), float(ub), f"bounds:{lb_name}+{ub_name}", sched
