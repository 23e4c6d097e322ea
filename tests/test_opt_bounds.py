"""Bounds on OPT (theory.opt.bounds, opt_lp, opt_beam): LB <= OPT <= UB <= every policy.

The certifier is checked on tiny LPs against vertex enumeration; every relaxation against
the exhaustive search of :mod:`naive_opt` on tiny traces (soft top-k, precision and
similarity included); and ``opt`` / ``semcache opt`` on an instance too big to solve.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers.naive_opt import brute_opt
from helpers.opt_cases import POLICIES, random_trace, soft_topk_case, tiny
from simulator.cli import main
from simulator.testing import similarity
from simulator.trace import Trace
from theory.opt import beam as opt_beam, bounds as opt_bounds, model as opt_model
from theory.opt import opt
from theory.opt.lp import LinearProgram, arrival_lp, certify, dual_value, solve, topic_lp
from theory.opt.model import build_model, replay
from simulator.runner import run

TOL = 1e-9


def _vertex_optimum(c, A_ub, b_ub, A_eq, b_eq, lb, ub):
    """min cᵀx by enumerating basic solutions (n <= 3); None when infeasible."""
    n = c.size
    rows = [(a, v) for a, v in zip(A_eq, b_eq)]
    cands = [(a, v) for a, v in zip(A_ub, b_ub)]
    cands += [(np.eye(n)[j], lb[j]) for j in range(n)] + [(np.eye(n)[j], ub[j]) for j in range(n)]
    best = None
    for extra in itertools.combinations(cands, n - len(rows)) if len(rows) <= n else []:
        M = np.array([a for a, _ in rows + list(extra)], float).reshape(-1, n)
        v = np.array([b for _, b in rows + list(extra)], float)
        if np.linalg.matrix_rank(M) < n:
            continue
        x = np.linalg.solve(M, v)
        ok = (x >= lb - 1e-9).all() and (x <= ub + 1e-9).all() \
            and (A_ub @ x <= b_ub + 1e-9).all() and np.allclose(A_eq @ x, b_eq, atol=1e-9)
        if ok and (best is None or c @ x < best):
            best = float(c @ x)
    return best


@st.composite
def small_lp(draw):
    n = draw(st.integers(1, 3))
    m_ub, m_eq = draw(st.integers(0, 3)), draw(st.integers(0, 1))
    num = st.integers(-3, 3)
    def mat(m):
        return np.array(draw(st.lists(num, min_size=m * n, max_size=m * n)),
                        float).reshape(m, n)

    def vec(m):
        return np.array(draw(st.lists(num, min_size=m, max_size=m)), float)
    lb = -np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), float)
    ub = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), float)
    return vec(n), mat(m_ub), vec(m_ub), mat(m_eq), vec(m_eq), lb, ub, \
        draw(st.lists(st.floats(-5, 5), min_size=m_ub + m_eq, max_size=m_ub + m_eq))


@settings(max_examples=150)
@given(small_lp())
def test_certified_bound_on_tiny_lps(case):
    c, A_ub, b_ub, A_eq, b_eq, lb, ub, junk = case
    best = _vertex_optimum(c, A_ub, b_ub, A_eq, b_eq, lb, ub)
    lp = LinearProgram(c=c, lb=lb, ub=ub, A_ub=sp.csr_matrix(A_ub), b_ub=b_ub,
                       A_eq=sp.csr_matrix(A_eq), b_eq=b_eq)
    if best is None:
        return  # infeasible: every value is a lower bound
    primal, bound = solve(lp)
    assert bound <= best + TOL
    assert bound >= best - 1e-6  # HiGHS' duals are (near) optimal
    assert primal == pytest.approx(best, abs=1e-7)
    # any multipliers, even junk ones, certify a valid bound
    y = np.array(junk)
    assert certify(lp, y[:b_ub.size], y[b_ub.size:]) <= best + TOL


def test_certifier_margin_is_positive_and_small():
    lp = LinearProgram(c=np.array([1.0, 1.0]), lb=np.zeros(2), ub=np.ones(2),
                       A_ub=sp.csr_matrix(-np.ones((1, 2))), b_ub=np.array([-1.0]))
    value, margin = dual_value(lp, np.array([-1.0]))
    assert value == 1.0 and 0 < margin < 1e-12
    assert certify(lp, np.array([-1.0])) < 1.0 <= certify(lp, np.array([-1.0])) + 1e-12


def _restream_case():
    """Re-streamed keys under precision: the second arrival of key 0 must not count twice."""
    E = np.eye(3, dtype=np.float32)
    tr = Trace.from_arrays(queries=E[[0, 0, 0, 0, 0]], items=E[[0, 0, 0, 1, 0]],
                           query_topics=np.array([0, 0, 0, 0, 0]),
                           item_topics=np.array([0, 0, 0, 1, 0]),
                           item_keys=np.array([0, 1, 0, 2, 1]))
    return tr, 3, 2, 0.5, "precision"


def _similarity_case():
    """k = 1 < K = 2, similarity: a closer irrelevant item changes nothing, a farther one can."""
    tr, K, k, lam, _ = soft_topk_case()
    return tr, K, k, lam, "similarity"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_trivial_similarity_bound_uses_the_engines_cosines(seed):
    """q̄_t is the largest earlier cosine in float32, index order (the engine's value, so
    the bound needs no error margin and does not depend on the CPU's BLAS)."""
    tr = random_trace(seed)
    best = opt_model.best_earlier_cosine(tr)
    want = [max((similarity(tr.queries[t], tr.items[i]) for i in range(t)), default=-np.inf)
            for t in range(tr.steps)]
    assert best.tolist() == want
    w = np.where(tr.scored, tr.weights, 0.0)
    total = math.fsum(w[t] * (1.0 - min(max(want[t], 0.0), 1.0)) for t in range(tr.steps))
    bound = opt_bounds.trivial_bound(tr, 3, 1, "similarity")
    assert total - 1e-12 * total <= bound <= total


@settings(max_examples=100)
@given(tiny())
@example(soft_topk_case())
@example(_restream_case())
@example(_similarity_case())
def test_bounds_bracket_exhaustive_search(case):
    tr, K, k, lam, quality = case
    want = brute_opt(tr, K, k, lam, quality)
    model = build_model(tr, k, quality)
    # every lower bound on its own
    assert opt_bounds.trivial_bound(tr, K, k, quality) <= want + TOL
    lp, const = arrival_lp(model, K, lam, quality,
                           opt_bounds.arrival_pairs(model, quality, per_step=2))
    primal, bound = solve(lp)
    assert const + bound <= want + TOL
    assert bound <= primal + 1e-7 * (1 + abs(primal))  # never above the LP's own value
    if quality == "precision" and not tr.has_evidence:
        lp, const = topic_lp(tr, K, k, lam)
        assert const + solve(lp)[1] <= want + TOL
    if quality == "hit" and not tr.has_evidence:
        assert opt_bounds.flow_bound(tr, K, lam)[0] <= want + TOL
    # opt's bounds: the upper one is a real schedule, never below OPT, at most every policy
    r = opt(tr, K, k, lam, quality, method="bounds")
    assert not r.exact and r.opt_cost is None and r.method.startswith("bounds:")
    assert r.lower_bound <= want + TOL and want <= r.upper_bound + TOL
    assert replay(tr, r.schedule, K, k, lam, quality) == pytest.approx(r.upper_bound, abs=TOL)
    for pol in POLICIES:
        cost = run(tr, pol, capacity=K, top_k=k, switch_cost=lam, quality=quality
                   ).summary()["cost"]
        assert r.upper_bound <= cost + TOL, (pol, r.upper_bound, cost)


@settings(max_examples=60)
@given(tiny())
@example(soft_topk_case())
def test_wide_beam_is_exact(case):
    # with room for every state the beam is the item DP: keep / add / swap / delete
    tr, K, k, lam, quality = case
    cost, sets = opt_beam.beam(build_model(tr, k, quality), K, lam, width=4096)
    assert cost == pytest.approx(brute_opt(tr, K, k, lam, quality), abs=TOL)


@pytest.mark.parametrize("seed", range(3))
def test_policy_schedules_replay_to_their_cost(seed):
    tr = random_trace(seed, T=60)
    K, k, lam, quality = 3, [1, 2, 3][seed], 0.5, ["hit", "precision", "similarity"][seed]
    for name, sched, cost in opt_beam.policy_runs(tr, K, k, lam, quality):
        assert replay(tr, sched, K, k, lam, quality) == pytest.approx(cost, abs=1e-9), name


def test_too_big_instance_gets_bounds():
    tr = random_trace(0, T=400)
    r = opt(tr, 8, 3, 0.5, "precision")
    assert not r.exact and r.opt_cost is None
    assert r.method.startswith("bounds:lp-topics+")  # K = 8: beyond the item DP
    assert 0 < r.lower_bound <= r.upper_bound
    assert replay(tr, r.schedule, 8, 3, 0.5, "precision") == pytest.approx(r.upper_bound,
                                                                           abs=1e-9)
    fifo = run(tr, "fifo", capacity=8, top_k=3, switch_cost=0.5, quality="precision")
    assert r.upper_bound <= fifo.summary()["cost"] + 1e-9
    # unit sizes with budget B = K: the same answer, to the schedule (test_opt_sized's
    # case beyond the DPs, checked here where this instance's bounds are computed anyway)
    b = opt(tr, 8, 3, 0.5, "precision", budget=8)
    assert (b.opt_cost, b.exact, b.method, b.lower_bound, b.upper_bound, b.schedule) == \
        (r.opt_cost, r.exact, r.method, r.lower_bound, r.upper_bound, r.schedule)
    # hit with k < K, clusters not separated: the flow is a lower bound only
    r = opt(tr, 8, 3, 0.5, "hit")
    assert r.method.startswith("bounds:flow+") and r.lower_bound <= r.upper_bound


def test_cli_prints_bounds(capsys):
    argv = ["opt", "--workload", "clusters", "--param", "steps=120", "--param", "dim=8",
            "--capacity", "6", "--top-k", "2", "--quality", "precision", "--switch-cost", "1"]
    assert main(argv + ["--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["opt_cost"] is None and doc["exact"] is False
    assert doc["lower_bound"] <= doc["upper_bound"] and doc["method"].startswith("bounds:")
    assert len(doc["schedule"]["admitted"]) == 120
    assert main(argv) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "bounds [" in first and "not exact" in first
