"""The claim kit (theory.Claim, theory.check, theory.bounds, theory.families, theory.shrink):
verdicts by the rules of docs/claims.md, shrinking, sub-ranges and the replay commands."""

import numpy as np
import pytest
from hypothesis import strategies as st

import theory
from simulator.errors import InputError
from simulator.instance import Instance
from simulator.trace import PagingTrace, Trace
from theory import bounds, families
from theory.kit.shrink import drop_steps, shrink

CYCLING = dict(topics=lambda K: K + 1, items_per_topic=1, dim=8)


def test_ratio_bounds_decide_only_what_opts_bounds_allow():
    b = bounds.ratio_at_most(2, additive=1)
    assert b.judge_costs(cost=9.0, lower=4.0, upper=4.0)[0] == "ok"  # 9 <= 2*4 + 1
    assert b.judge_costs(cost=9.5, lower=4.0, upper=4.0)[0] == "broken"
    # OPT in [3, 5]: 9.5 clears 2*5 + 1 = 11 but not 2*3 + 1 = 7, so nothing is decided
    assert b.judge_costs(cost=9.5, lower=3.0, upper=5.0)[0] == "undecided"
    assert b.judge_costs(cost=6.5, lower=3.0, upper=5.0)[0] == "ok"
    with pytest.raises(ValueError, match="c must be"):
        bounds.ratio_at_most(0)


def test_a_grid_takes_parameters_that_depend_on_k():
    fam = families.grid("cycling", params=CYCLING, capacity=[1, 3], top_k=[1], steps=[8],
                        switch_cost=[0.0, 1.0])
    assert len(fam) == 4 and fam.kind == "search"
    assert {(i.options["capacity"], i.labels["params"]["topics"]) for i in fam} == \
        {(1, 2), (3, 4)}


def test_a_sample_of_a_strategy_is_reproducible():
    strategy = st.builds(lambda n: Instance(PagingTrace.from_requests(np.arange(n) % 3),
                                            {"capacity": 2}), st.integers(3, 30))
    a, b = families.sample(strategy, 10, seed=4), families.sample(strategy, 10, seed=4)
    assert [i.steps for i in a] == [i.steps for i in b] and len(a) == 10


def test_dropping_steps_keeps_keys_and_evidence_consistent():
    x = np.eye(3, dtype=np.float32)
    trace = Trace.from_arrays(queries=x[[0, 1, 2, 0]], items=x[[0, 1, 2, 0]],
                              item_keys=[0, 1, 2, 0], evidence_indptr=[0, 1, 2, 4, 5],
                              evidence_indices=[0, 1, 1, 2, 0])
    small = drop_steps(trace, [0, 2, 3])  # drop step 1: key 1 goes, and evidence naming it
    assert small.item_keys.tolist() == [0, 1, 0]
    spans = [small.evidence_indices[small.evidence_indptr[t]:small.evidence_indptr[t + 1]]
             .tolist() for t in range(3)]
    assert spans == [[0], [1], [0]]


def test_shrink_finds_a_smallest_breaking_instance():
    inst = Instance(PagingTrace.from_requests(np.array([5, 1, 5, 2, 5, 3, 4])),
                    {"capacity": 2})
    small = shrink(inst, lambda i: len(set(i.trace.object_ids.tolist())) >= 3)
    assert small.steps == 3 and len(set(small.trace.object_ids.tolist())) == 3


def test_a_false_claim_is_violated_with_a_shrunk_replayable_instance(tmp_path):
    claim = theory.Claim(id="fifo-1.2", statement="FIFO is 1.2-competitive on cycling",
                         policy="fifo", bound=bounds.ratio_at_most(1.2),
                         instances=families.grid("cycling", params=CYCLING, capacity=[1, 2],
                                                 top_k=[1], steps=[12, 24]),
                         subranges={"K = 1": lambda i: i.options["capacity"] == 1,
                                    "K = 2": lambda i: i.options["capacity"] == 2})
    r = theory.check(claim, out_dir=str(tmp_path))
    assert r.verdict == "violated" and r.basis["kind"] == "search"
    assert r.instance["steps"] < 12 and len(r.instance["reproduce"]) == 2
    assert [p["verdict"] for p in r.subranges] == ["violated", "violated"]
    shrunk = r.measured["shrunk"]
    assert shrunk["cost"] > 1.2 * shrunk["opt_upper"]


def test_a_true_claim_is_not_refuted_on_a_search_and_holds_when_declared_exhaustive(tmp_path):
    fam = families.grid("cycling", params=CYCLING, capacity=[2], top_k=[2], steps=[6])
    claim = theory.Claim(id="n", statement="FIFO changes its cache at most T times",
                         policy="fifo", instances=fam,
                         bound=bounds.modifications_at_most(lambda T: T))
    assert theory.check(claim, out_dir=str(tmp_path)).verdict == "not refuted"
    every = families.Family(fam.instances, "every instance of this one-point range",
                            kind="exhaustive")
    r = theory.check(theory.Claim(id="n2", statement="s", policy="fifo", instances=every,
                                  bound=claim.bound), out_dir=str(tmp_path))
    # a family declared exhaustive by hand is its author's word (basis "declared");
    # tests/test_exhaustive.py holds an enumeration to "exhaustive"
    assert r.verdict == "holds" and r.basis["kind"] == "declared"
    assert r.basis["scope"].startswith("declared exhaustive by the claim's author:")


def test_undecided_instances_make_the_claim_inconclusive(tmp_path):
    fam = families.grid("cycling", params=CYCLING, capacity=[1], top_k=[1], steps=[6])
    undecided = bounds.Bound("OPT straddles it", lambda run, opt, inst: ("undecided", {}))
    claim = theory.Claim(id="u", statement="s", policy="fifo", instances=fam, bound=undecided)
    r = theory.check(claim, out_dir=str(tmp_path))
    assert r.verdict == "inconclusive" and "time_limit" in r.would_decide


def test_a_claim_needs_a_bound_of_the_kit():
    with pytest.raises(InputError, match="claim 'x': bound must be"):
        theory.Claim(id="x", statement="s", policy="fifo", instances=[], bound=3)


def test_a_regret_bound_on_stationary_utilities(tmp_path):
    # FIFO's eviction regret grows linearly: R_T <= sqrt(T) breaks, R_T <= T does not
    fam = families.grid("stationary", params={"items": 8, "dim": 4}, capacity=[2],
                        top_k=[2], steps=[400])
    tight = theory.Claim(id="r1", statement="s", policy="fifo", instances=fam,
                         bound=bounds.regret_at_most(lambda K, T: T ** 0.5))
    loose = theory.Claim(id="r2", statement="s", policy="fifo", instances=fam,
                         bound=bounds.regret_at_most(lambda K, T: T))
    assert theory.check(tight, out_dir=str(tmp_path)).verdict == "violated"
    assert theory.check(loose, out_dir=str(tmp_path)).verdict == "not refuted"


def test_a_claim_with_its_own_evidence_is_checked_by_its_hook(tmp_path):
    """theory.check of a claim that gives evidence(quick, out_dir) runs the hook, and the
    result's verdict is held to its basis as every other verdict is."""
    from theory.claims.verdicts import NOT_REFUTED, SEARCH, basis, verdict

    said = []

    def evidence(quick, out_dir):
        said.append((quick, out_dir))
        return dict(verdict(NOT_REFUTED, basis(SEARCH, "one run"), "nothing broke"),
                    measured={"runs": 1})

    claim = theory.Claim(id="own", statement="s", evidence=evidence)
    result = theory.check(claim, out_dir=str(tmp_path), quick=True)
    assert (result.verdict, result.basis["kind"], said) == (NOT_REFUTED, SEARCH,
                                                           [(True, str(tmp_path))])

    def overclaims(quick, out_dir):
        return dict(verdict="holds", basis=basis(SEARCH, "one run"), evidence="e",
                    measured={})

    with pytest.raises(ValueError, match="search cannot give 'holds'"):
        theory.check(theory.Claim(id="over", statement="s", evidence=overclaims),
                     out_dir=str(tmp_path))
