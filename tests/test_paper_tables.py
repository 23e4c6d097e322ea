"""The paper's printed values: read from the data home's file, every cell checked."""

import json

import pytest

from simulator.errors import InputError
from simulator.experiments.reproduce import paper_tables


def test_the_shared_file_is_found_and_every_table_reads():
    doc = paper_tables.load()
    if doc is None:
        pytest.skip("no paper-tables data")
    tables = [k for k, v in doc.items() if isinstance(v, dict) and "rows" in v]
    assert "table8_cycling_hit_rate" in tables
    for key in tables:
        assert paper_tables.printed(doc, key)
    cycling = paper_tables.printed(doc, "table8_cycling_hit_rate")
    assert cycling[("fifo", "m/K=1.0")].std is None  # hit rates printed without a std
    locomo = paper_tables.printed(doc, "table4_locomo_f1")
    assert locomo[("solar", "K=10")].std is not None


def test_no_file_no_values(monkeypatch, tmp_path):
    monkeypatch.delenv(paper_tables.ENV, raising=False)
    monkeypatch.setenv("SEMCACHE_DATA", str(tmp_path))
    assert paper_tables.load() is None and paper_tables.printed(None, "table8") == {}


@pytest.mark.parametrize("body, words", [
    ("{not json", "cannot be read as JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('{"t": {"columns": ["a"], "rows": {"fifo": [1, 2]}}}', "one entry per column"),
    ('{"t": {"columns": ["a"], "rows": {"fifo": ["x"]}}}', "a number, null or [mean, std]"),
    ('{"t": {"columns": ["a"], "rows": {"fifo": [true]}}}', "a number, null or [mean, std]"),
    ('{"t": {"rows": {}}}', "needs 'columns'"),
])
def test_a_malformed_file_is_one_line_naming_it(body, words, monkeypatch, tmp_path):
    path = tmp_path / "solar.json"
    path.write_text(body)
    monkeypatch.setenv(paper_tables.ENV, str(path))
    with pytest.raises(InputError) as err:
        paper_tables.printed(paper_tables.load(), "t")
    assert words in str(err.value) and "\n" not in str(err.value)


def test_null_cells_are_left_out(monkeypatch, tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"t": {"columns": ["a", "b"], "rows": {"fifo": [None, 0.5]}}}))
    monkeypatch.setenv(paper_tables.ENV, str(path))
    assert list(paper_tables.printed(paper_tables.load(), "t")) == [("fifo", "b")]
