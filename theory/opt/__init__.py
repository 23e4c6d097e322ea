"""The offline optimum (docs/model.md §4): one public entry point, exact where a method fits.

Each method is one record (:class:`~theory.opt.record.Method`: its name, when it applies,
its limits and ``solve(trace, problem)``): the exact methods and the bounds in the table of
:mod:`theory.opt.methods`, which ``auto`` walks, and the lower bounds the bounds choose from
in :mod:`theory.opt.bounds`.  The exact methods, tried in this order (``method="auto"``):

``flow``
    :mod:`theory.opt.flow`, a min-cost flow; exact under the conditions of
    :mod:`theory.opt.topics` (``hit`` quality, relevance by topic, k >= K or separated
    clusters) at any K and number of topics.  Limits: T <= 10⁶, and T <= 30 000 when
    separation must be checked (an O(T²·d) pass).  Its time grows about linearly in T and
    in K (one shortest-path pass per unit of capacity); ``semcache bench`` measures it
    (row ``opt-flow``, against the topic DP below) on the machine at hand.  A cold first
    call compiles for several seconds; ``opt`` adds the trace checks, the replay of the
    schedule and, with k < K, the separation check.
``topics``
    :mod:`theory.opt.topics`, state = set of useful topics; same conditions as ``flow``,
    kept as a cross-check.  Limits: m <= 16 useful topics, T·2^m <= 5·10⁷ back-pointers,
    and T <= 30 000 when separation must be checked.
``counts``
    :mod:`theory.opt.counts`, state = count vector over item types; exact when items of a
    type are interchangeable.  Used when there are fewer types than arrivals.  Limits:
    C(K + τ, τ) <= 2·10⁵ states and T·C(K + τ, τ) <= 3·10⁷.
``items``
    :mod:`theory.opt.items`, state = set of arrivals; exact for every miss function, and the
    one method exact under a budget that binds (below).  Limits:
    T <= 3 000 (the T x T similarity table) and Σ_t Σ_{j<=K} C(t + 1, j) <= 4·10⁷
    (so T <= 3 000 for K = 1, 620 for K = 2, 175 for K = 3, 86 for K = 4); the work
    grows as that sum.
``bounds``
    :mod:`theory.opt.bounds`: when no exact method fits (or when forced), a certified lower
    bound and the cheapest real schedule found; ``opt_cost`` is then None, ``exact`` False
    and ``method`` reads ``"bounds:<lower method>+<upper method>"``.

Sizes and a budget (``budget=``, docs/model.md §1.8; :mod:`theory.opt.sized`).  Without a
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

from theory.opt.methods import EXACT
from theory.opt.optimum import METHODS, OptResult, SlowOptWarning, opt, opt_with
from theory.opt.record import Method, Problem

__all__ = ["EXACT", "METHODS", "Method", "OptResult", "Problem", "SlowOptWarning", "opt",
           "opt_with"]
