"""What the agent-memory rules need from the model (docs/model.md §1.9): step times and
supersessions in a trace and a policy's context, and forgetting several items in one
step (``repeat_delete``), in the fast, SimPy and reference engines.

The compiled policies here are the suite's own (``fifo``, ``periodic``) with a field
changed by ``dataclasses.replace``: their hooks and name are unchanged, so the loops the
suite compiles anyway serve them (``repeat_delete`` is read at run time).
"""

import dataclasses
import datetime
import json
import shutil

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
from simulator.testing.contract.hook_order import recorder
from simulator.testing.contract.timing import check_online_in_time, timed_traces
from simulator.testing.contract.traces import K, clustered_trace, zipf_requests
from simulator.testing.reference_model import TwinContext
from helpers.event_files import write_events
from helpers.locomo_fixture import FIXTURE
from helpers.naive_policies_memory import Periodic
from simulator.cli import main
from workloads.data import events, locomo_data

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


# ---------------------------------------------------------------- events: time, supersedes

def _rows(**per_row) -> list:
    """Three vector events; ``per_row[field]`` gives each row's value (None: left out)."""
    rows = [{"query_vector": [1, 0], "item_vector": [0, 1], "item_id": "a"},
            {"query_vector": [0, 1], "item_vector": [1, 1], "item_id": "b"},
            {"query_vector": [1, 1], "item_vector": [1, 0], "item_id": "c"}]
    for field, values in per_row.items():
        for row, value in zip(rows, values):
            if value is not None:
                row[field] = value
    return rows


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_events_times_as_seconds_or_iso_text(tmp_path, suffix):
    seconds = events.load(write_events(tmp_path / f"s{suffix}", _rows(time=[5, 5, 65.5])))
    assert seconds.times.tolist() == [5.0, 5.0, 65.5]
    iso = events.load(write_events(tmp_path / f"i{suffix}", _rows(time=[
        "2023-05-08T13:56:00", "2023-05-08T13:57:00Z", "2023-05-08T15:58:00+02:00"])))
    # no zone: UTC; a zone given is honoured (15:58 at +02:00 is 13:58 UTC)
    assert iso.times.tolist() == [1683554160.0, 1683554220.0, 1683554280.0]
    assert events.load(write_events(tmp_path / f"n{suffix}", _rows())).times is None


@pytest.mark.parametrize("times, why", [
    ([5, None, 7], r"line 2: no field 'time', but line 1 has one; give every row a time"),
    ([5, 4, 7], r"line 2: field 'time' goes back \(4.0 s after 5.0 s"),
    ([5, "2023-05-08T13:56:00", 7], r"line 2: field 'time' is an ISO 8601 date and time, "
                                    r"but line 1's is a number of seconds"),
    ([5, "May 8", 7], r"line 2: field 'time' must be a finite number of seconds \(any "
                      r"origin\) or an ISO 8601 text"),
    ([5, True, 7], r"line 2: field 'time' must be a finite number"),
])
def test_events_bad_times_are_refused_naming_the_row(tmp_path, times, why):
    with pytest.raises(InputError, match=why):
        events.load(write_events(tmp_path / "bad.jsonl", _rows(time=times)))


def test_events_supersedes_names_an_earlier_row(tmp_path):
    tr = events.load(write_events(tmp_path / "s.jsonl", _rows(supersedes=[None, None, "a"])))
    assert tr.supersedes.tolist() == [-1, -1, 0]
    assert events.load(write_events(tmp_path / "n.jsonl", _rows())).supersedes is None
    for bad, name in (([None, "c", None], "'c'"), (["a", None, None], "'a'"),
                      ([None, None, "zz"], "'zz'")):
        with pytest.raises(InputError, match=rf"field 'supersedes' names item id {name}, "
                                             r"which no earlier row's item_id has"):
            events.load(write_events(tmp_path / "bad.jsonl", _rows(supersedes=bad)))


def test_a_timed_events_file_runs_from_the_command_line(tmp_path, capsys):
    path = write_events(tmp_path / "log.jsonl", _rows(time=[0, 60, 120],
                                                      supersedes=[None, None, "b"]))
    assert main(["trace", "import", str(path), "--out", str(tmp_path / "log.npz")]) == 0
    saved = load(str(tmp_path / "log.npz"))
    assert saved.times.tolist() == [0.0, 60.0, 120.0] and saved.supersedes.tolist() == [-1, -1, 1]
    capsys.readouterr()
    assert main(["run", "--trace", str(path), "--policy", "fifo", "--capacity", "2",
                 "--json"]) == 0
    assert '"steps": 3' in capsys.readouterr().out


# ---------------------------------------------------------------- LoCoMo: session times

def _dated(tmp_path, **dates):
    """A copy of the fixture with conversation 1's session dates replaced."""
    folder = tmp_path / "locomo"
    shutil.copytree(FIXTURE, folder)
    conv = json.loads((folder / "1.json").read_text(encoding="utf-8"))
    conv.update(dates)
    (folder / "1.json").write_text(json.dumps(conv), encoding="utf-8")
    return folder


def test_locomo_turns_are_timed_from_their_session_dates():
    one, two = locomo_data.load(FIXTURE)
    # "9:00 am on 3 March, 2021", a minute a turn; session 2 "2:10 pm on 14 June, 2021"
    march = datetime.datetime(2021, 3, 3, 9, 0, tzinfo=datetime.timezone.utc).timestamp()
    june = datetime.datetime(2021, 6, 14, 14, 10, tzinfo=datetime.timezone.utc).timestamp()
    s1 = [t.time for t in one.turns if t.session == 1]
    assert s1 == [march + 60 * i for i in range(len(s1))]
    assert next(t.time for t in one.turns if t.session == 2) == june


def test_an_undated_or_early_session_is_a_quirk_and_time_goes_on(tmp_path):
    # the fixture's conversation 1 has sessions 1, 2 and 10
    folder = _dated(tmp_path, session_2_date_time="someday",
                    session_10_date_time="9:00 am on 1 January, 2020")
    one = locomo_data.load(folder, ["1"])[0]
    assert one.quirks["undated_sessions"] == 1 and one.quirks["sessions_out_of_order"] == 1
    last = {s: max(t.time for t in one.turns if t.session == s) for s in (1, 2)}
    first = {s: min(t.time for t in one.turns if t.session == s) for s in (2, 10)}
    assert first[2] == last[1] + 86400  # a day after the session before
    assert first[10] == last[2] + 60  # never before the session before


# ---------------------------------------------------------------- rewrites

def test_without_rewrites_a_run_records_none_and_its_cost_is_unchanged():
    r = run(SWEEP, "periodic", capacity=10, top_k=1, switch_cost=0.5, params=SWEEP_PARAMS)
    s = r.summary()
    assert s["rewrites"] == 0 and r.rewrites == 0
    assert s["cost"] == s["miss_cost"] + 0.5 * s["modifications"]


def test_a_twin_notes_rewrites_and_each_costs_lambda():
    class Rewriting(Periodic):
        """Periodic deletion that also rewrites two notes at each admission."""

        def on_insert(self, t, key):
            super().on_insert(t, key)
            self.note_rewrites(2)

    ref = reference_run(SWEEP, Rewriting, capacity=10, top_k=1, switch_cost=0.5,
                        params=SWEEP_PARAMS)
    once = reference_run(SWEEP, Periodic, capacity=10, top_k=1, switch_cost=0.5,
                         params=SWEEP_PARAMS)
    admitted = sum(a >= 0 for a in ref["admitted"])
    assert ref["rewrites"] == 2 * admitted and once["rewrites"] == 0
    assert ref["modifications"] == once["modifications"]
    assert ref["cost"] == once["cost"] + 0.5 * ref["rewrites"]
    with pytest.raises(InputError, match="n must be an integer"):
        Rewriting(TwinContext(capacity=2, params={})).note_rewrites(-1)


@pytest.mark.parametrize("engine", ["fast", "simpy"])
def test_a_compiled_policy_notes_rewrites_and_each_costs_lambda(engine):
    """The hook-order recorder (compiled for the hook-order test anyway) deletes on every
    fifth step and notes 3 rewrites with each deletion."""
    tr = clustered_trace(1, pool=12)
    plain = run(tr, recorder(tr.steps, []), capacity=K, switch_cost=0.25, engine=engine)
    r = run(tr, recorder(tr.steps, [], rewrites=3), capacity=K, switch_cost=0.25,
            engine=engine)
    s, p = r.summary(), plain.summary()
    deletions = int((r.deleted >= 0).sum())
    assert deletions > 0 and s["rewrites"] == r.rewrites == 3 * deletions
    assert p["rewrites"] == 0 and s["modifications"] == p["modifications"]
    assert s["cost"] == s["miss_cost"] + 0.25 * (s["modifications"] + 3 * deletions)
    assert s["cost"] > p["cost"] == p["miss_cost"] + 0.25 * p["modifications"]


def test_rewrites_in_paging_mode_are_refused_in_one_line():
    with pytest.raises(InputError, match=r"noted \d+ rewrites \(note_rewrites\) in paging "
                                         "mode"):
        run(zipf_requests(T=600), recorder(600, [], rewrites=1), capacity=K)


# ---------------------------------------------------------------- the contract: time online

def test_the_contract_holds_policies_to_reading_times_online():
    assert check_online_in_time("periodic") is None  # ignores the times: passes
    trace, other, m = timed_traces()
    assert (trace.times[:m + 1] == other.times[:m + 1]).all()
    assert (trace.times[m + 1:] != other.times[m + 1:]).all()
    assert (np.diff(other.times) >= 0).all()
    periodic = REGISTRY["periodic"]

    def peeking_init(ctx):
        # decides its warm-up by the last step's time: the future
        late = ctx.times is not None and ctx.times[-1] > trace.times[-1]
        return periodic.init(dataclasses.replace(ctx, params=dict(ctx.params,
                                                                   warmup=40 if late else 0)))

    peeking = dataclasses.replace(periodic, init=peeking_init)  # the suite's loops
    with pytest.raises(AssertionError, match=r"differs at step \d+ <= 150 between two traces "
                                             r"whose times differ only after step 150"):
        check_online_in_time(peeking)
