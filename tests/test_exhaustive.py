"""theory.families.exhaustive: every instance of a tiny space up to relabelling, its count
known before it is built, and the only source of the ``exhaustive`` basis (a family
declared exhaustive by hand is reported as its author's declaration)."""

import itertools

import numpy as np
import pytest

import simulator
import theory
from simulator.errors import InputError
from simulator.trace import PagingTrace
from theory import bounds, families
from theory.kit.exhaustive import Enumeration, exhaustive_count, family_basis


def _canonical(seq) -> tuple:
    """``seq`` with its labels renamed in the order they first appear (the slow way); −1
    is no label and stays."""
    names = {-1: -1}
    return tuple(names.setdefault(x, len(names) - 1) for x in seq)


@pytest.mark.parametrize("pages, length", [(1, 4), (2, 5), (3, 5), (4, 4), (3, 1)])
@pytest.mark.parametrize("exact", [False, True])
def test_paging_is_every_sequence_once_per_relabelling(pages, length, exact):
    every = families.exhaustive("paging", length=length, pages=pages, exact_length=exact)
    made = [i.labels["requests"] for i in every]
    lengths = [length] if exact else range(1, length + 1)
    brute = {_canonical(s) for T in lengths for s in itertools.product(range(pages), repeat=T)}
    assert len(made) == len(set(made)) == len(brute)  # nothing twice, nothing missing
    assert set(made) == brute
    assert [tuple(i.trace.requests) for i in every] == made
    assert every.count == len(every) == exhaustive_count("paging", length=length, pages=pages,
                                                         exact_length=exact)


@pytest.mark.parametrize("topics, length, weights, unmatched", [
    (1, 3, [1], False), (2, 2, [0.5, 1], False), (3, 2, [1], False), (2, 3, [0, 1], False),
    (1, 3, [1], True), (2, 3, [1], True), (3, 2, [0, 1], True)])
def test_semantic_is_every_step_sequence_once_per_relabelling_of_topics(topics, length,
                                                                         weights, unmatched):
    every = families.exhaustive("semantic", length=length, topics=topics, weights=weights,
                                capacity=[1, 2], top_k=1, switch_cost=0.5,
                                unmatched=unmatched)
    per_k = len(every) // 2
    made = [(i.labels["query_topics"], i.labels["item_topics"], i.labels["weights"])
            for i in every][:per_k]
    brute = set()
    for T in range(1, length + 1):
        for flat in itertools.product(range(-unmatched, topics), repeat=2 * T):
            if -1 in flat[1::2]:
                continue  # every item has a topic
            canon = _canonical(flat)
            for w in itertools.product([float(x) for x in weights], repeat=T):
                brute.add((canon[0::2], canon[1::2], w))
    assert len(made) == len(set(made)) == len(brute) and set(made) == brute
    assert len(every) == exhaustive_count("semantic", length=length, topics=topics,
                                          weights=weights, capacity=[1, 2], top_k=1,
                                          switch_cost=0.5, unmatched=unmatched)
    inst = every.instances[-1]
    trace, labels = inst.trace, inst.labels
    # one-hot topics: similarity 1 within a topic and 0 across (an unmatched query: 0)
    sims = trace.queries @ trace.items.T
    same = np.equal.outer(trace.query_topics, trace.item_topics)
    assert (-1 in {q for i in every for q in i.labels["query_topics"]}) == unmatched
    assert np.array_equal(sims, same.astype(np.float32))
    assert tuple(trace.query_topics) == labels["query_topics"]
    assert tuple(trace.weights) == labels["weights"]
    assert inst.options == dict(capacity=2, top_k=1, switch_cost=0.5, quality="hit")
    assert [i.labels["index"] for i in every] == list(range(len(every)))


def test_a_relabelled_sequence_costs_what_its_representative_costs():
    """The premise of "up to relabelling": renaming pages changes no shipped policy's run."""
    rng = np.random.default_rng(3)
    for _ in range(6):
        seq = rng.integers(0, 4, 9)
        renamed = np.array([7, 2, 9, 0])[seq]  # a permutation, and ids out of order
        canon = np.array(_canonical(seq))
        for policy in ("lru", "fifo", "lfu", "belady"):
            costs = {simulator.run(PagingTrace.from_requests(s), policy, capacity=2)
                     .summary()["cost"] for s in (seq, renamed, canon)}
            assert len(costs) == 1, (policy, seq)


def test_renaming_topics_changes_no_semantic_run_nor_opt():
    from simulator.trace import Trace
    from theory.opt import opt

    every = families.exhaustive("semantic", length=3, topics=3, weights=[0.5, 1],
                                capacity=2, top_k=1, switch_cost=1.0)
    rng = np.random.default_rng(5)
    for i in rng.choice(len(every), 4, replace=False):
        inst = every.instances[i]
        q, b = np.array(inst.labels["query_topics"]), np.array(inst.labels["item_topics"])
        rename = np.array([2, 0, 1])  # topic t becomes rename[t], its vector moves with it
        unit = np.eye(3, dtype=np.float32)
        renamed = Trace.from_arrays(queries=unit[rename[q]], items=unit[rename[b]],
                                    query_topics=rename[q], item_topics=rename[b],
                                    weights=np.array(inst.labels["weights"]))
        for policy in ("fifo", "lru", "solar"):
            costs = {simulator.run(t, policy, **inst.options).summary()["cost"]
                     for t in (inst.trace, renamed)}
            assert len(costs) == 1, (policy, inst.labels)
        assert opt(inst.trace, **inst.options).opt_cost == opt(renamed,
                                                               **inst.options).opt_cost


def test_the_order_and_the_scope_are_fixed():
    a = families.exhaustive("paging", length=3, pages=3, capacity=[2, 1], switch_cost=[0, 1])
    b = families.exhaustive("paging", length=3, pages=3, capacity=[2, 1], switch_cost=[0, 1])
    assert [(i.options, i.labels) for i in a] == [(i.options, i.labels) for i in b]
    assert [i.options["capacity"] for i in a][::len(a) // 4] == [2, 2, 1, 1]
    assert a.scope == ("every paging sequence over ≤ 3 pages of length ≤ 3, up to "
                       "relabelling, K ∈ {2, 1}, λ ∈ {0, 1}: 32 instances")
    # Σ_{n ≤ 7} Σ_{j ≤ 4} S(n, j) = 1 + 2 + 5 + 15 + 51 + 187 + 715 = 976 a K
    big = families.exhaustive("paging", length=7, pages=4, capacity=[1, 2])
    assert big.scope.endswith(": 1 952 instances") and len(big) == 1952


def test_a_space_past_the_limit_is_refused_in_one_line_before_anything_is_built():
    with pytest.raises(InputError) as caught:
        families.exhaustive("semantic", length=6, topics=3, weights=[0, 1], limit=1000)
    text = str(caught.value)
    assert "\n" not in text and caught.value.param == "length"
    assert "limit=1000" in text and "lower length (6)" in text
    n = exhaustive_count("semantic", length=6, topics=3, weights=[0, 1])
    assert f"{n:,}".replace(",", " ") in text
    assert len(families.exhaustive("paging", length=4, pages=2, limit=15)) == 15


@pytest.mark.parametrize("kwargs, param", [
    (dict(mode="cache", length=2, pages=2), "mode"),
    (dict(mode="paging", length=0, pages=2), "length"),
    (dict(mode="paging", length=2), "pages"),
    (dict(mode="paging", length=2, topics=2), "topics"),
    (dict(mode="paging", length=2, pages=2, weights=[1]), "weights"),
    (dict(mode="semantic", length=2, topics=2, weights=[1.5]), "weights"),
    (dict(mode="semantic", length=2, topics=2, top_k=0), "top_k"),
    (dict(mode="semantic", length=2, topics=2, quality="best"), "quality"),
    (dict(mode="paging", length=2, pages=2, capacity=[1, 1]), "capacity"),
    (dict(mode="paging", length=2, pages=2, capacity=[]), "capacity"),
    (dict(mode="paging", length=2, pages=2, limit=0), "limit"),
    (dict(mode="paging", length=2, pages=2, exact_length="yes"), "exact_length"),
    (dict(mode="paging", length=2, pages=2, unmatched=True), "unmatched"),
    (dict(mode="semantic", length=2, topics=2, unmatched=1), "unmatched"),
])
def test_bad_arguments_are_one_line_naming_the_parameter(kwargs, param):
    with pytest.raises(InputError) as caught:
        families.exhaustive(**kwargs)
    assert caught.value.param == param and "\n" not in str(caught.value)
    assert str(caught.value).startswith("exhaustive: ")


def _misses(run) -> int:
    return run.summary()["steps"] - run.summary()["hits"]


def _within(factor):
    """The predicate "misses ≤ factor(K)·Belady's misses"."""
    def judge(run, opt, instance):
        K = instance.options["capacity"]
        return _misses(run) <= factor(K) * _misses(simulator.run(instance.trace, "belady",
                                                                 capacity=K))
    return judge


def test_only_an_enumeration_gives_the_exhaustive_basis(tmp_path):
    every = families.exhaustive("paging", length=5, pages=3, capacity=[1, 2])
    bound = bounds.predicate(_within(lambda K: K), "misses ≤ K·Belady's")
    r = theory.check(theory.Claim(id="lru-k", statement="LRU ≤ K·Belady", policy="lru",
                                  instances=every, bound=bound), out_dir=str(tmp_path))
    assert (r.verdict, r.basis["kind"]) == ("holds", "exhaustive")
    assert r.basis["scope"].startswith(every.scope)
    declared = families.Family(every.instances, "every sequence, on my word", kind="exhaustive")
    r = theory.check(theory.Claim(id="lru-d", statement="LRU ≤ K·Belady", policy="lru",
                                  instances=declared, bound=bound), out_dir=str(tmp_path))
    assert (r.verdict, r.basis["kind"]) == ("holds", "declared")
    assert r.basis["scope"].startswith("declared exhaustive by the claim's author: every")
    # a false claim over an enumeration is violated, with its instance
    as_good = bounds.predicate(_within(lambda K: 1), "misses ≤ Belady's")
    r = theory.check(theory.Claim(id="fifo-1", statement="FIFO misses no more than Belady",
                                  policy="fifo", instances=every, bound=as_good),
                     out_dir=str(tmp_path))
    assert (r.verdict, r.basis["kind"]) == ("violated", "exhaustive")


def test_sums_keep_the_basis_only_between_enumerations():
    a = families.exhaustive("paging", length=2, pages=2)
    b = families.exhaustive("semantic", length=1, topics=2)
    grid = families.grid("cycling", params={"topics": 2, "items_per_topic": 1, "dim": 4},
                         capacity=[1], top_k=[1], steps=[4])
    declared = families.Family(a.instances, "mine", kind="exhaustive")
    both = a + b
    assert isinstance(both, Enumeration) and len(both) == len(a) + len(b)
    assert family_basis(both) == {"kind": "exhaustive", "scope": f"{a.scope}; {b.scope}"}
    for mixed in (a + grid, grid + a, a + declared, declared + a):
        assert not isinstance(mixed, Enumeration) and family_basis(mixed)["kind"] == "search"
    assert family_basis(declared + declared)["kind"] == "declared"
    assert family_basis(grid)["kind"] == "search"


def test_an_enumeration_is_not_built_by_hand():
    every = families.exhaustive("paging", length=2, pages=2)
    with pytest.raises(InputError, match="only theory.families.exhaustive"):
        Enumeration(every.instances, "every sequence")


def test_a_semantic_enumeration_is_judged_against_exact_opt(tmp_path):
    every = families.exhaustive("semantic", length=2, topics=2, capacity=1, top_k=1,
                                switch_cost=[0.5])
    never_below = bounds.predicate(lambda run, opt, inst: run.summary()["cost"] >=
                                   opt.lower_bound - 1e-9, "cost ≥ OPT", needs_opt=True)
    r = theory.check(theory.Claim(id="above-opt", statement="FIFO costs at least OPT",
                                  policy="fifo", instances=every, bound=never_below),
                     out_dir=str(tmp_path))
    assert (r.verdict, r.basis["kind"], r.measured["instances"]) == ("holds", "exhaustive", 10)
    # FIFO admits what OPT leaves out: (q 0, item 0), (q 0, item 1) costs it 1 + 2λ, OPT 1 + λ
    r = theory.check(theory.Claim(id="opt", statement="FIFO is optimal", policy="fifo",
                                  instances=every, bound=bounds.ratio_at_most(1)),
                     out_dir=str(tmp_path))
    assert (r.verdict, r.basis["kind"]) == ("violated", "exhaustive")
    assert r.measured["broken"] >= 1
