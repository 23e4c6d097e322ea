"""Eviction regret (theory.regret, theory.regret_fit): comparators against exhaustive search,
the cache-set reconstruction against the engine, and the slope fit with its validity guard.

The brute force below enumerates every victim sequence on the policy's admission steps
and scores each cache set directly as w_t·Π(1 − p); nothing of theory.regret is reused.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from simulator.errors import InputError
from simulator.runner import run
from simulator.trace import Trace
from theory.regret import (eviction_regret, exact_comparator, expected_miss,
                           greedy_comparator)
from theory.regret_fit import bootstrap_slope, fit_slope, regret_curve
from workloads import get

SMALL = {"items": 8, "dim": 8}


def _miss(S, p):
    return float(np.prod([1.0 - p[i] for i in S]))


def brute_best(keys, admit, w, p, K):
    """min over every victim choice of Σ_t w_t·Π_{S_t}(1 − p), S_t the cache before step t."""
    T = len(keys)

    def go(t, S):
        if t == T:
            return 0.0
        here = w[t] * _miss(S, p)
        if not admit[t] or keys[t] in S:
            return here + go(t + 1, S)
        if len(S) < K:
            return here + go(t + 1, S | {keys[t]})
        return here + min(go(t + 1, (S - {v}) | {keys[t]}) for v in S)

    return go(0, frozenset())


def direct_cost(adm, evi, w, p):
    """Σ_t w_t·Π(1 − p) of the cache sets an (admitted, evicted) schedule goes through."""
    S, total = set(), 0.0
    for t in range(len(adm)):
        total += w[t] * _miss(S, p)
        if evi[t] >= 0:
            S.remove(int(evi[t]))
        if adm[t] >= 0:
            S.add(int(adm[t]))
    return total


def tiny_trace(keys, w):
    T = len(keys)
    vecs = np.eye(T + 1, dtype=np.float32)[1:] + np.eye(T + 1, dtype=np.float32)[0]
    return Trace.from_arrays(queries=vecs, items=vecs, item_keys=np.array(keys),
                             weights=np.array(w), evidence_indptr=np.zeros(T + 1, np.int64),
                             evidence_indices=np.zeros(0, np.int64))


@st.composite
def admissions(draw, fresh):
    """p's (with ties), K ∈ {1, 2, 3}, T <= 9 steps, the steps a policy admitted at, and
    weights; ``fresh``: every admitted key is new, else keys repeat."""
    n = draw(st.integers(1, 6))
    p = draw(st.lists(st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.9, 1.0]), min_size=n, max_size=n))
    K = draw(st.integers(1, 3))
    T = draw(st.integers(1, 9))
    # mostly admissions and weight 1, so caches fill and victims matter
    admit = draw(st.lists(st.sampled_from([True, True, True, False]), min_size=T, max_size=T))
    w = draw(st.lists(st.sampled_from([1.0, 1.0, 0.5, 0.0]), min_size=T, max_size=T))
    if fresh:  # a new key at every admission: p is extended so each has a utility
        p = p + draw(st.lists(st.sampled_from([0.0, 0.2, 0.6, 1.0]), min_size=T, max_size=T))
        keys = list(range(n, n + T))
    else:
        keys = draw(st.lists(st.integers(0, n - 1), min_size=T, max_size=T))
    return np.array(p), K, keys, admit, w


def _admitted(keys, admit):
    return np.array([k if a else -1 for k, a in zip(keys, admit)], np.int64)


@given(admissions(fresh=True))
def test_greedy_comparator_is_optimal_on_fresh_admissions(case):
    p, K, keys, admit, w = case
    adm, evi = greedy_comparator(_admitted(keys, admit), p, K)
    assert direct_cost(adm, evi, w, p) == pytest.approx(brute_best(keys, admit, w, p, K),
                                                        abs=1e-12)


@given(admissions(fresh=False))
def test_exact_comparator_matches_brute_force_and_greedy_is_feasible(case):
    p, K, keys, admit, w = case
    best = brute_best(keys, admit, w, p, K)
    adm, evi = exact_comparator(_admitted(keys, admit), p, np.array(w), K)
    assert direct_cost(adm, evi, w, p) == pytest.approx(best, abs=1e-12)
    g_adm, g_evi = greedy_comparator(_admitted(keys, admit), p, K)
    assert direct_cost(g_adm, g_evi, w, p) >= best - 1e-12
    # and the engine-style reconstruction scores schedules like the direct sum
    tr = tiny_trace(keys, w)
    none = np.full(len(keys), -1)
    assert expected_miss(tr, p, adm, evi, none).sum() == pytest.approx(
        direct_cost(adm, evi, w, p), abs=1e-12)


def test_greedy_is_not_optimal_when_a_held_key_is_readmitted():
    # a, b, c, x, c: greedy evicts a then b and keeps c, so c's re-admission is a no-op;
    # evicting c for x instead gets c back for free later while keeping a (documented).
    p = np.array([0.5, 0.6, 0.9, 0.0])
    keys = [0, 1, 2, 3, 2] + [2] * 10
    admit = [True] * 5 + [False] * 10
    w = [1.0] * 15
    adm, evi = greedy_comparator(_admitted(keys, admit), p, 2)
    greedy, best = direct_cost(adm, evi, w, p), brute_best(keys, admit, w, p, 2)
    assert greedy > best + 0.05


def _stationary_run(policy, seed=3, K=3, steps=300):
    tr = get("stationary").generate({**SMALL, "steps": steps}, seed)
    return tr, run(tr, policy, capacity=K, top_k=K, seed=seed)


@pytest.mark.parametrize("policy", ["fifo", "lru", "solar", "solar_e"])
def test_rebuilt_cache_sets_pay_the_engines_losses(policy):
    tr, r = _stationary_run(policy)
    reg = eviction_regret(tr, r)
    np.testing.assert_array_equal(reg.policy_realised, r.loss)


def test_comparator_against_itself_has_zero_regret():
    tr, r = _stationary_run("fifo")
    p = np.array(tr.meta["utilities"])
    adm, evi = greedy_comparator(r.admitted, p, 3)
    again = greedy_comparator(adm, p, 3)
    np.testing.assert_array_equal(again[0], adm)
    np.testing.assert_array_equal(again[1], evi)
    as_policy = dataclasses.replace(r, admitted=adm, evicted=evi,
                                    deleted=np.full(tr.steps, -1, np.int64))
    reg = eviction_regret(tr, as_policy)
    assert all(reg.pseudo(T) == 0.0 and reg.realised(T) == 0.0 for T in (1, 50, tr.steps))


def test_comparators_and_fixed_set_are_ordered():
    # best comparator <= greedy, and S*_T beats every comparator at every step
    tr, r = _stationary_run("solar", steps=200)
    greedy, exact = eviction_regret(tr, r), eviction_regret(tr, r, "exact")
    for T in (20, 100, 200):
        assert exact.pseudo(T) >= greedy.pseudo(T) - 1e-9
        assert exact.fixed_set(T) >= exact.pseudo(T) - 1e-9
        assert greedy.fixed_set(T) == pytest.approx(exact.fixed_set(T))


def test_regret_refuses_runs_outside_its_model():
    tr, _ = _stationary_run("fifo")
    with pytest.raises(InputError, match="top_k >= capacity"):
        eviction_regret(tr, run(tr, "fifo", capacity=3, top_k=2))
    with pytest.raises(InputError, match="comparator"):
        eviction_regret(tr, run(tr, "fifo", capacity=3, top_k=3), comparator="best")
    cyc = get("cycling").generate({"topics": 3, "steps": 20, "dim": 8}, 0)
    with pytest.raises(InputError, match="evidence only"):
        eviction_regret(cyc, run(cyc, "fifo", capacity=2, top_k=2))


def test_fifo_slope_is_near_one_and_the_guard_passes():
    c = regret_curve("fifo", horizons=(100, 200, 400, 800), seeds=(0, 1, 2), capacity=2,
                     params=SMALL, resamples=200)
    assert c.valid and abs(c.slope - 1.0) < 0.1 and c.guard["slope"] == c.slope
    assert c.trace_reuse == "per_horizon"  # stationary is not prefix-stable (documented)
    json.dumps(c.to_dict(), allow_nan=False)


def test_too_short_horizons_make_the_experiment_invalid():
    # still in the first block of arrivals: FIFO's regret is superlinear there
    c = regret_curve("solar_e", horizons=(8, 16, 32), seeds=(0, 1, 2), capacity=2,
                     params=SMALL, resamples=100)
    assert not c.valid and "experiment invalid" in c.reason
    assert abs(c.guard["slope"] - 1.0) > 0.15


def test_bootstrap_ci_is_deterministic_and_covers_the_estimate():
    kw = dict(horizons=(100, 200, 400), seeds=(0, 1, 2, 3), capacity=2, params=SMALL,
              resamples=300, boot_seed=7)
    a, b = regret_curve("solar", **kw), regret_curve("solar", **kw)
    assert a.ci == b.ci and a.ci_resamples == 300
    assert a.ci[0] <= a.slope <= a.ci[1]
    per_seed = np.array(a.per_seed)
    assert bootstrap_slope(a.horizons, per_seed, 300, seed=7)[:2] == a.ci
    assert bootstrap_slope(a.horizons, per_seed, 300, seed=8)[:2] != a.ci


@example(2.0)
@given(st.floats(0.2, 3.0))
def test_fit_slope_recovers_a_power_law(alpha):
    T = np.array([10, 20, 40, 80])
    assert fit_slope(T, 3.0 * T**alpha) == pytest.approx(alpha)
    assert np.isnan(fit_slope(T, [1.0, 0.0, 2.0, 3.0]))
    low, high, n = bootstrap_slope(T, np.vstack([3.0 * T**alpha] * 3), 20)
    assert low == pytest.approx(alpha) and high == pytest.approx(alpha) and n == 20
