"""Agent-memory events given as vectors (no text model): the schema of docs/model.md §6.2.

Every field maps to the trace arrays as documented; JSONL, CSV and Parquet give the same
trace; an unlabelled step is unscored, never a silent miss; the command line reads events
wherever it reads a trace file; and each kind of bad input named in the schema is one line
naming the field, the line (or row) and the fix.  The text files (the shipped example, the
model, token sizes) are :mod:`test_events`.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from helpers.event_files import ROWS, write_events
from helpers.hostile_contract import assert_rejected
from helpers.hostile_files import workdir
from simulator.cli import main
from simulator.errors import InputError
from simulator.runner import run
from simulator.trace_formats import load as load_npz
from workloads.data import events


def test_each_field_maps_to_its_trace_array(tmp_path):
    trace = events.load(write_events(tmp_path / "e.jsonl", ROWS))
    unit = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [1, 0, 1], [0, 1, 1]],
                    np.float64)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    assert np.allclose(trace.queries, unit, atol=1e-7)
    assert np.allclose(trace.items[3], trace.items[0])  # "a" again, as it last arrived
    # ids: "a" key 0, 7 and "7" one item (an id is its text), a row without one a new item
    assert trace.item_keys.tolist() == [0, 1, 2, 0, 3, 1]
    assert trace.query_topics.tolist() == [0, 1, -1, 2, -1, -1]
    assert trace.item_topics.tolist() == [0, 0, -1, 2, -1, 0]  # 7 keeps topic 0 at step 5
    assert trace.weights.tolist() == [1, 0.5, 1, 1, 1, 0]
    # labelled: topic (0, 1, 3), evidence (2); step 3 says scored false, step 4 (no label)
    # says true, step 5 has no label: unscored
    assert trace.scored.tolist() == [True, True, True, False, True, False]
    assert trace.evidence_indptr.tolist() == [0, 0, 0, 2, 2, 2, 2]
    assert trace.evidence_indices.tolist() == [0, 3]  # "later" arrives at step 4
    assert trace.item_sizes.tolist() == [4, 1, 1, 4, 1, 1]
    assert trace.meta["report"] == {"rows": 6, "kind": "vectors",
                                    "labelled": {"topic": 3, "evidence": 1},
                                    "unlabelled": 2, "scored": 4, "unlabelled_scored": 1,
                                    "sizes": "given"}


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_csv_and_parquet_give_the_jsonl_trace(tmp_path, suffix):
    want = events.load(write_events(tmp_path / "e.jsonl", ROWS)).arrays()
    got = events.load(write_events(tmp_path / f"e{suffix}", ROWS)).arrays()
    assert want.keys() == got.keys()
    for name, array in want.items():
        assert np.array_equal(array, got[name]), name


def test_an_unlabelled_step_is_unscored_not_a_miss(tmp_path):
    rows = [{"query_vector": [1, 0], "item_vector": [1, 0], "item_id": i, "topic": 0}
            for i in range(3)]
    rows += [{"query_vector": [0, 1], "item_vector": [0, 1]} for _ in range(5)]
    trace = events.load(write_events(tmp_path / "e.jsonl", rows))
    summary = run(trace, "fifo", capacity=4).summary()
    assert summary["scored_steps"] == 3 and trace.meta["report"]["unlabelled"] == 5
    # every labelled step after the first finds a topic-0 item; the unlabelled ones cost
    # nothing: they are outside the rates and the miss cost
    assert summary["hits"] == 2 and summary["miss_cost"] == 1.0
    assert summary["hit_rate"] == pytest.approx(2 / 3)


def test_sizes_can_be_ignored_and_tokens_need_text(tmp_path):
    path = write_events(tmp_path / "e.jsonl", ROWS)
    assert not events.load(path, ignore_sizes=True).sized
    for params in ({"sizes": "tokens"}, {"model": "all-MiniLM-L6-v2"}, {"sizes": "bytes"},
                   {"colour": "red"}):
        with pytest.raises(InputError, match="sizes|model|colour"):
            events.load(path, params)


def _cli_json(capsys, argv) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_command_line_reads_events_as_a_trace_file(tmp_path, capsys):
    jsonl = write_events(tmp_path / "e.jsonl", ROWS)
    csv_file = write_events(tmp_path / "e.csv", ROWS)
    doc = _cli_json(capsys, ["trace", "import", str(csv_file), "--trace-format", "events",
                             "--out", str(tmp_path / "t.npz")])
    assert doc["format"] == "events" and (doc["steps"], doc["dim"], doc["items"]) == (6, 3, 4)
    assert doc["report"]["unlabelled"] == 2 and doc["sized"]
    saved = load_npz(tmp_path / "t.npz").arrays()
    for name, array in events.load(jsonl).arrays().items():
        assert np.array_equal(saved[name], array), name
    ran = _cli_json(capsys, ["run", "--trace", str(jsonl), "--policy", "fifo,lru",
                             "--capacity", "2"])
    assert ran["workload"]["format"] == "events" and ran["workload"]["report"]["scored"] == 4
    assert [r["scored_steps"] for r in ran["runs"]] == [4, 4]


def test_a_streamed_run_of_events_is_refused(tmp_path):
    folder = workdir()
    try:
        write_events(folder / "e.jsonl", ROWS)
        assert_rejected(["run", "--trace", "e.jsonl", "--stream"], folder, "--stream")
    finally:
        shutil.rmtree(folder)


def _with(index: int, **change) -> list:
    """ROWS with row ``index`` changed (a value None: the field removed)."""
    rows = [dict(row) for row in ROWS]
    rows[index].update(change)
    rows[index] = {k: v for k, v in rows[index].items() if v is not None}
    return rows


# each bad input the schema names: its rows, the row at fault (from 1) and the words its
# error must hold besides that row's line (the field and the fix)
BAD = {
    "no query": (_with(2, query_vector=None), 3, ["'query_vector'"]),
    "text among vectors": (_with(1, item="a memory"), 2, ["'item'", "one kind"]),
    "another dimension": (_with(4, item_vector=[1, 0]), 5, ["'item_vector'", "one dimension"]),
    "beyond float32": (_with(0, query_vector=[1, 1e39, 0]), 1, ["'query_vector'", "finite"]),
    "unknown evidence": (_with(2, evidence=["nobody"]), 3, ["'evidence'", "'nobody'"]),
    "weight above 1": (_with(1, weight=1.5), 2, ["'weight'", "[0, 1]"]),
    "size 0": (_with(0, size=0), 1, ["'size'", "1 .. 2**53"]),
    "size not whole": (_with(0, size=2.5), 1, ["'size'", "an integer"]),
    "two sizes of an item": (_with(3, size=5), 4, ["item_id 'a'", "one size"]),
    "unknown field": (_with(5, colour="red"), 6, ['"colour"', "the fields are"]),
    "topic and query_topic": (_with(0, query_topic=1), 1, ["'topic'", "apart"]),
    "a re-arrival of nothing": (_with(0, item_vector=None), 1, ["'item_vector'",
                                                             "arrived before"]),
    "zero vector": (_with(4, item_vector=[0, 0, 0]), 5, ["'item_vector'", "zero"]),
    "true as a topic": (_with(0, topic=True), 1, ["'topic'", "an integer"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_bad_events_are_one_line_naming_field_line_and_fix(case, suffix):
    rows, row, words = BAD[case]
    # a CSV's header is its line 1, and an unknown column is found there
    at = row if suffix == ".jsonl" else 1 if case == "unknown field" else row + 1
    folder = workdir()
    try:
        write_events(folder / f"e{suffix}", rows)
        line = assert_rejected(["trace", "import", f"e{suffix}", "--trace-format", "events",
                                "--out", "old.npz"], folder)
        for word in [f"e{suffix}' line {at}", *words]:
            assert word in line, (word, line)
    finally:
        shutil.rmtree(folder)


FILES = {  # a file that is not an events file, and what its error names
    "e.parquet": (b"PAR1 not really", "Parquet"),
    "e.jsonl": (b"query,item\nq,a\n", "line 1 is not valid JSON"),
    "deep.jsonl": (b"[" * 100_000 + b"]" * 100_000 + b"\n", "nested too deeply"),
    "huge.jsonl": (b'{"query_vector": [' + b"9" * 5000 + b'], "item_vector": [1]}\n',
                   "4300 digits"),
    "nan.jsonl": (b'{"query_vector": [NaN], "item_vector": [1]}\n', "NaN is not JSON"),
    "list.jsonl": (b"[1, 2]\n", "one JSON object"),
    "e.txt": (b'{"query_vector": [1], "item_vector": [1]}\n', ".jsonl, .csv or .parquet"),
    "empty.jsonl": (b"\n\n", "holds no event"),
    "latin1.csv": (b"query,item\nq,caf\xe9\n", "line 2 is not UTF-8"),
    "cells.csv": (b"query,item\nq,a,b\n", "line 2 has 3 cells"),
    "header.csv": (b"query,query\nq,a\n", "given twice"),
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_file_that_is_not_events_is_one_line(name):
    content, words = FILES[name]
    folder = workdir()
    try:
        (folder / name).write_bytes(content)
        line = assert_rejected(["trace", "import", name, "--trace-format", "events", "--out",
                                "old.npz"], folder)
        assert words in line and name in line, line
    finally:
        shutil.rmtree(folder)


def test_an_unknown_parquet_column_is_named(tmp_path):
    pq.write_table(pa.table({"query_vector": [[1.0]], "item_vector": [[1.0]],
                             "colour": ["red"]}), tmp_path / "e.parquet")
    with pytest.raises(InputError, match='unknown field "colour"'):
        events.load(tmp_path / "e.parquet")
