"""The offline optimum (docs/model.md §4): one public entry point, exact where a method fits.

Methods, tried in this order (``method="auto"``):

``flow``
    :mod:`theory.opt_flow`, a min-cost flow; exact under the conditions of
    :mod:`theory.opt_topics` (``hit`` quality, relevance by topic, k >= K or separated
    clusters) at any K and number of topics.  Limits: T <= 10⁶, and T <= 30 000 when
    separation must be checked (an O(T²·d) pass).  Its time grows about linearly in T and
    in K (one shortest-path pass per unit of capacity); ``semcache bench`` measures it
    (row ``opt-flow``, against the topic DP below) on the machine at hand.  A cold first
    call compiles for several seconds; ``opt`` adds the trace checks, the replay of the
    schedule and, with k < K, the separation check.
``topics``
    :mod:`theory.opt_topics`, state = set of useful topics; same conditions as ``flow``,
    kept as a cross-check.  Limits: m <= 16 useful topics, T·2^m <= 5·10⁷ back-pointers,
    and T <= 30 000 when separation must be checked.
``counts``
    :mod:`theory.opt_counts`, state = count vector over item types; exact when items of a
    type are interchangeable.  Used when there are fewer types than arrivals.  Limits:
    C(K + τ, τ) <= 2·10⁵ states and T·C(K + τ, τ) <= 3·10⁷.
``items``
    :mod:`theory.opt_dp`, state = set of arrivals; exact for every miss function, and the
    one method exact under a budget that binds (below).  Limits:
    T <= 3 000 (the T x T similarity table) and Σ_t Σ_{j<=K} C(t + 1, j) <= 4·10⁷
    (so T <= 3 000 for K = 1, 620 for K = 2, 175 for K = 3, 86 for K = 4); the work
    grows as that sum.
``bounds``
    :mod:`theory.opt_bounds`: when no exact method fits (or when forced), a certified lower
    bound and the cheapest real schedule found; ``opt_cost`` is then None, ``exact`` False
    and ``method`` reads ``"bounds:<lower method>+<upper method>"``.

Sizes and a budget (``budget=``, docs/model.md §1.8; :mod:`theory.opt_sized`).  Without a
budget sizes play no part and every result is as above.  With one, caches must also keep
Σ sizes <= B; the count limit in effect is K_B = min(K, the most items B can hold) (K may
then be None).  If every set of at most K_B items fits in B (always with unit sizes, and
when K binds before B), the budget *is* the count limit K_B and every method above is
exact.  Otherwise the budget binds: only ``items`` takes sizes (exact under both limits);
``flow``, ``topics`` and ``counts`` are refused when forced and skipped by ``auto``; and
``bounds`` gives a certified lower bound (``lp-knapsack``: the arrival LP with the knapsack
rows Σ s_i x_i <= B; or a count-limit relaxation with K_B) and the cheapest
budget-respecting schedule.  The record then adds ``budget``, ``count_limit`` (K_B) and
``budget_binds``.

An exact result has ``lower_bound = upper_bound = opt_cost``.  Costs count misses on scored
steps only, like ``RunResult.summary()``; the returned schedule, replayed, costs
``opt_cost`` (exact) or ``upper_bound`` (bounds).

Examples
--------
>>> import numpy as np
>>> from simulator.trace import Trace
>>> topics = np.array([0, 1, 0, 1, 0, 1])
>>> tr = Trace.from_arrays(queries=np.eye(2, dtype=np.float32)[topics],
...                        items=np.eye(2, dtype=np.float32)[topics],
...                        query_topics=topics, item_topics=topics)
>>> r = opt(tr, capacity=1, top_k=1, switch_cost=0.5)
>>> r.opt_cost, r.method, r.exact  # keep topic 0: misses at steps 0, 1, 3, 5 and one admission
(4.5, 'flow', True)
>>> b = opt(tr, capacity=1, top_k=1, switch_cost=0.5, method="bounds")
>>> b.opt_cost, b.exact, b.lower_bound <= 4.5 <= b.upper_bound
(None, False, True)
>>> sized = Trace.from_arrays(queries=tr.queries, items=tr.items, query_topics=topics,
...                           item_topics=topics, item_sizes=[2, 1, 2, 1, 2, 1])
>>> s = opt(sized, capacity=None, top_k=1, switch_cost=0.5, budget=1)  # topic 0 never fits
>>> s.opt_cost, s.method, s.exact, s.config["budget_binds"]  # keep topic 1: miss 0, 1, 2, 4
(4.5, 'items', True, True)
"""

from __future__ import annotations

import dataclasses
import math

from simulator.errors import InputError
from simulator.run_options import RunOptions
from simulator.runner import check_cost_bound
from simulator.trace import Trace
from theory import (opt_bounds, opt_clock, opt_counts, opt_dp, opt_fits, opt_flow, opt_sized,
                    opt_topics)
from theory.opt_fits import EXACT
from theory.opt_model import build_model, replay, schedule_from_sets

METHODS = ("auto", "flow", "topics", "counts", "items", "bounds")


@dataclasses.dataclass
class OptResult:
    """OPT of one instance.

    ``schedule`` has ``admitted`` (the key admitted at each step, or -1) and ``evicted``
    (every key leaving the cache at each step: under a budget one step may evict several);
    replayed with :func:`theory.opt_model.replay` (with the budget, if any) it costs
    ``upper_bound`` (= ``opt_cost`` when exact).  ``opt_cost`` is None when the result is
    only bounds.  ``config`` holds the options, and under a budget ``budget``,
    ``count_limit`` and ``budget_binds`` (:class:`theory.opt_sized.BudgetPlan`).
    """

    opt_cost: float | None
    exact: bool
    lower_bound: float
    upper_bound: float
    method: str
    schedule: dict
    config: dict

    def to_dict(self) -> dict:
        """The ``semcache opt --json`` record."""
        return dict(opt_cost=self.opt_cost, exact=self.exact, lower_bound=self.lower_bound,
                    upper_bound=self.upper_bound, method=self.method, schedule=self.schedule,
                    **self.config)


def opt(trace, capacity: int | None, top_k: int = 3, switch_cost: float = 0.0,
        quality: str = "hit", method: str = "auto", budget=None,
        time_limit: float | None = None, progress=None, plan=None) -> OptResult:
    """Offline optimum min Σ ℓ_t + λ·N over all schedules from an empty cache, or bounds.

    Parameters
    ----------
    trace : Trace
        A semantic trace (paging traces have Belady's algorithm instead: optimal with unit
        sizes among schedules that admit every miss, a heuristic with sizes; see
        :mod:`simulator.policies.belady`).
    capacity, top_k, switch_cost, quality
        K, k, λ and the quality measure of docs/model.md §1; ``capacity`` may be None
        (no count limit) only with a budget.
    method : {"auto", "flow", "topics", "counts", "items", "bounds"}
        ``auto``: the first exact method that applies and fits, else bounds.  An exact
        name forces that method (it must apply and fit); ``bounds`` skips exact methods.
    budget : int or str, optional
        B, the most total size cached (docs/model.md §1.8): an integer in the trace's size
        unit or text such as ``"128MiB"``.  None: no budget, and sizes play no part.
    time_limit : float, optional
        Seconds (wall clock) after which no new phase starts: the exact methods not yet
        tried are skipped and the bounds keep what they have (the trivial and flow lower
        bounds, at least one schedule), so lower <= OPT <= upper still holds.  The phase
        under way finishes first (:mod:`theory.opt_clock`), and the upper bound starts no
        candidate expected to end past the limit (:mod:`theory.opt_upper`).  The record
        then adds ``time_limit``, ``stopped_early`` (whether the limit skipped anything)
        and ``not_tried`` (the upper bound's candidates it left out, by name).
    progress : callable, optional
        ``progress(text)`` is called as each phase starts.
    plan : callable, optional
        ``plan(lines)`` is called once, before the first phase that solves, with what the
        call will run, in words: the exact methods it may try and why the others cannot
        apply, and the bounds it computes if none does, with the policies' loops their
        upper bound would compile (unless an exact method surely applies); a forced exact
        method is said once it is found to apply (so a refusal is the only thing
        reported).

    Raises
    ------
    InputError
        Bad options, a paging trace, or a forced exact method that does not apply or fit
        (under a binding budget only ``items`` does).
    """
    options = RunOptions.build(capacity=capacity, top_k=top_k, switch_cost=switch_cost,
                               quality=quality, budget=budget)
    return opt_with(trace, options, method=method, time_limit=time_limit, progress=progress,
                    plan=plan)


def opt_with(trace, options: RunOptions, *, method: str = "auto",
             time_limit: float | None = None, progress=None, plan=None) -> OptResult:
    """:func:`opt` of ``options`` (K, k, λ, the quality measure and the budget; a policy
    and seed play no part), built and checked once by the caller
    (:meth:`RunOptions.build <simulator.run_options.RunOptions.build>`) and not checked
    again; the other arguments as for :func:`opt`."""
    if not isinstance(trace, Trace):
        raise InputError("opt needs a semantic trace; for a paging trace use the 'belady' "
                         "policy (optimal with unit sizes when every miss is admitted; "
                         "with sizes a heuristic)")
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}", "method")
    if options.capacity is None and options.budget is None:
        raise InputError("capacity must be an integer >= 1 unless a budget is given, got None",
                         "capacity")
    check_cost_bound(trace.steps, options.switch_cost)
    if time_limit is not None and (isinstance(time_limit, bool) or not
                                   isinstance(time_limit, (int, float))
                                   or not math.isfinite(time_limit) or time_limit <= 0):
        raise InputError(f"time_limit must be a number of seconds > 0, got {time_limit!r}",
                         "time_limit")
    with opt_clock.running(time_limit, progress) as clock:
        result = _solve(trace, options, method, plan)
    if time_limit is not None:
        result.config.update(time_limit=float(time_limit), stopped_early=clock.cut,
                             not_tried=list(clock.skipped))
    return result


def _solve(trace, options: RunOptions, method, plan) -> OptResult:
    """:func:`opt_with` once its inputs are checked (under its clock)."""
    K, k, lam = options.capacity, options.top_k, options.switch_cost
    quality, budget = options.quality, options.budget
    config = dict(capacity=K, top_k=k, switch_cost=lam, quality=quality, steps=trace.steps)
    budget_plan = None
    if budget is not None:
        budget_plan = opt_sized.plan(trace, K, budget)
        config.update(budget_plan.config())
        K = budget_plan.count_limit  # the problem solved: exactly the count limit K_B ...
    sized = budget_plan is not None and budget_plan.binds  # ... unless sizes bind too
    if plan is not None and method not in EXACT:
        plan(opt_fits.describe_plan(trace, K, k, quality, method, sized, budget))
    elif method == "auto" and not opt_clock.limited():
        lines = opt_fits.describe_plan(trace, K, k, quality, method, sized, compiling=False)
        _warn_if_bounds_only(lines, trace, K)
    refused = []
    cost = sets = chosen = None
    topical = {}  # opt_topics.applies, computed once (it may check separation, O(T²·d))
    for name in {"auto": EXACT, "bounds": ()}.get(method, (method,)):
        if method == "auto" and opt_clock.expired():
            refused.append("the time limit passed before the other exact methods")
            break
        opt_clock.phase(f"exact method {name}")
        why = opt_fits.refusal(name, trace, K, k, quality, sized, topical)
        if why is None:
            if plan is not None and method == name:  # forced: said once it is known to apply
                plan([f"exact method {name} (forced), which runs to the end"])
            limits = (budget_plan.sizes, budget) if sized else ()
            cost, sets = _exact(name, trace, K, k, lam, quality, limits)
            chosen = name
            break
        refused.append(f"{name} ({why})" if not why.startswith(name) else why)
    if chosen is None and method not in ("auto", "bounds"):
        raise InputError(f"method {method!r} cannot solve this instance: " + "; ".join(refused))
    if chosen is None:
        opt_clock.phase("bounds")
        if sized:
            lower, upper, name, schedule = opt_sized.bounds(trace, budget_plan, k, lam, quality)
        else:
            lower, upper, name, schedule = opt_bounds.bounds(trace, K, k, lam, quality)
            if budget is not None:  # K_B's schedule fits the budget (module docstring): check
                _check_replay(trace, schedule, K, k, lam, quality, budget, upper, name)
        return OptResult(opt_cost=None, exact=False, lower_bound=lower, upper_bound=upper,
                         method=name, schedule=schedule, config=config)
    opt_clock.phase("replaying the optimal schedule")
    schedule = schedule_from_sets(trace.item_keys, sets)
    # The schedule is replayed with the model's definitions: a DP bug cannot go unnoticed.
    _check_replay(trace, schedule, K, k, lam, quality, budget, cost, chosen)
    return OptResult(opt_cost=cost, exact=True, lower_bound=cost, upper_bound=cost,
                     method=chosen, schedule=schedule, config=config)


def _exact(name, trace, K, k, lam, quality, limits) -> tuple:
    """``(cost, cache sets)`` of the exact method ``name``, which applies; ``limits``:
    ``(sizes, budget)`` when the budget binds (only ``items`` then), else ``()``."""
    if name in ("flow", "topics"):
        return (opt_flow.solve if name == "flow" else opt_topics.solve)(trace, K, lam)
    if name == "counts":
        return opt_counts.solve(trace, K, k, lam, quality)
    return opt_dp.solve(build_model(trace, k, quality), K, lam, *limits)


class SlowOptWarning(UserWarning):
    """No exact method fits an instance: OPT will be certified bounds, from linear programs
    whose time grows fast with T (give ``time_limit``)."""


def _warn_if_bounds_only(lines: list, trace, K) -> None:
    """Say it before the work, when no exact method can apply and no time limit is set."""
    if lines[0].startswith("exact methods, the first that applies: none"):
        import warnings

        warnings.warn(SlowOptWarning(
            f"OPT of this instance (T = {trace.steps}, K = {K}) will be certified bounds "
            f"only, and with no time limit every phase runs: {'; '.join(lines)}. Linear "
            "programs over hundreds of steps take seconds to minutes: pass "
            "time_limit=SECONDS for the best bounds by then"),
            stacklevel=5)  # the caller of opt(), past opt_with and _solve


def _check_replay(trace, schedule, K, k, lam, quality, budget, cost, name) -> None:
    """Replay ``schedule`` with the model's definitions (and the budget): it must be
    feasible and cost ``cost``, or a solver bug is reported rather than returned."""
    try:
        check = replay(trace, schedule, K, k, lam, quality, budget)
    except ValueError as err:
        raise RuntimeError(f"OPT ({name}) schedule is infeasible: {err}") from None
    if not math.isclose(check, cost, rel_tol=1e-9, abs_tol=1e-9):
        raise RuntimeError(f"OPT ({name}) schedule replays to {check}, not {cost}")
