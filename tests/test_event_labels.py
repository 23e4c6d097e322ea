"""What an events file says beyond the arrays (docs/model.md §6.2): topic labels, fields of
its own, and where it is told apart from a request trace.

Text topics become ids in order of first appearance, the same in JSONL, CSV and Parquet,
scoring as the labels would; the labels and the kept fields travel in the trace file's
``meta`` member and are read back; ``--extra-fields`` refuses, keeps or ignores, and the
import's line says what it did; a CSV (or ``.txt``) of events read as a request trace says
what to add or rename.  Vector events only: no text model is loaded.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from helpers.event_files import write_events
from helpers.hostile_contract import assert_rejected
from helpers.hostile_files import workdir
from simulator.cli import main
from simulator.errors import InputError
from simulator.trace import Trace
from simulator.trace_formats import load, save
from workloads.data import events

E = [[1, 0], [0, 1], [1, 1]]
LABELLED = [  # topic labels, an integer among them, a re-arrival keeping its item's topic
    {"query_vector": E[0], "item_vector": E[1], "item_id": "a", "topic": "cooking"},
    {"query_vector": E[1], "item_vector": E[2], "query_topic": 3, "item_topic": "travel"},
    {"query_vector": E[2], "item_id": "a", "query_topic": "travel"},
    {"query_vector": E[0], "item_vector": E[0], "topic": "3"},
]
LABELS = ["cooking", "3", "travel"]  # by first appearance: 3 and "3" are one topic


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_text_topics_become_ids_in_order_of_first_appearance(tmp_path, suffix):
    rows = LABELLED if suffix != ".parquet" else [  # a Parquet column has one type
        {k: str(v) if "topic" in k else v for k, v in row.items()} for row in LABELLED]
    trace = events.load(write_events(tmp_path / f"e{suffix}", rows))
    assert trace.meta["topic_labels"] == LABELS == trace.meta["report"]["topic_labels"]
    assert trace.query_topics.tolist() == [0, 1, 2, 1]
    assert trace.item_topics.tolist() == [0, 2, 0, 1]  # "a" again: its topic, cooking


def test_labels_score_as_the_ids_they_stand_for(tmp_path):
    by_hand = [{**row} for row in LABELLED]
    for row in by_hand:
        for name in ("topic", "query_topic", "item_topic"):
            if name in row:
                row[name] = LABELS.index(str(row[name]))
    labelled = events.load(write_events(tmp_path / "l.jsonl", LABELLED)).arrays()
    numbered = events.load(write_events(tmp_path / "n.jsonl", by_hand))
    assert "topic_labels" not in numbered.meta  # integers only: ids as given
    for name, array in numbered.arrays().items():
        assert np.array_equal(labelled[name], array), name


def test_topic_sets_the_querys_and_the_items_topic(tmp_path):
    rows = [{"query_vector": E[0], "item_vector": E[1], "topic": 4},
            {"query_vector": E[1], "item_vector": E[2], "query_topic": 5},
            {"query_vector": E[2], "item_vector": E[0], "item_topic": 6}]
    trace = events.load(write_events(tmp_path / "e.jsonl", rows))
    assert trace.query_topics.tolist() == [4, 5, -1]
    assert trace.item_topics.tolist() == [4, -1, 6]


OWN = [{"query_vector": E[0], "item_vector": E[1], "session": "s1", "note": {"k": [1, 2]}},
       {"query_vector": E[1], "item_vector": E[2]},
       {"query_vector": E[2], "item_vector": E[0], "session": "s2", "topic": "cooking"}]


def _import(capsys, folder, name, *extra) -> tuple:
    argv = ["trace", "import", name, "--out", "t.npz", *extra]
    assert main(argv) == 0
    line = capsys.readouterr().out.strip()
    assert main([*argv, "--json"]) == 0
    return line, json.loads(capsys.readouterr().out)


def test_kept_fields_and_labels_are_saved_with_the_trace_and_read_back(tmp_path, capsys,
                                                                      monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_events(tmp_path / "e.jsonl", OWN)
    line, doc = _import(capsys, tmp_path, "e.jsonl", "--extra-fields", "keep")
    assert ('topic ids by label: "cooking" = 0; 2 unknown fields ("session", "note") on 2 '
            "rows kept in the trace's meta") in line
    assert doc["report"]["extra_fields"] == {"keep": ["session", "note"], "rows": 2}
    kept = {"session": ["s1", None, "s2"], "note": [{"k": [1, 2]}, None, None]}
    trace = load("t.npz")
    assert trace.meta["extra_fields"] == kept and trace.meta["topic_labels"] == ["cooking"]
    save(trace, tmp_path / "again.npz")  # and again: what was read back saves as it was
    assert load(tmp_path / "again.npz").meta["extra_fields"] == kept
    with np.load("t.npz") as z:  # readable without semcache: one JSON string
        assert json.loads(str(z["meta"]))["topic_labels"] == ["cooking"]


def test_ignored_fields_are_counted_in_the_line_and_not_saved(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_events(tmp_path / "e.csv", OWN)
    line, doc = _import(capsys, tmp_path, "e.csv", "--trace-format", "events",
                        "--extra-fields", "ignore")
    assert '2 unknown fields ("session", "note") on 2 rows ignored' in line
    assert doc["report"]["extra_fields"] == {"ignore": ["session", "note"], "rows": 2}
    assert "extra_fields" not in load("t.npz").meta


def test_many_labels_are_shown_five_and_counted(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_events(tmp_path / "e.jsonl", [{"query_vector": E[0], "item_vector": E[1],
                                         "topic": f"t{i}"} for i in range(8)])
    line, _ = _import(capsys, tmp_path, "e.jsonl")
    assert '"t4" = 4, ... (8 labels in all)' in line and '"t5"' not in line


def test_a_trace_without_labels_saves_no_meta_member(tmp_path):
    trace = events.load(write_events(tmp_path / "e.jsonl", OWN[1:2]))
    save(trace, tmp_path / "t.npz")
    with np.load(tmp_path / "t.npz") as z:
        assert "meta" not in z.files


def _npz(tmp_path, meta) -> str:
    path = tmp_path / "t.npz"
    arrays = {"queries": np.eye(2, dtype=np.float32), "items": np.eye(2, dtype=np.float32)}
    np.savez(path, **arrays, **({} if meta is None else {"meta": meta}))
    return str(path)


@pytest.mark.parametrize("meta, words", [
    (np.array([1, 2]), "one string"),
    (np.array("{not json"), "not JSON text"),
    (np.array('{"topic_labels": [NaN]}'), "not JSON text"),
    (np.array('{"colour": 1}'), "topic_labels, extra_fields"),
    (np.array('["topic_labels"]'), "JSON object"),
    (np.array('{"topic_labels": ["a", "a"]}'), "distinct strings"),
    (np.array('{"topic_labels": [1]}'), "distinct strings"),
    (np.array('{"extra_fields": {"x": [1]}}'), "2 values"),
    (np.array('{"extra_fields": [1, 2]}'), "2 values"),
    (np.array('{"topic_labels": ["\\ud800"]}'), "not JSON text"),
])
def test_a_bad_meta_member_is_one_error_naming_it(tmp_path, meta, words):
    with pytest.raises(InputError, match="array 'meta'") as err:
        load(_npz(tmp_path, meta))
    assert words in str(err.value)


def test_meta_that_json_cannot_hold_is_refused_before_anything_is_written(tmp_path):
    trace = Trace.from_arrays(queries=np.eye(2), items=np.eye(2),
                              meta={"extra_fields": {"x": [np.float32(1), None]}})
    with pytest.raises(InputError, match="cannot be saved as JSON"):
        save(trace, tmp_path / "t.npz")
    assert list(tmp_path.iterdir()) == []


MISNAMED = {  # a file of events that its name makes a request trace, and the fix said
    "e.csv": (b'query_vector,item_vector,topic\n"[1,0]","[0,1]",1\n',
              "add --trace-format events"),
    "bom.csv": (b'\xef\xbb\xbf"query",item\nwhere?,here\n', "add --trace-format events"),
    "e.txt": (b'{"query_vector": [1, 0], "item_vector": [0, 1]}\n', "name it .jsonl"),
    "csv.txt": (b"query,item\nwhere?,here\n", "name it .csv and add --trace-format events"),
    "p.csv": (b"PAR1\x15\x04", "name it .parquet"),
}


@pytest.mark.parametrize("name", sorted(MISNAMED))
@pytest.mark.parametrize("command", [["trace", "import", "{}", "--out", "old.npz"],
                                     ["run", "--trace", "{}", "--policy", "fifo"],
                                     ["run", "--trace", "{}", "--policy", "fifo", "--stream"]])
def test_events_read_as_a_request_trace_say_what_to_add(name, command):
    content, fix = MISNAMED[name]
    folder = workdir()
    try:
        (folder / name).write_bytes(content)
        line = assert_rejected([a.format(name) for a in command], folder)
        assert f"'{name}' looks like agent-memory events" in line and fix in line, line
    finally:
        shutil.rmtree(folder)


def test_a_request_csv_is_not_taken_for_events(tmp_path, capsys):
    path = tmp_path / "r.csv"
    path.write_bytes(b"time,query_id,size\n1,7,4\n2,8,4\n")  # a column named like one
    assert main(["trace", "import", str(path), "--trace-param", "obj-id-col=2",
                 "--out", str(tmp_path / "t.npz")]) == 0
    assert "2 requests over 2 objects" in capsys.readouterr().out


@pytest.mark.parametrize("argv, words", [
    (["trace", "import", "r.txt", "--extra-fields", "keep"], "--extra-fields is for"),
    (["trace", "import", "e.jsonl", "--extra-fields", "keep", "--trace-param",
      "extra_fields=keep"], "give it once"),
    (["run", "--workload", "clusters", "--extra-fields", "keep"], "--extra-fields"),
])
def test_extra_fields_where_it_cannot_apply_is_one_line(argv, words):
    folder = workdir()
    try:
        (folder / "r.txt").write_bytes(b"1\n2\n")
        write_events(folder / "e.jsonl", OWN)
        line = assert_rejected([*argv, "--out", "old.npz"] if argv[0] == "trace" else argv,
                               folder)
        assert words in line, line
    finally:
        shutil.rmtree(folder)


def test_a_request_csv_with_a_query_column_reads_with_its_format_given(tmp_path, capsys):
    path = tmp_path / "r.csv"
    path.write_bytes(b"query,size\n7,4\n8,4\n")
    assert main(["trace", "import", str(path), "--trace-format", "csv", "--trace-param",
                 "obj-id-col=1", "--out", str(tmp_path / "t.npz")]) == 0
    assert "2 requests over 2 objects" in capsys.readouterr().out
