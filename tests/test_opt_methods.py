"""The table of OPT's methods (theory.opt.methods): one record per exact method and per
bound, each with a name, when it applies, its limits and ``solve(trace, problem)``; ``opt``
walks it and picks the method it picked when it chose by name; the old module names still
import, as the same modules, with a DeprecationWarning."""

import dataclasses
import importlib
import inspect
import sys
import warnings

import numpy as np
import pytest

import simulator
from simulator.trace import Trace
from theory.opt import EXACT, METHODS, opt
from theory.opt.bounds import LOWER_BOUNDS
from theory.opt.methods import BOUND_METHODS, EXACT_METHODS
from theory.opt.record import Method, Problem
from theory.opt.sized import plan

RECORDS = EXACT_METHODS + BOUND_METHODS + LOWER_BOUNDS


def _topic_trace(sizes=None):
    topics = np.array([0, 1, 0, 1, 0, 1])
    vectors = np.eye(2, dtype=np.float32)[topics]
    return Trace.from_arrays(queries=vectors, items=vectors, query_topics=topics,
                             item_topics=topics, item_sizes=sizes)


@pytest.mark.parametrize("record", RECORDS, ids=lambda m: m.name)
def test_every_method_is_one_record_with_one_signature(record):
    assert isinstance(record, Method) and record.name and record.limits
    for part in (record.fits, record.applies, record.solve):
        assert callable(part)
    assert list(inspect.signature(record.solve).parameters) == ["trace", "problem"]
    assert list(inspect.signature(record.fits).parameters) == ["trace", "problem"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.name = "other"


def test_the_table_holds_the_names_opt_takes_in_the_order_auto_tries_them():
    assert EXACT == tuple(m.name for m in EXACT_METHODS) == ("flow", "topics", "counts", "items")
    assert all(m.exact for m in EXACT_METHODS) and not any(m.exact for m in BOUND_METHODS)
    assert METHODS == ("auto", *EXACT, "bounds")
    assert [m.name for m in EXACT_METHODS if m.takes_sizes] == ["items"]
    assert [m.name for m in LOWER_BOUNDS] == ["trivial", "flow", "lp-arrivals", "lp-knapsack",
                                              "lp-topics"]


def test_one_bound_record_applies_with_or_without_a_binding_budget():
    trace = _topic_trace(sizes=[2, 1, 2, 1, 2, 1])
    binding = Problem(1, 1, 0.5, "hit", plan(trace, None, 1))
    free = Problem(1, 1, 0.5, "hit")
    assert binding.sized and not free.sized
    for problem in (binding, free):
        assert sum(b.refusal(trace, problem) is None for b in BOUND_METHODS) == 1


# (trace, options, the method auto picked when opt chose by name)
CASES = {
    "topics by topic": (lambda: _topic_trace(), dict(capacity=1, top_k=1), "flow"),
    "a binding budget": (lambda: _topic_trace([2, 1, 2, 1, 2, 1]),
                         dict(capacity=None, top_k=1, budget=1), "items"),
    "a budget that does not bind": (lambda: _topic_trace([2, 1, 2, 1, 2, 1]),
                                    dict(capacity=2, top_k=1, budget=10), "flow"),
    "cycling, k < K": (lambda: _workload("cycling", topics=5, steps=60),
                       dict(capacity=4, top_k=2), "flow"),
    "clusters, precision": (lambda: _workload("clusters", topics=4, steps=40, seed=1),
                            dict(capacity=3, top_k=2, quality="precision"), "items"),
    "clusters, similarity": (lambda: _workload("clusters", topics=4, steps=40, seed=1),
                             dict(capacity=2, top_k=1, quality="similarity"), "items"),
}


def _workload(name, seed=0, **params):
    return simulator.workloads.get(name).generate(params, seed=seed)


@pytest.mark.parametrize("case", sorted(CASES))
def test_auto_picks_the_same_method_as_before_and_the_first_record_that_applies(case):
    make, options, method = CASES[case]
    trace = make()
    result = opt(trace, switch_cost=0.5, **options)
    assert result.method == method and result.exact
    budget = plan(trace, options["capacity"], options["budget"]) if "budget" in options \
        else None
    K = budget.count_limit if budget is not None else options["capacity"]
    problem = Problem(K, options["top_k"], 0.5, options.get("quality", "hit"), budget)
    first = next(m for m in EXACT_METHODS if m.refusal(trace, problem) is None)
    assert first.name == method


@pytest.mark.parametrize("old, new", [("theory.opt_flow", "theory.opt.flow"),
                                      ("theory.opt_dp", "theory.opt.items"),
                                      ("theory.opt_fits", "theory.opt.methods"),
                                      ("theory.shrink", "theory.kit.shrink")])
def test_an_old_module_name_is_the_moved_module_with_a_deprecation_warning(old, new,
                                                                           monkeypatch):
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}") as caught:
        __import__(old)  # as an import statement does, with no frame of importlib's
    assert sys.modules[old] is importlib.import_module(new)
    assert caught[0].filename == __file__  # the warning points at the importing line


def test_the_kits_documented_names_import_without_a_warning(monkeypatch):
    import theory

    for name in ("theory.bounds", "theory.families"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from theory.bounds import ratio_at_most
        from theory.families import grid
    assert ratio_at_most is theory.bounds.ratio_at_most and grid is theory.families.grid
