"""The paper's column beside ours: verdicts, label mapping to the printed tables, no file."""

import json

import pytest

from simulator.cli import main
from simulator.experiments.reproduce import REGISTRY, locomo, paper_tables
from simulator.experiments.reproduce.base import PAPER_POLICIES, Experiment, cell, table
from simulator.experiments.reproduce.paper_columns import file_label, merged, verdict

# t(0.975, 2) = 4.302653: three seeds with std 0.02 give mean ± 0.049683
HALF = 4.302652729911275 * 0.02 / 3 ** 0.5


@pytest.mark.parametrize("mean, std, n, paper, comparable, expected", [
    (0.50, 0.02, 3, 0.50 + HALF - 1e-4, True, "match"),   # inside the 95% interval
    (0.50, 0.02, 3, 0.50 - HALF + 1e-4, True, "match"),
    (0.50, 0.02, 3, 0.50 + HALF + 1e-4, True, "differs"),  # just outside
    (0.50, 0.02, 2, 0.60, True, "match"),  # t(1) = 12.7: two seeds say little
    (0.40, 0.0, 3, 0.404, True, "match"),  # deterministic: within the printed rounding
    (0.405, 0.0, 3, 0.40, True, "match"),  # the boundary is inside
    (0.40, 0.0, 3, 0.41, True, "differs"),
    (0.90, 0.05, 1, 0.903, True, "match"),  # one seed: deterministic whatever std says
    (0.90, 0.0, 1, 0.89, True, "differs"),
    (0.30, 0.01, 3, 0.286, False, "not comparable"),
    (0.30, 0.01, 3, None, True, None),
    (0.30, 0.01, 3, None, False, None),
])
def test_verdict(mean, std, n, paper, comparable, expected):
    assert verdict(mean, std, n, paper, comparable) == expected
    if paper is not None:
        assert verdict(mean, std, n, paper_tables.Printed(paper), comparable) == expected


def test_quick_table8_carries_every_printed_cell_it_measures(tmp_path, capsys):
    assert main(["reproduce", "table8", "--quick", "--json", "--out", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    exp = REGISTRY["table8"]
    found, _ = merged(exp, paper_tables.load())
    compared = 0
    for row in doc["rows"]:
        for col in doc["columns"]:
            c = row[col]
            assert {"paper", "paper_std", "differs", "verdict", "difference"} <= set(c)
            printed = found.get(file_label(exp, row["policy"], col))
            if printed is None:
                assert c["paper"] is None and c["verdict"] is None
                continue
            compared += 1
            assert c["paper"] == printed[1].value and c["verdict"] in ("match", "differs")
            assert c["differs"] == (c["verdict"] == "differs")
            assert c["difference"] == pytest.approx(c["mean"] - c["paper"])
    # quick mode runs m/K = 1, 2, 5 for all seven paper rows (ARC from Figure 3's data)
    assert compared >= 3 * len(PAPER_POLICIES)
    assert doc["paper_table"] == ["table8_cycling_hit_rate", "figure3_data"]


def _cells(values, row="fifo", column="m/K=1.5", source="generator"):
    return [cell(row, column, s, v, source) for s, v in enumerate(values)]


def test_far_off_value_differs_with_the_signed_difference():
    # the file prints FIFO at m/K=1.5 as 0.00 and SOLAR at m/K=1.0 as 0.69
    doc = table(REGISTRY["table8"], _cells([0.50, 0.52, 0.54])
                + _cells([0.20, 0.21, 0.22], row="solar", column="m/K=1"), [])
    fifo, solar = (r for r in doc["rows"])
    assert fifo["m/K=1.5"]["paper"] == 0.0 and fifo["m/K=1.5"]["verdict"] == "differs"
    assert fifo["m/K=1.5"]["differs"] is True
    assert fifo["m/K=1.5"]["difference"] == pytest.approx(0.52)
    assert solar["m/K=1"]["difference"] == pytest.approx(0.21 - 0.69)


def test_notes_say_which_of_solar_and_solar_ref_matches_and_the_lfu_printings():
    cells = (_cells([0.69, 0.70, 0.68], row="solar", column="m/K=1")
             + _cells([0.95, 0.96, 0.97], row="solar_ref", column="m/K=1")
             + _cells([0.40, 0.40, 0.40], row="lfu", column="m/K=2"))
    doc = table(REGISTRY["table8"], cells, [])
    assert "solar vs solar_ref (generator): only solar matches at m/K=1" in doc["notes"]
    # Table 8 prints LFU at m/K = 2 as 0.40, Figure 3's data as 0.41
    assert any(n.startswith("lfu at m/K=2 (generator): table8_cycling_hit_rate prints 0.4, "
                            "figure3_data 0.41") and n.endswith("under 0.41 it is differs")
               for n in doc["notes"])


def test_another_metric_is_shown_but_not_comparable():
    doc = table(REGISTRY["locomo"], _cells([0.5, 0.6, 0.7], row="solar", column="K=10")
                + _cells([0.5, 0.6, 0.7], row="solar", column="B=500"), [])
    k10, b500 = doc["rows"][0]["K=10"], doc["rows"][0]["B=500"]
    assert k10["verdict"] == "not comparable" and k10["paper"] == 0.286  # Table 4, K=10
    assert k10["differs"] is None and k10["difference"] is None
    assert b500["verdict"] is None  # nothing printed for token budgets
    assert "paper (generator): not comparable 1 of 1 printed cells" in doc["notes"]


def _emitted(name) -> tuple:
    """Every (row, column) label a full run of ``name`` can emit."""
    if name == "locomo":  # its labels are the other module's; read from its constants
        rows = ("unlimited",) + PAPER_POLICIES
        return rows, tuple(f"K={k}" for k in locomo.CAPACITIES)
    assert REGISTRY[name].labels is not None, f"{name}: declare labels= to be checked"
    return REGISTRY[name].labels()


MAPPED = [n for n, e in REGISTRY.items() if e.paper_table]


def test_the_mapped_tables():
    assert {"table8", "table9", "table10", "table11", "locomo"} <= set(MAPPED)
    assert not REGISTRY["locomo"].paper_comparable
    for name in ("drift", "ablation"):
        assert "none" in REGISTRY[name].paper_note


@pytest.mark.parametrize("name", MAPPED)
def test_every_printed_cell_meets_one_of_our_cells(name):
    exp = REGISTRY[name]
    tables = paper_tables.load()
    assert tables is not None and all(k in tables for k in (
        (exp.paper_table,) if isinstance(exp.paper_table, str) else exp.paper_table))
    rows, columns = _emitted(name)
    ours = {file_label(exp, r, c) for r in rows for c in columns}
    found, _ = merged(exp, tables)
    missing = {w for w in found if w not in ours}
    assert missing == set(exp.paper_unmeasured), f"printed but not measured: {missing}"
    assert all(exp.paper_unmeasured.values())  # each with its reason


def test_a_file_without_the_tables_gives_empty_paper_columns(tmp_path, monkeypatch):
    empty = tmp_path / "none.json"
    empty.write_text("{}")
    monkeypatch.setenv(paper_tables.ENV, str(empty))
    for name in MAPPED:
        rows, columns = _emitted(name)
        doc = table(REGISTRY[name], [cell(r, c, 0, 0.5) for r in rows for c in columns], [])
        for row in doc["rows"]:
            for c in doc["columns"]:
                assert row[c]["paper"] is None and row[c]["verdict"] is None
                assert row[c]["differs"] is None and row[c]["difference"] is None
        assert doc["notes"][0].startswith("paper column: the paper-tables file has no table")


def test_a_malformed_file_is_one_line(tmp_path, monkeypatch, capsys):
    import simulator.experiments.reproduce as repro

    bad = tmp_path / "solar.json"
    bad.write_text("{not json")
    monkeypatch.setenv(paper_tables.ENV, str(bad))
    exp = Experiment(name="t", title="t", metric="m", xlabel="x", paper_table="table9",
                     measure=lambda quick, seeds: ([cell("fifo", "K=5", 0, 0.3)], []))
    monkeypatch.setattr(repro, "REGISTRY", {"t": exp})
    assert main(["reproduce", "t", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "cannot be read as JSON" in err and err.count("\n") == 1
