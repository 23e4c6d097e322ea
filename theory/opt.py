"""The exact offline optimum of SPEC §4: one public entry point that picks an exact DP.

Methods, tried in this order (``method="auto"``):

``topics``
    :mod:`theory.opt_topics`, state = set of useful topics; exact for ``hit`` quality with
    k >= K or topic-separated clusters (see that module).  Limits: m <= 16 useful topics,
    T·2^m <= 5·10⁷ back-pointers, and T <= 30 000 when separation must be checked
    (an O(T²·d) pass).
``counts``
    :mod:`theory.opt_counts`, state = count vector over item types; exact when items of a
    type are interchangeable.  Used when there are fewer types than arrivals.  Limits:
    C(K + τ, τ) <= 2·10⁵ states and T·C(K + τ, τ) <= 3·10⁷.
``items``
    :mod:`theory.opt_dp`, state = set of arrivals; exact for every miss function.  Limits:
    T <= 3 000 (the T x T similarity table) and Σ_t Σ_{j<=K} C(t + 1, j) <= 4·10⁷
    (so T <= 3 000 for K = 1, 620 for K = 2, 175 for K = 3, 86 for K = 4); about 2.5 s
    for K = 3, T = 150.

An instance beyond every applicable limit raises :class:`~simulator.errors.InputError`
saying so; bounds for such instances (a certified lower bound and a feasible schedule) are
not part of this module yet.  Every result is exact, so ``lower_bound = upper_bound =
opt_cost``.  The cost counts misses on scored steps only, like ``RunResult.summary()``.

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
(4.5, 'topics', True)
"""

from __future__ import annotations

import dataclasses
import math

from simulator.errors import InputError
from simulator.runner import check_options
from simulator.trace import Trace
from theory import opt_counts, opt_dp, opt_topics
from theory.opt_model import build_model, replay, schedule_from_sets

METHODS = ("auto", "topics", "counts", "items")
TOPICS_MAX_M = 16
TOPICS_MAX_BACK = 5 * 10**7
TOPICS_MAX_T_SEPARATION = 30_000
COUNTS_MAX_STATES = 2 * 10**5
COUNTS_MAX_BACK = 3 * 10**7
ITEMS_MAX_T = 3_000
ITEMS_MAX_BACK = 4 * 10**7
ITEMS_MAX_K = 62  # set_loss keeps a bitmask of the cached members


@dataclasses.dataclass
class OptResult:
    """OPT of one instance.

    ``schedule`` has ``admitted`` (the key admitted at each step, or -1) and ``evicted``
    (the keys leaving the cache at each step); replayed with
    :func:`theory.opt_model.replay` it costs ``opt_cost``.
    """

    opt_cost: float
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


def _topics_fits(trace, capacity, top_k):
    m = opt_topics.useful_topics(trace).size
    if m > TOPICS_MAX_M or trace.steps * 2**m > TOPICS_MAX_BACK:
        return f"topics: {m} useful topics over {trace.steps} steps (limit m <= {TOPICS_MAX_M}, " \
               f"T·2^m <= {TOPICS_MAX_BACK:.0e})"
    if top_k < capacity and trace.steps > TOPICS_MAX_T_SEPARATION:
        return f"topics: k < K needs a separation check, limited to T <= " \
               f"{TOPICS_MAX_T_SEPARATION}"
    return None


def _counts_fits(trace, capacity):
    n_types = opt_counts.types_of(trace)[1].size
    if n_types >= trace.steps:
        return "counts: no two arrivals share a type"
    states = opt_counts.count_states(n_types, min(capacity, trace.steps))
    if states > COUNTS_MAX_STATES or trace.steps * states > COUNTS_MAX_BACK:
        return f"counts: {states} count vectors over {trace.steps} steps (limit " \
               f"{COUNTS_MAX_STATES:.0e} states, {COUNTS_MAX_BACK:.0e} state-steps)"
    return None


def _items_fits(trace, capacity):
    T, K = trace.steps, min(capacity, trace.steps)
    if T > ITEMS_MAX_T:
        return f"items: T = {T} > {ITEMS_MAX_T}"
    if K > ITEMS_MAX_K:
        return f"items: K = {K} > {ITEMS_MAX_K}"
    n = opt_dp.state_steps(T, K)
    if n > ITEMS_MAX_BACK:
        return f"items: {n} state-steps for T = {T}, K = {K} (limit {ITEMS_MAX_BACK:.0e})"
    return None


def opt(trace, capacity: int, top_k: int = 3, switch_cost: float = 0.0,
        quality: str = "hit", method: str = "auto") -> OptResult:
    """Exact offline optimum min Σ ℓ_t + λ·N over all schedules from an empty cache.

    Parameters
    ----------
    trace : Trace
        A semantic trace (paging traces have Belady's algorithm instead).
    capacity, top_k, switch_cost, quality
        K, k, λ and the quality measure of SPEC §1.
    method : {"auto", "topics", "counts", "items"}
        Force one DP; it must be exact for the instance and within its limits.

    Raises
    ------
    InputError
        Bad options, a paging trace, a forced method that does not apply, or an instance
        too big for every exact method (the message lists why each was refused).
    """
    check_options(capacity, top_k, switch_cost, quality)
    if not isinstance(trace, Trace):
        raise InputError("opt needs a semantic trace; for a paging trace use the 'belady' "
                         "policy, which is optimal there")
    if method not in METHODS:
        raise InputError(f"--method must be one of {', '.join(METHODS)}, got {method!r}")
    K, k, lam = int(capacity), int(top_k), float(switch_cost)
    refused = []
    cost = sets = chosen = None
    for name in ("topics", "counts", "items") if method == "auto" else (method,):
        if name == "topics":
            why = _topics_fits(trace, K, k) or opt_topics.applies(trace, K, k, quality)
            if why is None:
                cost, sets = opt_topics.solve(trace, K, lam)
        elif name == "counts":
            why = _counts_fits(trace, K) or opt_counts.applies(trace)
            if why is None:
                cost, sets = opt_counts.solve(trace, K, k, lam, quality)
        else:
            why = _items_fits(trace, K)
            if why is None:
                cost, sets = opt_dp.solve(build_model(trace, k, quality), K, lam)
        if why is None:
            chosen = name
            break
        refused.append(f"{name} ({why})" if not why.startswith(name) else why)
    if chosen is None:
        raise InputError("instance too big or not eligible for an exact OPT: "
                         + "; ".join(refused) + ". Use a shorter trace or a smaller --capacity")
    schedule = schedule_from_sets(trace.item_keys, sets)
    # The schedule is replayed with the model's definitions: a DP bug cannot go unnoticed.
    check = replay(trace, schedule, K, k, lam, quality)
    if not math.isclose(check, cost, rel_tol=1e-9, abs_tol=1e-9):
        raise RuntimeError(f"OPT ({chosen}) schedule replays to {check}, not {cost}")
    config = dict(capacity=K, top_k=k, switch_cost=lam, quality=quality, steps=trace.steps)
    return OptResult(opt_cost=cost, exact=True, lower_bound=cost, upper_bound=cost,
                     method=chosen, schedule=schedule, config=config)
