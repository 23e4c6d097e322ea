"""What the agent-memory rules need from the model (docs/model.md §1.9): step times and
supersessions in a trace and a policy's context, and forgetting several items in one
step (``repeat_delete``), in the fast, SimPy and reference engines.

The compiled policies here are the suite's own (``fifo``, ``periodic``) with a field
changed by ``dataclasses.replace``: their hooks and name are unchanged, so the loops the
suite compiles anyway serve them (``repeat_delete`` is read at run time).
"""

import dataclasses

import numpy as np
import pytest

from simulator.errors import InputError
from simulator.policies import REGISTRY
from simulator.policies.base import Policy
from simulator.runner import run
from simulator.testing import assert_same_as_reference, reference_run
from simulator.instance import Instance
from simulator.trace import Trace
from simulator.trace_formats import load, save
from helpers.naive_policies_memory import Periodic

from test_memory_policies import trace as axes_trace

EYE = np.eye(3, dtype=np.float32)


def small(**more) -> Trace:
    return Trace.from_arrays(queries=EYE, items=EYE, item_keys=[5, 6, 5], **more)


@pytest.mark.parametrize("times, why", [
    ([0.0, 2.0, 1.0], r"'times' decreases at index 2 \(1.0 after 2.0\)"),
    ([0.0, np.nan, 1.0], r"'times' has NaN or inf at index 1"),
    ([0.0, np.inf, np.inf], r"'times' has NaN or inf at index 1"),
    ([0.0, 1.0], r"'times' has shape \(2,\); expected \(3,\)"),
    (["a", "b", "c"], r"'times' has dtype <U1; expected float64"),
])
def test_bad_times_are_refused_in_one_line(times, why):
    with pytest.raises(InputError, match=why):
        small(times=times)


@pytest.mark.parametrize("supersedes, why", [
    ([5, -1, -1], r"names item 5 at index 0, which no earlier step brought"),
    ([-1, 6, -1], r"names item 6 at index 1, which no earlier step brought"),
    ([-1, 9, -1], r"names item 9 at index 1"),
    ([-1, -1], r"'supersedes' has shape \(2,\)"),
])
def test_bad_supersessions_are_refused_in_one_line(supersedes, why):
    with pytest.raises(InputError, match=why):
        small(supersedes=supersedes)


def test_times_and_supersedes_survive_a_trace_file(tmp_path):
    tr = small(times=[10.0, 10.0, 70.5], supersedes=[-1, 5, 6])
    # kept dense, as item_keys: 5 -> 0, 6 -> 1
    assert tr.supersedes.tolist() == [-1, 0, 1] and tr.times.dtype == np.float64
    save(tr, str(tmp_path / "t.npz"))
    back = load(str(tmp_path / "t.npz"))
    assert back.times.tolist() == [10.0, 10.0, 70.5]
    assert back.supersedes.tolist() == [-1, 0, 1]
    save(small(), str(tmp_path / "none.npz"))
    plain = load(str(tmp_path / "none.npz"))
    assert plain.times is None and plain.supersedes is None


def test_context_carries_times_and_supersedes_to_an_online_policy():
    seen = []
    fifo = REGISTRY["fifo"]

    def init(ctx):
        seen.append(ctx)
        return fifo.init(ctx)

    spy = dataclasses.replace(fifo, init=init)  # same hooks: the suite's FIFO loops
    tr = small(times=[1.0, 2.0, 3.5], supersedes=[-1, -1, 6])
    run(tr, spy, capacity=2)
    assert seen[-1].times.tolist() == [1.0, 2.0, 3.5]
    assert seen[-1].supersedes.tolist() == [-1, -1, 1]
    assert seen[-1].trace is None  # online: the times, not the trace
    run(small(), spy, capacity=2)
    assert seen[-1].times is None and seen[-1].supersedes is None


def test_a_twin_gets_the_times_and_supersedes_too():
    from simulator.testing.twin import Twin

    seen = []

    class Spy(Twin):
        def victim(self, t, key, x, cache):
            return min(cache)

        def on_feedback(self, t, loss, quality):
            seen.append((self.ctx.times[t], self.ctx.supersedes[t]))

    reference_run(small(times=[1.0, 2.0, 3.5], supersedes=[-1, -1, 6]), Spy, capacity=2)
    assert seen == [(1.0, -1), (2.0, -1), (3.5, 1)]


# Periodic deletion's sweep (test_memory_policies): with stale_after = 2, B and C (never
# retrieved, admitted at steps 1 and 2) are both stale at step 4, when the sweep starts.
# One deletion a step takes them at steps 4 and 5; asked again, the sweep takes both at 4.
SWEEP = axes_trace("DDD" + "A" * 6, "ABC" + "D" * 6, [[]] * 9)
SWEEP_PARAMS = {"warmup": 3, "period": 4, "stale_after": 2}


class RepeatingPeriodic(Periodic):
    repeat_delete = True


@pytest.mark.parametrize("engine", ["fast", "simpy"])
def test_repeat_delete_forgets_several_items_in_one_step(engine):
    once = run(SWEEP, "periodic", capacity=10, top_k=1, params=SWEEP_PARAMS, engine=engine)
    again = dataclasses.replace(REGISTRY["periodic"], repeat_delete=True)
    r = run(SWEEP, again, capacity=10, top_k=1, params=SWEEP_PARAMS, engine=engine)
    assert once.deleted.tolist() == [-1] * 4 + [1, 2] + [-1] * 3
    assert once.delete_log is None
    assert r.deleted.tolist() == [-1] * 4 + [1] + [-1] * 4  # the first key deleted
    assert r.delete_log.tolist() == [[4, 1], [4, 2]]
    assert r.size.tolist()[3:6] == [3, 1, 1]
    s, s_once = r.summary(), once.summary()
    # each deletion is an eviction; the step counts once in N
    assert s["evictions"] == s_once["evictions"] == 2
    assert s["modifications"] == s_once["modifications"] - 1
    assert_same_as_reference(again, RepeatingPeriodic, Instance(SWEEP, {"capacity": 10,
                                                                          "top_k": 1}),
                             params=SWEEP_PARAMS)


def test_the_reference_engine_repeats_deletions_for_a_repeating_twin():
    ref = reference_run(SWEEP, RepeatingPeriodic, capacity=10, top_k=1, params=SWEEP_PARAMS)
    assert ref["deleted_all"][4] == [1, 2] and ref["deleted"][4] == 1
    assert ref["evictions"] == 2
    once = reference_run(SWEEP, Periodic, capacity=10, top_k=1, params=SWEEP_PARAMS)
    assert once["deleted_all"][4:6] == [[1], [2]]
    assert ref["modifications"] == once["modifications"] - 1


def test_a_policy_and_its_twin_must_agree_on_repeating():
    with pytest.raises(InputError, match="repeat_delete=False and twin RepeatingPeriodic"):
        assert_same_as_reference("periodic", RepeatingPeriodic,
                                 Instance(SWEEP, {"capacity": 10, "top_k": 1}),
                                 params=SWEEP_PARAMS)


def test_repeat_delete_must_be_a_bool():
    fifo = REGISTRY["fifo"]
    with pytest.raises(InputError, match="repeat_delete must be True or False, got 1"):
        Policy(name="x", summary="", init=fifo.init, victim=fifo.victim, modes=("semantic",),
               repeat_delete=1)
