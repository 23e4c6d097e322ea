"""ARC's own paging loop (``simulator.policies.parts.arc_paging_loop``) equals ARC's hook loop.

The fast engine runs paging ARC through the own loop, so the libCacheSim and naive
equalities of ``test_paging_oracles.py`` and ``test_engine_vs_naive.py`` test it too;
here it is compared with the hook loop directly, with both widths of its key table.
"""

import dataclasses

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from helpers.pinned_paging import PINNED_PAGING
from simulator import policies
from simulator.engine import fast as engine_fast
from simulator.config import njit
from simulator.policies.parts import arc_paging_loop
from simulator.testing.contract import check_policy, paging_loop_result
from simulator.runner import run
from simulator.testing import traces
from simulator.trace import PagingTrace

ARC = policies.get("arc")


def hook_loop(requests, capacity):
    hit, counts = paging_loop_result(ARC, PagingTrace.from_requests(requests), capacity, True)
    return hit.tolist(), counts


def own_loops(requests, capacity):
    """The own loop through the engine, which runs its core with the int32 ``where`` of
    every capacity up to ``_INT32_CAPACITY``, and the core with the int64 ``where``,
    called directly (no trace here is long enough to reach it through the engine).  The
    int32 core is not called directly too: that would compile the same source once more."""
    n_keys = int(requests.max()) + 1
    hit, counts = paging_loop_result(ARC, PagingTrace.from_requests(requests), capacity, False)
    out = [(hit.tolist(), counts)]
    hit = np.full(len(requests), 7, np.int8)  # every entry must be written
    counts = arc_paging_loop.rings(requests, capacity, np.zeros(n_keys, np.int64), hit)
    out.append((hit.tolist(), [int(c) for c in counts]))
    return out


@given(trace=traces("paging", max_steps=120, max_keys=12), capacity=st.integers(1, 8))
@example(trace=PagingTrace.from_requests([0, 1, 2, 0, 3, 0, 4, 1, 0, 2, 1, 3, 3, 4, 0, 1]),
         capacity=1)
@example(trace=PagingTrace.from_requests([0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1]),
         capacity=2)  # T1 the whole cache
def test_own_loop_equals_hook_loop(trace, capacity):
    req = trace.requests
    want = hook_loop(req, capacity)
    for got in own_loops(req, capacity):
        assert got == want, (req.tolist(), capacity)


@pytest.mark.parametrize("requests, capacity",
                         [(r, c) for name, r, c, _ in PINNED_PAGING if name == "arc"])
def test_pinned_ghost_cases(requests, capacity):  # B2 hits at |T1| = p; p moves by ratios
    req = np.array(requests, np.int64)
    want = hook_loop(req, capacity)
    for got in own_loops(req, capacity):
        assert got == want


@pytest.mark.parametrize("capacity", [1, 3, 50])
def test_long_zipf_trace_with_every_list_in_use(capacity):
    rng = np.random.default_rng(capacity)
    # a hot set, a loop longer than the cache (ghost hits in B1) and a Zipf tail (B2)
    req = np.concatenate([rng.zipf(1.3, 4000) % 300, np.tile(np.arange(2 * capacity + 3), 30),
                          rng.integers(0, 40, 2000)]).astype(np.int64)
    want = hook_loop(req, capacity)
    for got in own_loops(req, capacity):
        assert got == want


def test_run_uses_the_own_loop_and_fills_hits():
    trace = PagingTrace.from_requests(np.array([0, 1, 0, 2, 1, 3, 0], np.int64))
    assert engine_fast.own_paging_loop(ARC) is not None
    assert engine_fast.own_paging_loop(policies.get("lru")) is None
    result = run(trace, "arc", capacity=2)
    assert result.hit.tolist() == hook_loop(trace.requests, 2)[0]
    assert result.summary()["admissions"] == 7 - int(result.hit.sum())


def test_int32_keys_table_holds_every_code_up_to_its_capacity():
    top = arc_paging_loop._INT32_CAPACITY
    largest_code = lambda c: (2 * c) << 3 | arc_paging_loop.B2  # noqa: E731 - node 2K in B2
    assert largest_code(top) <= np.iinfo(np.int32).max < largest_code(top + 1)


@njit
def _first_hit_missed(requests, n_keys, capacity, state, out_hit):
    """ARC's loop, except that once the cache is too small its first hit is a miss.

    Its core with the int64 ``where`` (equal to the int32 one, as the tests above show):
    the one ``own_loops`` compiles anyway, so the policy check's compiling of this hook
    adds little (``paging_loop`` would compile both widths once more)."""
    hits, admissions, evictions = arc_paging_loop.rings(requests, capacity,
                                                        np.zeros(n_keys, np.int64), out_hit)
    if capacity < n_keys:
        for t in range(out_hit.shape[0]):
            if out_hit[t]:
                out_hit[t] = 0
                return hits - 1, admissions + 1, evictions + 1
    return hits, admissions, evictions


def test_check_policy_catches_a_paging_loop_that_disagrees_with_the_hooks():
    # paging only: the semantic checks never run the paging loop, and would compile two
    # loops of their own for this policy
    bad = dataclasses.replace(ARC, name="arc_wrong_loop", modes=("paging",),
                              paging_loop=_first_hit_missed)
    policies.REGISTRY[bad.name] = bad
    try:
        with pytest.raises(AssertionError, match="check_paging_loop.*hook loop"):
            check_policy(bad.name)
    finally:
        del policies.REGISTRY[bad.name]
