"""Hostile agent-memory event files: a valid file with one thing corrupted.

As :mod:`test_hostile_imports` does for libCacheSim's readers: each property starts from
the valid vectors file of :mod:`event_files`, written as JSONL, CSV or Parquet,
corrupts one thing (a field of one row set to any JSON value, a number of thousands of
digits, nesting deeper than any parser's recursion, a non-finite or out-of-range number, an
unknown field, a field removed; or the file's bytes cut short or flipped) and asserts that
``semcache trace import`` either imports it or keeps the bad-input contract
(:mod:`hostile_contract`): one line, exit 2, no file left.  A Parquet file is written by
pyarrow, so a value pyarrow cannot store is no Parquet case.
"""

from __future__ import annotations

import json
import os
import shutil
from unittest import mock

import pyarrow as pa
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from helpers.event_files import ROWS, write_events
from helpers.hostile_contract import assert_rejected
from helpers.hostile_files import outcome, workdir
from helpers.hostile_requests import JSON
from workloads.data.event_fields import FIELDS

BIG, DEEP, GONE = "__big__", "__deep__", "__gone__"  # stand-ins, replaced when written
KINDS = st.sampled_from([".jsonl", ".csv", ".parquet"])
VALUE = st.one_of(
    JSON, st.sampled_from([BIG, DEEP, GONE, 2**53 + 1, -1, 1.5, 1e39, float("nan"),
                           float("inf"), [], [0, 0, 0], [1, 2], [1, 2, 3, 4], ["a"],
                           ["nobody"], [1e39, 0, 0], "", " "]),
    st.lists(st.floats(), min_size=3, max_size=3))


def _text_of(value, depth: int) -> str:
    return {BIG: "9" * 5000, DEEP: "[" * depth + "]" * depth}.get(value, value)


def _write(folder, suffix: str, rows: list, depth: int) -> str:
    """``rows`` as ``e<suffix>`` in ``folder``, the stand-ins put in as raw text."""
    path = folder / f"e{suffix}"
    if suffix == ".jsonl":
        text = "".join(json.dumps(row) + "\n" for row in rows)
        for stand_in in (BIG, DEEP):
            text = text.replace(json.dumps(stand_in), _text_of(stand_in, depth))
        path.write_text(text, encoding="utf-8")
    elif suffix == ".csv":
        write_events(path, [{k: _text_of(v, depth) if v in (BIG, DEEP) else v
                             for k, v in row.items()} for row in rows])
    else:
        assume(not any(v in (BIG, DEEP) for row in rows for v in row.values()
                       if isinstance(v, str)))
        try:
            write_events(path, rows)
        except (pa.ArrowException, TypeError, ValueError, OverflowError):
            assume(False)  # pyarrow cannot store it: no Parquet file to read
    return path.name


def _import(folder, name: str):
    return outcome(["trace", "import", name, "--trace-format", "events", "--out", "old.npz"],
                   folder)


@given(suffix=KINDS, row=st.integers(0, len(ROWS) - 1),
       field=st.sampled_from([*FIELDS, "colour", ""]), value=VALUE,
       depth=st.sampled_from([10, 1100, 10**5]))
@example(suffix=".jsonl", row=0, field="query_vector", value=BIG, depth=0)
@example(suffix=".jsonl", row=2, field="evidence", value=DEEP, depth=10**5)
@example(suffix=".csv", row=1, field="query_vector", value=DEEP, depth=10**5)
@example(suffix=".csv", row=1, field="topic", value=BIG, depth=0)
@example(suffix=".parquet", row=3, field="weight", value=float("nan"), depth=0)
@example(suffix=".jsonl", row=4, field="item_vector", value=[1e39, 0, 0], depth=0)
def test_a_corrupted_field_is_imported_or_one_line(suffix, row, field, value, depth):
    rows = [dict(r) for r in ROWS]
    if value == GONE:
        rows[row].pop(field, None)
    else:
        rows[row][field] = value
    folder = workdir()
    try:
        line = _import(folder, _write(folder, suffix, rows, depth))
        if line is not None:
            assert "e" + suffix in line, line  # the file is named
    finally:
        shutil.rmtree(folder)


@given(suffix=KINDS, cut=st.floats(0, 1), flip=st.none() | st.integers(0, 10**6),
       byte=st.integers(0, 255))
@example(suffix=".parquet", cut=0.5, flip=None, byte=0)
@example(suffix=".csv", cut=1.0, flip=20, byte=0xFF)
def test_a_damaged_file_is_imported_or_one_line(suffix, cut, flip, byte):
    folder = workdir()
    try:
        path = folder / _write(folder, suffix, ROWS, 0)
        data = bytearray(path.read_bytes())
        data = data[:int(len(data) * cut)]
        if flip is not None and data:
            data[flip % len(data)] = byte
        path.write_bytes(bytes(data))
        _import(folder, path.name)
    finally:
        shutil.rmtree(folder)


def test_a_line_past_the_limit_is_refused_before_it_is_read():
    from workloads.data import event_files

    folder = workdir()
    try:
        write_events(folder / "e.jsonl", ROWS)
        with mock.patch.object(event_files, "MAX_LINE", 40):
            line = assert_rejected(["trace", "import", "e.jsonl", "--out", "old.npz"], folder)
        assert "line 1 is longer than" in line
    finally:
        shutil.rmtree(folder)


@pytest.mark.parametrize("name, make, words", [
    ("fifo.jsonl", os.mkfifo, "a FIFO"),
    ("folder.jsonl", os.mkdir, "a folder"),
    ("zero.jsonl", lambda p: os.symlink("/dev/zero", p), "a character device"),
    ("/dev/zero", None, "JSON Lines, CSV or Parquet"),  # refused by its name, never opened
])
def test_an_events_path_that_is_no_regular_file_is_one_line(name, make, words):
    folder = workdir()
    try:
        if make is not None:
            make(folder / name)
        line = assert_rejected(["trace", "import", name, "--trace-format", "events", "--out",
                                "old.npz"], folder, deadline=10)
        assert words in line, line
    finally:
        shutil.rmtree(folder)


def test_a_parquet_file_that_claims_more_than_memory_is_refused():
    from simulator.engine import memory_estimate

    folder = workdir()
    try:
        write_events(folder / "e.parquet", ROWS)
        with mock.patch.object(memory_estimate, "available", return_value=10.0):
            line = assert_rejected(["trace", "import", "e.parquet", "--out", "old.npz"],
                                   folder)
        assert "needs" in line and "memory" in line, line
    finally:
        shutil.rmtree(folder)
