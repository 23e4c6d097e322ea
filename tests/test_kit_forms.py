"""Every form a theorist writes, judged by its own rules (docs/claims.md, "What a run may
conclude"): for every instance, for some instance, for every policy of a class, and a
growth bound's own conclusion; and a walk over every verdict record the kit gives, none
of which may contradict its quantifier."""

import itertools

import pytest

import theory
from simulator.errors import InputError
from theory import bounds, families
from theory.claims import verdicts
from theory.claims.verdicts import (CLOSED_FORM, CONSTRUCTION, DECLARED, EXHAUSTIVE, GROWTH,
                                    HOLDS, INCONCLUSIVE, NOT_FOUND, NOT_REFUTED, SEARCH,
                                    VIOLATED, WITNESS)

CYCLING = dict(items_per_topic=1, dim=8)


def cycling(topics, **grid) -> families.Family:
    """Tiny cycling traces over ``topics(K)`` topics (K + 1: FIFO misses every step; K:
    everything fits, so FIFO pays what OPT pays)."""
    return families.grid("cycling", params=dict(CYCLING, topics=topics), **grid)


@pytest.fixture(scope="module")
def fams():
    over = cycling(lambda K: K + 1, capacity=[1, 2], top_k=[1], steps=[4, 8])
    fits = cycling(lambda K: K, capacity=[1, 2], top_k=[1], steps=[4, 8])
    # ranges declared whole by hand (the author's word: basis "declared")
    return dict(over=over, fits=fits, mixed=fits + over,
                fits_all=families.Family(fits.instances, "every fitting cycling instance "
                                         "of this grid", kind="exhaustive"),
                over_all=families.Family(over.instances, "every over-full cycling instance "
                                         "of this grid", kind="exhaustive"),
                paging=families.exhaustive("paging", length=6, pages=3, capacity=[2],
                                           exact_length=True))


def claim(id, bound, instances, policy="fifo", **more):
    return theory.Claim(id=id, statement=f"{id}: a statement", policy=policy, bound=bound,
                        instances=instances, **more)


# --- for some instance -------------------------------------------------------------------

def test_the_issues_example_holds_with_the_smallest_witness(fams, tmp_path):
    # "FIFO's ratio reaches 1.1 on some cycling instance", over a family where 4 of the 8
    # instances reach it (the other 4 fit in the cache: cost = OPT)
    family = fams["mixed"]
    r = theory.check(claim("reach", bounds.ratio_reaches(1.1), family), out_dir=str(tmp_path))
    rows = r.measured["rows"]
    assert sum(x["status"] == "witness" for x in rows) == 4 == r.measured["witnesses"]
    assert r.verdict == HOLDS and r.basis["kind"] == WITNESS and r.form == "for some instance"
    witness = r.measured["witness"]
    assert witness["cost"] >= 1.1 * witness["opt_upper"] and witness["opt_lower"] == \
        witness["opt_upper"]  # exact OPT certifies it
    smallest = min(x["steps"] for x in rows if x["status"] == "witness")
    assert r.instance["steps"] == smallest
    assert any(line.startswith("semcache run") for line in r.instance["reproduce"])
    assert any(line.startswith("semcache opt") for line in r.instance["reproduce"])
    assert f"cost {witness['cost']:.4g}" in r.evidence
    # stated as "for every instance", the same numbers say something else: violated
    every = bounds.predicate(lambda run, opt, inst: run.summary()["cost"] >= 1.1 * opt.upper_bound,
                             "cost ≥ 1.1·OPT", needs_opt=True)
    assert theory.check(claim("reach-every", every, family),
                        out_dir=str(tmp_path)).verdict == VIOLATED


def test_no_witness_in_a_search_is_not_found_and_over_a_whole_range_violated(fams, tmp_path):
    found = theory.check(claim("far", bounds.ratio_reaches(1.1), fams["fits"]),
                         out_dir=str(tmp_path))
    assert found.verdict == NOT_FOUND and found.basis["kind"] == SEARCH
    assert "shrunk" not in found.measured and found.instance is None  # nothing broke
    whole = theory.check(claim("far-all", bounds.ratio_reaches(1.1), fams["fits_all"]),
                         out_dir=str(tmp_path))
    assert whole.verdict == VIOLATED and whole.basis["kind"] == DECLARED
    assert whole.instance["steps"] in {x["steps"] for x in whole.measured["rows"]}
    assert whole.measured["nearest"]["ratio_lower"] < 1.1


def test_an_existential_predicate_and_its_sub_ranges(fams, tmp_path):
    misses = bounds.predicate(lambda run, opt, inst: run.summary()["hits"] == 0,
                              "FIFO never hits", quantifier="some")
    r = theory.check(claim("cold", misses, fams["mixed"], subranges={
        "fits": lambda i: i.labels["params"]["topics"] == i.options["capacity"],
        "over": lambda i: i.labels["params"]["topics"] > i.options["capacity"]}),
        out_dir=str(tmp_path))
    assert r.verdict == HOLDS
    assert [(p["range"], p["verdict"]) for p in r.subranges] == \
        [("fits", NOT_FOUND), ("over", HOLDS)]
    assert r.subranges[1]["instance"]["reproduce"]


def test_straddling_bounds_leave_an_existential_open(fams, tmp_path):
    straddles = bounds.Bound("OPT straddles c", lambda run, opt, inst: ("undecided", {}),
                             quantifier="some")
    searched = theory.check(claim("open", straddles, fams["fits"]), out_dir=str(tmp_path))
    assert searched.verdict == NOT_FOUND and "time_limit" in searched.would_decide
    whole = theory.check(claim("open-all", straddles, fams["fits_all"]), out_dir=str(tmp_path))
    assert whole.verdict == INCONCLUSIVE and "time_limit" in whole.would_decide


def test_a_ratio_reaches_only_against_a_feasible_schedule():
    reach = bounds.ratio_reaches(2)
    assert reach.judge_costs(cost=8.0, lower=4.0, upper=4.0)[0] == "witness"
    # against OPT's lower bound alone (a relaxation) the ratio could be 2: not shown
    assert reach.judge_costs(cost=8.0, lower=4.0, upper=5.0)[0] == "undecided"
    assert reach.judge_costs(cost=7.0, lower=4.0, upper=5.0)[0] == "no"
    assert reach.judge_costs(cost=0.0, lower=0.0, upper=0.0)[0] == "no"  # 0/0 = 1
    with pytest.raises(InputError, match="ratio_reaches: c must be"):
        bounds.ratio_reaches(-1)


# --- for every instance ------------------------------------------------------------------

def test_every_instance_true_and_false(fams, tmp_path):
    true = theory.check(claim("n", bounds.modifications_at_most(lambda T: T), fams["over"]),
                        out_dir=str(tmp_path))
    assert true.verdict == NOT_REFUTED and true.basis["kind"] == SEARCH
    false = theory.check(claim("cr", bounds.ratio_at_most(1.2), fams["over"]),
                         out_dir=str(tmp_path))
    assert false.verdict == VIOLATED and false.instance["steps"] <= 4


# --- every policy of a class -------------------------------------------------------------

def test_a_class_is_refuted_by_one_member_and_lists_each(fams, tmp_path):
    r = theory.check(claim("cls", bounds.ratio_at_most(1.2), fams["over"],
                           policy=["lru", "fifo"]), out_dir=str(tmp_path))
    assert r.verdict == VIOLATED and r.evidence.startswith("lru fails it")
    assert r.instance["model"]["policy"] == "lru" and "cls-lru" in r.instance["trace"]
    assert [(m["policy"], m["verdict"]) for m in r.measured["members"]] == \
        [("lru", VIOLATED), ("fifo", VIOLATED)]


def test_an_upper_bound_holds_for_a_listed_class_over_a_whole_range_only(fams, tmp_path):
    bound = bounds.modifications_at_most(lambda T: T)
    listed = theory.check(claim("cls-n", bound, fams["over_all"], policy=["fifo", "lru"]),
                          out_dir=str(tmp_path))
    assert listed.verdict == HOLDS and listed.basis["kind"] == DECLARED
    assert listed.basis["scope"].startswith("every one of fifo, lru; declared exhaustive")
    enumerated = theory.check(claim("cls-pg", bound, fams["paging"], policy=["fifo", "lru"]),
                              out_dir=str(tmp_path))
    assert enumerated.verdict == HOLDS and enumerated.basis["kind"] == EXHAUSTIVE
    generated = theory.check(claim("gen-n", bound, fams["over_all"],
                                   policy=lambda quick: ["fifo", "lru"]),
                             out_dir=str(tmp_path))
    assert generated.verdict == NOT_REFUTED and generated.basis["kind"] == SEARCH


def test_a_lower_bound_over_a_class_never_holds_from_runs(fams, tmp_path):
    reach = bounds.ratio_reaches(1.1)
    true = theory.check(claim("cls-reach", reach, fams["over_all"], policy=["fifo", "lru"]),
                        out_dir=str(tmp_path))
    assert true.verdict == NOT_REFUTED and true.form == verdicts.LOWER_EVERY_POLICY
    assert [m["verdict"] for m in true.measured["members"]] == [HOLDS, HOLDS]
    false = theory.check(claim("cls-far", reach, fams["fits_all"], policy=["fifo", "lru"]),
                         out_dir=str(tmp_path))
    assert false.verdict == VIOLATED and false.evidence.startswith("fifo fails it")
    open_ = theory.check(claim("cls-open", reach, fams["fits"], policy=["fifo", "lru"]),
                         out_dir=str(tmp_path))
    assert open_.verdict == INCONCLUSIVE and "witness" in open_.would_decide


def test_a_class_must_name_policies_once(fams, tmp_path):
    with pytest.raises(InputError, match="at least one member"):
        claim("empty", bounds.ratio_reaches(1.1), fams["over"], policy=[])
    with pytest.raises(InputError, match="policy 1: a member of a class is one policy"):
        claim("nested", bounds.ratio_reaches(1.1), fams["over"], policy=["fifo", ["lru"]])
    twice = claim("twice", bounds.ratio_reaches(1.1), fams["over"], policy=["fifo", "fifo"])
    with pytest.raises(InputError, match="lists a policy twice"):
        theory.check(twice, out_dir=str(tmp_path))
    bad = claim("gen", bounds.ratio_reaches(1.1), fams["over"], policy=lambda quick: "fifo")
    with pytest.raises(InputError, match="claim 'gen': policies.quick=False. returned"):
        theory.check(bad, out_dir=str(tmp_path))


# --- a growth bound's own conclusion -----------------------------------------------------

def growth(verdict, **more):
    """A growth bound whose conclusion is ``verdict`` on basis growth (a stand-in for
    the rates of theory.bounds: what check() does with any conclude)."""
    def conclude(rows, scope):
        return dict(verdict=verdict, basis=verdicts.basis(GROWTH, scope),
                    evidence=f"{len(rows)} rows", **more)

    return bounds.Bound("N grows", lambda run, opt, inst: ("ok", {"N": run.summary()[
        "modifications"]}), quantifier="growth", conclude=conclude)


def test_a_growth_bound_concludes_once_and_saves_its_witness(fams, tmp_path):
    r = theory.check(claim("g", growth(VIOLATED, witness=2), fams["over"]),
                     out_dir=str(tmp_path))
    assert r.verdict == VIOLATED and r.instance["trace"].endswith("g.npz")
    assert r.instance["steps"] == fams["over"].instances[2].steps
    with pytest.raises(InputError, match="a growth cannot give 'holds' of a rate"):
        theory.check(claim("g2", growth(HOLDS), fams["over"]), out_dir=str(tmp_path))
    with pytest.raises(InputError, match="witness=99"):
        theory.check(claim("g3", growth(VIOLATED, witness=99), fams["over"]),
                     out_dir=str(tmp_path))
    with pytest.raises(InputError, match="needs conclude"):
        bounds.Bound("x", lambda *a: ("ok", {}), quantifier="growth")
    with pytest.raises(InputError, match="quantifier must be one of"):
        bounds.Bound("x", lambda *a: ("ok", {}), quantifier="most")


# --- no verdict contradicts its quantifier -----------------------------------------------

# what each quantifier allows, written out from docs/claims.md independently of RULES
ALLOWED = {
    "every": {HOLDS: {EXHAUSTIVE, DECLARED, CLOSED_FORM, CONSTRUCTION}, VIOLATED: "any",
              NOT_REFUTED: "any", INCONCLUSIVE: "any"},
    "some": {HOLDS: {EXHAUSTIVE, DECLARED, CLOSED_FORM, CONSTRUCTION, WITNESS},
             VIOLATED: {EXHAUSTIVE, DECLARED, CLOSED_FORM}, NOT_FOUND: {SEARCH},
             INCONCLUSIVE: "any"},
    "growth": {HOLDS: {CLOSED_FORM}, VIOLATED: {GROWTH, CLOSED_FORM, EXHAUSTIVE, DECLARED},
               NOT_REFUTED: {GROWTH, SEARCH}, INCONCLUSIVE: "any"},
}


def allowed(quantifier, said, kind) -> bool:
    bases = ALLOWED[quantifier].get(said, set())
    return bases == "any" or kind in bases


@pytest.mark.parametrize("quantifier", verdicts.QUANTIFIERS)
def test_the_rules_refuse_every_combination_a_quantifier_does_not_allow(quantifier):
    for said, kind in itertools.product(verdicts.VERDICTS, verdicts.BASES):
        run = lambda: verdicts.check(said, verdicts.basis(kind, "s"), None,  # noqa: E731
                                     "more runs", quantifier)
        if allowed(quantifier, said, kind):
            run()
        else:
            with pytest.raises(ValueError):
                run()
    with pytest.raises(ValueError, match="not 'every'"):
        verdicts.check(HOLDS, verdicts.basis(WITNESS, "s"), verdicts.SOME_INSTANCE,
                       quantifier="every")


def records(result) -> list:
    """(quantifier, record) of everything a check gave: the headline, its sub-ranges,
    and each member of a class with its own sub-ranges."""
    def own(rec, q):
        return [(q, rec)] + [(q, p) for p in rec.get("subranges") or ()]

    head = result.to_dict()
    members = head["measured"].get("members")
    q_head = verdicts.quantifier_of(head["form"])
    found = own(head, q_head)
    for m in members or ():
        q_member = "some" if head["form"] == verdicts.LOWER_EVERY_POLICY and \
            m["basis"]["kind"] in (WITNESS, SEARCH) else q_head
        found.append((q_member, m))
    return found


def test_no_verdict_of_a_battery_of_claims_contradicts_its_quantifier(fams, tmp_path):
    reach, n = bounds.ratio_reaches(1.1), bounds.modifications_at_most(lambda T: T)
    parts = {"K = 1": lambda i: i.options["capacity"] == 1}
    battery = [claim("b1", reach, fams["mixed"], subranges=parts),
               claim("b2", reach, fams["fits"], subranges=parts),
               claim("b3", reach, fams["fits_all"], subranges=parts),
               claim("b4", reach, fams["over_all"], policy=["fifo", "lru"], subranges=parts),
               claim("b5", reach, fams["fits"], policy=lambda q: ["fifo", "lru"]),
               claim("b6", n, fams["over_all"], policy=["fifo", "lru"], subranges=parts),
               claim("b7", bounds.ratio_at_most(1.2), fams["over"], subranges=parts),
               claim("b8", growth(NOT_REFUTED), fams["over"], subranges=parts),
               claim("b9", growth(VIOLATED, witness=1), fams["over"], policy=["fifo", "lru"],
                     subranges=parts),
               claim("b10", bounds.ratio_reaches(2), fams["paging"], policy="lru"),
               claim("b11", n, fams["paging"], policy=lambda q: ["fifo", "lru"])]
    seen = set()
    for c in battery:
        r = theory.check(c, out_dir=str(tmp_path))
        for q, rec in records(r):
            if c.bound.quantifier == "growth":
                q = "growth"
            assert allowed(q, rec["verdict"], rec["basis"]["kind"]), (c.id, q, rec)
            verdicts.check_record(rec, quantifier=q)
            if rec["verdict"] == VIOLATED:
                assert rec.get("instance"), (c.id, rec)
            seen.add((q, rec["verdict"], rec["basis"]["kind"]))
        if c.id == "b9":  # a rate over a class, with no upper form: a lower bound
            assert r.form == verdicts.LOWER_EVERY_POLICY and r.verdict == VIOLATED
    # the battery reaches every verdict of the existential form it can give from runs
    assert {("some", HOLDS, WITNESS), ("some", NOT_FOUND, SEARCH),
            ("some", VIOLATED, EXHAUSTIVE), ("some", VIOLATED, DECLARED)} <= seen


def test_judging_one_instance_of_a_class_names_the_member(fams):
    c = claim("one", bounds.ratio_reaches(1.1), fams["over"], policy=["fifo", "lru"])
    with pytest.raises(InputError, match="give policy="):
        theory.kit.judge(c, fams["over"].instances[0])
    status, numbers = theory.kit.judge(c, fams["over"].instances[0], policy="lru")
    assert status == "witness" and numbers["ratio_lower"] >= 1.1


def test_a_paging_claim_compares_with_belady(fams, tmp_path):
    import numpy as np

    from simulator.instance import Instance
    from simulator.trace import PagingTrace

    every = fams["paging"]  # every sequence over <= 3 pages of length 6, K = 2
    reach = theory.check(claim("lru-reach", bounds.ratio_reaches(1.5), every, policy="lru"),
                         out_dir=str(tmp_path))
    assert reach.verdict == HOLDS and reach.measured["witness"]["cost"] >= \
        1.5 * reach.measured["witness"]["opt_upper"] > 0
    assert reach.instance["reproduce"][-1].split("--policy ")[1].startswith("belady ")
    k = theory.check(claim("lru-k", bounds.ratio_reaches(2), every, policy="lru"),
                     out_dir=str(tmp_path))
    assert k.verdict == VIOLATED and k.basis["kind"] == EXHAUSTIVE  # K only as they grow
    sized = [Instance(PagingTrace.from_requests(np.array([0, 1, 0]), sizes=np.array([1, 2, 1])),
                      {"capacity": 2})]
    with pytest.raises(InputError, match="Belady, optimal only with unit sizes"):
        theory.check(claim("sized", bounds.ratio_reaches(2), sized), out_dir=str(tmp_path))
