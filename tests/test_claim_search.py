"""A claim's search (``theory.Claim(search=theory.search.Budget(...))``): the worst-case
search runs beside the claim's family, and what it finds is judged by the same rules, so
a statement the family cannot break, or witness, is broken or witnessed by the search,
with a replayable instance and a basis naming the search."""

import pytest

import theory
from simulator.errors import InputError
from theory import bounds, families
from theory.claims.verdicts import (EXHAUSTIVE, GROWTH, HOLDS, NOT_REFUTED, SEARCH,
                                    VIOLATED, WITNESS)
from theory.search import Budget

BUDGET = Budget(evaluations=100, seed=1)


@pytest.fixture(scope="module")
def tiny():
    """Every paging sequence of length ≤ 3 over 3 pages, K = 2: too short for LRU's ratio
    to pass 1.5 (it needs a miss OPT avoids, then enough requests to show it)."""
    return families.exhaustive("paging", length=3, pages=3, capacity=2)


def claim(id, bound, instances, search=BUDGET, policy="lru"):
    return theory.Claim(id=id, statement=f"{id}: a statement", policy=policy, bound=bound,
                        instances=instances, search=search)


def test_a_false_upper_bound_the_family_meets_is_broken_by_the_search(tiny, tmp_path):
    alone = theory.check(claim("lru-15", bounds.ratio_at_most(1.5), tiny, search=None),
                         out_dir=str(tmp_path))
    assert alone.verdict == HOLDS and alone.basis["kind"] == EXHAUSTIVE
    r = theory.check(claim("lru-15", bounds.ratio_at_most(1.5), tiny), out_dir=str(tmp_path))
    assert r.verdict == VIOLATED and r.basis["kind"] == SEARCH
    scope = r.basis["scope"]
    assert "anneal" in scope and "100 evaluations" in scope and "seed 1" in scope
    shrunk = r.measured["shrunk"]
    assert shrunk["cost"] > 1.5 * shrunk["opt_upper"]  # exact OPT: Belady
    assert shrunk["opt_lower"] == shrunk["opt_upper"]
    assert r.measured["family"]["verdict"] == HOLDS  # the family's own verdict beside it
    assert any("--policy belady" in line for line in r.instance["reproduce"])
    assert r.instance["steps"] > 3  # found outside the enumerated range


def test_a_true_upper_bound_stays_as_its_family_left_it(tiny, tmp_path):
    r = theory.check(claim("lru-k", bounds.ratio_at_most(2), tiny), out_dir=str(tmp_path))
    # the enumeration still decides; the search found nothing to break it
    assert r.verdict == HOLDS and r.basis["kind"] == EXHAUSTIVE
    assert r.measured["search"]["verdict"] == NOT_REFUTED
    assert r.measured["search"]["basis"]["kind"] == SEARCH


def test_an_existential_without_a_witness_in_its_family_gets_one(tiny, tmp_path):
    alone = theory.check(claim("lru-reach", bounds.ratio_reaches(1.7), tiny, search=None),
                         out_dir=str(tmp_path))
    assert alone.verdict == VIOLATED  # none over the enumerated range
    r = theory.check(claim("lru-reach", bounds.ratio_reaches(1.7), tiny),
                     out_dir=str(tmp_path))
    assert r.verdict == HOLDS and r.basis["kind"] == WITNESS
    witness = r.measured["witness"]
    assert witness["cost"] >= 1.7 * witness["opt_upper"]
    assert witness["opt_lower"] == witness["opt_upper"]


def test_an_additive_form_is_judged_along_the_grown_family(tiny, tmp_path):
    scaled = [i.__class__(i.trace, i.options, {"scale": float(i.steps)}) for i in tiny]
    r = theory.check(claim("lru-1", bounds.competitive_at_most(1.0), scaled),
                     out_dir=str(tmp_path))
    assert r.verdict == VIOLATED and r.basis["kind"] == GROWTH
    assert "grown along its scale" in r.basis["scope"]
    true = theory.check(claim("lru-2", bounds.competitive_at_most(2.0), scaled),
                        out_dir=str(tmp_path))
    assert true.verdict != VIOLATED
    assert true.measured["search"]["verdict"] != VIOLATED


def test_same_seed_same_verdict(tiny, tmp_path):
    a, b = (theory.check(claim("again", bounds.ratio_at_most(1.5), tiny),
                         out_dir=str(tmp_path / n)) for n in "ab")
    assert a.measured["shrunk"] == b.measured["shrunk"] and a.evidence == b.evidence


@pytest.mark.parametrize("make, says", [
    (lambda f: claim("x", bounds.ratio_at_most(2), f, search=100), "theory.search.Budget"),
    (lambda f: claim("x", bounds.predicate(lambda r, o, i: True, "p"), f),
     "no search can score"),
    (lambda f: claim("x", bounds.ratio_at_most(2), f, policy=["lru", "fifo"]),
     "one policy"),
    (lambda f: Budget(evaluations=0), "evaluations must be an integer >= 1"),
    (lambda f: Budget(engine="magic"), "engine must be one of"),
])
def test_a_bad_search_is_one_line_naming_it(tiny, make, says):
    with pytest.raises(InputError, match=says):
        make(tiny)


def test_theorem_5_4s_sub_ranges_get_the_searchs_instances():
    from theory.claims import solar_cr3

    found = solar_cr3.searched(quick=True)
    said = [solar_cr3.evaluate(i.trace, i.options) for i in found]
    assert [(e["capacity"], e["top_k"], e["switch_cost"]) for e in said] == \
        list(solar_cr3.SEARCHED)
    # the search keeps inside D5.3 as the paper words it, and breaks the theorem there
    assert all(e["d53_paper"] for e in said if e["ratio"] > 1)
    assert max(e["ratio"] for e in said if e["d53_paper"]) > 3


def test_the_paging_claims_search_beyond_their_exhaustive_range(tmp_path):
    from theory.claims import paging_search

    found = [theory.check(c, out_dir=str(tmp_path))
             for c in paging_search.searched(True, ("lru", "fifo"))]
    # the search's instances are longer than the enumerated ones, and none breaks K·Belady
    assert all(r.measured["search"]["verdict"] == NOT_REFUTED for r in found)
    assert all(row["steps"] > 3 for r in found
               for row in r.measured["search"]["measured"]["rows"])
    part = paging_search.searched_part(found, True, "LRU and FIFO")
    assert part["verdict"] == NOT_REFUTED and part["basis"]["kind"] == SEARCH
    assert "150 evaluations" in part["basis"]["scope"]
    # a false bound at the same budget is broken by the search, and the part says so
    false = [theory.Claim(id="half", statement="s", policy="lru",
                          bound=bounds.ratio_at_most(1.2), instances=c.instances,
                          search=c.search) for c in paging_search.searched(True, ("lru",))]
    broken = paging_search.searched_part([theory.check(c, out_dir=str(tmp_path))
                                          for c in false], True, "LRU")
    assert broken["verdict"] == VIOLATED and broken["instance"]["reproduce"]
