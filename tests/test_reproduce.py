"""``semcache reproduce``: JSON contract, files written, determinism, model facts, bad input."""

import json
import os

import pytest

from simulator.cli import main
from simulator.experiments.reproduce import REGISTRY, get, reproduce
from helpers import quick_runs

# Experiments whose data and extras are here (locomo needs the LoCoMo data and the model).
HERE = [name for name, exp in REGISTRY.items() if exp.available()]


@pytest.fixture(scope="module")
def quick_docs(tmp_path_factory):
    # made once per session (quick_runs), and read by the quick report too
    tables = quick_runs.quick_tables(tmp_path_factory)
    return {name: tables[name] for name in HERE}


@pytest.mark.parametrize("name", HERE)
def test_table_contract_and_files(quick_docs, name):
    import pyarrow.parquet as pq

    doc, files = quick_docs[name]
    assert doc["table"] == name and doc["columns"] and doc["rows"]
    for row in doc["rows"]:
        assert {"policy", "source"} <= set(row)
        for col in doc["columns"]:
            if col in row:
                assert set(row[col]) == {"mean", "std", "n", "paper", "differs", "paper_std",
                                         "verdict", "difference"}
                assert row[col]["n"] >= 1
                assert row[col]["verdict"] in (None, "match", "differs", "not comparable")
    raw = pq.read_table(files["parquet"]).to_pylist()
    assert len(raw) == sum(row[c]["n"] for row in doc["rows"] for c in doc["columns"]
                           if c in row)
    assert all(isinstance(json.loads(r["config"]), dict) for r in raw)
    assert os.path.getsize(files["png"]) > 1000
    with open(files["json"]) as fh:
        assert json.load(fh)["rows"] == doc["rows"]


@pytest.mark.parametrize("name", [n for n in HERE if REGISTRY[n].labels is not None])
def test_labels_declared_for_the_paper_column_are_the_ones_emitted(quick_docs, name):
    # the printed cells are checked against the declared labels (test_paper_columns), so
    # a label the run emits must be one of those
    rows, columns = REGISTRY[name].labels()
    doc, _ = quick_docs[name]
    assert {r["policy"] for r in doc["rows"]} <= set(rows)
    assert set(doc["columns"]) <= set(columns)


def test_fifo_thrashes_on_cycling(quick_docs):
    doc, _ = quick_docs["table8"]
    fifo = next(r for r in doc["rows"] if r["policy"] == "fifo" and r["source"] == "generator")
    assert fifo["m/K=2"]["mean"] == 0.0 and fifo["m/K=5"]["mean"] == 0.0
    assert fifo["m/K=1"]["mean"] > 0.5


@pytest.mark.skipif("locomo" not in HERE, reason="no LoCoMo data or text extra here")
def test_locomo_table_layout(quick_docs):
    doc, _ = quick_docs["locomo"]
    assert doc["columns"] == ["K=10", "K=20", "K=50", "K=100",
                              "B=500", "B=1000", "B=2000", "B=4000"]
    rows = [r["policy"] for r in doc["rows"]]
    assert rows[:6] == ["unlimited", "fifo", "lru", "lfu", "arc", "solar_e"]
    assert {"solar: modification rate", "solar_a: modification rate"} <= set(rows)
    unlimited = doc["rows"][0]
    # no capacity: one value whatever K
    assert len({unlimited[c]["mean"] for c in doc["columns"]}) == 1
    for row in doc["rows"]:
        for c in doc["columns"]:
            assert 0.0 <= row[c]["mean"] <= 1.0
            # Table 4's F1 for reference at the K columns, never compared
            printed = row[c]["paper"] is not None
            assert row[c]["verdict"] == ("not comparable" if printed else None)
            assert printed == (c.startswith("K=") and not row["policy"].endswith("rate"))
    assert "LLM answer F1" in doc["paper_note"] and "1 conversation(s)" in doc["notes"][0]
    # the token budgets' notes: what a turn costs, and which policies change rank
    assert any(n.startswith("B = token budget") and "special tokens not counted" in n
               for n in doc["notes"])
    assert any(n.startswith("rank by mean hit@3, turns (K) → tokens (B)") for n in doc["notes"])


def test_authors_expectations_are_findings(quick_docs):
    ids = {"table8": "authors-cycling", "table9": "authors-crossover",
           "table10": "authors-noise-peak", "drift": "authors-drift"}
    for name, fid in ids.items():
        found = quick_docs[name][0]["findings"]
        assert found and {f["id"] for f in found} == {fid}
        assert {f["verdict"] for f in found} <= {"met", "not met", "not measured"}
    # where the quick grid stops short of the full one, no verdict is given
    for name in ("table9", "table10"):
        assert {f["verdict"] for f in quick_docs[name][0]["findings"]} == {"not measured"}


def test_same_seeds_same_table(tmp_path, quick_docs):
    again, _ = reproduce("table9", quick=True, out_dir=str(tmp_path))
    assert again["rows"] == quick_docs["table9"][0]["rows"]


def test_figures_are_tables():
    assert get("fig3") is REGISTRY["table8"] and get("fig5") is REGISTRY["table10"]


def test_cli_json(tmp_path, capsys):
    assert main(["reproduce", "fig4", "--quick", "--seeds", "0,1", "--json",
                 "--out", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["table"] == "table9" and doc["seeds"] == [0, 1]
    assert os.path.exists(doc["files"]["png"])


@pytest.mark.parametrize("argv, message", [
    (["reproduce", "table99"], "unknown reproduction 'table99'"),
    (["reproduce", "table8", "--seeds", "a"], "--seeds expects integers"),
    (["reproduce", "table8", "--seeds", "1,1"], "--seeds needs distinct"),
])
def test_bad_input(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_all_skips_an_experiment_that_cannot_run_here(tmp_path, capsys, monkeypatch):
    import simulator.experiments.reproduce as repro
    from simulator.experiments.reproduce.base import Experiment, cell

    def measure(quick, seeds):
        return [cell("fifo", "K=1", s, 0.5) for s in seeds], []

    here = Experiment(name="here", title="t", metric="m", xlabel="x", measure=measure)
    away = Experiment(name="away", title="t", metric="m", xlabel="x", measure=measure,
                      available=lambda: False)
    monkeypatch.setattr(repro, "REGISTRY", {"here": here, "away": away})
    assert main(["reproduce", "all", "--quick", "--json", "--out", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert [t["table"] for t in json.loads(out)["tables"]] == ["here"]
    assert "skipping 'away'" in err and err.count("\n") == 1


@pytest.mark.parametrize("name", HERE)
def test_printed_table_shows_rows_findings_and_files(quick_docs, name, capsys, monkeypatch):
    # the human-readable output of `semcache reproduce NAME` (without --json), on a
    # terminal wide enough that rich wraps no cell
    from simulator.cli.reproduce import _print

    monkeypatch.setenv("COLUMNS", "240")
    doc, files = quick_docs[name]
    _print(doc, files, REGISTRY[name].grid)
    text = capsys.readouterr().out
    assert doc["title"] in " ".join(text.split())
    for finding in doc.get("findings", ()):
        assert f"{finding['id']}: {finding['verdict']} — " in text
    assert "wrote " + ", ".join(files.values()) in text.replace("\n", "")
    shown = sum(row["policy"] in text for row in doc["rows"])
    assert shown == len(doc["rows"])
    # the paper's value and the verdict under ours, and what the marks mean
    for row in doc["rows"]:
        for c in (row[col] for col in doc["columns"] if col in row):
            if c["verdict"] == "match":
                assert f"{c['paper']:.3f} ✓" in text
            elif c["verdict"] == "differs":
                assert f"{c['paper']:.3f} ≠ {c['difference']:+.3f}" in text
    if any(row[c]["verdict"] for row in doc["rows"] for c in doc["columns"] if c in row):
        assert "95% t-interval" in text


def test_without_any_data_the_json_carries_the_papers_values(tmp_path, capsys):
    """A user's fresh install (this test sees an empty data home): the paper column of
    ``semcache reproduce table8 --json`` is the shipped printed values."""
    from simulator.experiments.reproduce import paper_tables

    assert main(["reproduce", "table8", "--quick", "--json", "--out", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    printed = paper_tables.printed(paper_tables.load(), "table8_cycling_hit_rate")
    fifo = next(r for r in doc["rows"] if r["policy"] == "fifo")
    assert fifo["m/K=1"]["paper"] == printed[("fifo", "m/K=1.0")].value == 0.9
    cells = [r[c] for r in doc["rows"] for c in doc["columns"] if c in r]
    assert sum(c["paper"] is not None for c in cells) >= 30
    assert all(c["verdict"] in ("match", "differs") for c in cells if c["paper"] is not None)
