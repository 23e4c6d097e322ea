"""The offline optimum's entry points, :func:`opt` and :func:`opt_with`, and its result:
the options are checked once, then the table of :mod:`theory.opt.methods` is walked (the
package docstring, :mod:`theory.opt`, says what each method does and when)."""

from __future__ import annotations

import dataclasses
import math

from simulator.errors import InputError
from simulator.run_options import RunOptions
from simulator.runner import check_cost_bound
from simulator.trace import Trace
from theory.opt import clock, sized
from theory.opt.methods import BOUND_METHODS, BY_NAME, EXACT, EXACT_METHODS, Problem, describe_plan
from theory.opt.model import replay, schedule_from_sets

METHODS = ("auto", *EXACT, "bounds")


@dataclasses.dataclass
class OptResult:
    """OPT of one instance.

    ``schedule`` has ``admitted`` (the key admitted at each step, or -1) and ``evicted``
    (every key leaving the cache at each step: under a budget one step may evict several);
    replayed with :func:`theory.opt.model.replay` (with the budget, if any) it costs
    ``upper_bound`` (= ``opt_cost`` when exact).  ``opt_cost`` is None when the result is
    only bounds.  ``config`` holds the options, and under a budget ``budget``,
    ``count_limit`` and ``budget_binds`` (:class:`theory.opt.sized.BudgetPlan`).
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
        under way finishes first (:mod:`theory.opt.clock`), and the upper bound starts no
        candidate expected to end past the limit (:mod:`theory.opt.upper`).  The record
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
    with clock.running(time_limit, progress) as ticking:
        result = _solve(trace, options, method, plan)
    if time_limit is not None:
        result.config.update(time_limit=float(time_limit), stopped_early=ticking.cut,
                             not_tried=list(ticking.skipped))
    return result


def _solve(trace, options: RunOptions, method, plan) -> OptResult:
    """:func:`opt_with` once its inputs are checked (under its clock)."""
    K, k, lam = options.capacity, options.top_k, options.switch_cost
    quality, budget = options.quality, options.budget
    config = dict(capacity=K, top_k=k, switch_cost=lam, quality=quality, steps=trace.steps)
    budget_plan = None
    if budget is not None:
        budget_plan = sized.plan(trace, K, budget)
        config.update(budget_plan.config())
        K = budget_plan.count_limit  # the problem solved: exactly the count limit K_B ...
    problem = Problem(K, k, lam, quality, budget_plan)  # ... unless sizes bind too
    if plan is not None and method not in EXACT:
        plan(describe_plan(trace, problem, method))
    elif method == "auto" and not clock.limited():
        lines = describe_plan(trace, problem, method, compiling=False)
        _warn_if_bounds_only(lines, trace, K)
    refused = []
    cost = sets = chosen = None
    tried = EXACT_METHODS if method == "auto" else () if method == "bounds" else \
        (BY_NAME[method],)
    for m in tried:
        if method == "auto" and clock.expired():
            refused.append("the time limit passed before the other exact methods")
            break
        clock.phase(f"exact method {m.name}")
        why = m.refusal(trace, problem)
        if why is None:
            if plan is not None and method == m.name:  # forced: said once it is known to apply
                plan([f"exact method {m.name} (forced), which runs to the end"])
            cost, sets = m.solve(trace, problem)
            chosen = m.name
            break
        refused.append(f"{m.name} ({why})" if not why.startswith(m.name) else why)
    if chosen is None and method not in ("auto", "bounds"):
        raise InputError(f"method {method!r} cannot solve this instance: " + "; ".join(refused))
    if chosen is None:
        clock.phase("bounds")
        bound = next(b for b in BOUND_METHODS if b.refusal(trace, problem) is None)
        lower, upper, name, schedule = bound.solve(trace, problem)
        if budget is not None and not problem.sized:  # K_B's schedule fits B: check it
            _check_replay(trace, schedule, K, k, lam, quality, budget, upper, name)
        return OptResult(opt_cost=None, exact=False, lower_bound=lower, upper_bound=upper,
                         method=name, schedule=schedule, config=config)
    clock.phase("replaying the optimal schedule")
    schedule = schedule_from_sets(trace.item_keys, sets)
    # The schedule is replayed with the model's definitions: a DP bug cannot go unnoticed.
    _check_replay(trace, schedule, K, k, lam, quality, budget, cost, chosen)
    return OptResult(opt_cost=cost, exact=True, lower_bound=cost, upper_bound=cost,
                     method=chosen, schedule=schedule, config=config)


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
