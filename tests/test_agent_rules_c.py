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
from simulator.policies.compose import with_study
from simulator.runner import run
from simulator.trace import Trace

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


# lru (hooks on retrieval), amem (a delete that rewrites), zep (its own deletion pass);
# fifo would add a compile (about 15 s cold) and nothing lru does not exercise
@pytest.mark.parametrize("base", ["lru", "amem", "zep"])
def test_the_study_governs_admission_and_deletion_the_rule_eviction(base):
    """Room for all: the wrapper admits and deletes exactly as ``history`` (strict gate,
    history deletion).  Gate open and history off (beta 0: no mean is below it), at K = 2:
    it admits, evicts and deletes exactly as the rule alone."""
    pol = with_study(base, addition="strict", deletion="history")
    wrapped, study = go(STUDY, pol, 10, **GATED), go(STUDY, "history", 10, **GATED)
    for field in ("admitted", "evicted", "deleted"):
        assert getattr(wrapped, field).tolist() == getattr(study, field).tolist(), field
    assert wrapped.deleted.tolist() == [-1, -1, -1, -1, 0, -1, -1, -1, -1]
    wrapped, rule = go(STUDY, pol, 2, addition="all", beta=0.0), go(STUDY, base, 2)
    for field in ("admitted", "evicted", "deleted"):
        assert getattr(wrapped, field).tolist() == getattr(rule, field).tolist(), field
    assert wrapped.evictions > 0


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
