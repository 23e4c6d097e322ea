"""The min-cost-flow OPT (theory.opt.flow) against exhaustive search, the topic DP and HiGHS.

On tiny traces where it applies (hit quality, relevance by topic, k >= K or separated
clusters) the flow must equal :func:`naive_opt.brute_opt`; elsewhere it is a lower bound.
On workloads it must equal the topic DP, and the successive-shortest-path solver must
equal HiGHS' simplex on the same network, also where the topic DP cannot run (m > 16).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings

from helpers.naive_opt import brute_opt
from helpers.opt_cases import TOL, close, tiny
from simulator.runner import run
from simulator.trace import Trace
from theory.opt import bounds as opt_bounds, flow as opt_flow, topics as opt_topics
from theory.opt import opt
from theory.opt.model import replay, schedule_from_sets
from workloads import get


def _onehot_case(keys, topics, queries, K, lam):
    """Items and queries are unit vectors of their topic (-1 queries point nowhere useful)."""
    E = np.eye(4, dtype=np.float32)
    qt = np.array(queries)
    it = np.array(topics)
    return (Trace.from_arrays(queries=E[qt], items=E[it], query_topics=qt, item_topics=it,
                              item_keys=np.array(keys)), K, 1, lam, "hit")


# the flow re-enters a topic whose stale copy is still cached: the copy is revived (and at
# step 3 the arriving key is that very copy's key)
REVIVE = _onehot_case([3, 2, 1, 3, 0, 0], [1, 0, 1, 1, 2, 2], [-1, 1, 0, 0, 1, 1], 2, 0.0)
REVIVE_2 = _onehot_case([1, 3, 2, 3, 0], [1, 1, 0, 1, 2], [0, 1, 0, 0, 1], 2, 0.0)
# queries of a topic that never arrives (3) and of no topic; unscored weights via tiny()
ABSENT = _onehot_case([0, 1, 2, 0, 1], [0, 1, 0, 0, 1], [3, 0, -1, 1, 0], 1, 0.5)


@settings(max_examples=300)
@given(tiny(qualities=("hit",), evidence=False, max_steps=7))
@example(REVIVE)
@example(REVIVE_2)
@example(ABSENT)
def test_flow_matches_exhaustive_search(case):
    tr, K, k, lam, quality = case
    want = brute_opt(tr, K, k, lam, quality)
    if opt_topics.applies(tr, K, k, quality) is not None:  # k < K, not separated
        assert opt_bounds.flow_bound(tr, K, lam)[0] <= want + TOL
        return
    cost, sets = opt_flow.solve(tr, K, lam)
    assert close(cost, want), (cost, want)
    sched = schedule_from_sets(tr.item_keys, sets)
    assert close(replay(tr, sched, K, k, lam, quality), want)
    assert all(len(s) <= K for s in sets)
    r = opt(tr, K, k, lam, quality)
    assert r.method == "flow" and r.exact and close(r.opt_cost, want)


def _workload(name, **params):
    return get(name).generate({"dim": 16, **params}, seed=1)


@pytest.mark.parametrize("name,params,K,k,lam", [
    ("cycling", dict(steps=400, topics=8, items_per_topic=3), 3, 1, 0.5),
    ("cycling", dict(steps=400, topics=8, items_per_topic=3), 6, 3, 2.0),
    ("working_set", dict(steps=300), 5, 3, 1.0),
    ("working_set", dict(steps=300, topics=12), 20, 20, 0.0),
])
def test_flow_matches_topic_dp_and_highs(name, params, K, k, lam):
    tr = _workload(name, **params)
    assert opt_topics.applies(tr, K, k, "hit") is None
    flow = opt(tr, K, k, lam, "hit", method="flow")
    topics = opt(tr, K, k, lam, "hit", method="topics")
    assert flow.opt_cost == pytest.approx(topics.opt_cost, abs=1e-9)
    assert opt_flow.solve(tr, K, lam, solver="highs")[0] == pytest.approx(flow.opt_cost,
                                                                           abs=1e-9)


def test_flow_beyond_the_topic_dp():
    # m = 30 topics: the topic DP refuses (m > 16); check SSP against HiGHS, monotonicity in
    # K, the λ = 0 closed form, and that OPT beats the policies
    tr = _workload("cycling", steps=300, topics=30, items_per_topic=2)
    costs = []
    for K in (1, 5, 12, 20, 30):
        r = opt(tr, K, 1, 0.5, "hit")
        assert r.method == "flow" and r.exact
        assert r.opt_cost == pytest.approx(opt_flow.solve(tr, K, 0.5, solver="highs")[0],
                                           abs=1e-9)
        fifo = run(tr, "fifo", capacity=K, top_k=1, switch_cost=0.5).summary()["cost"]
        assert r.opt_cost <= fifo + 1e-9
        costs.append(r.opt_cost)
    assert costs == sorted(costs, reverse=True)  # more room never hurts
    # λ = 0 and room for every topic: only the forced misses remain
    free = opt(tr, 30, 1, 0.0, "hit")
    assert free.opt_cost == pytest.approx(opt_bounds.trivial_bound(tr, 30, 1, "hit"), abs=1e-6)


def test_flow_at_scale_is_feasible_and_beats_fifo():
    # T = 10^4, m = 50, K = 20: beyond the topic DP (its speed is measured, not asserted)
    tr = get("cycling").generate({"steps": 10_000, "topics": 50}, seed=0)
    cost, sets = opt_flow.solve(tr, 20, 1.0)
    assert max(len(s) for s in sets) <= 20
    fifo = run(tr, "fifo", capacity=20, top_k=3, switch_cost=1.0).summary()["cost"]
    assert cost <= fifo
