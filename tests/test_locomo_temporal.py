"""LoCoMo's temporal tables (``reproduce/locomo_temporal.py``): the statistics on series whose
answers are known by hand, the findings' verdicts on made-up per-seed statistics, and the
``temporal`` section of ``semcache reproduce locomo --quick`` (one conversation)."""

import math

import numpy as np
import pytest
from scipy.stats import kendalltau

from simulator.experiments.reproduce import REGISTRY, locomo_temporal, paper_tables
from simulator.experiments.reproduce.base import PAPER_POLICIES
from simulator.experiments.reproduce.locomo_temporal import (VERDICTS, _findings, _Stats,
                                                             _table5, _table6, statistics)
from helpers import quick_runs


def test_statistics_by_hand():
    s = statistics([np.arange(4.0)])  # y = i
    assert (s["average"], s["second_half"], s["slope"]) == (1.5, 2.5, 1.0)
    # one intercept per conversation: two lines of slope 2 far apart still give 2, where a
    # single pooled line would not
    s = statistics([2 * np.arange(5.0), 100 + 2 * np.arange(3.0)])
    assert s["slope"] == pytest.approx(2.0)
    # later halves: positions 3, 4 of five (8, 6 → 7... values 6, 8) and 2 of three (104)
    assert s["second_half"] == pytest.approx((6 + 8 + 104) / 3)
    assert s["average"] == pytest.approx((0 + 2 + 4 + 6 + 8 + 100 + 102 + 104) / 8)
    # a NaN is left out, its position kept: 0, _, 2, 3 still has slope 1
    s = statistics([np.array([0.0, np.nan, 2.0, 3.0])])
    assert s["slope"] == pytest.approx(1.0) and s["average"] == pytest.approx(5 / 3)
    # flat and degenerate series
    assert statistics([np.ones(6)])["slope"] == 0.0
    assert math.isnan(statistics([np.array([1.0])])["slope"])
    assert math.isnan(statistics([np.array([np.nan, np.nan])])["average"])


def _stats(solar_avg, fifo_avg, solar_slope, fifo_slope, half_bonus, seeds=(0, 1, 2)):
    """Per-seed statistics: FIFO and SOLAR as given (± a small seed jitter), every other
    policy 0.1 below FIFO; SOLAR's second half ``half_bonus`` above its average."""
    stats = {}
    for K in locomo_temporal.TABLE5_K:
        c = f"K={K}"
        for i, s in enumerate(seeds):
            j = 1e-3 * i
            for p in PAPER_POLICIES:
                avg, slope, half = fifo_avg[K] - 0.1 + j, fifo_slope, 0.0
                if p == "fifo":
                    avg = fifo_avg[K] + j
                elif p == "solar":
                    avg, slope, half = solar_avg[K] + 2 * j, solar_slope + j, half_bonus
                stats[(p, c, s)] = {"m": {"average": avg, "second_half": avg + half,
                                          "slope": slope + (j if p == "fifo" else 0)}}
    return _Stats(stats, "m", list(seeds))


FIFO = {10: 0.2, 20: 0.25, 50: 0.3, 100: 0.33}
PAPERLIKE = {10: 0.25, 20: 0.27, 50: 0.32, 100: 0.3}


def test_findings_reproduced_and_not():
    verdict = {f["id"]: f["verdict"] for f in _findings(_stats(PAPERLIKE, FIFO, 2e-3, 1e-3,
                                                               0.01))}
    assert verdict == dict.fromkeys(["classic-below-fifo", "solar-first", "transition",
                                     "advantage-grows"], "reproduced")
    worse = {K: v - 0.1 for K, v in FIFO.items()}  # SOLAR below FIFO everywhere
    found = _findings(_stats(worse, FIFO, 0.5e-3, 1e-3, -0.01))
    verdict = {f["id"]: f["verdict"] for f in found}
    assert verdict["solar-first"] == verdict["transition"] == "not reproduced"
    assert verdict["advantage-grows"] == "not reproduced"
    assert found[2]["measured"]["k_star"] == "none: FIFO at or above SOLAR at every K"
    # one seed: no interval, so nothing is decided
    one = _findings(_stats(PAPERLIKE, FIFO, 2e-3, 1e-3, 0.01, seeds=(0,)))
    assert {f["verdict"] for f in one} == {"inconclusive"}


def test_table5_and_table6_by_hand():
    s = _stats(PAPERLIKE, FIFO, 2e-3, 1e-3, 0.01, seeds=(0,))
    t5 = _table5(s, None)["rows"]
    assert t5["avg_gap"]["K=10"]["ours"] == pytest.approx(0.05)
    assert t5["relative_improvement_pct"]["K=10"]["ours"] == pytest.approx(25.0)
    assert t5["second_half_gap"]["K=10"]["ours"] == pytest.approx(0.06)
    assert t5["slope_ratio"]["K=10"]["ours"] == pytest.approx(2.0)
    assert t5["avg_gap"]["K=10"]["paper"] is None  # no file given
    # FIFO's slope <= 0: no ratio
    assert _table5(_stats(PAPERLIKE, FIFO, 2e-3, -1e-3, 0.0, seeds=(0,)), None)[
        "rows"]["slope_ratio"]["K=10"]["ours"] is None
    t6 = _table6(s, None)["rows"]
    assert list(t6) == ["fifo", "solar_e", "solar_a", "solar"]
    assert t6["solar"]["delta_vs_fifo"] == pytest.approx(0.02)
    assert t6["solar_e"]["delta_vs_fifo"] == pytest.approx(-0.1)


needs_locomo = pytest.mark.skipif(not REGISTRY["locomo"].available(),
                                  reason="no LoCoMo data or text extra here")


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    # made once per session (quick_runs), and read by the quick report too
    return quick_runs.quick_tables(tmp_path_factory)["locomo"][0]


def _finite(v) -> bool:
    return v is None or (isinstance(v, (int, float)) and math.isfinite(v))


@needs_locomo
def test_quick_run_has_the_temporal_tables(quick):
    sec = quick["temporal"]
    assert set(sec["metrics"]) == {"hit@3", "turn F1"}
    for metric, m in sec["metrics"].items():
        t5 = m["table5"]["rows"]
        assert set(t5) == set(locomo_temporal.PAPER_T5)
        for row in t5.values():
            assert list(row) == ["K=10", "K=20", "K=50", "K=100"]
            assert all(_finite(c["ours"]) and _finite(c["paper"]) for c in row.values())
        assert all(math.isfinite(c["ours"]) for c in t5["avg_gap"].values())
        assert list(m["table6"]["rows"]) == ["fifo", "solar_e", "solar_a", "solar"]
        assert set(m["table12"]["rows"]) == set(PAPER_POLICIES)
        for row in m["table12"]["rows"].values():
            assert list(row) == ["K=10", "K=20", "K=50"]
            assert all(math.isfinite(c["mean"]) for c in row.values())
        assert not (m["table5"]["paper_comparable"] or m["table12"]["paper_comparable"])
    # hit@3's average is the table's cell, the same questions pooled the same way
    series = sec["metrics"]["hit@3"]["series"]
    for row in quick["rows"]:
        for col in ("K=10", "K=20", "K=50", "K=100"):
            if row["policy"] in series:
                assert series[row["policy"]][col]["average"]["mean"] == pytest.approx(
                    row[col]["mean"], abs=1e-12)
    # turn F1 lies in [0, 1] and unlimited's is the highest
    f1 = sec["metrics"]["turn F1"]["series"]
    assert all(0 <= f1[p][c]["average"]["mean"] <= 1 for p in f1 for c in f1[p])
    assert len(sec["findings"]) == 8
    assert {f["verdict"] for f in sec["findings"]} <= set(VERDICTS)
    assert {f["metric"] for f in sec["findings"]} == {"hit@3", "turn F1"}


@needs_locomo
def test_kendall_tau_against_the_files_table4(quick):
    printed = paper_tables.printed(paper_tables.load(), "table4_locomo_f1")
    for metric, m in quick["temporal"]["metrics"].items():
        for col, got in m["kendall_tau"].items():
            ours = [m["series"][p][col]["average"]["mean"] for p in PAPER_POLICIES]
            theirs = [printed[(p, col)].value for p in PAPER_POLICIES]
            assert got["tau"] == pytest.approx(kendalltau(ours, theirs).statistic)
            assert got["paper"][0] == max(PAPER_POLICIES, key=lambda p: printed[(p, col)].value)
