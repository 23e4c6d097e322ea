"""MemoryBank (paper and shipped), Generative Agents and Letta on scripted traces.

Each golden test is a short trace with explicit step times whose decisions were worked
by hand from the sources the policies' docstrings cite; the expected lists are literal.
Vectors are unit axes of R^4 (``top_k=1``: a query on an axis retrieves the item on it,
and among items at cosine 0 the earliest admission).  The twins (tests/helpers/
naive_policies_agent_a.py) are held to the compiled policies at the end, on traces with
and without times; test_engine_vs_naive.py and the contract cover them on random ones.
"""

import math

import numpy as np
import pytest

from helpers.naive import POLICIES
from simulator import rng
from simulator.errors import InputError
from simulator.instance import Instance
from simulator.policies.parts import ebbinghaus
from simulator.runner import run
from simulator.testing import assert_same_as_reference
from simulator.trace import Trace

E = np.eye(4, dtype=np.float32)
DAY, HOUR = 86400.0, 3600.0


def trace(queries, items, times=None, **arrays) -> Trace:
    """Axis indices per step for queries and items."""
    return Trace.from_arrays(queries=E[list(queries)], items=E[list(items)], times=times,
                             **arrays)


def deletions(r) -> dict:
    """{step: [keys deleted at that step, in order]}."""
    out: dict = {}
    for step, key in r.delete_log.tolist():
        out.setdefault(step, []).append(key)
    return out


# ------------------------------------------------------------------------------ MemoryBank

# A (key 0) is recalled at steps 1 and 2 (S = 3); B and C are never recalled (S = 1); at
# step 3, day 3, the day's pass decides on A, B, C in key order, with three draws.
MB = trace(queries=[0, 0, 0, 0, 1], items=[0, 1, 2, 3, 1],
           times=[0.0, HOUR, 2 * HOUR, 3 * DAY, 3 * DAY + 60])
MB_SEED = 2


def test_memorybank_retention_is_the_formula_each_source_evaluates():
    """The paper's e^{-t/S} rises with S; the shipped ``math.exp(-t / 5*S)`` falls."""
    paper = [ebbinghaus.retention(3.0, s, 0.0) for s in (1.0, 2.0, 3.0)]
    shipped = [ebbinghaus.retention(3.0, s, 5.0) for s in (1.0, 2.0, 3.0)]
    assert paper == [math.exp(-3 / s) for s in (1, 2, 3)]
    assert shipped == [math.exp(-3 / 5 * s) for s in (1, 2, 3)]  # Python's reading
    assert paper[0] < paper[1] < paper[2] and shipped[0] > shipped[1] > shipped[2]
    assert ebbinghaus.retention(0.0, 7.0, 5.0) == 1.0  # written or recalled today


def test_memorybank_paper_and_shipped_forget_opposite_memories():
    """Day 3's pass: A (S = 3) has R = e^-1 = 0.368 in the paper and e^-1.8 = 0.165 as
    shipped; B and C (S = 1) have e^-3 = 0.050 and e^-0.6 = 0.549.  Seed 2's draws,
    0.236, 0.529 and 0.502, forget B and C in the paper and A as shipped.  The cache
    (K = 3) is full when D arrives at step 3: a forgotten memory is the victim (B; C is
    deleted after), as shipped A.  At step 4 (same day, no pass) shipped recalls B, so
    its full cache evicts C (R = 0.549) rather than B or D (R = 1)."""
    stream = rng.new_stream(MB_SEED, ebbinghaus.FORGET_SALT)
    u = [rng.uniform(stream) for _ in range(3)]
    assert [round(v, 3) for v in u] == [0.236, 0.529, 0.502]
    assert math.exp(-1.8) < u[0] < math.exp(-1)  # A: kept by the paper, forgotten as shipped
    assert all(math.exp(-3) < v < math.exp(-0.6) for v in u[1:])  # B, C: the reverse
    paper = run(MB, "memorybank", capacity=3, top_k=1, seed=MB_SEED)
    shipped = run(MB, "memorybank_shipped", capacity=3, top_k=1, seed=MB_SEED)
    assert paper.admitted.tolist() == shipped.admitted.tolist() == [0, 1, 2, 3, 4]
    assert paper.evicted.tolist() == [-1, -1, -1, 1, -1]
    assert deletions(paper) == {3: [2]}
    assert shipped.evicted.tolist() == [-1, -1, -1, 0, 2]
    assert deletions(shipped) == {}
    assert paper.size.tolist() == [1, 2, 3, 2, 3] and shipped.size.tolist() == [1, 2, 3, 3, 3]


def test_memorybank_forgets_several_at_once_and_counts_the_step_once():
    """Without capacity pressure both forgotten memories leave at step 3's delete, smallest
    key first; the step counts once in N."""
    r = run(MB, "memorybank", capacity=10, top_k=1, seed=MB_SEED)
    assert deletions(r) == {3: [1, 2]}
    s = r.summary()
    assert s["evictions"] == 2 and s["modifications"] == 5  # five admissions, one a deletion step


# ------------------------------------------------------------------------ Generative Agents

# t0 (0 h): A = e0 arrives at a miss (importance 1).  t1 (1 h): A retrieved, a hit; B = e1
# arrives (importance 0).  t2 (10 h): B retrieved, a miss; C = e0 arrives into the full
# cache (K = 2).  t3 (11 h): A retrieved (cosine 0, the earlier admission), a miss; D = e1.
GA = trace(queries=[2, 0, 1, 1], items=[0, 1, 0, 1],
           times=[0.0, HOUR, 10 * HOUR, 11 * HOUR],
           query_topics=[5, 0, 5, 5], item_topics=[0, 1, 2, 3])


def test_generative_agents_evicts_the_lowest_score():
    """Step 2, candidates A, B (normalised recency, relevance to C, importance):
    A (0.995^9 -> 0, 1, 1) scores 0.5·0 + 3·1 + 2·1 = 5, B (1, 0, 0) scores 0.5: B goes,
    where LRU would evict A.  Step 3, candidates A (accessed 11 h) and C (10 h): recency
    A 1, C 0; relevance to D and importance tie (0.5 each): A 3.0, C 2.5: C goes.
    The shipped rank recency gives the least recently accessed the most: at step 3 C gets
    0.995^1 -> 1 and A 0.995^2 -> 0, so A goes."""
    hours = run(GA, "generative_agents", capacity=2, top_k=1)
    assert hours.hit.tolist() == [0, 1, 0, 0]
    assert hours.evicted.tolist() == [-1, -1, 1, 2]
    rank = run(GA, "generative_agents", capacity=2, top_k=1, params={"recency": "rank"})
    assert rank.evicted.tolist() == [-1, -1, 1, 0]
    lru = run(GA, "lru", capacity=2, top_k=1)  # A at step 2; at step 3 C (B was retrieved)
    assert lru.evicted.tolist() == [-1, -1, 0, 2]


def test_generative_agents_weights_decide():
    """Recency alone (weights 1, 0, 0) evicts the least recently accessed, as LRU: A at
    step 2, and at step 3, where the query retrieves B, C."""
    only = {"w_recency": 1.0, "w_relevance": 0.0, "w_importance": 0.0}
    assert run(GA, "generative_agents", capacity=2, top_k=1,
               params=only).evicted.tolist() == [-1, -1, 0, 2]


# ------------------------------------------------------------------------------------ Letta

# Budget 20 tokens; the summary holds ceil(0.016 · 20) = 1 once written.
LETTA_SIZES = [10, 4, 1, 1, 1, 1, 1, 2, 14, 1]
LETTA = trace(queries=[0] * 10, items=[0, 1, 2, 3] * 2 + [0, 1],
              item_sizes=LETTA_SIZES)


def test_letta_summarizes_three_quarters_of_the_buffer_on_overflow():
    """Step 7: 19 tokens cached and 2 arriving overflow 20.  Buffer 21, desired
    int(0.75 · 21) = 15; candidates all but the last 3 entries (m0 .. m4); running 10, 14,
    15, 16 > 15 ends the span at m3: m0 is the victim, m1 .. m3 leave at delete; m4
    stays.  Step 8: 5 + 14 = 19 fits with the summary (20).  Step 9: 19 + 1 fits the
    budget but not with the summary (21): the delete compacts [summary, m4, m5, m6] (the
    buffer 21, desired 15, four candidates, running 1 .. 4): m4, m5, m6 leave."""
    r = run(LETTA, "letta", capacity=None, budget=20, top_k=1)
    assert r.admitted.tolist() == list(range(10))
    assert r.evict_log.tolist() == [[7, 0]]
    assert deletions(r) == {7: [1, 2, 3], 9: [4, 5, 6]}
    s = r.summary()
    assert s["rewrites"] == 2  # the summary, written at step 7 and rewritten at step 9
    assert s["modifications"] == 10


def test_letta_without_a_budget_counts_the_window_in_items():
    """K = 5, every message one unit whatever its size; the summary holds one unit.
    Step 5: the cache is full; the buffer is 5 + the arrival = 6, desired int(4.5) = 4,
    candidates m0 .. m2 (running 1, 2, 3): all three leave, m0 as the victim.  Then 3
    messages + the summary = 4.  Step 6: 5, fits.  Step 7: the arrival fits the count
    limit but 5 + the summary overflows: the delete compacts [summary, m3, m4] (buffer 6,
    candidates all but the last 3): m3, m4 leave.  Step 9 likewise: m5, m6."""
    unsized = trace(queries=[0] * 10, items=[0, 1, 2, 3] * 2 + [0, 1])
    r = run(unsized, "letta", capacity=5, top_k=1)
    assert r.evicted.tolist() == [-1] * 5 + [0] + [-1] * 4
    assert deletions(r) == {5: [1, 2], 7: [3, 4], 9: [5, 6]}
    assert r.summary()["rewrites"] == 3
    sized = run(LETTA, "letta", capacity=5, top_k=1)
    assert sized.evicted.tolist() == r.evicted.tolist() and \
        deletions(sized) == deletions(r)  # sizes play no part without a budget


def test_letta_trigger_at_the_warning_fraction():
    """``trigger_frac = 0.75`` compacts once the held tokens pass 15 of 20 (the first
    reading of the source): 10, 14, 15 held after steps 0 to 2, then 16 > 15 at step 3:
    the buffer 16, desired 12, one candidate (m0, running 10): m0 leaves, and 6 tokens
    and the summary remain."""
    r = run(LETTA, "letta", capacity=None, budget=20, top_k=1, params={"trigger_frac": 0.75})
    assert deletions(r)[3] == [0]


@pytest.mark.parametrize("name, params, problem", [
    ("memorybank", {"strength_init": 0.0}, "strength_init"),
    ("memorybank_shipped", {"divisor": -5.0}, "divisor"),
    ("memorybank", {"step_seconds": 0.0}, "step_seconds"),
    ("generative_agents", {"recency": "days"}, "recency"),
    ("generative_agents", {"recency_decay": 1.5}, "recency_decay"),
    ("letta", {"trunc_token_frac": 0.0}, "trunc_token_frac"),
    ("letta", {"summary_share": 1.0}, "summary_share"),
    ("letta", {"keep_last_n": -1}, "keep_last_n")])
def test_bad_parameters_are_refused_by_name(name, params, problem):
    with pytest.raises(InputError, match=problem):
        run(MB, name, capacity=3, params=params)


# ------------------------------------------------------------------------------------ twins

def _random_trace(seed, steps, timed, sized):
    g = np.random.default_rng(seed)
    unit = lambda n: (lambda v: v / np.linalg.norm(v, axis=1, keepdims=True))(  # noqa: E731
        g.normal(size=(n, 3)).astype(np.float32))
    extra = {"item_sizes": g.integers(1, 5, steps)} if sized else {}
    times = np.cumsum(g.exponential(20 * HOUR, steps)) if timed else None
    return Trace.from_arrays(queries=unit(steps), items=unit(steps), times=times,
                             query_topics=g.integers(0, 3, steps),
                             item_topics=g.integers(0, 3, steps), **extra)


TWIN_PARAMS = {"memorybank": [{}], "memorybank_shipped": [{}, {"step_seconds": HOUR}],
               "generative_agents": [{}, {"recency": "rank"}],
               "letta": [{}, {"trigger_frac": 0.5, "keep_last_n": 0}]}


@pytest.mark.parametrize("name", sorted(TWIN_PARAMS))
def test_twin_equals_the_compiled_policy(name):
    """On timed and untimed traces, with a count limit and (sized) with a budget alone."""
    for seed in range(4):
        for timed, sized in ((True, False), (False, False), (True, True)):
            tr = _random_trace(seed, 30, timed, sized)
            options = {"capacity": None, "budget": 9, "top_k": 2} if sized else \
                {"capacity": 4, "top_k": 2}
            for params in TWIN_PARAMS[name]:
                assert_same_as_reference(name, POLICIES[name], Instance(tr, options),
                                         params=params, seed=seed)
