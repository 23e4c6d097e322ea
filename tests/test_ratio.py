"""Empirical competitive ratios (theory.ratio) against independent runs and OPT calls.

OPT may be exact or report bounds only (exact=False, opt_cost=None); the latter is
simulated by replacing ``theory.ratio.opt_with``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulator.errors import InputError
from simulator.runner import run
from simulator.trace import Trace
from simulator.trace_formats import load
from theory import ratio as ratio_mod
from theory.opt import OptResult, opt
from theory.ratio import competitive_ratio, ratio_curve
from workloads import get

K = 2
CYCLING = {"topics": K + 1, "items_per_topic": 2, "steps": 30, "dim": 16}


def test_fifo_on_cycling_has_the_exact_ratio_of_independent_calls(tmp_path):
    r = competitive_ratio("cycling", CYCLING, "fifo", capacity=K, top_k=K, seeds=(0, 1, 2))
    assert r.kind == "exact" and [rec["kind"] for rec in r.records] == ["exact"] * 3
    for rec in r.records:
        tr = get("cycling").generate(CYCLING, rec["seed"])
        cost = run(tr, "fifo", capacity=K, top_k=K, seed=rec["seed"]).summary()["cost"]
        best = opt(tr, K, K)
        assert cost == CYCLING["steps"]  # m = K + 1: FIFO never holds the queried topic
        assert rec["policy_cost"] == cost and rec["opt_cost"] == best.opt_cost
        assert rec["ratio"] == cost / best.opt_cost
    ratios = [rec["ratio"] for rec in r.records]
    assert r.max_ratio == max(ratios) and r.mean_ratio == pytest.approx(np.mean(ratios))
    assert r.worst_seed == r.records[int(np.argmax(ratios))]["seed"]
    path = tmp_path / "worst.npz"
    r.save_worst(path)
    again = competitive_ratio(load(path), None, "fifo", capacity=K, top_k=K,
                              seeds=(r.worst_seed,))
    assert again.max_ratio == r.max_ratio and again.kind == "exact"


def test_a_ready_trace_uses_the_seeds_as_policy_seeds():
    tr = get("cycling").generate(CYCLING, 4)
    r = competitive_ratio(tr, None, "random", capacity=K, top_k=K, seeds=(0, 1))
    fixed = competitive_ratio(tr, None, "random", capacity=K, top_k=K, seeds=(0, 1),
                              policy_seed=1)
    assert [rec["policy_seed"] for rec in r.records] == [0, 1]
    assert fixed.records[0]["policy_cost"] == r.records[1]["policy_cost"]
    with pytest.raises(InputError, match="params must be None"):
        competitive_ratio(tr, CYCLING, "fifo", capacity=K)


def _one_topic(weights):
    T = len(weights)
    vec = np.ones((T, 4), np.float32)
    zero = np.zeros(T, np.int64)
    return Trace.from_arrays(queries=vec, items=vec, query_topics=zero, item_topics=zero,
                             weights=np.array(weights, float))


def test_opt_zero_gives_one_or_infinity():
    # step 0 is free (weight 0); OPT admits at step 0 and then hits: cost 0
    tr = _one_topic([0.0] + [1.0] * 5)
    both_zero = competitive_ratio(tr, None, "fifo", capacity=1, top_k=1, seeds=(0,))
    assert both_zero.records[0]["opt_cost"] == 0.0 and both_zero.max_ratio == 1.0
    # SOLAR's gate waits for a miss before admitting, so it pays one miss at step 1
    late = competitive_ratio(tr, None, "solar", capacity=1, top_k=1, seeds=(0,))
    assert late.records[0]["policy_cost"] == 1.0 and math.isinf(late.max_ratio)
    assert ratio_mod.ratio_of(0.0, 0.0) == 1.0 and ratio_mod.ratio_of(2.0, 0.0) == math.inf


def _bounds_only(trace, options, method="auto"):
    """An OPT that is out of reach: bounds [1, 40], as the bounding version reports them."""
    return OptResult(opt_cost=None, exact=False, lower_bound=1.0, upper_bound=40.0,
                     method="bounds", schedule={}, config={})


def test_inexact_opt_gives_an_upper_bound_on_the_ratio(monkeypatch):
    fake = _bounds_only
    real = ratio_mod.opt_with
    calls = []

    def first_inexact(trace, *args, **kwargs):  # seed 0 inexact, seed 1 exact
        calls.append(1)
        return (fake if len(calls) == 1 else real)(trace, *args, **kwargs)

    monkeypatch.setattr(ratio_mod, "opt_with", first_inexact)
    r = competitive_ratio("cycling", CYCLING, "fifo", capacity=K, top_k=K, seeds=(0, 1))
    inexact, exact = r.records
    assert r.kind == "upper_bound" and inexact["kind"] == "upper_bound"
    assert exact["kind"] == "exact" and not inexact["exact"] and inexact["opt_cost"] is None
    assert inexact["ratio"] == inexact["policy_cost"] / inexact["lower_bound"]
    assert inexact["lower_bound"] <= inexact["policy_cost"] <= inexact["upper_bound"]


def test_ratio_curve_runs_each_horizon():
    c = ratio_curve("cycling", {k: v for k, v in CYCLING.items() if k != "steps"}, "fifo",
                    capacity=K, horizons=[9, 18], top_k=K, seeds=(0,))
    assert sorted(c) == [9, 18]
    assert c[18].records[0]["policy_cost"] == 18.0 and c[18].config["params"]["steps"] == 18
    with pytest.raises(InputError, match="steps"):
        ratio_curve("cycling", CYCLING, "fifo", capacity=K, horizons=[9])
