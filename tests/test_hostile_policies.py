"""Hostile policies: a user's own policy, through every door it comes by.

Each case breaks one thing a user writes (the ``Policy`` record, a hook, ``init``, a
declaration, a call to a run in progress, a keyword of a Python front door) and expects one
:class:`~simulator.errors.InputError` whose line names what is at fault (the field, the
policy and the hook, the argument) with the words listed; from the command line, exit code
2, one line, no traceback (:mod:`helpers.hostile_contract`).  The checks before a run's loop
is compiled are held to that too: they fail before any loop compiles.  The faults that
only a run shows share one policy, :data:`SABOTEUR`, whose ``fault`` parameter picks the
hook that misbehaves, so its three loops (paging, paging with a budget, semantic) compile
once.
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
import sys
import textwrap

import numpy as np
import pytest

import simulator
from simulator import policies
from simulator.engine import hook_source
from simulator.engine import hook_types
from simulator.config import njit
from simulator.engine.fast import ARRIVE, FEEDBACK, RETRIEVE
from simulator.errors import InputError
from simulator.live_run import LiveRun
from simulator.policies.base import Policy, Traits, empty_state
from simulator.testing.contract import clustered_trace
from simulator.run_options import RunOptions
from simulator.trace import PagingBuffer, PagingTrace, TraceBuffer

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from helpers.cached_hooks import cached_hooks  # noqa: E402
from helpers.hostile_contract import assert_rejected, assert_rejected_in_process  # noqa: E402

# hits in the first half (3 keys, capacity 3), evictions in the second (7 keys)
PAGING = PagingTrace.from_requests(np.r_[np.arange(20) % 3, np.arange(20) % 7])
SEMANTIC = clustered_trace(0, T=40)


@njit(cache=True)  # self-contained: numba's cache, checked against this file, may keep it
def _first_slot(state, t, key, x, cache):
    slot_key = cache[0]
    for s in range(slot_key.shape[0]):
        if slot_key[s] >= 0:
            return s
    return 0


def _policy(**fields) -> Policy:
    base = dict(name="hostile", summary="a user's policy", init=lambda ctx: empty_state(),
                victim=_first_slot, modes=("semantic", "paging"))
    return Policy(**(base | fields))


def _refused(words: str, run, param: str | None = None) -> str:
    """``run()`` raises one InputError with every word of ``words`` (``|`` between them)."""
    with pytest.raises(InputError) as caught:
        run()
    line = str(caught.value)
    assert "\n" not in line and all(w.lower() in line.lower() for w in words.split("|")), line
    if param is not None:
        assert caught.value.param == param, (caught.value.param, line)
    return line


# --------------------------------------------------------------------------- the record

@njit
def _admit_silent(state, t, key, x, cache):
    state[0][0] = t


@njit
def _admit_bare_return(state, t, key, x, cache):
    if t > 1:
        return
    return True


@njit
def _victim_none(state, t, key, x, cache):
    return None


@njit
def _delete_silent(state, t, cache):
    state[0][0] = t


@njit
def _admit_two_arguments(state, t):
    return True


def _admit_in_python(state, t, key, x, cache):
    return True


BUILD = [  # (fields of the Policy, words of the line)
    (dict(name=3), "policy name must be a string|int"),
    (dict(name=None), "policy name must be a string"),
    (dict(name="a,b"), "'a,b'|letters, digits"),
    (dict(name=""), "policy name ''"),
    (dict(name="x" * 65), "1 to 64"),
    (dict(name="../up"), "'../up'"),
    (dict(modes="semantic"), "modes|not the string"),
    (dict(modes=()), "modes must name where it runs"),
    (dict(modes=("vectors",)), "modes|vectors"),
    (dict(modes=("paging", "paging")), "modes"),
    (dict(modes=5), "modes"),
    (dict(summary=3), "summary must be a string"),
    (dict(init=5), "init must be a function"),
    (dict(unbounded="no"), "unbounded must be True or False"),
    (dict(traits="randomized"), "traits must be a simulator.Traits"),
    (dict(check_params=5), "check_params must be a function"),
    (dict(state_bytes="big"), "state_bytes must be a function"),
    (dict(params={"alpha": math.nan}), "parameter 'alpha' has default nan"),
    (dict(params={"alpha": math.inf}), "'alpha' has default inf"),
    (dict(params={"alpha": -math.inf}), "'alpha' has default -inf"),
    (dict(params={"n": np.int64(3)}), "'n' has default"),
    (dict(params={"n": 2**60}), "'n' has default|2**53"),
    (dict(params={"n": [1, 2]}), "'n' has default [1, 2]"),
    (dict(params={"n": object()}), "'n' has default"),
    (dict(params={"bad name": 1}), "parameter name 'bad name'"),
    (dict(params={3: 1}), "parameter name 3"),
    (dict(params="alpha=1"), "params must be a dict"),
    (dict(admit=_admit_in_python), "hook admit must be compiled with @simulator.njit"),
    (dict(victim=lambda *a: 0), "hook victim must be compiled"),
    (dict(admit=_admit_two_arguments), "hook admit takes (state, t, key, x, cache)"),
    (dict(admit=_admit_silent), "hook admit must return True or False|no return statement"),
    (dict(admit=_admit_bare_return), "hook admit|return without a value at line"),
    (dict(victim=_victim_none), "hook victim must return the slot to evict|line"),
    (dict(delete=_delete_silent), "hook delete must return a slot to delete, or -1"),
]


@pytest.mark.parametrize("fields, words", BUILD, ids=[str(i) for i in range(len(BUILD))])
def test_a_policy_record_is_refused_when_built(fields, words):
    _refused(words, lambda: _policy(**fields))


def test_what_a_record_may_hold_is_built():
    """The edges of each rule pass: the longest name, a tuple of modes given as a list, a
    None, string, bool, integer and float default, a hook without source (exec'd)."""
    space = {}
    exec("from simulator.config import njit\n@njit\ndef admit(state, t, key, x, cache):\n"
         "    pass\n", space)  # no source to read: the check before the run holds it
    pol = _policy(name="a" * 64, modes=["paging"], admit=space["admit"],
                  params={"a": None, "b": "x", "c": True, "d": -2**53, "e": 0.5})
    assert pol.modes == ("paging",)
    _refused("hook admit (admit) returns nothing (None)|True or False",
             lambda: LiveRun(PAGING, pol, capacity=3))


# --------------------------------------------------------------------- each hook, typed

@njit
def _admit_int(state, t, key, x, cache):
    return 1


@njit
def _admit_maybe(state, t, key, x, cache):
    if t > 1:
        return True


@njit
def _victim_float(state, t, key, x, cache):
    return 0.5


@njit
def _victim_unsigned(state, t, key, x, cache):
    return np.uint64(0)


@njit
def _delete_float(state, t, cache):
    return -1.0


def _python_helper(t):
    return 0


@njit
def _victim_calls_python(state, t, key, x, cache):
    return _python_helper(t)


@njit
def _admit_attribute(state, t, key, x, cache):
    return x.no_such_attribute > 0


@njit
def _on_hit_undefined(state, slot, t, relevant):
    state[0][0] = _no_such_name  # noqa: F821  (the fault under test)


@njit
def _nothing(t):
    pass


@njit
def _victim_via_nothing(state, t, key, x, cache):
    return _nothing(t)


@njit
def _on_insert_readonly(state, slot, key, t):
    state[0][0] = t


TYPED = [  # (hook fields, words): each hook compiled alone, before any loop
    (dict(admit=_admit_int), "hook admit (_admit_int) returns int64|True or False"),
    (dict(admit=_admit_maybe), "bool on some paths and None on others"),
    (dict(victim=_victim_float), "hook victim (_victim_float) returns float64|integer"),
    (dict(victim=_victim_unsigned), "returns uint64"),
    (dict(delete=_delete_float), "hook delete (_delete_float) returns float64|or -1"),
    (dict(victim=_victim_calls_python),
     "cannot be compiled|Untyped global name '_python_helper'|only @simulator.njit"),
    (dict(admit=_admit_attribute), "hook admit|Unknown attribute 'no_such_attribute'"),
    (dict(on_hit=_on_hit_undefined), "hook on_hit|_no_such_name"),
    (dict(victim=_victim_via_nothing), "hook victim (_victim_via_nothing) returns nothing"),
    (dict(on_insert=_on_insert_readonly, init=lambda ctx: (_readonly(),)),
     "hook on_insert|readonly|writable"),
]


def _readonly():
    a = np.zeros(4, np.int64)
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("fields, words", TYPED, ids=[str(i) for i in range(len(TYPED))])
@pytest.mark.parametrize("trace", [PAGING, SEMANTIC], ids=["paging", "semantic"])
def test_a_hook_of_the_wrong_type_is_refused_before_the_loop(fields, words, trace):
    pol = _policy(**fields)
    _refused(f"policy 'hostile'|{words}", lambda: LiveRun(trace, pol, capacity=3))


def test_the_shipped_hooks_meet_the_same_rules():
    """What a user's hooks are held to, the package's are too: every return read in the
    source, and each hook of a policy of each kind typed alone (hook-only, deleting, with
    nested state: a few seconds each)."""
    for name, pol in policies.REGISTRY.items():
        for hook in hook_source.RETURNS:
            hook_source.check_returns(name, hook, getattr(pol, hook), packaged=True)
    for name, trace in (("fifo", PAGING), ("tinylfu", PAGING), ("solar", SEMANTIC)):
        live = LiveRun(trace, name, capacity=3)
        paging = isinstance(trace, PagingTrace)
        cache = (np.full(3, -1, np.int64), np.zeros((0 if paging else trace.dim, 3), np.float32),
                 np.zeros(3, np.int64), np.zeros(14, np.int64))  # as the engine's, typed
        # the same hooks' code, as copies numba keeps on disk (helpers/cached_hooks.py):
        # typed alone, each would compile again in every session
        hook_types.check_hooks(cached_hooks(name), live.mode, live.state, cache,
                               None if paging else trace.items, packaged=True)


@njit
def _loop_of_one(requests, n_keys, capacity, state, out_hit):
    return 0


@njit
def _loop_of_three(requests, n_keys, capacity, state, out_hit):
    return 0, 0, 0


def test_an_own_paging_loop_returns_three_tallies():
    pol = _policy(paging_loop=_loop_of_one)
    _refused("hook paging_loop (_loop_of_one) returns int64|a tuple of three integers",
             lambda: LiveRun(PAGING, pol, capacity=3))
    LiveRun(PAGING, _policy(paging_loop=_loop_of_three), capacity=3)
    LiveRun(PAGING, pol, budget=3)  # a run with a budget never takes the policy's own loop


# ------------------------------------------------------------ init and the declarations

def _init_raising(ctx):
    raise KeyError("no such table")


def _init_refusing(ctx):
    raise InputError("my_policy needs capacity >= 4 (give --capacity 4)")


STATES = [  # what init returns, and the words of the line
    ([np.zeros(3)], "returned a list"),
    (np.zeros(3), "returned a ndarray"),
    (None, "returned a NoneType"),
    ({"a": np.zeros(3)}, "returned a dict"),
    ((np.zeros(3), "x"), "tuple holding a str"),
    ((np.array([None, 1], dtype=object),), "an array of dtype object"),
    ((np.zeros(3), [1, 2]), "tuple holding a list"),
    ((np.zeros(2), (np.zeros(1), {})), "tuple holding a dict"),
]


@pytest.mark.parametrize("state, words", STATES, ids=[str(i) for i in range(len(STATES))])
def test_a_state_that_is_not_a_tuple_of_arrays_is_refused(state, words):
    pol = _policy(init=lambda ctx: state)
    _refused(f"policy 'hostile': init must return a tuple of numpy arrays|{words}",
             lambda: LiveRun(PAGING, pol, capacity=3))


def test_the_packages_hooks_on_a_state_of_your_own_are_typed_too():
    """A shipped policy with your own init: its hooks are typed against your state."""
    pol = dataclasses.replace(policies.get("fifo"), name="fifo_mine",
                              init=lambda ctx: (np.zeros(3),))
    _refused("policy 'fifo_mine': hook|cannot be compiled|another shape than init returns",
             lambda: LiveRun(PAGING, pol, capacity=3))


def test_init_raising_is_one_line_and_its_own_input_error_passes_as_it_is():
    _refused("policy 'hostile': init raised KeyError: 'no such table'",
             lambda: LiveRun(PAGING, _policy(init=_init_raising), capacity=3))
    line = _refused("my_policy needs capacity",
                    lambda: LiveRun(PAGING, _policy(init=_init_refusing), capacity=3))
    assert line == "my_policy needs capacity >= 4 (give --capacity 4)"
    pol = _policy(init=lambda ctx: (np.zeros(2), (np.zeros(1, np.int8),), 3.5, True))
    assert len(LiveRun(PAGING, pol, capacity=3).state) == 4  # nested tuples, numbers: fine


def _raise(*args):
    raise ZeroDivisionError("bad arithmetic")


DECLARED = [  # a declaration that answers nonsense, and the words of the line
    (dict(traits=lambda params: "randomized"), "traits(params) must return a simulator.Traits"),
    (dict(traits=_raise), "traits raised ZeroDivisionError: bad arithmetic"),
    (dict(check_params=lambda params: 5), "check_params must return a sentence"),
    (dict(check_params=_raise), "check_params raised ZeroDivisionError"),
    (dict(state_bytes=lambda p, s, n: math.nan), "state_bytes|must return a number of bytes"),
    (dict(state_bytes=lambda p, s, n: -1), "state_bytes|>= 0, got -1"),
    (dict(state_bytes=lambda p, s, n: "big"), "state_bytes|got 'big'"),
    (dict(state_bytes=lambda p, s, n: None), "state_bytes|got None"),
    (dict(state_bytes=_raise), "state_bytes raised ZeroDivisionError"),
]


@pytest.mark.parametrize("fields, words", DECLARED, ids=[str(i) for i in range(len(DECLARED))])
def test_a_declaration_answering_nonsense_is_one_line(fields, words):
    pol = _policy(**fields)
    _refused(f"policy 'hostile'|{words}", lambda: simulator.run(PAGING, pol, capacity=3))


def test_traits_are_booleans_and_a_traits_function_returning_them_is_read():
    _refused("Traits.randomized must be True or False, got 'yes'",
             lambda: Traits(randomized="yes"))
    _refused("Traits.offline must be True or False, got 1", lambda: Traits(offline=1))
    pol = _policy(traits=lambda params: Traits(randomized=True))
    assert pol.traits_of().randomized


# ------------------------------------------------------------------ faults while it runs
# The saboteur's hooks call nothing outside this file, so numba's cache (checked against
# this file) may keep them: each run checks a user's hooks by compiling each alone.

@njit(cache=True)
def _sab_pick(state, t):
    if state[0][0] == 2 and t >= 25:
        raise ValueError("the helper broke")
    return 0


@njit(cache=True)
def _sab_victim(state, t, key, x, cache):
    fault = state[0][0]
    if fault == 1 and t >= 25:
        raise ValueError("the victim broke")
    if fault == 6:
        return 10**6
    s = _sab_pick(state, t)
    while cache[0][s] < 0:
        s += 1
    return s


@njit(cache=True)
def _sab_admit(state, t, key, x, cache):
    fault = state[0][0]
    if fault == 3 and t >= 1:
        return np.empty(t - 10).shape[0] == 0  # NumPy refuses a negative size
    if fault == 7 and t >= 5:
        raise RuntimeError("admit gave up")
    return True


@njit(cache=True)
def _sab_delete(state, t, cache):
    fault, slot_key = state[0][0], cache[0]
    if t == 1 and fault == 4:  # two of three slots hold items: the last is empty
        return slot_key.shape[0] - 1
    if t == 1 and fault == 5:
        return -5
    if t == 1 and fault == 8:
        return slot_key.shape[0] + 3
    return -1


@njit(cache=True)
def _sab_on_hit(state, slot, t, relevant):
    if state[0][0] == 10:
        raise IndexError("on_hit found nothing")


@njit(cache=True)
def _sab_on_feedback(state, t, loss, quality):
    if state[0][0] == 11 and t == 3:
        raise ValueError("feedback too late")


SABOTEUR = Policy(name="hostile_saboteur", summary="misbehaves as its fault parameter says",
                  init=lambda ctx: (np.array([ctx.params["fault"]], np.int64),),
                  params={"fault": 0}, victim=_sab_victim, admit=_sab_admit,
                  delete=_sab_delete, on_hit=_sab_on_hit, on_feedback=_sab_on_feedback,
                  modes=("semantic", "paging"))
FILE = pathlib.Path(__file__).name
FAULTS = [  # (fault, words): the hook and the policy's own message, or the slot
    (1, f"hook victim (_sab_victim, {FILE}:|raised ValueError: the victim broke"),
    (2, f"_sab_pick ({FILE}:|called by hook victim) raised ValueError: the helper broke"),
    (3, "its compiled code|ValueError: negative dimensions not allowed"),
    (7, "hook admit (_sab_admit|RuntimeError: admit gave up"),
    (10, "hook on_hit (_sab_on_hit|IndexError: on_hit found nothing"),
    (11, "hook on_feedback (_sab_on_feedback|ValueError: feedback too late"),
    (4, "at step 1 delete() returned slot 2, which holds no item|or -1"),
    (5, "at step 1 delete() returned slot -5"),
    (8, "at step 1 delete() returned slot 6"),
    (6, "victim() returned slot 1000000, which holds no item"),
]
LOOPS = {"paging": (PAGING, {"capacity": 3}), "paging-budget": (PAGING, {"budget": 3}),
         "semantic": (SEMANTIC, {"capacity": 3})}


@pytest.mark.parametrize("fault, words", FAULTS, ids=[str(f) for f, _ in FAULTS])
@pytest.mark.parametrize("loop", list(LOOPS))
def test_a_fault_of_the_policy_while_it_runs_is_one_line(loop, fault, words):
    """Every loop that calls the hooks (the paging loop, its budget copy, whose deletions
    go through another helper, and the semantic step) says the fault in one line naming
    the policy, and the run takes no further step."""
    trace, limits = LOOPS[loop]
    live = LiveRun(trace, SABOTEUR, params={"fault": fault}, **limits)
    _refused(f"policy 'hostile_saboteur'|{words}", live.run_all)
    _refused("step(): this run stopped at a fault of its policy|start a new run",
             lambda: live.step(0))
    assert simulator.run(trace, SABOTEUR, params={"fault": 0}, **limits).summary()["steps"]


# ------------------------------------------------------------- a run stepped by hand

W, R, F, A = RETRIEVE | FEEDBACK | ARRIVE, RETRIEVE, FEEDBACK, ARRIVE
STEPS = [  # (legal calls first, the illegal call, its parameter, words)
    ([], (0, 10**6), "t1", "t1 must be in t0 .. 40|got t0 = 0, t1 = 1000000"),
    ([], (-5,), "t0", "t0 must be a step in 0 .. 40|got -5"),
    ([], (41,), "t0", "got 41"),
    ([(0, 3)], (3, 2), "t1", "t1 must be in t0 .. 40"),
    ([], (True,), "t0", "t0 must be an integer step index|bool"),
    ([], (0.0,), "t0", "t0 must be an integer|float"),
    ([], ("0",), "t0", "t0 must be an integer|str"),
    ([], (0, 2.5), "t1", "t1 must be an integer|float"),
    ([], (0, 1, 0), "phases", "phases must be|got 0"),
    ([], (0, 1, 8), "phases", "phases must be|got 8"),
    ([], (0, 1, True), "phases", "phases must be|True"),
    ([], (0, 1, "RETRIEVE"), "phases", "phases must be"),
    ([], (3,), "t0", "step 3 cannot retrieve yet|the next to retrieve is step 0"),
    ([(0, 5)], (2, 4), "t0", "step 2 cannot retrieve again|next to retrieve is step 5"),
    ([(0, 40)], (39,), "t0", "every step has had its retrieval"),
    ([], (0, 1, A), "t1", "step 0 cannot arrive before it retrieves"),
    ([(0, 3, R)], (0, 4, A), "t1", "step 3 cannot arrive before it retrieves"),
    ([(0, 3, R), (0, 2, A)], (0, 1, A), "t0",
     "step 0 cannot arrive again|next to arrive is step 2"),
    ([(0, 3, R)], (1, 2, A), "t0", "step 1 cannot arrive yet|next to arrive is step 0"),
    ([(0, 3, R)], (0, 4, F), "t1", "step 3 cannot have feedback before it retrieves"),
    ([(0, 3, R), (2, 3, F)], (1, 2, F), "t0", "step 1 cannot have feedback now|step 2 has had it"),
    ([(0, 3, R), (0, 3, F)], (2, 3, F), "t0", "step 2 cannot have feedback now"),
]


@pytest.mark.parametrize("calls, bad, param, words", STEPS, ids=[str(i) for i in range(len(STEPS))])
def test_a_step_out_of_bounds_or_out_of_order_runs_nothing(calls, bad, param, words):
    """Before compiled code sees an index: step(0, 10**6) killed Python, step(-5) ran a
    step out of order.  A refused call leaves the run as it was, so a legal one follows."""
    live = LiveRun(PAGING, "fifo", capacity=3)
    for call in calls:
        live.step(*call)
    hit, size = live.hit.copy(), live.cache_size
    _refused(words, lambda: live.step(*bad), param)
    assert np.array_equal(live.hit, hit) and live.cache_size == size
    live.step(0, 40) if not calls else None


def test_the_orders_the_engines_use_are_legal():
    """Late and lost feedback, a retrieval ahead of the last arrival (two sessions), NumPy
    integers and empty ranges, as the SimPy engine steps a run: FIFO ignores feedback, so
    the run is the whole run's."""
    live = LiveRun(SEMANTIC, "fifo", capacity=3)
    live.step(np.int64(0), np.int32(2), R)
    live.step(0, 1, A)  # step 1 retrieved before step 0's arrival
    live.step(1, 2, A)
    live.step(0, 1, F)  # step 0's feedback, late; step 1's is lost
    live.step(2, 2, W)  # nothing
    for t in range(2, 40):
        live.step(t, t + 1, R | A)
        if t % 3:
            live.step(t, t + 1, F)
    whole = simulator.run(SEMANTIC, "fifo", capacity=3)
    assert np.array_equal(live.hit, whole.hit) and np.array_equal(live.admitted,
                                                                 whole.admitted)


def test_retrieve_feed_and_run_all_check_what_they_are_given():
    live = LiveRun(SEMANTIC, "fifo", capacity=3)
    for t, words in ((40, "t must be a step in 0 .. 39|got 40"), (-1, "got -1"),
                     (1.5, "t must be an integer"), (True, "bool")):
        _refused(words, lambda: live.retrieve(t), "t")
    live.step(0)
    _refused("run_all() runs every step from the empty cache", live.run_all)
    paging = LiveRun(PAGING, "fifo", capacity=3)
    _refused("feed() gives a streamed run its requests|40 requests", lambda: paging.feed([0]))
    streamed = LiveRun(PagingBuffer(np.zeros(0, np.int64), 5), "fifo", capacity=2)
    for requests, words in (([0.5], "requests must be a 1-D array of integers"),
                            ([[0, 1]], "1-D"), (["a"], "requests"), ([True], "requests"),
                            ([2**64 - 1], "past int64")):
        _refused(words, lambda: streamed.feed(requests), "requests")
    _refused("sizes must be a 1-D array", lambda: streamed.feed([0], [1.5]), "sizes")
    assert streamed.feed([0, 1, 0]).tolist() == [0, 0, 1]


def _blank(steps=6, dim=4):
    """A buffer with every vector written (rows of the identity)."""
    buf = TraceBuffer.blank(steps, dim)
    buf.queries[:] = buf.items[:] = np.eye(dim, dtype=np.float32)[np.arange(steps) % dim]
    return buf


ROWS = [  # (a row written after the run was made, words), on a written buffer
    (dict(queries=(2, np.nan)), "step 2 reads row 2|query vector has NaN or inf"),
    (dict(items=(3, 0.0)), "step 3|item vector is zero (not written)"),
    (dict(item_keys=(1, 10**6)), "step 1|item key is not in 0 .. 5"),
    (dict(item_keys=(1, -3)), "item key"),
    (dict(query_topics=(0, -7)), "query topic is below -1"),
    (dict(item_topics=(4, -2)), "step 4|item topic is below -1"),
    (dict(weights=(0, np.nan)), "weight is not in [0, 1]"),
    (dict(weights=(5, 1.5)), "step 5|weight"),
    (dict(item_sizes=(0, 3)), "item size is not 1, in a run made without sizes"),
]


@pytest.mark.parametrize("rows, words", ROWS, ids=[str(i) for i in range(len(ROWS))])
def test_a_buffer_row_written_out_of_range_is_refused_when_its_step_runs(rows, words):
    buf = _blank()
    live = LiveRun(buf, "fifo", capacity=2)
    for name, (t, value) in rows.items():
        getattr(buf, name)[t] = value
    _refused(words, lambda: live.step(0, buf.steps))
    assert live.cache_size <= 2


def test_a_step_before_its_row_is_written_is_refused():
    """A blank buffer's rows are zero vectors: the run refuses them rather than retrieve
    with a zero query.  A closed loop writes a step's evidence just before it retrieves,
    which ``retrieve(t)`` may read first."""
    live = LiveRun(TraceBuffer.blank(6, 4), "fifo", capacity=2)
    _refused("step 0 reads row 0|query vector is zero (not written)", lambda: live.step(0))
    _refused("query vector is zero", lambda: live.retrieve(0))
    buf = TraceBuffer.blank(4, 4, evidence_per_step=2)
    buf.queries[:] = buf.items[:] = np.eye(4, dtype=np.float32)
    live = LiveRun(buf, "fifo", capacity=2)
    buf.evidence_indptr[1] = 9  # past the evidence written
    _refused("step 0|evidence_indptr is not a CSR pointer", lambda: live.step(0))


def test_a_buffer_built_by_hand_is_checked_and_a_paging_buffer_row_too():
    requests = PagingBuffer(np.zeros(5, np.int64), 3)
    live = LiveRun(requests, "fifo", capacity=2)
    requests.requests[2] = 7
    _refused("step 2|request is not a dense key in 0 .. 2", lambda: live.step(0, 5))
    buf = _blank()
    for name, value, words in (("queries", buf.queries.astype(np.float64), "float32"),
                               ("item_keys", buf.item_keys[:3], "shape"),
                               ("weights", list(buf.weights), "float64"),
                               ("evidence_indptr", np.zeros(2, np.int64), "shape (2,)")):
        bad = dataclasses.replace(buf, **{name: value})
        _refused(f"TraceBuffer.{name}|{words}", lambda: LiveRun(bad, "fifo", capacity=2))
    _refused("PagingBuffer.requests must be a 1-D int64",
             lambda: LiveRun(PagingBuffer(np.zeros(3), 3), "fifo", capacity=2))
    _refused("PagingBuffer.n_keys", lambda: LiveRun(PagingBuffer(np.zeros(3, np.int64), -1),
                                                    "fifo", capacity=2))


# ------------------------------------------------------------------ the Python doors

def _stream(path="no-such.oracleGeneral", policy_names="fifo", **keywords):
    return lambda: simulator.stream_run(path, policy_names, **keywords)


DOORS = [  # (the call, the parameter it names, words)
    (lambda: simulator.run(PAGING, "lru", params="alpha=1"), "params",
     "params must be a mapping of parameter names to values|policy 'lru'|'alpha=1'"),
    (lambda: simulator.run(PAGING, "lru", params=["alpha"]), "params", "params must be"),
    (lambda: simulator.run(PAGING, "solar_a", params={"alpha": True}), None,
     "'alpha' must be a number, got True"),
    (lambda: simulator.run(PAGING, "solar_a", params={"alpha": math.nan}), None,
     "'alpha' must be finite"),
    (lambda: simulator.run(PAGING, "solar_a", params={1: 2}), None, "names are strings"),
    (lambda: LiveRun(PAGING, "lru", params="alpha=1"), "params", "params must be a mapping"),
    (lambda: RunOptions.build(policy="lru", params="alpha=1"), "params", "params must be"),
    (lambda: RunOptions.build(params={"a": 1}), "params", "params are a policy's"),
    (_stream(params="alpha=1"), "params", "params must be a mapping"),
    (_stream(policy_names=3), "policy_names", "policy_names must be"),
    (_stream(policy_names=[]), "policy_names", "policy_names must be"),
    (_stream(policy_names=["fifo", 3]), "policy_names", "policy_names"),
    (_stream(on_chunk=5), "on_chunk", "on_chunk must be a function"),
    (_stream(ignore_sizes="yes"), "ignore_sizes", "ignore_sizes must be True or False"),
    (_stream(path=5), "path", "path must be a trace file's path"),
    (lambda: simulator.run(PAGING, ["fifo"]), "policy", "policy must be a registered name"),
    (lambda: simulator.run(PAGING, 3), "policy", "got int 3"),
    (lambda: simulator.run(PAGING, "fifo", quality=["hit"]), "quality", "quality must be"),
    (lambda: simulator.run(PAGING, "fifo", engine=["fast"]), "engine", "engine must be"),
    (lambda: simulator.run(PAGING, "fifo", engine_options="latency=1"), "engine_options",
     "engine_options must be a mapping"),
    (lambda: simulator.run(SEMANTIC, "fifo", retrievals="yes"), "retrievals",
     "retrievals must be True or False"),
    (lambda: LiveRun(PAGING, "fifo", before_retrieve=5), "before_retrieve",
     "before_retrieve must be a function"),
    (lambda: LiveRun(PAGING.requests, "fifo"), "trace", "trace must be"),
    (lambda: simulator.run(PAGING, "fifo", capacity=2.0), "capacity", "capacity must be"),
    (lambda: simulator.run(PAGING, "fifo", top_k=True), "top_k", "top_k must be"),
    (lambda: simulator.run(PAGING, "fifo", seed=-1), "seed", "seed must be"),
    (lambda: simulator.run(PAGING, "fifo", budget=math.nan), "budget", "budget must be"),
    (lambda: simulator.run(PAGING, "fifo", switch_cost="0"), "switch_cost", "switch_cost"),
]


@pytest.mark.parametrize("call, param, words", DOORS, ids=[str(i) for i in range(len(DOORS))])
def test_a_keyword_of_a_python_door_of_the_wrong_type_is_named(call, param, words):
    _refused(words, call, param)


def test_an_unknown_policy_suggests_close_names_and_how_to_register_one(tmp_path):
    line = _refused("unknown policy 'lur'|did you mean lru|simulator.policies.register",
                    lambda: simulator.run(PAGING, "lur"), "policy")
    assert "--plugin" not in line
    line = assert_rejected(["run", "--workload", "zipf_paging", "--paging", "--param",
                            "steps=50", "--policy", "fifo,lur"], tmp_path, "--plugin FILE")
    assert "SEMCACHE_PLUGINS" in line and "did you mean lru" in line


# ----------------------------------------------------------------- the command line

PLUGIN = '''
import math
import numpy as np
import simulator
from simulator.policies.base import empty_state

@simulator.njit
def victim(state, t, key, x, cache):
    {victim}

@simulator.njit
def admit(state, t, key, x, cache):
    {admit}

POLICY = simulator.Policy(name={name!r}, summary="s", init=lambda ctx: empty_state(),
                          victim=victim, admit=admit, params={params},
                          modes=("semantic", "paging"))
'''
GOOD = dict(victim="return 0", admit="return True", name="mine", params="{}")
CLI = [  # (what the plugin changes, words of the line)
    (dict(admit="state[0][0] = t"), "hook admit must return True or False"),
    (dict(victim="return 0.5"), "hook victim (victim) returns float64"),
    (dict(victim="return x.no_such_attribute"), "hook victim (victim) cannot be compiled"),
    (dict(params="{'alpha': math.nan}"), "'alpha' has default nan"),
    (dict(name="a,b"), "policy name 'a,b'"),
]


@pytest.mark.parametrize("change, words", CLI, ids=[str(i) for i in range(len(CLI))])
def test_a_bad_plugin_policy_is_one_line_on_the_command_line(change, words, tmp_path,
                                                              monkeypatch):
    monkeypatch.setattr(policies, "REGISTRY", dict(policies.REGISTRY))
    (tmp_path / "rules.py").write_text(textwrap.dedent(PLUGIN.format(**(GOOD | change))))
    assert_rejected(["run", "--plugin", "rules.py", "--policy", "mine", "--workload",
                     "zipf_paging", "--paging", "--param", "steps=50"], tmp_path, words)


def test_a_hook_raising_in_a_fresh_process_is_one_line(tmp_path):
    """The policy's own exception from compiled code, through a real interpreter."""
    raising = "if t > 20:\n        raise ValueError('out of slots')\n    return 0"
    (tmp_path / "rules.py").write_text(textwrap.dedent(PLUGIN.format(**(GOOD | dict(
        victim=raising)))))
    assert_rejected_in_process(["run", "--plugin", "rules.py", "--policy", "mine",
                                "--workload", "zipf_paging", "--paging", "--param",
                                "steps=200", "--capacity", "3"], tmp_path,
                               "hook victim (victim, rules.py:10) raised ValueError: out of "
                               "slots", deadline=300)
