"""The worst-case search (theory.search, docs/search.md): the targets it must reach without
being given their family, certified scores, the growth rule, determinism and its inputs.

Budgets are small and seeds fixed; the larger versions, against random search, are the
``search-…`` rows of ``semcache bench``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from simulator.errors import InputError
from simulator.instance import Instance
from simulator.runner import run
from simulator.trace import PagingTrace
from theory.claims.solar_cr3 import evaluate
from theory.opt import opt
from theory.search import Space, worst_case
from theory.search.engines import enumerate_below
from theory.search.grow import grow, growth, repeated
from theory.search.scores import Evaluator

LAM = 0.5
SOLAR = dict(policy="solar", mode="semantic", capacity=1, top_k=1, switch_cost=LAM,
             params={"tau": 2 * LAM})


def misses(trace, policy, K):
    s = run(trace, policy, capacity=K).summary()
    return s["steps"] - s["hits"]


@pytest.mark.parametrize("policy,K", list(itertools.product(("lru", "fifo"), (2, 3, 4, 5))))
def test_lru_and_fifo_grow_to_K(policy, K):
    found = worst_case(policy, capacity=K, budget=200, seed=0)
    grown = found.grown
    assert grown["verdict"] == "bounded"
    assert max(grown["scores"]) >= 0.95 * K
    assert grown["limit"] == pytest.approx(K, rel=0.03)
    assert all(s <= K + 1e-9 for s in grown["scores"])  # Sleator-Tarjan: never above K


def test_lfu_ratio_grows_without_bound():
    grown = worst_case("lfu", capacity=2, budget=300, seed=0).grown
    assert grown["verdict"] == "grows"
    assert grown["scores"][-1] > 10 * grown["scores"][0]


def test_a_definition_5_3_instance_with_ratio_above_3():
    from theory.claims.solar_cr3 import d53_ratio

    found = worst_case(**SOLAR, score=d53_ratio, budget=150, seed=0, grow=False,
                       max_steps=8)
    assert found.best["score"] > 3
    again = evaluate(found.instance.trace, dict(found.instance.options))
    assert again["d53_paper"] and again["ratio"] == pytest.approx(found.best["score"])


def test_cost_minus_3_opt_grows_on_K_1():
    found = worst_case(**SOLAR, score="excess", c=3, budget=200, seed=0)
    assert found.grown["verdict"] == "grows" and found.grown["scores"][-1] > 100


def test_the_known_phase_family_grows():
    """Two phases of the review's family (weights 2λ − 0.001 then 1, the last step bringing
    the next topic's item), grown: cost − 3·OPT rises by the same amount at every added
    pair of phases."""
    space = Space("semantic", 1, top_k=1, switch_cost=LAM)
    phase = lambda a, b: ((a, a, 2 * LAM - 0.001), (a, b, 1.0))  # noqa: E731
    g = ((-1, 0, 0.0),) + phase(0, 1) + phase(1, 0)
    evaluate_ = Evaluator(space, "solar", {"tau": 2 * LAM}, "excess", 3.0, 0)
    grown = grow(g, evaluate_)
    assert grown["verdict"] == "grows"
    r, s = grown["repeats"], grown["scores"]
    per_pair = [(s[i + 1] - s[i]) / (r[i + 1] - r[i]) for i in range(len(r) - 1)]
    assert per_pair[-1] > 0.9 and per_pair[-1] == pytest.approx(per_pair[-2], rel=1e-9)


def test_cost_minus_3_opt_grows_inside_definition_5_3():
    """An instance the search found (seed 0 of the bench row search-solar-d53-excess),
    grown: every grown instance satisfies Definition 5.3 (else it is not scored) and the
    excess doubles with r."""
    from theory.claims.solar_cr3 import d53_excess

    space = Space("semantic", 1, top_k=1, switch_cost=LAM)
    g = ((-1, 0, 0.0), (0, 0, 0.999), (0, 0, 1.0), (0, 1, 0.25), (1, 1, 0.999),
         (1, 1, 0.999))
    grown = grow(g, Evaluator(space, "solar", {"tau": 2 * LAM}, d53_excess, 0.0, 0), 48)
    assert grown["verdict"] == "grows" and grown["repeats"] == [1, 2, 4, 8]
    assert grown["scores"] == pytest.approx([1.997 * r for r in grown["repeats"]])


def test_the_growth_rule():
    r = [1, 2, 4, 8, 16, 32]
    assert growth(r, [np.log2(x) for x in r])["verdict"] == "grows"  # logarithmic
    assert growth(r, [np.sqrt(x) for x in r])["verdict"] == "grows"
    bounded = growth(r, [5 - 3 / x for x in r])
    assert bounded["verdict"] == "bounded" and bounded["limit"] == pytest.approx(5)
    assert growth(r, [2.0] * 6)["verdict"] == "bounded"
    assert growth(r, [6 - x / 8 for x in r])["verdict"] == "bounded"  # falling


def test_scores_are_certified_by_exact_costs():
    found = worst_case("lru", capacity=3, budget=100, seed=2, grow=False)
    trace = found.instance.trace
    assert found.best["score"] > 1.5  # a real worst case, where Belady and LRU differ
    assert found.best["cost"] == misses(trace, "lru", 3)
    assert found.best["opt"] == misses(trace, "belady", 3)
    semantic = worst_case(**SOLAR, score="excess", c=3, budget=60, seed=1, grow=False)
    inst = semantic.instance
    best = opt(inst.trace, 1, 1, LAM)
    assert best.exact and semantic.best["opt"] == pytest.approx(best.opt_cost)
    assert semantic.best["score"] == pytest.approx(semantic.best["cost"] - 3 * best.opt_cost)


@pytest.mark.parametrize("engine", ["anneal", "hypothesis", "random"])
def test_same_seed_same_result(engine):
    def result():
        d = worst_case("fifo", capacity=2, budget=60, seed=5, engine=engine).to_dict()
        return {k: v for k, v in d.items() if k not in ("evaluations_per_s", "seconds")}

    first = result()
    assert first == result() and first["evaluations"] == 60


def test_the_exhaustive_pass_enumerates_up_to_relabelling():
    space = Space("paging", 2)  # 3 pages
    every, scope = enumerate_below(space, 5)
    assert "up to relabelling" in scope

    def canonical(seq):
        names = {}
        return tuple(names.setdefault(p, len(names)) for p in seq)

    brute = {canonical(s) for n in range(1, 5) for s in itertools.product(range(3), repeat=n)}
    assert sorted(every) == sorted(brute) and len(every) == 1 + 2 + 5 + 14
    found = worst_case("lru", capacity=2, budget=20, exhaustive_below=5, grow=False)
    assert found.exhaustive["instances"] == 22
    semantic = Space("semantic", 1, topics=2, weights=(1.0,))
    steps, _ = enumerate_below(semantic, 2)  # one step: (query, item) up to relabelling
    assert sorted(steps) == [((-1, 0, 1.0),), ((0, 0, 1.0),), ((0, 1, 1.0),)]
    with pytest.raises(InputError, match="exhaustive_below"):
        enumerate_below(space, 30)


def test_a_policy_object_and_start_instances():
    from simulator import policies

    start = [Instance(PagingTrace.from_requests(np.array([5, 6, 7, 5, 6, 7])),
                      {"capacity": 2})]
    found = worst_case(policies.get("fifo"), capacity=2, budget=40, start=start, grow=False)
    assert found.policy == "fifo" and found.best["found"]["score"] >= 1.5  # 6 misses / 4


@pytest.mark.parametrize("kwargs,param", [
    (dict(policy="nope"), "policy"), (dict(policy="lru", capacity=0), "capacity"),
    (dict(policy="lru", score="excess"), "c"), (dict(policy="lru", budget=0), "budget"),
    (dict(policy="lru", engine="tabu"), "engine"), (dict(policy="lru", score="max"), "score"),
    (dict(policy="lru", params={"x": 1}), None), (dict(policy="lru", mode="graph"), "mode"),
    (dict(policy="lru", score=lambda run, opt, inst: "high"), "score"),
    (dict(policy="lru", switch_cost=0.5), "switch_cost"),
    (dict(policy="lru", mode="semantic", pages=3), "pages"),
    (dict(policy="lru", mode="semantic", top_k=1.5), "top_k")])
def test_bad_input_is_one_input_error(kwargs, param):
    kwargs = dict(dict(capacity=2, budget=5), **kwargs)
    with pytest.raises(InputError) as err:
        worst_case(**kwargs)
    assert "\n" not in str(err.value)
    if param is not None:
        assert err.value.param == param


def test_a_semantic_start_in_a_paging_search_is_refused():
    space = Space("paging", 2)
    semantic = Space("semantic", 1).instance(((0, 0, 1.0),))
    with pytest.raises(InputError, match="paging traces"):
        space.genotype(semantic)
    assert repeated((1, 2, 3), (1, 2), 3) == (1, 2, 2, 2, 3)


def test_progress_is_reported_and_theory_hands_on_the_search():
    import theory

    seen = []
    theory.search.worst_case("fifo", capacity=2, budget=100, progress=seen.append,
                             grow=False)
    assert seen and seen[-1]["budget"] == 100
    assert [r["evaluations"] for r in seen] == sorted(r["evaluations"] for r in seen)
    assert all(r["best"] is not None for r in seen)


def test_the_grown_family_is_a_scaled_family():
    found = worst_case("fifo", capacity=2, budget=100, seed=0)
    family = found.family
    assert [i.labels["scale"] for i in family] == found.grown["repeats"]
    assert [i.steps for i in family] == found.grown["steps"]
    last = family.instances[-1]
    ratio = misses(last.trace, "fifo", 2) / misses(last.trace, "belady", 2)
    assert ratio == pytest.approx(found.grown["scores"][-1])
