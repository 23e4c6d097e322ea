"""Hostile JSON documents: the paper-tables file and LoCoMo conversations.

Each property starts from a valid document (the shipped paper-tables file, the LoCoMo
fixture ``tests/data/locomo``) and breaks one thing: nesting deeper than any parser's
recursion, a number of thousands of digits where the loader reads an id or a session
number, a field of another JSON type (``"evidence": 5``), a path that is not a regular
file.  The loaders must then give a result or one :class:`InputError`, never another
exception; the command line keeps the bad-input contract (:mod:`hostile_contract`), and a
bad paper-tables file is refused before any reproduction runs.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers.hostile_contract import assert_rejected
from helpers.locomo_fixture import FIXTURE
from helpers.hostile_files import workdir
from helpers.hostile_requests import JSON
from simulator.errors import InputError

BIG = "__big__"  # replaced in the JSON text by a number json.dumps cannot write
DIGITS = st.sampled_from([4299, 4301, 5000, 20000])


def _text(obj, digits: int) -> str:
    """``obj`` as JSON, every ``"__big__"`` string a number of ``digits`` digits."""
    return json.dumps(obj).replace(json.dumps(BIG), "9" * digits)


def _nested(depth: int, kind: str) -> str:
    return ("[" * depth + "]" * depth) if kind == "array" else ('{"a":' * depth + "1"
                                                                  + "}" * depth)


VALUE = st.one_of(JSON, st.just(BIG), st.just("__deep__"),
                  st.integers(1, 12).map(lambda n: "D" + "9" * (n * 500) + ":1"))


# --------------------------------------------------------------------------- LoCoMo

def _conversation() -> dict:
    with open(FIXTURE / "1.json", encoding="utf-8") as f:
        return json.load(f)


PLACES = ["evidence", "evidence item", "category", "question", "answer", "dia_id", "turn",
          "session", "session key", "qa", "whole"]


def _corrupt(doc: dict, place: str, value):
    """``doc`` with ``value`` put at ``place``."""
    if place == "evidence":
        doc["qa"][0]["evidence"] = value
    elif place == "evidence item":
        doc["qa"][1]["evidence"] = [value]
    elif place in ("category", "question", "answer"):
        doc["qa"][2][place] = value
    elif place in ("dia_id", "turn"):
        if place == "dia_id":
            doc["session_1"][0]["dia_id"] = value
        else:
            doc["session_1"][0] = value
    elif place == "session":
        doc["session_2"] = value
    elif place == "session key":
        key = "session_" + ("9" * 5000 if value == BIG else str(value)[:12])
        doc[key] = doc.pop("session_2")
    elif place == "qa":
        doc["qa"] = value
    else:
        return value
    return doc


def _locomo_text(place, value, digits, depth) -> str:
    text = _text(_corrupt(_conversation(), place, value), digits)
    return text.replace(json.dumps("__deep__"), _nested(depth, "array"))


@settings(max_examples=80)
@given(place=st.sampled_from(PLACES), value=VALUE, digits=DIGITS,
       depth=st.sampled_from([10, 900, 1100, 10**5]))
@example(place="evidence", value=5, digits=0, depth=0)
@example(place="evidence item", value="D" + "9" * 5000 + ":1", digits=0, depth=0)  # int()
@example(place="dia_id", value="D" + "9" * 5000 + ":1", digits=0, depth=0)  # past 4,300
@example(place="session key", value=BIG, digits=0, depth=0)
@example(place="category", value=BIG, digits=5000, depth=0)
@example(place="whole", value="__deep__", digits=0, depth=10**5)
def test_a_hostile_locomo_file_is_read_or_refused(place, value, digits, depth):
    from workloads.data import locomo_data

    folder = tempfile.mkdtemp(prefix="hostile-locomo-")
    try:
        with open(os.path.join(folder, "1.json"), "w", encoding="utf-8") as f:
            f.write(_locomo_text(place, value, digits, depth))
        try:
            conversations = locomo_data.load(folder)
        except InputError as exc:
            assert "\n" not in str(exc) and len(str(exc)) < 600, str(exc)[:600]
        else:
            assert conversations[0].turns
    finally:
        shutil.rmtree(folder)


@pytest.mark.parametrize("place, value, digits, depth", [
    ("evidence", 5, 0, 0),  # iterated an int: TypeError
    ("session key", BIG, 0, 0),
    ("whole", "__deep__", 0, 10**5),  # RecursionError
    ("qa", BIG, 5000, 0),  # a number json cannot read
])
def test_a_hostile_locomo_file_is_one_line(place, value, digits, depth):
    folder = workdir()
    try:
        (folder / "data").mkdir()
        (folder / "data" / "1.json").write_text(_locomo_text(place, value, digits, depth))
        assert_rejected(["workload", "show", "locomo", "--param", "path=data"], folder,
                        "locomo")
    finally:
        shutil.rmtree(folder)


# --------------------------------------------------------------------------- paper tables

def _paper(where: str, value) -> dict:
    from simulator.experiments.reproduce import paper_tables

    with open(paper_tables.SHIPPED, encoding="utf-8") as f:
        doc = json.load(f)
    table = doc["table8_cycling_hit_rate"]
    if where == "cell":
        row = next(iter(table["rows"]))
        table["rows"][row][0] = value
    elif where == "columns":
        table["columns"] = value
    elif where == "extra key":
        table["note"] = value
    else:
        return value
    return doc


@settings(max_examples=40)
@given(where=st.sampled_from(["cell", "columns", "extra key", "whole"]), value=VALUE,
       digits=DIGITS, depth=st.sampled_from([10, 900, 1100, 10**5]),
       kind=st.sampled_from(["array", "object"]))
@example(where="whole", value="__deep__", digits=0, depth=10**5, kind="array")
@example(where="cell", value=BIG, digits=5000, depth=0, kind="array")
def test_a_hostile_paper_tables_file_is_read_or_refused(where, value, digits, depth, kind):
    from simulator.experiments.reproduce import REGISTRY, paper_columns, paper_tables

    text = _text(_paper(where, value), digits).replace(json.dumps("__deep__"),
                                                       _nested(depth, kind))
    folder = tempfile.mkdtemp(prefix="hostile-paper-")
    path = os.path.join(folder, "tables.json")
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        with mock.patch.dict(os.environ, {paper_tables.ENV: path}):
            try:
                doc = paper_tables.load()
                paper_columns.merged(REGISTRY["table8"], doc)
            except InputError as exc:
                assert "\n" not in str(exc) and "paper tables" in str(exc)
    finally:
        shutil.rmtree(folder)


SPECIAL = ["/dev/zero", "/dev/urandom", "fifo", "folder", "deep", "huge number"]


@settings(max_examples=12)
@given(kind=st.sampled_from(SPECIAL), command=st.sampled_from(["table8", "all --report"]))
@example(kind="deep", command="table8")  # RecursionError
@example(kind="fifo", command="table8")  # read_text blocked for a writer
@example(kind="/dev/zero", command="table8")  # read without end: MemoryError
def test_a_hostile_paper_tables_file_is_one_line_before_any_work(kind, command):
    from simulator.experiments.reproduce import paper_tables

    where = tempfile.mkdtemp(prefix="hostile-paper-")
    path = {"/dev/zero": "/dev/zero", "/dev/urandom": "/dev/urandom",
            "folder": where}.get(kind, os.path.join(where, "tables.json"))
    if kind == "fifo":
        os.mkfifo(path)
    elif kind in ("deep", "huge number"):
        with open(path, "w") as f:
            f.write(_nested(10**5, "array") if kind == "deep" else "{\"a\": " + "9" * 5000 + "}")
    folder = workdir()
    argv = (["reproduce", "table8", "--quick", "--seeds", "0", "--out", "out"]
            if command == "table8" else
            ["reproduce", "all", "--quick", "--seeds", "0", "--report", "report"])
    try:
        with mock.patch.dict(os.environ, {paper_tables.ENV: path}):
            assert_rejected(argv, folder, "paper tables", deadline=30)
    finally:
        shutil.rmtree(folder)
        shutil.rmtree(where)


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "/dev/urandom", "folder"])
def test_a_locomo_file_that_is_not_a_file_is_one_line(kind):
    where = tempfile.mkdtemp(prefix="hostile-locomo-")
    shutil.copy(FIXTURE / "1.json", os.path.join(where, "1.json"))
    odd = os.path.join(where, "2.json")
    if kind == "fifo":
        os.mkfifo(odd)
    elif kind == "folder":
        os.mkdir(odd)
    elif os.path.exists(kind):
        os.symlink(kind, odd)
    folder = workdir()
    try:
        assert_rejected(["workload", "show", "locomo", "--param", f"path={where}"], folder,
                        "not a regular file", deadline=30)
    finally:
        shutil.rmtree(folder)
        shutil.rmtree(where)
