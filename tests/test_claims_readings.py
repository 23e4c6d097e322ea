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


@pytest.mark.parametrize("lam", [0.05, 0.25, 2.0])
def test_the_p_phase_family_breaks_the_additive_form_by_0999_a_phase(lam, tmp_path):
    import theory

    # each phase costs SOLAR (2λ − 0.001) + 1 + λ and OPT λ: no constant b absorbs it
    from theory.claims import cr3_additive

    rows = cr3_additive.measure((1, 2, 3, 5, 8), lam)
    assert all(r["opt_exact"] for r in rows)
    for r in rows:
        assert r["cost"] - 3 * r["opt"] == pytest.approx(0.999 * r["scale"], abs=1e-9)
    # judged by the kit: the excess grows; the corrected bound keeps 0.001 a phase to spare
    family = theory.families.Family(tuple(r["instance"] for r in rows), "P = 1…8")
    for c, said in ((3.0, VIOLATED), (3 + 1 / lam, NOT_REFUTED)):
        found = theory.check(theory.Claim(
            id="p-phase", statement="s", policy="solar", params={"tau": 2 * lam},
            instances=family, bound=theory.bounds.competitive_at_most(c)),
            out_dir=str(tmp_path))
        assert (found.verdict, found.basis["kind"]) == (said, "growth")


def test_a_ratio_against_the_relaxed_opt_is_worded_as_an_upper_bound():
    from theory.claims.solar_cr3 import unconditional_text

    relaxed = unconditional_text([dict(family="missing_topic adversary", ratio=30.0,
                                       ratio_exact=False),
                                  dict(family="cycling m=K+1", ratio=4.0, ratio_exact=True)])
    assert "at most 30.0" in relaxed and "upper bound" in relaxed and "reaches" not in relaxed
    exact = unconditional_text([dict(family="cycling m=K+1", ratio=4.0, ratio_exact=True)])
    assert "reaches 4.0" in exact


def test_theorem_54_shrinks_with_the_kits_shrinker_keeping_unscored_steps():
    # the last step is unscored: SOLAR's gate still sees its miss and pays λ to admit,
    # OPT pays nothing.  A shrinker that rebuilt the trace without the scored flags would
    # count that miss for both and find nothing to shrink to (ratio 2)
    from simulator.instance import Instance
    from theory.claims.solar_cr3 import evaluate, shrink_breaking

    x = np.eye(3, dtype=np.float32)
    trace = Trace.from_arrays(queries=x[[2, 0, 0, 2]], items=x[[2, 0, 0, 2]],
                              query_topics=[2, 0, 0, 2], item_topics=[2, 0, 0, 2],
                              weights=[0.0, 0.0, 1.0, 1.0], scored=[True, True, True, False])
    inst = Instance(trace, dict(capacity=1, top_k=1, switch_cost=0.05, quality="hit"))
    assert evaluate(inst.trace, inst.options)["ratio"] > 3
    small = shrink_breaking(inst)
    assert small.steps == 1 and small.trace.scored.tolist() == [False]
    found = evaluate(small.trace, small.options)
    assert found["d53_paper"] and found["ratio"] > 3
