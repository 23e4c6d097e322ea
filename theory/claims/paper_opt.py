"""OPT in the SOLAR paper's model, from the project's OPT where the two agree.

The paper's model (its §2.1) changes the cache only by admitting the arrival e_t, evicting
one cached item when the cache is full; :func:`theory.opt.opt` (docs/model.md §4) may also
drop items, several in one step for one λ.  The project's OPT is therefore a relaxation:
never above the paper's OPT.  When its optimal schedule happens to be one the paper's model
allows (every change admits e_t and evicts at most one item), that schedule is feasible
there too, so the two optima are equal.  :func:`paper_opt` says which case holds, so that a
claim uses the value as the paper's OPT only when it is, and otherwise only as a lower
bound (a ratio against it is then an upper bound on the paper's ratio).

>>> import numpy as np
>>> from simulator.trace import Trace
>>> x = np.eye(2, dtype=np.float32)[[0, 1, 0, 1]]
>>> tr = Trace.from_arrays(queries=x, items=x, query_topics=[0, 1, 0, 1],
...                        item_topics=[0, 1, 0, 1])
>>> r = paper_opt(tr, capacity=1, top_k=1, switch_cost=0.5)
>>> r["cost"], r["paper_exact"]
(3.5, True)
"""

from __future__ import annotations


def paper_form(schedule: dict) -> bool:
    """True when every change of ``schedule`` admits the step's arrival and evicts at most
    one item (a schedule of the paper's model)."""
    for admitted, evicted in zip(schedule["admitted"], schedule["evicted"]):
        if len(evicted) > 1 or (evicted and admitted < 0):
            return False
    return True


def paper_opt(trace, capacity: int, top_k: int, switch_cost: float, quality: str = "hit",
              **options) -> dict:
    """``cost``: the project's OPT (or its certified lower bound); ``paper_exact``: whether
    it is also the paper model's OPT; ``result``: the :class:`theory.opt.OptResult`."""
    from theory.opt import opt

    r = opt(trace, capacity, top_k, switch_cost, quality=quality, **options)
    cost = r.opt_cost if r.exact else r.lower_bound
    return dict(cost=cost, paper_exact=bool(r.exact and paper_form(r.schedule)), result=r)
