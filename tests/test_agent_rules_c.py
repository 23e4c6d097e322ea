"""``amem``, ``zep`` and the study's strategies around a rule (``compose.with_study``).

Golden traces: unit vectors picked by hand (the axes of R^4 and a few mixes of two axes
whose cosines are exact in float32 and far from every threshold used), the decisions
worked out from the policies' docstrings and written down as literals.  The twins
(tests/helpers/naive_policies_agent_c.py) are held to the compiled policies on random
traces by test_engine_vs_naive.py.
"""

import numpy as np
import pytest

from simulator.errors import InputError
from simulator.instance import Instance
from simulator.policies.compose import with_study
from simulator.runner import run
from simulator.testing import assert_same_as_reference
from simulator.trace import Trace
from simulator.testing.contract.traces import semantic_traces
from helpers.naive import POLICIES
from helpers.naive_policies_agent_c import studied

E0, E1, E2, E3 = np.eye(4, dtype=np.float32)
U = np.array([0.8, 0.6, 0, 0], np.float32)  # cos 0.8 to E0, 0.6 to E1
V = np.array([0.6, 0.8, 0, 0], np.float32)  # cos 0.6 to E0, 0.8 to E1, 0.96 to U
W = np.array([0, 0, 0.6, 0.8], np.float32)  # cos 0.6 to E2, 0.8 to E3


def trace(items, **extra) -> Trace:
    """Queries on E3 with topic -1 (nothing scored as relevant): only the arrivals matter."""
    n = len(items)
    return Trace.from_arrays(queries=np.array([E3] * n), items=np.array(items),
                             query_topics=np.full(n, -1), item_topics=np.arange(n), **extra)


def go(tr, policy, capacity, **params):
    return run(tr, policy, capacity=capacity, top_k=1, params=params)


# --------------------------------------------------------------------------- amem

AMEM = trace([E0, E1, U, E2, E3, E0])


def test_amem_appends_and_evicts_the_oldest():
    r = go(AMEM, "amem", 3)
    assert r.admitted.tolist() == [0, 1, 2, 3, 4, 5]
    assert r.evicted.tolist() == [-1, -1, -1, 0, 1, 2]
    assert r.deleted.tolist() == [-1] * 6


@pytest.mark.parametrize("capacity, params, rewrites", [
    (3, {}, 9),  # 0, 1, then min(5, 2 others) at each later step
    (10, {}, 15),  # room for all: 0 + 1 + 2 + 3 + 4 + 5
    (3, {"neighbours": 1}, 5),
    (3, {"neighbours": 0}, 0),
    # only U's nearest neighbour (E0, cos 0.8) reaches 0.5: two rewrites at step 2
    (3, {"evolve_similarity": 0.5}, 2),
    (3, {"evolve_similarity": 0.9}, 0),
])
def test_amem_rewrites_the_new_notes_neighbours(capacity, params, rewrites):
    r = run(AMEM, "amem", capacity=capacity, top_k=1, switch_cost=0.5, params=params)
    s = r.summary()
    assert s["rewrites"] == rewrites
    assert s["modifications"] == 6  # a rewrite is not a modification
    assert s["cost"] == s["miss_cost"] + 0.5 * (6 + rewrites)
    assert r.admitted.tolist() == [0, 1, 2, 3, 4, 5]


# --------------------------------------------------------------------------- zep

# K = 3, contradiction_similarity 0.7: U invalidates E0 (0.8; E1 at 0.6 stays); V evicts
# the oldest (1), then invalidates U (0.96); W invalidates nothing (0.6 to E2); E3 evicts
# the oldest (3), then invalidates W (0.8).
ZEP = trace([E0, E1, U, E2, V, W, E3])


def test_zep_surrogate_invalidates_earlier_similar_items():
    r = go(ZEP, "zep", 3, contradiction_similarity=0.7)
    assert r.admitted.tolist() == [0, 1, 2, 3, 4, 5, 6]
    assert r.evicted.tolist() == [-1, -1, -1, -1, 1, -1, 3]
    assert r.deleted.tolist() == [-1, -1, 0, -1, 2, -1, 5]


def test_zep_surrogate_needs_a_strictly_earlier_time():
    """Graphiti's valid_at test: with times, V (time 1) leaves U (time 1) alone and E3
    (time 2) leaves W (time 2); U (1) still invalidates E0 (0)."""
    r = go(trace([E0, E1, U, E2, V, W, E3], times=[0, 1, 1, 1, 1, 2, 2]), "zep", 3,
           contradiction_similarity=0.7)
    assert r.deleted.tolist() == [-1, -1, 0, -1, -1, -1, -1]
    assert r.evicted.tolist() == [-1, -1, -1, -1, 1, 2, 3]


# K = 4; the log: U supersedes item 0, V item 2, W item 3.
LOG = trace([E0, E1, E2, U, V, E3, W], supersedes=[-1, -1, -1, 0, 2, -1, 3])


def test_zep_invalidates_what_the_log_says_and_never_an_evicted_item():
    r = go(LOG, "zep", 4)
    assert r.delete_log.tolist() == [[3, 0], [4, 2], [6, 3]]
    assert r.evicted.tolist() == [-1] * 6 + [1]
    # K = 3: items 0 and 3 are evicted (the oldest) for U and W before they can
    # invalidate them
    r = go(LOG, "zep", 3)
    assert r.delete_log.tolist() == [[4, 2]]
    assert r.evicted.tolist() == [-1, -1, -1, 0, 1, -1, 3]
    assert go(LOG, "zep", 4, log_supersedes=False).delete_log.tolist() == []


def test_zep_forgets_several_items_at_once_log_first():
    """With the surrogate at 0.7 too: V invalidates item 2 (the log), then U (0.96) and
    E1 (0.8), most similar first, in one step (one modification); W then finds item 3
    gone and invalidates E3 (0.8).  One candidate: V reaches U only."""
    r = go(LOG, "zep", 4, contradiction_similarity=0.7)
    assert r.delete_log.tolist() == [[3, 0], [4, 2], [4, 3], [4, 1], [6, 5]]
    assert r.size.tolist() == [1, 2, 3, 3, 1, 2, 2]
    assert r.summary()["modifications"] == 7
    r = go(LOG, "zep", 4, contradiction_similarity=0.7, candidates=1)
    assert r.delete_log.tolist() == [[3, 0], [4, 2], [4, 3], [6, 5]]


@pytest.mark.parametrize("params", [{}, {"contradiction_similarity": 0.7},
                                    {"contradiction_similarity": 0.5, "candidates": 2}])
@pytest.mark.parametrize("times", [None, [0, 1, 1, 1, 1, 2, 2]])
def test_zep_equals_its_twin_with_a_log_and_times(params, times):
    """The random traces of test_engine_vs_naive carry neither field."""
    for capacity in (2, 3, 4):
        tr = trace([E0, E1, E2, U, V, E3, W], supersedes=[-1, -1, -1, 0, 2, -1, 3],
                   **({} if times is None else {"times": times}))
        assert_same_as_reference("zep", POLICIES["zep"],
                                 Instance(tr, {"capacity": capacity, "top_k": 1}),
                                 params=params)


def test_zep_surrogate_is_off_by_default():
    r = go(ZEP, "zep", 3)
    assert r.deleted.tolist() == [-1] * 7
    assert r.evicted.tolist() == [-1, -1, -1, 0, 1, 2, 3]


@pytest.mark.parametrize("params, field", [
    ({"contradiction_similarity": 1.5}, "contradiction_similarity"),
    ({"candidates": 0}, "candidates"),
])
def test_zep_refuses_bad_parameters(params, field):
    with pytest.raises(InputError, match=field):
        go(ZEP, "zep", 3, **params)


@pytest.mark.parametrize("params, field", [
    ({"neighbours": -1}, "neighbours"),
    ({"evolve_similarity": -2.0}, "evolve_similarity"),
])
def test_amem_refuses_bad_parameters(params, field):
    with pytest.raises(InputError, match=field):
        go(AMEM, "amem", 3, **params)


# --------------------------------------------------------------------------- with_study

# The memory study's own trace (test_memory_policies.py): warm-up ABC, then queries whose
# single retrieval is useful (evidence) or not.
AXES = dict(zip("ABCD", (E0, E1, E2, E3)))
STUDY_EV = [[], [], [], [], [], [1], [], [], [2]]
STUDY = Trace.from_arrays(
    queries=np.array([AXES[c] for c in "DDDAABBCC"]),
    items=np.array([AXES[c] for c in "ABCDDDDDD"]),
    evidence_indptr=np.cumsum([0] + [len(e) for e in STUDY_EV]),
    evidence_indices=np.array([i for e in STUDY_EV for i in e], np.int64))
GATED = {"warmup": 3, "min_retrievals": 2, "beta": 0.5}


# lru (hooks on retrieval) and zep (its own deletion pass, a log and times); each wrapped
# rule is a loop of its own (about 15 s of compiling cold), so amem (whose admit only adds
# a rewrite count) and fifo, which exercise nothing more of the wrapper, are left out.
# Built once, compiled once.
WRAPPED = {base: with_study(base, addition="strict", deletion="history")
           for base in ("lru", "zep")}


@pytest.mark.parametrize("base", list(WRAPPED))
def test_the_study_governs_admission_and_deletion_the_rule_eviction(base):
    """Room for all: the wrapper admits and deletes exactly as ``history`` (strict gate,
    history deletion).  Gate open and history off (beta 0: no mean is below it), at K = 2:
    it admits, evicts and deletes exactly as the rule alone."""
    pol = WRAPPED[base]
    wrapped, study = go(STUDY, pol, 10, **GATED), go(STUDY, "history", 10, **GATED)
    for field in ("admitted", "evicted", "deleted"):
        assert getattr(wrapped, field).tolist() == getattr(study, field).tolist(), field
    assert wrapped.deleted.tolist() == [-1, -1, -1, -1, 0, -1, -1, -1, -1]
    # the coarse judge draws from the study's own stream: the same verdicts, seed by seed
    noisy = {**GATED, "addition": "coarse", "false_positive": 0.5}
    for seed in (0, 1):
        wrapped = run(STUDY, pol, capacity=10, top_k=1, seed=seed, params=noisy)
        study = run(STUDY, "history", capacity=10, top_k=1, seed=seed, params=noisy)
        assert wrapped.admitted.tolist() == study.admitted.tolist()
        assert (wrapped.admitted[3:] >= 0).sum() > 2  # the judge passed a failed step
    wrapped, rule = go(STUDY, pol, 2, addition="all", beta=0.0), go(STUDY, base, 2)
    for field in ("admitted", "evicted", "deleted"):
        assert getattr(wrapped, field).tolist() == getattr(rule, field).tolist(), field
    assert wrapped.evictions > 0


@pytest.mark.parametrize("base", list(WRAPPED))
def test_a_wrapped_rule_equals_its_twin(base):
    """The wrapper against ``studied(rule twin, history twin)`` on the contract's traces
    (and zep's log), gate shut or open, history deleting often."""
    twin = studied(POLICIES[base], POLICIES["history"])
    cases = list(semantic_traces().values()) + [LOG]
    extra = {"zep": {"contradiction_similarity": 0.5}}
    for tr in cases:
        for params in ({"warmup": 4, "min_retrievals": 1, "beta": 0.5},
                       {"addition": "all", "min_retrievals": 2, "beta": 0.7,
                        **extra.get(base, {})}):
            assert_same_as_reference(WRAPPED[base], twin,
                                     Instance(tr, {"capacity": 3, "top_k": 2}),
                                     params=params)


def test_a_wrapped_rule_checks_both_sets_of_parameters():
    pol = with_study("amem", addition="strict", deletion="history")  # not run: no compile
    assert pol.resolve_params({"neighbours": 2, "beta": 0.5})["neighbours"] == 2
    for bad, name in (({"neighbours": -1}, "neighbours"), ({"beta": 2.0}, "beta")):
        with pytest.raises(InputError, match=f"parameter '{name}'"):
            pol.resolve_params(bad)


def test_a_study_parameter_named_as_the_rules_is_renamed():
    """MemoryOS has its own beta (the heat's weight of L): the history rule's is study_beta,
    on the policy and its twin alike (building and checking compile nothing)."""
    pol = with_study("memoryos", addition="strict", deletion="history")
    p = pol.resolve_params({"beta": 2.0, "study_beta": 0.3})
    assert (p["beta"], p["study_beta"]) == (2.0, 0.3)
    with pytest.raises(InputError, match="parameter 'study_beta' must be in"):
        pol.resolve_params({"study_beta": 2.0})
    assert studied(POLICIES["memoryos"], POLICIES["history"]).defaults == pol.params


@pytest.mark.parametrize("base, options, field", [
    ("solar", {"addition": "strict"}, "policy"),  # regret-gated: its own accounting
    ("belady", {"deletion": "history"}, "policy"),  # paging only
    ("fifo", {}, "addition"),  # no strategy named
    ("fifo", {"addition": "loose"}, "addition"),
    ("fifo", {"deletion": "periodic"}, "deletion"),
])
def test_with_study_refuses_what_does_not_compose(base, options, field):
    with pytest.raises(InputError) as err:
        with_study(base, **options)
    assert err.value.param == field and str(err.value).startswith(field)
