"""MemoryOS (paper and code), LangMem and the mem0 surrogate on short scripted traces.

Each golden trace is small enough to work by hand from the policy's docstring; the
expected decisions are written out per step (the key admitted, evicted or deleted, -1 for
none; ``gone`` lists every key that left at a step, victims first).  The twins
(``tests/helpers/naive_policies_agent_b.py``) are held to the compiled rules on random
traces with step times and logged contradictions.
"""

import numpy as np
import pytest

from simulator.errors import InputError
from simulator.instance import Instance
from simulator.runner import run
from simulator.testing import assert_same_as_reference
from simulator.trace import Trace
from helpers.naive import POLICIES

A = [1.0, 0.0, 0.0]
A1 = [0.8, 0.6, 0.0]  # cos(A, A1) = 0.8
A2 = [0.8, -0.6, 0.0]  # cos(A, A2) = 0.8, cos(A1, A2) = 0.28
A9 = [0.9, 0.43588989, 0.0]  # cos(A, A9) = 0.9
B = [0.0, 1.0, 0.0]
NOT_B = [0.0, -1.0, 0.0]
C = [0.0, 0.0, 1.0]
NEAR_C = [0.0, 0.5, 0.8660254]  # cos(C, ·) = 0.866, cos(B, ·) = 0.5
NOT_A = [-1.0, 0.0, 0.0]
HOUR = 3600.0


def trace(queries, items, supersedes=None):
    return Trace.from_arrays(queries=np.array(queries, np.float32),
                             items=np.array(items, np.float32),
                             query_topics=np.zeros(len(items), np.int64),
                             item_topics=np.arange(len(items)),
                             times=HOUR * np.arange(len(items)),
                             supersedes=None if supersedes is None else np.array(supersedes))


def decisions(result):
    """Per step: admitted key, and every key that left (victims, then deletions)."""
    steps = len(result.admitted)
    gone = [[] for _ in range(steps)]
    for log, first in ((result.evict_log, result.evicted), (result.delete_log, result.deleted)):
        if log is not None:
            for t, key in log.tolist():
                gone[t].append(key)
        else:
            for t, key in enumerate(first.tolist()):
                if key >= 0:
                    gone[t].append(key)
    return result.admitted.tolist(), gone


# MemoryOS with a one-page STM and K = 5, hand-worked (θ = 0.6):
# t0 A joins the STM.  t1 A moves to the MTM and founds S0.  t2 A1 moves, cos(A1, A) = 0.8
# merges it into S0.  t3 A2 merges (0.8).  t4 B founds S1 (cos 0).  Queries retrieve only
# STM pages until t5, whose query B retrieves B: S1 gets its visit.  t5: NOT_A (key 4)
# moves and founds S2 (cos -1 to A, 0 to B); the cache is full.  Heat: S0 = 0 + 3 + R,
# S1 = 1 + 1 + 1, S2 = 0 + 1 + 1 = 2, the lowest: the paper evicts key 4.  Visits: S0 0,
# S1 1, S2 0; the code's LFU takes the older of S0 and S2: S0 leaves whole, A1 first
# (the oldest page that did not found it), A2, then A.
MEMORYOS_TRACE = trace(queries=[A, A, A1, A2, B, B],
                       items=[A, A1, A2, B, NOT_A, NOT_B])
STM1 = {"short_term_capacity": 1}


def test_memoryos_golden_paper_evicts_the_coldest_segment():
    result = run(MEMORYOS_TRACE, "memoryos", capacity=5, top_k=1, params=STM1)
    admitted, gone = decisions(result)
    assert admitted == [0, 1, 2, 3, 4, 5]
    assert gone == [[], [], [], [], [], [4]]


def test_memoryos_shipped_golden_evicts_the_least_visited_segment_whole():
    result = run(MEMORYOS_TRACE, "memoryos_shipped", capacity=5, top_k=1, params=STM1)
    admitted, gone = decisions(result)
    assert admitted == [0, 1, 2, 3, 4, 5]
    assert gone == [[], [], [], [], [], [1, 2, 0]]
    assert result.summary()["modifications"] == 6  # the whole segment in one step


def test_memoryos_transfer_resets_heat():
    """A segment at heat ≥ τ is analysed: its L resets (paper), so it becomes the coldest.

    STM 1, K = 4, heat_threshold 3.5.  t1 A founds S0; t2 A1 merges (L = 2, heat 3); t3
    A2 merges (L = 3): heat 3 + 1 ≥ 3.5, so S0's L resets to 0 (heat 0 + 0 + 1).  t4 B
    founds S1 (heat 0 + 1 + 1 = 2) and the cache is full: the paper evicts S0 (heat about
    1), all three pages; without the transfer (threshold 5) S0's heat 4 keeps it and S1
    goes.
    """
    tr = trace(queries=[A, A, A1, A2, B], items=[A, A1, A2, B, NOT_A])
    admitted, gone = decisions(run(tr, "memoryos", capacity=4, top_k=1,
                                   params={**STM1, "heat_threshold": 3.5}))
    assert gone == [[], [], [], [], [1, 2, 0]]
    admitted, gone = decisions(run(tr, "memoryos", capacity=4, top_k=1, params=STM1))
    assert gone == [[], [], [], [], [3]]


def test_memoryos_with_k_at_most_the_stm_is_fifo():
    tr = trace(queries=[A] * 6, items=[A, A1, A2, B, NOT_A, NOT_B])
    for name in ("memoryos", "memoryos_shipped"):
        fifo = run(tr, "fifo", capacity=3, top_k=1)
        ours = run(tr, name, capacity=3, top_k=1)
        assert ours.evicted.tolist() == fifo.evicted.tolist() == [-1, -1, -1, 0, 1, 2]


# LangMem, K = 3, update_threshold 0.8.  t0 A, t1 B inserted.  t2 A9: cos(A9, A) = 0.9, an
# update of A (admitted; A deleted, the cache was not full).  t3 C inserted (full).  t4
# NEAR_C supersedes B: deletes off, an update of B (the victim).  t5 NOT_A is near nothing:
# inserted, the oldest admission (A9) evicted.  With deletes on, t4 deletes B and NEAR_C,
# at 0.866 of C, also updates C: B is the victim, C deleted; t5 then finds room.
LANGMEM_TRACE = trace(queries=[A] * 6, items=[A, B, A9, C, NEAR_C, NOT_A],
                      supersedes=[-1, -1, -1, -1, 1, -1])


def test_langmem_golden():
    admitted, gone = decisions(run(LANGMEM_TRACE, "langmem", capacity=3, top_k=1))
    assert admitted == [0, 1, 2, 3, 4, 5]
    assert gone == [[], [], [0], [], [1], [2]]


def test_langmem_golden_with_deletes():
    admitted, gone = decisions(run(LANGMEM_TRACE, "langmem", capacity=3, top_k=1,
                                   params={"deletes": True}))
    assert admitted == [0, 1, 2, 3, 4, 5]
    assert gone == [[], [], [0], [], [1, 3], []]


# mem0 surrogate, K = 2 (noop 0.95, update 0.8, top_s 5).  t0 A: ADD.  t1 A again (a new
# key): NOOP.  t2 A9 (0.9): UPDATE A.  t3 B: ADD (full).  t4 NOT_B supersedes B, which is
# among the top 5: DELETE B, NOT_B not added.  t5 C: ADD (full).  t6 NEAR_C (0.866 to C):
# UPDATE C, the victim.  t7 NOT_A: ADD, the oldest (A9) evicted.
MEM0_TRACE = trace(queries=[A] * 8, items=[A, A, A9, B, NOT_B, C, NEAR_C, NOT_A],
                   supersedes=[-1, -1, -1, -1, 3, -1, -1, -1])


def test_mem0_surrogate_golden():
    admitted, gone = decisions(run(MEM0_TRACE, "mem0_surrogate", capacity=2, top_k=1))
    assert admitted == [0, -1, 2, 3, -1, 5, 6, 7]
    assert gone == [[], [], [0], [], [3], [], [5], [2]]


def test_mem0_surrogate_contradiction_options():
    """add_contradicting adds the contradicting fact; with top_s = 1 the LLM would not see
    B (A9 ranks first for NOT_B), so the contradiction goes unnoticed and NOT_B is added."""
    admitted, gone = decisions(run(MEM0_TRACE, "mem0_surrogate", capacity=2, top_k=1,
                                   params={"add_contradicting": True}))
    assert admitted[4] == 4 and gone[4] == [3]
    admitted, gone = decisions(run(MEM0_TRACE, "mem0_surrogate", capacity=2, top_k=1,
                                   params={"top_s": 1}))
    assert admitted[4] == 4 and gone[4] == [2]  # an ADD into a full cache: the oldest goes


@pytest.mark.parametrize("params", [{"update_threshold": 0.9, "noop_threshold": 0.8},
                                    {"top_s": 0}])
def test_mem0_surrogate_bad_params(params):
    with pytest.raises(InputError, match="mem0_surrogate"):
        run(MEM0_TRACE, "mem0_surrogate", capacity=2, params=params)


def random_trace(seed, steps=40, dim=3):
    """Vectors near three axes (merges, updates and no-ops all happen), irregular times,
    and a contradiction logged at about one step in five."""
    rng = np.random.default_rng(seed)
    axes = np.eye(dim, dtype=np.float32)
    items = axes[rng.integers(0, dim, steps)] + 0.4 * rng.normal(size=(steps, dim))
    queries = axes[rng.integers(0, dim, steps)] + 0.4 * rng.normal(size=(steps, dim))
    sup = np.full(steps, -1)
    for t in range(1, steps):
        if rng.random() < 0.2:
            sup[t] = rng.integers(0, t)
    return Trace.from_arrays(queries=queries.astype(np.float32),
                             items=items.astype(np.float32),
                             query_topics=rng.integers(0, dim, steps),
                             item_topics=rng.integers(0, dim, steps),
                             times=np.cumsum(rng.exponential(HOUR, steps)), supersedes=sup)


# with the default weights recency only breaks ties in N + L, which step order alone decides;
# a heavier gamma and a threshold between integers make the times' magnitudes count
TWIN_CASES = [("memoryos", {"short_term_capacity": 2, "tau_seconds": HOUR,
                            "heat_threshold": 2.5, "gamma": 2.0}),
              ("memoryos", {"short_term_capacity": 2, "tau_seconds": HOUR,
                            "heat_threshold": 3.0}),
              ("memoryos", {"short_term_capacity": 1, "similarity_threshold": 0.3}),
              ("memoryos_shipped", {"short_term_capacity": 2, "heat_threshold": 2.0}),
              ("langmem", {}), ("langmem", {"deletes": True, "update_threshold": 0.6}),
              ("mem0_surrogate", {}),
              ("mem0_surrogate", {"top_s": 2, "update_threshold": 0.5,
                                  "add_contradicting": True})]


@pytest.mark.parametrize("name,params", TWIN_CASES)
def test_twins_with_times_and_contradictions(name, params):
    for seed in range(3):
        for capacity in (3, 6):
            inst = Instance(random_trace(seed), {"capacity": capacity, "top_k": 2})
            assert_same_as_reference(name, POLICIES[name], inst, params=params)


@pytest.mark.parametrize("name", ["memoryos", "langmem", "mem0_surrogate"])
def test_twins_with_sizes_and_a_budget(name):
    """With a budget an admission asks for victims until it fits: MemoryOS goes on down
    the segment being evicted and then the next coldest, the fact stores from the marked
    memories to the oldest admissions (docs/model.md §2.5)."""
    params = {"short_term_capacity": 2} if name == "memoryos" else {}
    for seed in range(3):
        base = random_trace(seed)
        sizes = np.random.default_rng(seed).integers(1, 4, len(base.items))
        tr = Trace.from_arrays(queries=base.queries, items=base.items,
                               query_topics=base.query_topics, item_topics=base.item_topics,
                               times=base.times, supersedes=base.supersedes,
                               item_sizes=sizes)
        inst = Instance(tr, {"capacity": 6, "budget": 8, "top_k": 2})
        assert_same_as_reference(name, POLICIES[name], inst, params=params)
