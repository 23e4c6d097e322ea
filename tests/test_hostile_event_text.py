"""Hostile agent-memory event files of the kinds an outside tester tries first: text that is
no text, keys and columns given twice, numbers posing as topics, rows with no arrival.

Each case is a whole file (JSONL and CSV as bytes, Parquet as columns) imported with
``semcache trace import --trace-format events``; it must keep the bad-input contract
(:mod:`hostile_contract`: one line, exit 2, no file left) and its line must name the file,
the line (or row) and the words listed.  The lone-surrogate cases are generated: every
field that holds text, in every place of a row, each of the surrogate escapes.  ``VALID``
lists the look-alikes that must import (a byte-order mark, a surrogate *pair*, CRLF).
"""

from __future__ import annotations

import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from helpers.hostile_contract import assert_rejected
from helpers.hostile_files import outcome, workdir

V = b'"query_vector": [1, 0], "item_vector": [0, 1]'
HEAD = b"query_vector,item_vector"
CELLS = b'"[1,0]","[0,1]"'


def _jsonl(*extra: bytes) -> bytes:
    """One JSONL event a part: the two vectors and ``part`` (``b""``: nothing more)."""
    return b"".join(b"{" + V + (b", " + part if part else b"") + b"}\n" for part in extra)


def _csv(columns: bytes, *cells: bytes) -> bytes:
    """A CSV with the vectors and ``columns``, one row of ``cells`` a row."""
    return HEAD + b"," + columns + b"\n" + b"".join(CELLS + b"," + c + b"\n" for c in cells)


def _parquet(**columns) -> dict:
    return {"query_vector": [[1.0, 0.0]], "item_vector": [[0.0, 1.0]], **columns}


SURROGATES = (b"\\ud800", b"\\udbff", b"\\udc00", b"\\udfff")
# where a surrogate can hide in a row, and the name its line gives the place
PLACES = {
    "item_id": (b'"item_id": "%s"', "field 'item_id'"),
    "evidence": (b'"item_id": "a", "evidence": ["a", "x%s"]', "field 'evidence'"),
    "topic": (b'"topic": "cook%sing"', "field 'topic'"),
    "query_topic": (b'"query_topic": "%s"', "field 'query_topic'"),
    "item_topic": (b'"item_topic": "%s!"', "field 'item_topic'"),
    "field name": (b'"%s": 1', "a field name"),
}


def _surrogate_cases() -> dict:
    cases = {}
    for place, (template, words) in PLACES.items():
        for escape in SURROGATES:
            part = template.replace(b"%s", escape)
            cases[f"jsonl {place} {escape[2:].decode()}"] = (
                ".jsonl", _jsonl(b"", part), [], ["line 2", words, "lone surrogate"])
    # in CSV a surrogate can only come as a JSON escape in a list cell (UTF-8 has none)
    for escape in SURROGATES:
        cases[f"csv evidence {escape[2:].decode()}"] = (
            ".csv", _csv(b"item_id,evidence", b'a,"[""a"", ""' + escape + b'""]"'), [],
            ["line 2", "field 'evidence'", "lone surrogate"])
    cases["text query"] = (".jsonl", b'{"query": "hi \\ud800", "item": "x"}\n', [],
                           ["line 1", "field 'query'", "lone surrogate"])
    cases["kept value"] = (".jsonl", _jsonl(b'"note": ["ok", {"k": "\\udc00"}]'),
                           ["--extra-fields", "keep"], ["line 1", '"note"', "lone surrogate"])
    cases["ignored field name"] = (".jsonl", _jsonl(b'"\\ud800": 1'),
                                   ["--extra-fields", "ignore"], ["line 1", "a field name"])
    return cases


BAD = {
    **_surrogate_cases(),
    # encodings that are not UTF-8 text
    "utf-16 with bom": (".jsonl", _jsonl(b"").decode().encode("utf-16"), [],
                        ["line 1", "NUL byte", "UTF-8"]),
    "utf-16 without bom": (".csv", _csv(b"topic", b"1").decode().encode("utf-16-le"), [],
                           ["line 1", "NUL byte"]),
    "latin-1": (".csv", _csv(b"topic", "caf\xe9".encode("latin-1")), [],
                ["line 2", "not UTF-8"]),
    "surrogate as utf-8 bytes": (".jsonl", _jsonl(b'"item_id": "\xed\xa0\x80"'), [],
                                 ["line 1", "not UTF-8"]),
    "bom on a later line": (".jsonl", _jsonl(b"") + b"\xef\xbb\xbf" + _jsonl(b""), [],
                            ["line 2", "BOM"]),
    "nul byte in a csv cell": (".csv", _csv(b"item_id", b"a\x00b"), [],
                               ["line 2", "NUL byte"]),
    "nul byte in a json string": (".jsonl", _jsonl(b'"item_id": "a\x00b"'), [],
                                  ["line 1", "NUL byte"]),
    # given twice
    "json key twice": (".jsonl", _jsonl(b'"topic": 1, "topic": 2'), [],
                       ["line 1", '"topic" twice']),
    "json key twice, nested in a kept field": (
        ".jsonl", _jsonl(b'"note": {"a": 1, "a": 2}'), ["--extra-fields", "keep"],
        ["line 1", '"a" twice']),
    "csv column twice": (".csv", _csv(b"topic,topic", b"1,2"), [], ["line 1", "'topic'",
                                                                     "twice"]),
    "csv column twice after blanks": (".csv", _csv(b"topic, topic", b"1,2"), [],
                                      ["line 1", "'topic'", "twice"]),
    "csv own column twice, kept": (".csv", _csv(b"x,x", b"1,2"), ["--extra-fields", "keep"],
                                   ["line 1", "'x'", "twice"]),
    # numbers posing as topics, in every format
    "json topic 1.0": (".jsonl", _jsonl(b'"topic": 1.0'), [], ["line 1", "'topic'", "1.0"]),
    "json topic true": (".jsonl", _jsonl(b'"topic": true'), [], ["line 1", "'topic'", "true"]),
    "json topic -1": (".jsonl", _jsonl(b'"topic": -1'), [], ["line 1", "'topic'", "-1"]),
    "json topic text 2.5": (".jsonl", _jsonl(b'"item_topic": "2.5"'), [],
                            ["line 1", "'item_topic'", "another number"]),
    "json topic text past 2**53": (".jsonl", _jsonl(b'"topic": "9007199254740993"'), [],
                                   ["line 1", "'topic'", "2**53"]),
    "json topic blank": (".jsonl", _jsonl(b'"query_topic": " "'), [],
                         ["line 1", "'query_topic'"]),
    "json topic list": (".jsonl", _jsonl(b'"topic": ["a"]'), [], ["line 1", "'topic'"]),
    "csv topic 1.0": (".csv", _csv(b"topic", b"1.0"), [], ["line 2", "another number"]),
    "csv topic 1e3": (".csv", _csv(b"topic", b"1e3"), [], ["line 2", "another number"]),
    "csv topic nan": (".csv", _csv(b"topic", b"NaN"), [], ["line 2", "another number"]),
    "csv topic inf": (".csv", _csv(b"item_topic", b"-inf"), [], ["line 2", "another number"]),
    "csv topic TRUE": (".csv", _csv(b"topic", b"TRUE"), [], ["line 2", "got true"]),
    "csv topic -1": (".csv", _csv(b"topic", b"-1"), [], ["line 2", "got -1"]),
    "csv topic of 30 digits": (".csv", _csv(b"topic", b"9" * 30), [], ["line 2", "2**53"]),
    "parquet topic float": (".parquet", _parquet(topic=[1.0]), [], ["row 1", "got 1.0"]),
    "parquet topic nan": (".parquet", _parquet(topic=[float("nan")]), [], ["row 1", "NaN"]),
    "parquet topic bool": (".parquet", _parquet(topic=[True]), [], ["row 1", "got true"]),
    "parquet topic uint64": (".parquet", _parquet(topic=pa.array([2**64 - 1], pa.uint64())),
                             [], ["row 1", "'topic'"]),
    "parquet item_id float": (".parquet", _parquet(item_id=[1.0]), [], ["row 1", "'item_id'"]),
    "parquet item_id bytes": (".parquet", _parquet(item_id=[b"\xff"]), [],
                              ["row 1", "a bytes"]),
    # a query and no arrival (docs/model.md §6.2 says why)
    "json no arrival": (".jsonl", _jsonl(b"") + b'{"query_vector": [1, 0]}\n', [],
                        ["line 2", "no item arrives", "§6.2"]),
    "csv no arrival": (".csv", _csv(b"topic", b"1") + b'"[1,0]",,2\n', [],
                       ["line 3", "no item arrives"]),
    "parquet no arrival": (".parquet", {"query_vector": [[1.0, 0.0], [0.0, 1.0]],
                                        "item_vector": [[0.0, 1.0], None]}, [],
                           ["row 2", "no item arrives"]),
    # kept fields must be JSON; refused ones say how to keep them
    "kept parquet date": (".parquet", _parquet(ts=pa.array([0], pa.date32())),
                          ["--extra-fields", "keep"], ["row 1", '"ts"', "a date"]),
    "kept parquet nan": (".parquet", _parquet(score=[float("nan")]), ["--extra-fields", "keep"],
                         ["row 1", '"score"', "NaN"]),
    "own field refused": (".jsonl", _jsonl(b'"session": "s1"'), [],
                          ["line 1", '"session"', "--extra-fields keep|ignore"]),
    "csv empty header cell": (".csv", _csv(b"", b""), [], ["line 1", 'unknown field ""']),
    "bad --extra-fields": (".jsonl", _jsonl(b""), ["--extra-fields", "drop"],
                           ["--extra-fields", "refuse, keep, ignore"]),
}


def _write(folder, suffix: str, content) -> str:
    name = f"e{suffix}"
    if isinstance(content, dict):
        pq.write_table(pa.table(content), folder / name)
    else:
        (folder / name).write_bytes(content)
    return name


def _import(name: str, extra: list) -> list:
    return ["trace", "import", name, "--trace-format", "events", "--out", "old.npz", *extra]


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_hostile_events_file_is_one_line_naming_where_and_what(case):
    suffix, content, extra, words = BAD[case]
    folder = workdir()
    try:
        name = _write(folder, suffix, content)
        line = assert_rejected(_import(name, extra), folder)
        named = "--extra-fields" not in words  # a bad option is refused before the file
        for word in ([name] if named else []) + words:
            assert word in line, (word, line)
    finally:
        shutil.rmtree(folder)


VALID = {
    "utf-8 bom": (".jsonl", b"\xef\xbb\xbf" + _jsonl(b"")),
    "csv utf-8 bom": (".csv", b"\xef\xbb\xbf" + _csv(b"topic", b"1")),
    "surrogate pair": (".jsonl", _jsonl(b'"topic": "\\ud83d\\ude00", "item_id": "\\ud83d\\ude00"')),
    "escaped nul": (".jsonl", _jsonl(b'"item_id": "a\\u0000b"')),
    "crlf": (".jsonl", _jsonl(b"", b"").replace(b"\n", b"\r\n")),
    "csv header with blanks": (".csv", b"query_vector, item_vector , topic\n" + CELLS
                               + b",cooking\n"),
    "huge integer id": (".jsonl", _jsonl(b'"item_id": ' + b"9" * 4000)),
    "csv id of 5000 digits": (".csv", _csv(b"item_id", b"9" * 5000)),
    "parquet dictionary topics": (".parquet", _parquet(
        topic=pa.array(["cooking"]).dictionary_encode())),
    "ignored parquet date": (".parquet", _parquet(ts=pa.array([0], pa.date32()))),
}


@pytest.mark.parametrize("case", sorted(VALID))
def test_what_only_looks_hostile_imports(case):
    suffix, content = VALID[case]
    folder = workdir()
    try:
        extra = ["--extra-fields", "ignore"] if "ignored" in case else []
        assert outcome(_import(_write(folder, suffix, content), extra), folder) is None
    finally:
        shutil.rmtree(folder)
