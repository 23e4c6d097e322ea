"""The pieces behind the claims' readings and sub-ranges (docs/claims.md).

Theorem 5.5's construction and both comparators, the stylized eviction model of Theorems
5.6 and 5.7, Definition 5.3's single-item influence, and the sub-range verdicts.
"""

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from simulator.trace import Trace
from theory.claims.base import HOLDS, INCONCLUSIVE, NOT_REFUTED, VIOLATED, by_subrange
from theory.claims.fifo_regret_construction import measure
from theory.claims.verdicts import EXHAUSTIVE, SEARCH, basis
from theory.eviction_bandit import POLICIES, regret_curve


@pytest.mark.parametrize("K, cycles", [(1, 5), (2, 7), (4, 3)])
def test_the_papers_comparator_gives_the_papers_regret_exactly(K, cycles):
    # m = K + 1: FIFO misses every step, the comparator the fill and one step per cycle
    r = measure(K, K + 1, 1, cycles)
    assert r["fifo_misses"] == r["steps"]
    assert r["regret_evict_arrival"] == pytest.approx(r["paper_formula"], abs=1e-9)


def test_with_forced_admission_and_one_slot_fifo_is_the_only_policy():
    # K = 1: the comparator must hold the latest arrival, exactly as FIFO does
    for cycles in (1, 4, 16):
        assert measure(1, 2, 1, cycles)["regret_keep_arrival"] == 0.0
    assert measure(2, 3, 1, 16)["regret_keep_arrival"] > 0


@given(st.lists(st.floats(0, 1), min_size=2, max_size=6), st.sampled_from(POLICIES),
       st.integers(0, 3))
@example([0.5, 0.5], "ts", 0)
def test_a_steps_regret_is_bounded_by_the_best_and_worst_caches(mu, policy, seed):
    K = max(1, len(mu) // 2)
    r = regret_curve(mu, K, 50, policy, seed)
    best = np.sort(mu)[-K:].sum() - np.sort(mu)[:K].sum()  # largest possible step regret
    assert np.all(np.abs(np.diff(np.r_[0.0, r])) <= best + 1e-12)


def test_kept_posteriors_learn_and_restarted_ones_do_not():
    # the headline and the proof's device of Theorem 5.6 differ: a run tells them apart
    mu = np.random.default_rng(56).uniform(0.05, 0.6, 6)
    kept = np.mean([regret_curve(mu, 3, 4000, "ts", s)[-1] for s in range(3)])
    restart = np.mean([regret_curve(mu, 3, 4000, "ts_restart", s)[-1] for s in range(3)])
    assert kept < 0.25 * restart


def test_subranges_report_each_part_and_its_instance():
    rows = [dict(K=1, steps=5, ok=True), dict(K=2, steps=9, ok=False),
            dict(K=2, steps=4, ok=False)]
    ranges = {"K = 1": lambda r: r["K"] == 1, "K ≥ 2": lambda r: r["K"] >= 2,
              "K ≥ 9": lambda r: r["K"] >= 9}
    parts = by_subrange(rows, ranges, lambda r: r["ok"], lambda r: {"trace": f"T{r['steps']}"},
                        basis(EXHAUSTIVE, "every row"))
    assert [p["verdict"] for p in parts] == [HOLDS, VIOLATED, INCONCLUSIVE]
    assert parts[1]["instance"] == {"trace": "T4"}  # the smallest failing run
    assert parts[2]["would_decide"]
    # the same rows found by a search: a part where nothing broke is not refuted
    parts = by_subrange(rows, ranges, lambda r: r["ok"], lambda r: {"trace": "x"},
                        basis(SEARCH, "three random rows"))
    assert [p["verdict"] for p in parts] == [NOT_REFUTED, VIOLATED, INCONCLUSIVE]
    assert all(p["basis"]["kind"] == "search" for p in parts)


def test_single_item_influence_is_one_over_k_under_precision():
    from theory.claims.solar_cr3 import influence
    from theory.claims.tiny import optimal_schedules

    x = np.eye(3, dtype=np.float32)
    trace = Trace.from_arrays(queries=x[[0, 1, 2, 0]], items=x[[0, 1, 2, 0]],
                              query_topics=[0, 1, 2, 0], item_topics=[0, 1, 2, 0])
    for quality, k, expected in (("precision", 2, 0.5), ("hit", 2, 1.0), ("hit", 1, 1.0)):
        _, _, step_loss = optimal_schedules(trace, 2, k, 1.0, quality)
        assert influence(trace, 2, step_loss) == pytest.approx(expected)
