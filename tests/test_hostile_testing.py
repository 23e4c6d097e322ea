"""Hostile arguments to every public function of ``simulator.testing``: one line each.

The table holds, for each public function and method, bad values of each of its
arguments (out of range, of the wrong type, NaN or inf, empty, a wrong name, min > max).
Each must raise one :class:`~simulator.errors.InputError` whose ``param`` is the argument
and whose one-line message starts with it, before anything runs or compiles.
:func:`test_the_table_reaches_every_argument` holds the table to the signatures, so a new
argument without hostile cases fails here.
"""

import inspect
import math

import numpy as np
import pytest

import simulator.testing as kit
from simulator.errors import InputError
from simulator.instance import Instance
from simulator.testing import (HookDriver, Item, SplitMix64, Twin, TwinContext,
                               assert_ratio_at_most, assert_same_as_reference, hook_machine,
                               instances, policy_params, reference_paging_run, reference_run,
                               similarity, traces)
from simulator.trace import PagingTrace, Trace

NAN, INF = math.nan, math.inf
_X = np.eye(2, dtype=np.float32)
TRACE = Trace.from_arrays(queries=_X[[0, 1]], items=_X[[0, 1]], query_topics=[0, 1],
                          item_topics=[0, 1])
PAGING = PagingTrace.from_requests([0, 1, 0])
INST = Instance(TRACE, {"capacity": 1, "top_k": 1})
PAGING_INST = Instance(PAGING, {"capacity": 1})


class Fifo(Twin):
    def victim(self, t, key, x, cache):
        return min(cache.values(), key=lambda item: item.adm).key


A_FILE = __file__  # a file where a folder is due

# bad values by kind of argument; each list is exhausted for every argument of the kind
COUNT = [0, -1, 1.5, "3", True, None, NAN, INF, 2**60, [3], np.float64(2.0)]
COUNT_OR_NONE = [0, -1, 1.5, "3", True, NAN, 2**60, [3]]
NON_NEGATIVE = [-1, 1.5, "3", True, None, NAN, 2**60]
FLAG = [1, 0, "yes", None, 0.0, [True], np.int64(1)]
SEED = [-1, 1.5, "0", True, 2**63, NAN, None, [0]]
POSITIVE = [NAN, INF, -INF, 0, -1, "2", None, True, [2], 1e400]
NON_NEGATIVE_REAL = [NAN, INF, -INF, -1, -1e-9, "2", None, True, [2], 1e400]
FINITE = [NAN, INF, -INF, "0", None, True, [0]]
LIMIT = [0, -1, NAN, INF, "1", True, [1]]
FOLDER = [3, ["a"], b"bytes", A_FILE, "", 2.5]
PARAMS = ["alpha=1", ["a"], 3, {"nope": 1}, ("tie", "auto")]
POLICY = [3, None, "nope", "fifo,lru", ["fifo"], Fifo, 1.5]
TWIN = [Fifo(TwinContext(1, {})), object, "Fifo", None, int, 3]
INSTANCE = [None, TRACE, "instance", {"trace": TRACE}, 3]
OPTIONS = [None, [], "capacity=1", {"capacity": 0}, {"capacity": NAN}, {"top_k": 0},
           {"switch_cost": NAN}, {"switch_cost": -1}, {"quality": "bogus"}, {"budget": -1},
           {"bogus": 1}, {"capacity": 2**60}]


def _cases():
    """(function, argument, value, call) for every hostile value of every argument."""
    out = []

    def each(function, param, values, call):
        out.extend((function, param, v, call) for v in values)

    # --- strategies -----------------------------------------------------------------
    each("traces", "mode", ["bogus", None, 3, ["semantic"], "Paging"], lambda v: traces(v))
    for flag in ("sized", "evidence", "unscored"):
        each("traces", flag, FLAG, lambda v, f=flag: traces(**{f: v}))
    for count in ("min_steps", "max_steps", "max_size", "max_keys"):
        each("traces", count, COUNT, lambda v, c=count: traces(**{c: v}))
    each("traces", "max_keys", [3], lambda v: traces("semantic", max_keys=v))
    each("traces", "max_steps", [2, 1], lambda v: traces(min_steps=3, max_steps=v))
    each("traces", "max_steps", [1001], lambda v: traces(max_steps=v))
    each("traces", "min_steps", [1000, 300], lambda v: traces(min_steps=v, max_steps=v))
    each("traces", "min_steps", [31], lambda v: traces(min_steps=v, max_steps=v, dim=64))
    each("traces", "max_size", [2**53], lambda v: traces(max_size=v, max_steps=1000))
    each("traces", "dim", [0, -1, 1.5, [], [3, 0], "3", 65, True, None, [[3]]],
         lambda v: traces(dim=v))
    each("traces", "dim", [5], lambda v: traces("paging", dim=v))
    for names in ("vectors", "keys"):
        each("traces", names, ["bogus", [], ["grid", "bogus"], [1], 3, {"grid": 1}, None,
                               b"grid"], lambda v, n=names: traces(**{n: v}))
        each("traces", names, ["fresh" if names == "keys" else "grid"],
             lambda v, n=names: traces("paging", **{n: v}))
    each("traces", "n_topics", NON_NEGATIVE, lambda v: traces(n_topics=v))
    each("traces", "n_topics", [2], lambda v: traces("paging", n_topics=v))
    for flag in ("evidence", "unscored"):
        each("traces", flag, [False], lambda v, f=flag: traces("paging", **{f: v}))

    each("instances", "sized", FLAG, lambda v: instances(sized=v))
    for count in ("max_steps", "max_capacity", "max_budget", "min_steps", "max_size"):
        each("instances", count, COUNT, lambda v, c=count: instances(**{c: v}))
    each("instances", "max_top_k", COUNT_OR_NONE + [2**53], lambda v: instances(max_top_k=v))
    each("instances", "switch_costs", [[NAN], [INF], [-1], ["1"], [], [True], None, "0.5",
                                       [1e300], NAN, {"a": 1}, [[0.5]]],
         lambda v: instances(switch_costs=v))
    each("instances", "qualities", ["bogus", ["bogus"], [], [1], None, 3, {"hit", "bad"}],
         lambda v: instances(qualities=v))
    each("instances", "mode", ["paging", "bogus", None], lambda v: instances(mode=v))
    each("instances", "foo", [1], lambda v: instances(foo=v))
    each("instances", "max_keys", [3], lambda v: instances(max_keys=v))
    each("instances", "dim", [0], lambda v: instances(dim=v))
    each("instances", "vectors", ["bogus"], lambda v: instances(vectors=v))

    each("policy_params", "policy", POLICY, lambda v: policy_params(v, {}))
    each("policy_params", "values", [None, "tie=auto", ["tie"], {"nope": ["a"]},
                                     {"tie": []}, {"tie": ["bogus"]}, {"tie": {"a": 1}}],
         lambda v: policy_params("lfu", v))
    each("policy_params", "values", [{"in_ratio": [NAN]}, {"in_ratio": [0.5, INF]}],
         lambda v: policy_params("twoq", v))

    # --- assertions ------------------------------------------------------------------
    def ratio(**given):
        return assert_ratio_at_most(**{"policy": "fifo", "instance": INST, "c": 2.0,
                                       **given})

    each("assert_ratio_at_most", "policy", POLICY + ["belady"], lambda v: ratio(policy=v))
    each("assert_ratio_at_most", "instance",
         INSTANCE + [PAGING_INST, Instance(TRACE, {"budget": None})],
         lambda v: ratio(instance=v))
    each("assert_ratio_at_most", "c", NON_NEGATIVE_REAL, lambda v: ratio(c=v))
    each("assert_ratio_at_most", "additive", FINITE, lambda v: ratio(additive=v))
    each("assert_ratio_at_most", "params", PARAMS, lambda v: ratio(params=v))
    each("assert_ratio_at_most", "params", [{"tie": "bogus"}, {"tie": NAN}],
         lambda v: ratio(policy="lfu", params=v))
    each("assert_ratio_at_most", "seed", SEED, lambda v: ratio(seed=v))
    each("assert_ratio_at_most", "folder", FOLDER, lambda v: ratio(folder=v))
    each("assert_ratio_at_most", "time_limit", LIMIT, lambda v: ratio(time_limit=v))

    def same(**given):
        return assert_same_as_reference(**{"policy": "fifo", "twin": Fifo,
                                           "instance": INST, **given})

    each("assert_same_as_reference", "policy", POLICY, lambda v: same(policy=v))
    each("assert_same_as_reference", "policy", ["belady"],
         lambda v: same(policy=v, instance=INST))
    each("assert_same_as_reference", "twin", TWIN, lambda v: same(twin=v))
    each("assert_same_as_reference", "instance", INSTANCE, lambda v: same(instance=v))
    each("assert_same_as_reference", "params", PARAMS, lambda v: same(params=v))
    each("assert_same_as_reference", "params", [{"tie": "admission"}],  # lfu's, not Fifo's
         lambda v: same(policy="lfu", params=v))
    each("assert_same_as_reference", "seed", SEED, lambda v: same(seed=v))
    each("assert_same_as_reference", "folder", FOLDER, lambda v: same(folder=v))

    # --- the instance ----------------------------------------------------------------
    each("Instance", "trace", [None, np.zeros(3), "trace", INST], lambda v: Instance(v, {}))
    each("Instance", "options", OPTIONS, lambda v: Instance(TRACE, v))
    each("Instance", "labels", [None, "x", ["a"]], lambda v: Instance(TRACE, {}, v))
    each("Instance.replace", "trace", [None, "trace", INST], lambda v: INST.replace(v))

    # --- the reference engine --------------------------------------------------------
    def ref(**given):
        return reference_run(**{"trace": TRACE, "twin": Fifo, "capacity": 1, **given})

    each("reference_run", "trace", [PAGING, None, "trace", INST], lambda v: ref(trace=v))
    each("reference_run", "twin", TWIN, lambda v: ref(twin=v))
    each("reference_run", "capacity", COUNT_OR_NONE, lambda v: ref(capacity=v))
    each("reference_run", "top_k", COUNT, lambda v: ref(top_k=v))
    each("reference_run", "switch_cost", [NAN, INF, -1, "1", None, True],
         lambda v: ref(switch_cost=v))
    each("reference_run", "quality", ["bogus", None, 3, ["hit"]], lambda v: ref(quality=v))
    each("reference_run", "seed", SEED, lambda v: ref(seed=v))
    each("reference_run", "params", PARAMS, lambda v: ref(params=v))
    each("reference_run", "budget", [0, -1, NAN, "lots", 1.5, True, [4]],
         lambda v: ref(budget=v))

    def paging(**given):
        return reference_paging_run(**{"requests": [0, 1, 0], "twin": Fifo, "capacity": 1,
                                       **given})

    each("reference_paging_run", "requests", [None, "010", [0, -1], [0.5], [[0]], 3,
                                              [True], np.array([0.0, 1.0])],
         lambda v: paging(requests=v))
    each("reference_paging_run", "twin", TWIN, lambda v: paging(twin=v))
    each("reference_paging_run", "capacity", COUNT_OR_NONE, lambda v: paging(capacity=v))
    each("reference_paging_run", "seed", SEED, lambda v: paging(seed=v))
    each("reference_paging_run", "params", PARAMS, lambda v: paging(params=v))
    each("reference_paging_run", "sizes", [[1, 1], [1, 0, 1], [1, NAN, 1], "111", 3,
                                           [1, 1, 2**60]], lambda v: paging(sizes=v))
    each("reference_paging_run", "budget", [0, -1, NAN, "lots"], lambda v: paging(budget=v))
    each("reference_paging_run", "object_ids", [[5], "ab", [5, -1], [1.5, 2], 3],
         lambda v: paging(object_ids=v))

    # --- the model a twin sees ---------------------------------------------------------
    each("similarity", "q", [None, "ab", [NAN, 1], [1, "a"], 3, [True, 1]],
         lambda v: similarity(v, [1.0, 0.0]))
    each("similarity", "x", [None, [1.0], [1.0, 0.0, 0.0], [INF, 0.0]],
         lambda v: similarity([1.0, 0.0], v))
    # any integers, as simulator.rng.new_stream takes them
    each("SplitMix64", "seed", [1.5, "0", True, NAN, None, [0], np.float64(1)],
         lambda v: SplitMix64(v))
    each("SplitMix64", "salt", [1.5, "1", None, NAN, False], lambda v: SplitMix64(1, v))
    each("SplitMix64.gamma", "shape", POSITIVE, lambda v: SplitMix64(1).gamma(v))
    each("SplitMix64.beta", "a", POSITIVE, lambda v: SplitMix64(1).beta(v, 1.0))
    each("SplitMix64.beta", "b", POSITIVE, lambda v: SplitMix64(1).beta(1.0, v))

    def item(**given):
        return Item(**{"key": 1, "vec": [1.0], "topic": -1, "adm": 0, **given})

    each("Item", "key", [1.5, "1", None, True, 2**64], lambda v: item(key=v))
    each("Item", "vec", [None, 3, "ab"], lambda v: item(vec=v))
    each("Item", "topic", [-2, 1.5, "0", None], lambda v: item(topic=v))
    each("Item", "adm", [-1, 1.5, "0", None], lambda v: item(adm=v))

    def context(**given):
        return TwinContext(**{"capacity": 1, "params": {}, **given})

    each("TwinContext", "capacity", [0, -1, NAN, -INF, "1", None, 1.5, True],
         lambda v: context(capacity=v))
    each("TwinContext", "params", [None, "a=1", [1]], lambda v: context(params=v))
    each("TwinContext", "seed", SEED, lambda v: context(seed=v))
    each("TwinContext", "switch_cost", [NAN, -1, INF, "0", None], lambda v: context(switch_cost=v))
    each("TwinContext", "requests", ["abc", [-1], [0.5], 3], lambda v: context(requests=v))
    each("TwinContext", "mode", ["bogus", None, ["paging"]], lambda v: context(mode=v))
    each("TwinContext", "object_ids", ["abc", [-1], 3], lambda v: context(object_ids=v))
    each("TwinContext", "times", ["abc", [NAN], [INF], [None], 3],
         lambda v: context(times=v))
    each("TwinContext", "supersedes", ["abc", [-2], [0.5], 3], lambda v: context(supersedes=v))
    each("Twin", "ctx", [None, {"capacity": 1}, 3], lambda v: Fifo(v))
    each("Twin", "params", [{"nope": 1}], lambda v: Fifo(context(params=v)))

    def sized_twin():
        twin = Fifo(context())
        twin.item_sizes = [1, 2]
        return twin

    each("Twin.note_rewrites", "n", [-1, 1.5, None, "1", NAN],
         lambda v: Fifo(context()).note_rewrites(v))
    each("Twin.arriving_size", "t", [-1, 2, 1.5, None, "0"],
         lambda v: sized_twin().arriving_size(v))

    # --- the hook driver and its machine -------------------------------------------------
    def driver(**given):
        return HookDriver(**{"policy": "fifo", "twin": Fifo, "capacity": 2, **given})

    each("HookDriver", "policy", POLICY, lambda v: driver(policy=v))
    each("HookDriver", "twin", TWIN, lambda v: driver(twin=v))
    each("HookDriver", "capacity", COUNT, lambda v: driver(capacity=v))
    each("HookDriver", "seed", SEED, lambda v: driver(seed=v))
    each("HookDriver", "params", PARAMS, lambda v: driver(params=v))
    each("HookDriver", "mode", ["bogus", None, 3], lambda v: driver(mode=v))
    each("HookDriver", "mode", ["paging"], lambda v: driver(policy="unlimited", mode=v))
    each("HookDriver", "requests", [None, [], [-1], "01", [0.5]],
         lambda v: driver(mode="paging", requests=v))
    each("HookDriver", "requests", [[0, 1]], lambda v: driver(requests=v))
    each("HookDriver", "vectors", [np.zeros(3), [[NAN, 0.0]], np.zeros((0, 3)), "ab",
                                   [[1e40]], [[0.0], [0.0, 1.0]]],
         lambda v: driver(vectors=v))
    each("HookDriver", "vectors", [np.eye(2)],
         lambda v: driver(mode="paging", requests=[0], vectors=v))
    each("HookDriver.retrieve", "slots", [[0], [5], [-1], "0", [0.5], None],
         lambda v: driver().retrieve(v, [True]))
    each("HookDriver.retrieve", "relevant", [None, 1],
         lambda v: driver().retrieve([], v))
    each("HookDriver.feedback", "loss", [NAN, -0.1, 1.5, INF, "0", None, True],
         lambda v: driver().feedback(v))
    each("HookDriver.arrive", "key", [-1, 10, 1.5, "0", None, True],
         lambda v: driver().arrive(v, 0))
    each("HookDriver.arrive", "pick", [-1, 1.5, "0", None],
         lambda v: driver().arrive(0, v))
    each("HookDriver.request", "pick", [-1, 1.5, None],
         lambda v: driver(mode="paging", requests=[0]).request(v))
    each("HookDriver.request", "mode", [0], lambda v: driver().request(v))
    each("HookDriver.remove_any", "s", [0, -1, 2, 1.5, None],
         lambda v: driver().remove_any(v))
    each("HookDriver.slot_of", "key", [None, "a", 1.5, 2**64], lambda v: driver().slot_of(v))

    def machine(**given):
        return hook_machine(**{"policy": "fifo", "twin": Fifo, **given})

    each("hook_machine", "policy", POLICY, lambda v: machine(policy=v))
    each("hook_machine", "twin", TWIN, lambda v: machine(twin=v))
    each("hook_machine", "param_values", ["tie", ["tie"], {"nope": [1]}, 3, {"tie": []}],
         lambda v: machine(param_values=v))
    each("hook_machine", "param_values", [{"tie": ["bogus"]}, {"tie": []},
                                          {"tie": ["auto"]}],  # the last: Fifo has no tie
         lambda v: machine(policy="lfu", param_values=v))
    each("hook_machine", "max_capacity", COUNT, lambda v: machine(max_capacity=v))
    return out


CASES = _cases()


@pytest.mark.parametrize("function, param, value, call", CASES,
                         ids=[f"{f}-{p}-{i}" for i, (f, p, _, _) in enumerate(CASES)])
def test_a_hostile_argument_is_one_line_naming_it(function, param, value, call):
    with pytest.raises(InputError) as caught:
        call(value)
    message = str(caught.value)
    assert caught.value.param == param, message
    assert message.startswith(param) and "\n" not in message and len(message) < 400, message


# What the table leaves out, and why: a twin's hooks are the user's own methods (the
# engine calls them), methods without arguments have nothing to check, and an exception
# class takes its message.
NOT_ARGUMENTS = {"Twin": {"on_retrieve", "on_feedback", "admit", "victim", "on_insert",
                          "on_evict", "on_rearrival", "delete", "same_victim"},
                 "Undecided": "*", "HookDriver": {"occupied", "free", "delete", "drop",
                                                 "check"},
                 "SplitMix64": {"next_u64", "uniform", "normal"}}


def _arguments() -> set:
    """(function, argument) for every public function, class and method of the kit."""
    found = set()
    for name in kit.__all__:
        obj = getattr(kit, name)
        skip = NOT_ARGUMENTS.get(name, set())
        if skip == "*":
            continue
        members = [(name, obj)]
        if inspect.isclass(obj):
            members = [(name, obj.__init__)] + [
                (f"{name}.{m}", f) for m, f in vars(obj).items()
                if inspect.isfunction(f) and not m.startswith("_") and m not in skip]
        for where, fn in members:
            params = inspect.signature(fn).parameters.values()
            found |= {(where, p.name) for p in params
                      if p.name != "self" and p.kind is not p.VAR_KEYWORD}
    return found


def test_the_table_reaches_every_argument():
    covered = {(f, p) for f, p, _, _ in CASES}
    missing = _arguments() - covered
    assert not missing, sorted(missing)
    assert ("instances", "foo") in covered  # and a keyword instances() does not take


def _drawn(strategy, n=3) -> list:
    """A few examples of ``strategy``, generated and not shrunk."""
    from hypothesis import Phase, given, settings

    out = []

    @settings(max_examples=n, phases=[Phase.generate], database=None, deadline=None)
    @given(strategy)
    def collect(value):
        out.append(value)

    collect()
    return out


def test_legal_arguments_at_their_edges_still_draw_and_run():
    """The other side: what the checks must let through."""
    from hypothesis import find

    single = find(instances(vectors="grid", keys="same", qualities="precision",
                            switch_costs=1.5, max_top_k=None, dim=[2, 4]),
                  lambda i: i.steps >= 2)
    assert single.options["quality"] == "precision" and single.options["switch_cost"] == 1.5
    assert single.options["top_k"] <= single.options["capacity"]  # k from 1 .. K
    # 292 × (2·3 + 8) choices: the most min_steps allows
    assert {t.steps for t in _drawn(traces(min_steps=292, max_steps=292))} == {292}
    assert find(traces("paging", sized=True, max_keys=2), lambda t: t.sized).n_keys <= 2
    # one table of values for several policies: other policies' parameters are left out
    shared = find(policy_params("lfu", {"tie": ["admission"], "alpha": [0.5]}), bool)
    assert shared == {"tie": "admission"}
    assert find(policy_params("fifo", {"alpha": [0.5]}), lambda p: True) == {}
    assert reference_paging_run([0, 1, 0], Fifo, None)["hits"] == 1  # K = 10, as run's
    assert reference_run(TRACE, Fifo, capacity=None, budget="1KiB")["hits"] == 0
