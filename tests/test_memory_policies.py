"""The memory study's strategies (``policies/parts/memory_rules.py``) on hand-built traces.

Vectors are the unit axes of R^4, so with ``top_k=1`` a query on axis a retrieves exactly
the cached record on axis a, and the trace's evidence says whether that retrieval was
useful.  Each test states the rule it pins down; the engine-vs-naive and contract suites
cover the same policies on random traces.
"""

import numpy as np
import pytest

from simulator.errors import InputError
from simulator.runner import run
from simulator.trace import Trace

AXES = {c: np.eye(4, dtype=np.float32)[i] for i, c in enumerate("ABCD")}


def trace(queries: str, items: str, evidence: list) -> Trace:
    """One character per step for queries and items; ``evidence[t]``: relevant item ids."""
    ptr = np.cumsum([0] + [len(e) for e in evidence])
    return Trace.from_arrays(queries=np.array([AXES[c] for c in queries]),
                             items=np.array([AXES[c] for c in items]),
                             evidence_indptr=ptr,
                             evidence_indices=np.array([i for e in evidence for i in e],
                                                       np.int64))


def go(tr, policy, capacity=10, top_k=1, **params):
    return run(tr, policy, capacity=capacity, top_k=top_k, params=params)


# warm-up ABC (keys 0-2), then queries whose single retrieval is useful (evidence) or not
WARM = trace("DDDAABBCC", "ABCDDDDDD", [[], [], [], [], [], [1], [], [], [2]])


def test_addition_rules():
    """fixed: only the warm-up; add_all: everything; strict: warm-up + steps of quality 1."""
    admitted = {p: go(WARM, p, warmup=3).admitted.tolist()
                for p in ("fixed", "add_all", "strict")}
    assert admitted["fixed"] == [0, 1, 2] + [-1] * 6
    assert admitted["add_all"] == list(range(9))
    assert admitted["strict"] == [0, 1, 2, -1, -1, 5, -1, -1, 8]
    # without a warm-up the gated strategies start from an empty memory: nothing is retrieved
    assert go(WARM, "strict").admitted.tolist() == [-1] * 9


def test_coarse_judge_is_seeded_noise_on_the_verdict():
    strict = go(WARM, "strict", warmup=3).admitted
    exact = go(WARM, "coarse", warmup=3, threshold=1.0, false_positive=0.0)
    assert np.array_equal(exact.admitted, strict)
    assert (go(WARM, "coarse", warmup=3, false_positive=1.0).admitted >= 0).all()
    assert (go(WARM, "coarse", warmup=3, false_negative=1.0,
               false_positive=0.0).admitted[3:] < 0).all()
    tr = trace("D" * 3 + "A" * 60, "ABC" + "D" * 60, [[]] * 63)
    runs = [run(tr, "coarse", capacity=100, top_k=1, seed=s,
                params={"warmup": 3, "false_positive": 0.5}).admitted for s in range(3)]
    assert 15 < (runs[0] >= 0).sum() < 50  # about half of the failed executions pass
    assert not np.array_equal(runs[0], runs[1])
    again = run(tr, "coarse", capacity=100, top_k=1, seed=0,
                params={"warmup": 3, "false_positive": 0.5}).admitted
    assert np.array_equal(runs[0], again)


def test_history_deletes_exactly_the_records_meeting_the_rule():
    """Retrieved ≥ 2 times with mean utility < 0.5: A (0 of 2) goes at its 2nd retrieval;
    B (1 of 2, mean 0.5) and C (1 of 2) stay; nothing is judged during warm-up."""
    r = go(WARM, "history", warmup=3, min_retrievals=2, beta=0.5, addition="all")
    assert r.deleted.tolist() == [-1, -1, -1, -1, 0, -1, -1, -1, -1]
    # beta = 0.6: B and C now fall below it, each at its second retrieval
    r = go(WARM, "history", warmup=3, min_retrievals=2, beta=0.6, addition="all")
    assert r.deleted.tolist() == [-1, -1, -1, -1, 0, -1, 1, -1, 2]


def test_history_picks_the_lowest_mean_then_the_oldest():
    """top_k = 3: each A query retrieves A, B, C (then whatever is left) together; step 4
    is useful.  At step 5 A and C (0 of 3) tie below B (1 of 3): A goes (older), then C,
    then B (1 of 5); the last record stays (``min_size``)."""
    tr = trace("DDD" + "A" * 6, "ABC" + "D" * 6, [[], [], [], [], [1], [], [], [], []])
    r = run(tr, "history", capacity=10, top_k=3,
            params={"warmup": 3, "min_retrievals": 3, "beta": 0.5})
    assert r.admitted.tolist()[3:] == [-1, 4, -1, -1, -1, -1]  # strict addition
    assert r.deleted.tolist()[3:] == [-1, -1, 0, 2, 1, -1]
    assert r.size.tolist()[-1] == 1


def test_periodic_sweeps_unused_records_one_a_step():
    """stale_after = 3: B and C are never retrieved (every query finds A).  A sweep starts
    at each multiple of ``period`` and deletes one stale record a step, oldest first."""
    tr = trace("DDD" + "A" * 6, "ABC" + "D" * 6, [[]] * 9)
    for period, first in ((4, 4), (5, 5)):
        r = go(tr, "periodic", warmup=3, period=period, stale_after=3)
        want = [-1] * 9
        want[first], want[first + 1] = 1, 2
        assert r.deleted.tolist() == want, period


def test_combined_deletes_by_history_before_the_sweep():
    """Step 3: only the sweep has a candidate (B, unused for 2 steps); step 4: A fails a
    second time (history) although C is stale too; then one record is left (min_size)."""
    tr = trace("DDDAA" + "D" * 4, "ABC" + "D" * 6, [[]] * 9)
    r = go(tr, "combined", warmup=3, min_retrievals=2, beta=0.5, period=1, stale_after=2)
    assert r.deleted.tolist()[3:] == [1, 0, -1, -1, -1, -1]


def test_capacity_evicts_the_least_useful_record():
    """K = 3, strict addition: (good + 1) / (retrievals + 2) is 1/3 for A (failed once),
    2/3 and up for B (useful), 1/2 for untested C and D.  Each admission evicts the lowest:
    A, then C (untested, older than D), then D."""
    tr = trace("DDDABBB", "ABCDDDD", [[], [], [], [], [1], [1], [1]])
    r = go(tr, "strict", capacity=3, warmup=3)
    assert r.evicted.tolist()[3:] == [-1, 0, 2, 4]


def test_strict_needs_its_own_steps_verdict():
    """With feedback one step late (SimPy) no execution's verdict arrives before its record
    is decided, so strict adds nothing after the warm-up; with no delay SimPy equals fast."""
    fast = go(WARM, "strict", warmup=3)
    same = run(WARM, "strict", capacity=10, top_k=1, params={"warmup": 3}, engine="simpy")
    assert np.array_equal(fast.admitted, same.admitted)
    late = run(WARM, "strict", capacity=10, top_k=1, params={"warmup": 3}, engine="simpy",
               engine_options={"feedback_delay": 1})
    assert (late.admitted[3:] < 0).all()


@pytest.mark.parametrize("policy, params, message", [
    ("history", {"beta": 2}, "parameter 'beta' must be in [0, 1]"),
    ("periodic", {"period": 0}, "parameter 'period' must be >= 1"),
    ("combined", {"addition": "none"}, "parameter 'addition' must be one of"),
    ("strict", {"warmup": -1}, "parameter 'warmup' must be >= 0"),
    ("coarse", {"false_positive": 1.5}, "parameter 'false_positive' must be in [0, 1]"),
    ("fixed", {"beta": 0.5}, "has no parameter 'beta'"),
])
def test_bad_parameters(policy, params, message):
    with pytest.raises(InputError) as err:
        go(WARM, policy, **params)
    assert message in str(err.value) and "\n" not in str(err.value)
