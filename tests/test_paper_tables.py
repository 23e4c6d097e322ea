"""The paper's printed values: shipped and cited, held to their source, every cell checked."""

import json

import pytest

from helpers import datasets
from simulator.errors import InputError
from simulator.experiments.reproduce import paper_tables


def _tables(doc):
    return {k: v for k, v in doc.items() if isinstance(v, dict) and "rows" in v}


def test_the_shipped_file_is_read_by_default_and_every_table_is_cited():
    assert paper_tables.location() == paper_tables.SHIPPED
    doc = paper_tables.load()
    tables = _tables(doc)
    assert {"table8_cycling_hit_rate", "table4_locomo_f1", "figure3_data"} <= set(tables)
    for key, tab in tables.items():
        assert tab["paper"] == doc["paper"] and "arXiv:2607.00394" in tab["paper"], key
        assert tab["table"].split()[0] in ("Table", "Figure") and tab["caption"], key
        assert paper_tables.printed(doc, key), key
    cycling = paper_tables.printed(doc, "table8_cycling_hit_rate")
    assert cycling[("fifo", "m/K=1.0")].std is None  # hit rates printed without a std
    locomo = paper_tables.printed(doc, "table4_locomo_f1")
    assert locomo[("solar", "K=10")].std is not None


@pytest.mark.data("paper-tables")
def test_the_shipped_copy_holds_the_transcription_it_was_made_from():
    source = json.loads((datasets.path("paper-tables") / "solar.json").read_text())
    ours, theirs = _tables(paper_tables.load()), _tables(source)
    assert set(ours) == set(theirs)
    for key in ours:
        assert ours[key]["columns"] == theirs[key]["columns"], key
        assert ours[key]["rows"] == theirs[key]["rows"], key


def test_the_variable_names_another_file(monkeypatch, tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"t": {"columns": ["a"], "rows": {"fifo": [0.5]}}}))
    monkeypatch.setenv(paper_tables.ENV, str(path))
    assert paper_tables.location() == path
    assert paper_tables.printed(paper_tables.load(), "t") == {
        ("fifo", "a"): paper_tables.Printed(0.5)}
    assert paper_tables.printed(None, "t") == {}


@pytest.mark.parametrize("body, words", [
    (None, "cannot be read as JSON"),
    ("{not json", "cannot be read as JSON"),
    ("[" * 100_000, "cannot be read as JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('{"t": {"columns": ["a"], "rows": {"fifo": [1, 2]}}}', "one entry per column"),
    ('{"t": {"columns": ["a"], "rows": {"fifo": ["x"]}}}', "a number, null or [mean, std]"),
    ('{"t": {"columns": ["a"], "rows": {"fifo": [true]}}}', "a number, null or [mean, std]"),
    ('{"t": {"rows": {}}}', "needs 'columns'"),
])
def test_a_malformed_file_is_one_line_naming_it(body, words, monkeypatch, tmp_path):
    path = tmp_path / "solar.json"
    if body is not None:  # None: the variable names a file that is not there
        path.write_text(body)
    monkeypatch.setenv(paper_tables.ENV, str(path))
    with pytest.raises(InputError) as err:
        paper_tables.printed(paper_tables.load(), "t")
    assert words in str(err.value) and "\n" not in str(err.value)
    assert str(path) in str(err.value) or "table 't'" in str(err.value)


def test_null_cells_are_left_out(monkeypatch, tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"t": {"columns": ["a", "b"], "rows": {"fifo": [None, 0.5]}}}))
    monkeypatch.setenv(paper_tables.ENV, str(path))
    assert list(paper_tables.printed(paper_tables.load(), "t")) == [("fifo", "b")]
