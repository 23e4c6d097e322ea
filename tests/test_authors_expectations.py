"""The authors' acceptance criteria (``reproduce/authors_expectations.py``) on made-up cells:
each verdict follows the numbers, both ways, and a short grid is ``not measured``."""

import pytest

from simulator.experiments.reproduce import authors_expectations as ae
from simulator.experiments.reproduce.base import cell


def cells_of(table, source="generator", seeds=(0, 1)):
    """{(row, column): value} -> cells, the same value for every seed."""
    return [cell(row, col, s, v, source) for (row, col), v in table.items() for s in seeds]


def verdicts(findings, **match):
    return [f["verdict"] for f in findings
            if all(k in f["finding"] for k in match.values())]


@pytest.mark.parametrize("fifo, solar, verdict", [(0.0, 0.35, "met"), (0.04, 0.31, "met"),
                                                  (0.2, 0.5, "not met"),
                                                  (0.0, 0.3, "not met")])
def test_cycling(fifo, solar, verdict):
    found = ae.cycling(cells_of({("fifo", "m/K=2"): fifo, ("solar", "m/K=2"): solar,
                                 ("fifo", "m/K=1"): 1.0}))
    assert [f["verdict"] for f in found] == [verdict]  # solar_ref did not run: no finding
    assert found[0]["measured"] == {"fifo": fifo, "solar": solar}


def test_cycling_without_its_column_is_not_measured():
    found = ae.cycling(cells_of({("fifo", "m/K=3"): 0.0, ("solar", "m/K=2"): 0.5}))
    assert [f["verdict"] for f in found] == ["not measured"]


@pytest.mark.parametrize("gaps, verdict, star", [((0.1, 0.2, 0.0), "met", "K=20"),
                                                 ((0.1, -0.1, -0.2), "met", "K=10"),
                                                 ((0.1, 0.2, 0.01), "not met", None),
                                                 ((-0.1, 0.2, -0.1), "not met", "K=5")])
def test_crossover(gaps, verdict, star):
    table = {}
    for K, g in zip((5, 10, 20), gaps):
        table[("fifo", f"K={K}")] = 0.5
        table[("solar_ref", f"K={K}")] = 0.5 + g
    cells = cells_of(table) + cells_of(table, "authors")
    found = ae.crossover(cells, ["K=5", "K=10", "K=20"])
    assert [f["verdict"] for f in found] == [verdict, verdict]
    assert found[0]["measured"]["K*"] == star
    assert [f["verdict"] for f in ae.crossover(cells, ["K=5", "K=200"])] == ["not measured"] * 2


@pytest.mark.parametrize("curve, verdict", [((0.1, 0.5, 0.3), "met"),
                                            ((0.1, 0.3, 0.5), "not met"),
                                            ((0.5, 0.3, 0.1), "not met")])
def test_noise_peak(curve, verdict):
    table = {("hit rate (code rule)", f"P={p}"): v for p, v in zip((50, 200, 5000), curve)}
    found = ae.noise_peak(cells_of(table), ["P=50", "P=200", "P=5000"])
    assert [f["verdict"] for f in found] == [verdict]
    assert [f["verdict"] for f in ae.noise_peak(cells_of(table), ["P=100"])] == [
        "not measured"]


def test_noise_peak_outside_the_expected_range():
    table = {("hit rate", f"P={p}"): v for p, v in ((50, 0.1), (2000, 0.5), (5000, 0.3))}
    assert [f["verdict"] for f in ae.noise_peak(cells_of(table))] == ["not met"]


@pytest.mark.parametrize("solar, verdict", [(0.6, "met"), (0.2, "not met")])
def test_drift_reads_the_phases_after_the_first(solar, verdict):
    table = {("lfu", "phase 1"): 0.9, ("lfu", "phase 2"): 0.3, ("lfu", "phase 3"): 0.3,
             ("lfu", "overall"): 0.5, ("solar", "phase 1"): 0.0, ("solar", "phase 2"): solar,
             ("solar", "phase 3"): solar, ("solar", "overall"): 0.0}
    found = ae.drift(cells_of(table, "authors"))
    assert [f["verdict"] for f in found] == [verdict]
    assert found[0]["measured"]["phases"] == ["phase 2", "phase 3"]
    assert "authors traces" in found[0]["finding"]
