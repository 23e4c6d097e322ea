"""``semcache opt``'s guard against silent long runs: the default time limit, ``--time-limit
none``, and what will run said on stderr before the work (docs/model.md §4, §7).

A tiny default limit stands in for a slow instance: every limit is checked between
phases, so a limit that has passed before the first one shows what a limit that passes
later does, and no assertion depends on how fast this machine is.
"""

from __future__ import annotations

import json

import pytest

import workloads
from simulator.cli import main
from simulator.cli import opt as cli_opt
from theory.opt import opt

# k = 1 < K = 3 and the topics separated: flow is exact
SMALL = ["opt", "--workload", "clusters", "--param", "steps=60", "--param", "topics=6",
         "--capacity", "3", "--top-k", "1", "--switch-cost", "0.5"]
TINY = 1e-9


def _cli(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _exact_cost():
    trace = workloads.get("clusters").generate({"steps": 60, "topics": 6}, 0)
    return opt(trace, 3, 1, 0.5).opt_cost


def test_the_default_limit_applies(capsys, monkeypatch):
    code, out, err = _cli(capsys, SMALL + ["--json"])
    doc = json.loads(out)
    assert code == 0 and doc["exact"] and doc["time_limit"] == cli_opt.DEFAULT_TIME_LIMIT
    monkeypatch.setattr(cli_opt, "DEFAULT_TIME_LIMIT", TINY)
    code, out, err = _cli(capsys, SMALL + ["--json"])
    doc = json.loads(out)
    assert code == 0 and doc["time_limit"] == TINY and doc["stopped_early"]
    assert not doc["exact"] and doc["opt_cost"] is None
    assert doc["lower_bound"] <= _exact_cost() <= doc["upper_bound"]
    code, out, _ = _cli(capsys, SMALL)
    head, cut = out.splitlines()[:2]
    gap = doc["upper_bound"] - doc["lower_bound"]
    assert head.startswith(f"OPT: bounds [{doc['lower_bound']:g}, {doc['upper_bound']:g}] "
                           f"(gap {gap:.3g}), not exact")
    assert cut.startswith(f"the time limit ({TINY:g} s) cut the search short")


@pytest.mark.parametrize("text", ["none", "None", " NONE "])
def test_time_limit_none_is_no_limit(capsys, monkeypatch, text):
    monkeypatch.setattr(cli_opt, "DEFAULT_TIME_LIMIT", TINY)  # "none" must override it
    code, out, err = _cli(capsys, SMALL + ["--time-limit", text, "--json"])
    doc = json.loads(out)
    assert code == 0 and doc["exact"] and doc["opt_cost"] == _exact_cost()
    assert not {"time_limit", "stopped_early", "not_tried"} & doc.keys()
    assert "no time limit (--time-limit none)" in err


def test_time_limit_parses():
    assert cli_opt.time_limit("2.5", "auto") == 2.5
    assert cli_opt.time_limit(None, "auto") == cli_opt.DEFAULT_TIME_LIMIT
    assert cli_opt.time_limit(None, "bounds") == cli_opt.DEFAULT_TIME_LIMIT
    assert cli_opt.time_limit(None, "flow") is None  # forced: one phase, nothing to cut
    assert cli_opt.time_limit("none", "auto") is None


def test_the_plan_is_said_on_stderr_without_a_terminal(capsys):
    code, out, err = _cli(capsys, SMALL + ["--json"])
    assert code == 0 and isinstance(json.loads(out), dict)  # one object, nothing else
    lines = err.splitlines()
    assert all(line.startswith("semcache opt: ") for line in lines), err
    assert lines[0].startswith("semcache opt: exact methods, the first that applies: flow")
    assert lines[1].startswith("semcache opt: else certified bounds: lower bound from")
    assert lines[-1].startswith(f"semcache opt: time limit {cli_opt.DEFAULT_TIME_LIMIT:g} s "
                                "(the default; --time-limit none: no limit)")
    assert not any(" s  " in line for line in lines)  # phases only on a terminal


def test_a_forced_method_runs_to_the_end(capsys):
    code, out, err = _cli(capsys, SMALL + ["--method", "flow", "--json"])
    doc = json.loads(out)
    assert code == 0 and doc["exact"] and "time_limit" not in doc
    assert err.splitlines() == ["semcache opt: exact method flow (forced), which runs to the "
                                "end", "semcache opt: no time limit applies to a forced method"]
    code, out, err = _cli(capsys, SMALL + ["--method", "flow", "--time-limit", str(TINY),
                                           "--json"])
    doc = json.loads(out)
    assert code == 0 and doc["exact"] and doc["opt_cost"] == _exact_cost()
    assert (doc["time_limit"], doc["stopped_early"]) == (TINY, False)
    assert f"--time-limit {TINY:g} cannot cut a forced method" in err


def test_forced_bounds_take_the_default(capsys, monkeypatch):
    monkeypatch.setattr(cli_opt, "DEFAULT_TIME_LIMIT", TINY)
    code, out, err = _cli(capsys, SMALL + ["--method", "bounds", "--json"])
    doc = json.loads(out)
    assert code == 0 and doc["time_limit"] == TINY and doc["stopped_early"]
    assert err.startswith("semcache opt: certified bounds (forced): lower bound from")


def test_a_forced_method_that_fails_late_is_one_line(capsys):
    # k < K and clusters that are not separated: found only by the O(T²·d) check
    argv = ["opt", "--workload", "clusters", "--param", "steps=200", "--param", "dim=8",
            "--capacity", "6", "--top-k", "2", "--method", "flow"]
    code, out, err = _cli(capsys, argv)
    assert (code, out) == (2, "") and len(err.splitlines()) == 1, err
    assert err.startswith("semcache: error: method 'flow' cannot solve") and "separated" in err


def test_the_plan_names_what_cannot_apply():
    trace = workloads.get("clusters").generate({"steps": 200, "dim": 8}, 0)
    said = []
    result = opt(trace, 6, 2, 0.5, plan=said.append)
    assert len(said) == 1 and not result.exact  # said once, before the work
    first, bounds = said[0][:2]  # then the loops the upper bound would compile, if any
    assert first.startswith("exact methods, the first that applies: flow if the topics "
                            "prove separated, topics if the topics prove separated")
    assert "not counts: no two arrivals share a type" in first
    assert bounds.startswith("else certified bounds: lower bound from forced losses, the "
                             "min-cost flow; upper bound the cheapest of the flow's schedule")
    assert result.method.startswith("bounds:flow+")
