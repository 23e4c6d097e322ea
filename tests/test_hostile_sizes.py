"""Hostile sizes and budgets: no tally wraps, and what could make one wrap is refused.

Sizes are bounded (docs/model.md §1.8, :mod:`simulator.engine.size_limits`): each in
[1, 2⁵³], a trace's total at most 2⁶¹, a budget at most 2⁵³.  The properties here search
the sizes and budgets within those bounds, near them above all, and check every tally of
the run against the exact sums computed in Python integers (which cannot wrap): the size
requested and hit, the largest total cached (never above the budget), and, for the
policies whose decisions only compare sizes (FIFO, LRU, LFU, SIEVE, Belady), the same run
with every size and the budget divided by a common power of two.  Beyond the bounds, the
readers, ``Trace``/``PagingTrace`` and the budget parser refuse, and the command line keeps
the bad-input contract (:mod:`hostile_contract`).  The ``@example`` lines are the
instances that once ran with wrapped tallies or ended in a traceback.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers.hostile_contract import assert_rejected
from helpers.hostile_files import outcome, workdir
from simulator import policies, runner
from simulator.errors import InputError
from simulator.run_options import MAX_BUDGET, budget_value
from simulator.engine.size_limits import MAX_SIZE, MAX_TOTAL
from simulator.trace import PagingTrace

PAGING = sorted(p for p, pol in policies.REGISTRY.items() if "paging" in pol.modes)
# decisions that compare sizes only, never scale them by a ratio: scaling is exact
SCALE_FREE = ("belady", "fifo", "lfu", "lru", "sieve")

# sizes near the limits above all, small ones beside them (so that several fit at once)
SIZE = st.one_of(st.integers(1, 4), st.sampled_from([MAX_SIZE, MAX_SIZE - 1, 2**52 + 1, 2**52]),
                 st.integers(1, MAX_SIZE))
BUDGET = st.one_of(st.none(), st.sampled_from([MAX_BUDGET, MAX_BUDGET - 1, 2**52, 1]),
                   st.integers(1, MAX_BUDGET))


def _occupancy_bound(sizes, budget) -> int:
    """The most a run can hold: the budget, and never more than every size at once."""
    total = sum(sizes)
    return total if budget is None else min(total, budget)


@settings(max_examples=40)
@given(policy=st.sampled_from(PAGING), ids=st.lists(st.integers(0, 5), min_size=1,
                                                    max_size=14), data=st.data())
@example(policy="fifo", ids=[0, 1, 2, 3, 4, 5], data=None)  # six budget-sized items held
def test_no_size_tally_wraps(policy, ids, data):
    if data is None:  # the pinned case, at the new bounds: sizes and budget at 2**53
        sizes, budget, capacity = [MAX_SIZE] * len(ids), MAX_BUDGET, None
    else:
        sizes = data.draw(st.lists(SIZE, min_size=len(ids), max_size=len(ids)))
        budget = data.draw(BUDGET)
        capacity = data.draw(st.one_of(st.none(), st.integers(1, 4))) \
            if budget is not None else data.draw(st.integers(1, 4))
    trace = PagingTrace.from_requests(np.array(ids), np.array(sizes, np.int64))
    result = runner.run(trace, policy, capacity=capacity, budget=budget)
    r = result.summary()
    assert r["requested_size"] == sum(sizes)
    assert r["hit_size"] == sum(s for s, h in zip(sizes, result.hit.tolist()) if h)
    assert 0 <= r["max_occupancy"] <= _occupancy_bound(sizes, budget)
    assert 0 <= r["evictions"] <= r["admissions"] <= len(ids)
    if policy in SCALE_FREE and budget is not None:
        common = int(np.gcd.reduce(np.array([*sizes, budget], np.int64)))
        shift = (common & -common).bit_length() - 1  # the power of two dividing them all
        small = runner.run(PagingTrace.from_requests(np.array(ids), np.array(sizes) >> shift),
                           policy, capacity=capacity, budget=budget >> shift).summary()
        for key in ("hits", "admissions", "evictions", "too_large"):
            assert r[key] == small[key], (key, shift)
        assert r["max_occupancy"] == small["max_occupancy"] << shift


@settings(max_examples=10)
@given(policy=st.sampled_from(["fifo", "lru", "solar", "solar_a"]),
       sizes=st.lists(SIZE, min_size=6, max_size=6), budget=BUDGET.filter(bool))
def test_no_semantic_size_tally_wraps(policy, sizes, budget):
    import workloads

    trace = workloads.get("clusters").generate({"steps": 6, "topics": 2, "dim": 4}, 0)
    keys = trace.item_keys
    sized = dict(trace.arrays(), item_sizes=np.array(sizes, np.int64)[keys])
    trace = type(trace).from_arrays(**sized)
    r = runner.run(trace, policy, capacity=None, budget=budget, top_k=1).summary()
    distinct = {int(k): sizes[int(k)] for k in keys}
    assert 0 <= r["max_occupancy"] <= min(budget, sum(distinct.values()))


# --------------------------------------------------------------------------- beyond them

@given(big=st.one_of(st.integers(MAX_SIZE + 1, 2**63 - 1),
                     st.sampled_from([2**62, 2**63 - 1, MAX_SIZE + 1])),
       n=st.integers(1, 6))
@example(big=2**62, n=6)  # six of them with a budget of 2**62: held at once
@example(big=2**63 - 1, n=4)  # requested_size wrapped to -4
def test_a_size_beyond_the_limit_is_refused_at_construction(big, n):
    with pytest.raises(InputError, match="request_sizes"):
        PagingTrace.from_requests(np.arange(n), np.full(n, big, np.int64))


@given(n=st.integers(MAX_TOTAL // MAX_SIZE + 1, MAX_TOTAL // MAX_SIZE + 64))
def test_a_total_beyond_the_limit_is_refused_at_construction(n):
    with pytest.raises(InputError, match="2\\*\\*61"):
        PagingTrace.from_requests(np.zeros(n, np.int64), np.full(n, MAX_SIZE, np.int64))


def test_the_limits_themselves_are_taken():
    n = MAX_TOTAL // MAX_SIZE
    trace = PagingTrace.from_requests(np.zeros(n, np.int64), np.full(n, MAX_SIZE, np.int64))
    assert runner.run(trace, "fifo", budget=MAX_BUDGET).summary()["requested_size"] == MAX_TOTAL


def test_a_workload_cannot_bypass_the_limit():
    """``dataclasses.replace`` builds a trace without ``validate``: still bounded."""
    import dataclasses

    trace = PagingTrace.from_requests(np.arange(3))
    with pytest.raises(InputError, match="request_sizes"):
        dataclasses.replace(trace, request_sizes=np.full(3, 2**62, np.int64))


def _csv(sizes) -> bytes:
    return b"id,size\n" + b"".join(b"%d,%d\n" % (i % 3, s) for i, s in enumerate(sizes))


@given(sizes=st.lists(st.one_of(st.integers(1, 8), st.integers(MAX_SIZE + 1, 2**63 - 1)),
                      min_size=1, max_size=6).filter(lambda s: max(s) > MAX_SIZE),
       stream=st.booleans())
@example(sizes=[2**63 - 1] * 4, stream=False)  # four of them: requested_size -4
@example(sizes=[2**63 - 1] * 4, stream=True)
def test_a_csv_size_beyond_the_limit_is_one_line(sizes, stream):
    folder = workdir()
    try:
        (folder / "t.csv").write_bytes(_csv(sizes))
        argv = ["run", "--trace", "t.csv", "--trace-param", "obj-id-col=1", "--trace-param",
                "obj-size-col=2", "--policy", "fifo", "--out", "old.json"]
        line = assert_rejected(argv + (["--stream"] if stream else []), folder, "2**53")
        assert "column 2" in line
    finally:
        shutil.rmtree(folder)


def test_a_workload_total_beyond_the_limit_is_one_line():
    """Each size within its limit (a workload draws at most 2**40), the total beyond."""
    folder = workdir()
    try:
        assert_rejected(["run", "--workload", "zipf_paging", "--param", "steps=2100000",
                         "--param", "sizes=lognormal", "--param", f"size_median={2**40}",
                         "--param", "size_sigma=0", "--policy", "fifo", "--out", "old.json"],
                        folder, "2**61")
    finally:
        shutil.rmtree(folder)


# --------------------------------------------------------------------------- budgets

UNITS = {"": 1, "KiB": 1 << 10, "mib": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
# text no budget may be: non-ASCII digits (str.isdigit takes them), numbers past int()'s
# 4,300 digits or past 2**53, signs, floats, unknown suffixes, nothing
HOSTILE_BUDGET = st.one_of(
    st.text(st.sampled_from("0123456789²³¹٣١２⁵ -+.eExkKmMgGtTpPiIbB_,"), min_size=1,
            max_size=8).filter(lambda t: not _parses(t)),
    st.integers(4300, 6000).map(lambda n: "9" * n),
    st.integers(17, 60).map(lambda n: "9" * n + "MiB"),
    st.sampled_from(["2²", "²", "٣", "1e3", "0x10", "-5", "0", "8PiB", "1.5GiB", "",
                     str(MAX_BUDGET + 1), f"{2**44}TiB", "0" * 5000]))


def _parses(text: str) -> bool:
    try:
        budget_value(text)
    except InputError:
        return False
    return True


@given(number=st.one_of(st.integers(1, MAX_BUDGET), st.integers(1, 2**14)),
       unit=st.sampled_from(sorted(UNITS)), zeros=st.integers(0, 3))
@example(number=MAX_BUDGET, unit="", zeros=0)
@example(number=MAX_BUDGET + 1, unit="", zeros=0)
@example(number=2**13, unit="TiB", zeros=0)
def test_a_budget_text_is_its_number_or_refused(number, unit, zeros):
    text = "0" * zeros + str(number) + unit
    expected = number * UNITS[unit]
    if expected > MAX_BUDGET:
        assert not _parses(text)
    else:
        assert budget_value(text) == expected


RUN = ["run", "--workload", "zipf_paging", "--param", "steps=50", "--policy", "fifo",
       "--out", "old.json"]
BUDGET_COMMANDS = {
    "run": RUN, "run --stream": ["run", "--trace", "t.txt", "--policy", "lru", "--stream",
                                 "--out", "old.json"],
    "opt": ["opt", "--workload", "clusters", "--param", "steps=20", "--out", "old.json"],
    "sweep": ["sweep", "--workload", "zipf_paging", "--param", "steps=50", "--policy",
              "fifo", "--workers", "0", "--out", "store"],
}


@settings(max_examples=40)
@given(command=st.sampled_from(sorted(BUDGET_COMMANDS)), text=HOSTILE_BUDGET)
@example(command="run", text="2²")  # str.isdigit() took it, int() did not: a traceback
@example(command="opt", text="9" * 5000)  # beyond int()'s 4,300 digits
@example(command="sweep", text="2²")
@example(command="run --stream", text="9" * 4301)
@example(command="run", text=str(2**62))  # once legal: s3fifo's ghost share wrapped
def test_a_hostile_budget_is_one_line(command, text):
    folder = workdir()
    try:
        (folder / "t.txt").write_bytes(b"1\n2\n1\n")
        assert_rejected(BUDGET_COMMANDS[command] + ["--budget", text], folder, "budget")
    finally:
        shutil.rmtree(folder)


@pytest.mark.parametrize("argv", [
    ["run", "--trace", "t.txt", "--capacity", "none", "--budget", "5", "--policy", "fifo"],
    ["run", "--trace", "t.txt", "--capacity", "NONE", "--budget", "5", "--policy", "fifo",
     "--stream"],
    ["opt", "--workload", "clusters", "--param", "steps=20", "--capacity", "none",
     "--budget", "3"],
])
def test_capacity_none_with_a_budget_runs(argv):
    folder = workdir()
    try:
        (folder / "t.txt").write_bytes(b"1\n2\n1\n")
        assert outcome(argv + ["--json"], folder) is None
    finally:
        shutil.rmtree(folder)


@given(command=st.sampled_from(["run", "opt", "delay-study"]))
def test_capacity_none_without_a_budget_is_one_line(command):
    argv = {"run": RUN, "opt": BUDGET_COMMANDS["opt"],
            "delay-study": ["delay-study", "--quick", "--plot", "p.png"]}[command]
    folder = workdir()
    try:
        assert_rejected(argv + ["--capacity", "none"], folder, "--budget")
    finally:
        shutil.rmtree(folder)
