"""OPT's upper bound under a time limit (theory.opt.upper, docs/model.md §4): its candidates
tried cheapest first (policies already compiled before the beam search, those to compile
last), what it would compile said on stderr, the limit honoured and what it left out named,
and the bounds still certified.

The candidate policies are fifo and lru (compiled by many other tests); which of them
"compile first" is faked through :func:`simulator.engine.compile_marks.to_compile`, and the beam
search gives the empty schedule, so no test compiles a new loop; and no assertion depends
on how fast this machine is: a tiny limit, or a compile time longer than any limit, stands
in for a slow instance.
"""

from __future__ import annotations

import json

import pytest

import workloads
from simulator.engine import compile_marks
from simulator.cli import main
from simulator.cli import opt as cli_opt
from simulator.testing.contract.traces import sized_trace
from theory.opt import beam as opt_beam, bounds as opt_bounds, clock as opt_clock
from theory.opt import methods, upper as opt_upper
from theory.opt import opt
from theory.opt.model import replay

TINY = 1e-9
SMALL = ["opt", "--workload", "clusters", "--param", "steps=60", "--param", "topics=6",
         "--capacity", "3", "--top-k", "2", "--switch-cost", "0.5", "--quality", "precision",
         "--method", "bounds"]


@pytest.fixture
def policies(monkeypatch):
    """fifo and lru the upper bound's policies; ``policies(*names)`` fakes those to compile."""
    monkeypatch.setattr(opt_beam, "policy_names", lambda: ["fifo", "lru"])

    def compiling(*names):
        monkeypatch.setattr(compile_marks, "to_compile",
                            lambda pols, mode, sized=False: [p.name for p in pols
                                                             if p.name in names])
    compiling()
    return compiling


@pytest.fixture(scope="module")
def trace():
    return workloads.get("clusters").generate({"steps": 60, "topics": 6}, 0)


@pytest.fixture(autouse=True)
def beam(monkeypatch):
    """The beam search gives the empty schedule (tests/test_opt_bounds.py holds the real
    one to its contract), so that no test here waits for its compilation."""
    def never_cache(model, capacity, switch_cost, width=None, horizon=16, sizes=None,
                    budget=None):
        T = model.w.shape[0]
        return float(model.w.sum()), [frozenset()] * (T + 1)  # every scored step misses
    monkeypatch.setattr(opt_beam, "beam", never_cache)


def _solve(trace, **kw):
    """OPT's bounds of ``trace`` (K = 3, k = 2, λ = 0.5) and the upper bound's phases."""
    said = []
    r = opt(trace, 3, 2, 0.5, "precision", method="bounds", progress=said.append, **kw)
    assert r.lower_bound <= r.upper_bound  # certified: lower <= OPT <= upper = its replay
    assert replay(trace, r.schedule, 3, 2, 0.5, "precision") == pytest.approx(r.upper_bound,
                                                                         abs=1e-9)
    return r, [p.removeprefix("upper bound: ") for p in said if p.startswith("upper bound")]


def test_compiled_policies_first_then_the_beam_then_those_to_compile(policies, trace):
    policies("fifo")
    r, tried = _solve(trace)
    assert tried == ["policy lru (2/2)", "beam search, horizon 16", "beam search, horizon 64",
                     "policy fifo (1/2), compiling its loop first"]
    policies()  # the same candidates tried in another order: the same result
    again, tried = _solve(trace)
    assert tried[:2] == ["policy fifo (1/2)", "policy lru (2/2)"]
    assert (again.upper_bound, again.method, again.schedule) == \
        (r.upper_bound, r.method, r.schedule)
    assert "not_tried" not in r.config  # no limit: nothing left out, as before


def test_a_limit_that_has_passed_keeps_one_schedule_and_names_the_rest(policies, trace):
    r, tried = _solve(trace, time_limit=TINY)
    assert tried == ["policy fifo (1/2)"] and r.method.endswith("+policy:fifo")
    assert r.config["stopped_early"]
    assert r.config["not_tried"] == ["beam:16", "beam:64", "policy:lru"]


def test_a_schedule_given_is_tried_first(policies, trace):
    empty = {"admitted": [-1] * trace.steps, "evicted": [[] for _ in range(trace.steps)]}
    said = []
    with opt_clock.running(TINY, said.append) as clock:
        cost, method, schedule = opt_bounds.upper_bound(trace, 3, 2, 0.5, "precision",
                                                        extra=[("flow-schedule", empty)])
    assert said == ["upper bound: flow-schedule"] and (method, schedule) == ("flow-schedule",
                                                                             empty)
    assert clock.skipped == ["beam:16", "beam:64", "policy:fifo", "policy:lru"]


def test_a_compilation_that_would_end_past_the_limit_is_not_started(policies, trace,
                                                                    monkeypatch):
    policies("lru")
    monkeypatch.setattr(opt_upper, "COMPILE_SECONDS", 10.0**9)  # longer than any limit
    r, tried = _solve(trace, time_limit=3600.0)
    assert tried == ["policy fifo (1/2)", "beam search, horizon 16", "beam search, horizon 64"]
    assert r.config["not_tried"] == ["policy:lru"] and r.config["stopped_early"]
    r, tried = _solve(trace)  # without a limit it compiles
    assert tried[-1] == "policy lru (2/2), compiling its loop first"


def test_one_schedule_at_least_even_past_the_limit(policies, trace, monkeypatch):
    policies("fifo", "lru")
    monkeypatch.setattr(opt_bounds, "BEAM_MAX_T", 0)  # no beam search, no flow schedule
    r, tried = _solve(trace, time_limit=TINY)
    assert tried == ["policy fifo (1/2), compiling its loop first"]
    assert r.method.endswith("+policy:fifo") and r.config["not_tried"] == ["policy:lru"]


def test_a_budget_tries_the_same_order_and_names_what_it_left_out(policies):
    policies("fifo")
    tr, B = sized_trace(seed=4, T=60, largest=4), 12
    said = []
    r = opt(tr, None, 2, 0.5, "precision", method="bounds", budget=B, time_limit=TINY,
            progress=said.append)
    assert r.config["budget_binds"] and r.lower_bound <= r.upper_bound
    assert replay(tr, r.schedule, None, 2, 0.5, "precision", budget=B) == pytest.approx(
        r.upper_bound, abs=1e-9)
    assert [p for p in said if p.startswith("upper bound")] == ["upper bound: policy lru (2/2)"]
    assert r.config["not_tried"] == ["beam:16", "beam:64", "policy:fifo"]


def test_the_cli_says_what_it_compiles_on_stderr_only(policies, capsys, monkeypatch):
    policies("fifo", "lru")
    assert main(SMALL + ["--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)  # stdout: the one JSON object
    assert "compiling" not in out and doc["not_tried"] == [] and not doc["stopped_early"]
    line = ("semcache opt: the upper bound tries its policies to compile last, while the "
            "time limit allows: compiling fifo, lru (first run only; `semcache compile` does "
            "it ahead)")
    assert line in err.splitlines()
    monkeypatch.setattr(cli_opt, "DEFAULT_TIME_LIMIT", TINY)
    assert main(SMALL) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1] == (
        f"the time limit ({TINY:g} s) cut the search short; the upper bound's candidates not "
        "tried: beam:64, policy:fifo, policy:lru (--time-limit none runs every phase)")
    policies()
    main(SMALL + ["--time-limit", "none"])
    assert "compiling" not in capsys.readouterr().err  # nothing to compile: nothing said


@pytest.mark.parametrize("K, k, method, said", [
    (3, 3, "auto", None),  # the flow surely applies: nothing will compile
    (10, 1, "auto", "if bounds are needed, the upper bound"),  # flow if topics separate
    (3, 3, "bounds", "the upper bound"),
])
def test_the_plan_says_what_would_compile_unless_an_exact_method_surely_applies(
        policies, trace, K, k, method, said):
    policies("lru")
    lines = methods.describe_plan(trace, methods.Problem(K, k, 0.0, "hit"), method)
    compiling = [line for line in lines if "compiling" in line]
    assert compiling == ([] if said is None else [
        f"{said} tries its policies to compile last: compiling lru (first run only; "
        "`semcache compile` does it ahead)"])
