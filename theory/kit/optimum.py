"""The optimum a claim's bound compares a run with: the model's offline optimum on a
semantic trace (:func:`theory.opt.opt_with`: exact, or certified bounds within the time
limit), and Belady's MIN on a paging trace.

Belady is optimal among the schedules that admit every miss (demand paging) with unit
sizes: the classical paging theorems are stated against it, and the kit's paging claims
are too.  The model also lets a schedule leave a miss out of the cache, which can cost
less (:mod:`simulator.policies.belady`), so Belady is an upper bound on that optimum: a
ratio that reaches c against Belady reaches it against the model's optimum too.  With
sizes or a budget Belady is a heuristic, not an optimum, and a claim refuses it.
"""

from __future__ import annotations

from simulator.errors import InputError
from simulator.trace import PagingTrace


def optimum(trace, options, time_limit: float | None = None):
    """The :class:`theory.opt.OptResult` of ``trace`` under the run options ``options``
    (:class:`simulator.run_options.RunOptions`; their policy plays no part)."""
    if isinstance(trace, PagingTrace):
        return belady(trace, options)
    from theory.opt import opt_with

    return opt_with(trace, options, time_limit=time_limit)


def belady(trace: PagingTrace, options):
    """Belady's cost on an unsized paging trace, as an exact optimum of demand paging
    (``method`` ``"belady"``)."""
    from simulator.run_options import RunOptions
    from simulator.runner import run
    from theory.opt import OptResult

    if trace.sized or options.budget is not None:
        raise InputError("a paging claim compares with Belady, optimal only with unit sizes "
                         "and no budget; give a paging trace without sizes and no budget")
    same = RunOptions.build(policy="belady", capacity=options.capacity, top_k=options.top_k,
                            switch_cost=options.switch_cost, quality=options.quality)
    cost = float(run(trace, options=same).summary()["cost"])
    return OptResult(opt_cost=cost, exact=True, lower_bound=cost, upper_bound=cost,
                     method="belady", schedule={},
                     config=dict(capacity=options.capacity, top_k=options.top_k,
                                 switch_cost=options.switch_cost, quality=options.quality,
                                 steps=trace.steps))
