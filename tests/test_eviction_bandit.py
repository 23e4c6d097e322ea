"""The stylized eviction model against a plain-Python twin and brute-force comparators.

The twin replays every policy step by step with the SplitMix64 twin of ``simulator.rng``;
the comparators are checked against every feasible schedule of tiny instances, at every
horizon, for both classes (forced: the arrival is admitted; optional: it may leave).
"""

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from simulator.testing import SplitMix64
from theory.eviction_bandit import (_ARRIVALS, _DRAWS, FORCED, POLICIES, arrivals,
                                    best_rewards, regret_curve, rewards)


def naive_arrivals(pool, steps, seed):
    s = SplitMix64(seed, _ARRIVALS)
    return [int(s.uniform() * pool) for _ in range(steps)]


def naive_rewards(mu, K, steps, policy, seed):
    """One run, as the module docstring states it."""
    seq = naive_arrivals(len(mu), steps, seed)
    draw = SplitMix64(seed, _DRAWS)
    cache, since = list(range(K)), [0] * K
    a, b = [1.0] * len(mu), [1.0] * len(mu)
    out = []
    for t, x in enumerate(seq):
        out.append(sum(mu[i] for i in cache))
        for i in cache:
            if draw.uniform() < mu[i]:
                a[i] += 1
            else:
                b[i] += 1
        if x in cache:
            continue
        cands = cache if policy in FORCED else cache + [x]
        if policy in ("ts", "ts_restart"):
            score = [draw.beta(a[i], b[i]) for i in cands]
        elif policy == "greedy":
            score = [(a[i] - 0.5) / (a[i] + b[i] - 1) for i in cands]
        elif policy == "fifo":
            score = since + ([t] if len(cands) > K else [])
        elif policy == "uniform":
            score = [draw.uniform() for _ in cands]
        else:
            score = [mu[i] for i in cands]
        v = min(range(len(cands)), key=lambda c: (score[c], c))
        if v == K:
            continue
        cache[v], since[v] = x, t
        if policy == "ts_restart":
            a[x] = b[x] = 1.0
    return np.array(out)


def brute_best(mu, K, seq, forced):
    """The best cumulative reward per horizon over every feasible schedule."""
    layer = {tuple(range(K)): 0.0}
    best = []
    for x in seq:
        layer = {S: v + sum(mu[i] for i in S) for S, v in layer.items()}
        best.append(max(layer.values()))
        nxt = {}
        for S, v in layer.items():
            if x in S:
                options = [S]  # a re-arrival changes nothing
            else:
                options = [tuple(sorted(set(S) - {i} | {x})) for i in S]
                options += [] if forced else [S]  # optional: the arrival may leave
            for S2 in options:
                nxt[S2] = max(nxt.get(S2, -1.0), v)
        layer = nxt
    return np.array(best)


def test_arrivals_follow_the_stream_twin():
    assert arrivals(7, 50, 3).tolist() == naive_arrivals(7, 50, 3)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("K, seed", [(1, 0), (2, 5), (3, 11)])
def test_every_policy_equals_its_twin(policy, K, seed):
    mu = [0.7, 0.2, 0.55, 0.1, 0.4]
    assert np.array_equal(rewards(mu, K, 120, policy, seed),
                          naive_rewards(mu, K, 120, policy, seed))


@given(st.lists(st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.8, 1.0]), min_size=3, max_size=5),
       st.integers(1, 3), st.lists(st.integers(0, 4), min_size=1, max_size=8),
       st.booleans())
@example([0.5, 0.5, 0.2], 2, [2, 0, 2, 1], True)  # a re-arrival of a cached item
def test_comparators_are_the_best_schedule_at_every_horizon(mu, K, seq, forced):
    K = min(K, len(mu) - 1)
    seq = [x % len(mu) for x in seq]
    np.testing.assert_allclose(best_rewards(mu, K, seq, forced),
                               brute_best(mu, K, seq, forced), atol=1e-12)


def test_regret_is_measured_against_the_policys_own_class():
    mu = [0.6, 0.5, 0.45, 0.3, 0.1, 0.05]
    seq = arrivals(6, 400, 2)
    for policy in ("ts_restart", "ts"):
        forced = policy in FORCED
        expected = best_rewards(mu, 3, seq, forced) - np.cumsum(rewards(mu, 3, 400, policy, 2))
        assert np.array_equal(regret_curve(mu, 3, 400, policy, 2), expected)
        assert regret_curve(mu, 3, 400, policy, 2).min() >= -1e-9


@pytest.mark.parametrize("policy", FORCED)
def test_one_slot_and_forced_admission_leave_no_choice(policy):
    # K = 1: the single cached item is the only victim, so every policy is the comparator
    assert not regret_curve([0.5, 0.2, 0.9], 1, 300, policy, 4).any()


def test_the_forced_comparator_knows_the_arrival_order():
    # told μ, the oracle still loses to the schedule that evicts whichever good item
    # arrives next: its regret grows linearly (docs/claims.md, Theorem 5.6)
    mu = [0.5] * 4 + [0.3]
    r = np.mean([regret_curve(mu, 4, 4000, "oracle", s) for s in range(4)], axis=0)
    assert r[3999] > 3.0 * r[999] > 0


def test_a_run_is_a_pure_function_of_its_inputs_and_prefix_stable():
    mu = [0.6, 0.5, 0.4, 0.1]
    a = regret_curve(mu, 2, 300, "ts", 3)
    assert np.array_equal(a, regret_curve(mu, 2, 300, "ts", 3))
    assert np.array_equal(a[:100], regret_curve(mu, 2, 100, "ts", 3))


def test_bad_arguments_say_which():
    with pytest.raises(ValueError, match="capacity"):
        regret_curve([0.5, 0.5], 2, 10, "ts", 0)
    with pytest.raises(ValueError, match="policy"):
        regret_curve([0.5, 0.5], 1, 10, "lfu", 0)
    with pytest.raises(ValueError, match="utilities"):
        regret_curve([0.5, 1.5], 1, 10, "ts", 0)


def test_state_count_is_bounded():
    with pytest.raises(ValueError, match="caches"):
        best_rewards([0.5] * 40, 20, [0, 1], True)
