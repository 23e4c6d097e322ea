"""Hostile input files for ``trace import-solar`` and libCacheSim's readers.

As :mod:`test_hostile_files` does for trace ``.npz`` files: each test starts from a valid
SOLAR authors' folder (``meta.json``, ``embeddings.npz``, three JSON Lines files) or a valid
CSV, text or ``oracleGeneral`` request trace (optionally ``.zst``), corrupts it, and asserts
that every command reading it succeeds or keeps the bad-input contract; the known bad
fields and lines must be refused with an error naming the file, the line and the field.
"""

from __future__ import annotations

import json
import pathlib
import shutil

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from helpers.hostile_files import outcome, workdir
from helpers.hostile_requests import JSON, request_commands, request_files
from helpers.solar_folders import write_variant
from simulator.errors import InputError

# --------------------------------------------------------------------------- import-solar

FIELDS = {"items.jsonl": ("id", "topic_id"),
          "queries.jsonl": ("id", "topic_id", "timestep", "relevant_item_ids"),
          "stream.jsonl": ("t", "streamed_item_id")}


@pytest.fixture(scope="module")
def solar(tmp_path_factory) -> pathlib.Path:
    """A valid folder in the authors' format, copied before each corruption."""
    return write_variant(tmp_path_factory.mktemp("solar") / "v", seed=3, topics=3,
                         per_topic=2, steps=12, dim=4)


def import_solar(solar, change, word=None, may_pass=True):
    """Copy ``solar``, apply ``change(folder)``, run both import-solar forms; the error
    lines found."""
    folder = workdir()
    try:
        shutil.copytree(solar, folder / "v")
        change(folder / "v")
        lines = [outcome(["trace", "import-solar", "v", "--out", "old.npz", *extra], folder,
                         word) for extra in ([], ["--json"])]
        assert may_pass or None not in lines, "a bad folder was imported"
        return [line for line in lines if line]
    finally:
        shutil.rmtree(folder)


def _write(name: str, content: bytes):
    return lambda folder: (folder / name).write_bytes(content)


@given(meta=st.one_of(JSON.map(lambda v: json.dumps(v).encode()),
                      st.fixed_dictionaries({}, optional={"has_prefill": JSON,
                                                          "n_warmup_steps": JSON})
                      .map(lambda v: json.dumps(v).encode()), st.binary(max_size=12)))
@example(meta=b"[]")
def test_corrupt_meta_json(solar, meta):
    for line in import_solar(solar, _write("meta.json", meta)):
        assert "meta.json" in line


@pytest.mark.parametrize("meta", [
    b"[]", b"null", b'"meta"',
    b'{"workload_type": "caf\xe9"}',  # not UTF-8
    b'{"n_warmup_steps": "3"}', b'{"n_warmup_steps": -1}', b'{"has_prefill": "no"}',
    b'{"x": NaN}',  # NaN would reach the --json output after the file is written
    b"[" * 100000,  # nested too deeply for the parser
])
def test_known_bad_meta_json(solar, meta):
    import_solar(solar, _write("meta.json", meta), "meta.json", may_pass=False)


def _set_field(name, line, field, value, drop):
    def change(folder):
        rows = (folder / name).read_text().splitlines()
        row = json.loads(rows[line % len(rows)])
        if drop:
            row.pop(field)
        else:
            row[field] = value
        rows[line % len(rows)] = json.dumps(row)
        (folder / name).write_text("\n".join(rows) + "\n")
    return change


@given(name=st.sampled_from(sorted(FIELDS)), data=st.data())
def test_corrupt_jsonl_fields(solar, name, data):
    field = data.draw(st.sampled_from(FIELDS[name]))
    line, drop = data.draw(st.integers(0, 20)), data.draw(st.booleans())
    value = data.draw(JSON)
    for error in import_solar(solar, _set_field(name, line, field, value, drop),
                              may_pass=not drop):
        assert ".jsonl' line " in error  # the file and the line at fault


@pytest.mark.parametrize("name, field, value, word", [
    ("queries.jsonl", "topic_id", None, "topic_id"),
    ("items.jsonl", "topic_id", "two", "topic_id"),
    ("items.jsonl", "topic_id", True, "topic_id"),
    ("queries.jsonl", "relevant_item_ids", "t0_i0", "relevant_item_ids"),
    ("queries.jsonl", "relevant_item_ids", 7, "relevant_item_ids"),
    ("queries.jsonl", "timestep", None, "timestep"),
    ("stream.jsonl", "t", "0", "'t'"),
    ("items.jsonl", "id", ["a"], "'id'"),
    ("items.jsonl", "topic_id", 2**70, "topic_id"),
])
def test_known_bad_fields_name_file_line_and_field(solar, name, field, value, word):
    for error in import_solar(solar, _set_field(name, 0, field, value, False), word,
                              may_pass=False):
        assert f"{name}' line 1" in error


@given(name=st.sampled_from(sorted(FIELDS)), line=st.integers(0, 20),
       junk=st.binary(min_size=1, max_size=8))
@example(name="items.jsonl", line=0, junk=b"\xff\xfe")
def test_junk_jsonl_lines(solar, name, line, junk):
    def change(folder):
        rows = (folder / name).read_bytes().splitlines()
        rows[line % len(rows)] = junk
        (folder / name).write_bytes(b"\n".join(rows) + b"\n")
    import_solar(solar, change)


@given(name=st.sampled_from(["item_ids", "item_embs", "query_ids", "query_embs"]),
       how=st.sampled_from(["drop", "2d", "1d", "short", "bool", "int", "str", "nan"]))
def test_corrupt_embeddings(solar, name, how):
    def change(folder):
        with np.load(folder / "embeddings.npz") as z:
            arrays = dict(z)
        a = arrays.pop(name)
        if how != "drop":
            arrays[name] = {"2d": lambda: np.stack([a, a], axis=-1), "1d": lambda: a.ravel(),
                            "short": lambda: a[:-1], "bool": lambda: a.astype(bool),
                            "int": lambda: np.arange(len(a)),
                            "str": lambda: a.astype(str),
                            "nan": lambda: np.full_like(a, np.nan, dtype=float)}[how]()
        np.savez_compressed(folder / "embeddings.npz", **arrays)
    import_solar(solar, change)


# --------------------------------------------------------------------------- libCacheSim

def run_requests(name: str, content: bytes, word=None, may_pass=True):
    folder = workdir()
    try:
        options = request_files()[name.removesuffix(".zst")][1]
        if name.endswith(".zst"):
            import zstandard

            content = zstandard.ZstdCompressor().compress(content)
        (folder / name).write_bytes(content)
        for argv in request_commands(name, options):
            line = outcome(argv, folder, word)
            assert may_pass or line is not None, f"accepted: {argv}"
    finally:
        shutil.rmtree(folder)


@given(name=st.sampled_from(["t.csv", "t.txt", "t.oracleGeneral", "t.csv.zst"]),
       where=st.floats(0, 1), junk=st.binary(max_size=6), cut=st.integers(0, 3))
def test_corrupt_request_files(name, where, junk, cut):
    data = request_files()[name.removesuffix(".zst")][0]
    at = int(where * len(data))
    run_requests(name, data[:at] + junk + data[at + cut:])


@given(where=st.floats(0, 1), xor=st.integers(1, 255))
def test_flipped_byte_in_zstd(where, xor):
    import zstandard

    data = bytearray(zstandard.ZstdCompressor().compress(request_files()["t.txt"][0]))
    data[min(int(where * len(data)), len(data) - 1)] ^= xor
    folder = workdir()
    try:
        (folder / "t.txt.zst").write_bytes(bytes(data))
        for argv in request_commands("t.txt.zst", []):
            outcome(argv, folder)
    finally:
        shutil.rmtree(folder)


@pytest.mark.parametrize("name, line, word", [
    ("t.csv", b"1,3\x00,10\n", "line 3"),  # a NUL byte
    ("t.csv", b"1,18446744073709551616,10\n", "line 3, column 2"),  # beyond 64 bits
    ("t.csv", b"1,3,99999999999999999999\n", "line 3, column 3"),  # beyond int64
    ("t.csv", b"1,-3,10\n", "line 3, column 2"),
    ("t.csv", b"1,3,1_0\n", "line 3, column 3"),  # int() would read 10
    ("t.txt", "\u0661\u0662\n".encode(), "line 2"),  # int() would read Arabic-Indic 12
    ("t.txt", b"-3\n", "line 2"),
    ("t.txt", b"18446744073709551616\n", "line 2"),
])
def test_known_bad_request_lines_name_file_and_line(name, line, word):
    data = request_files()[name][0].splitlines(keepends=True)
    data.insert(2 if name == "t.csv" else 1, line)
    run_requests(name, b"".join(data), word, may_pass=False)


# --------------------------------------------------------------------------- text ids

_LINE = st.binary(min_size=1, max_size=4).filter(lambda b: b"\n" not in b and b"\r" not in b)
_BLANKS = b" \t\r\n\v\f"


@given(lines=st.lists(_LINE, min_size=1, max_size=12), csv=st.booleans(),
       stream=st.booleans())
@example(lines=[b"\xff", b"\xfe"], csv=False, stream=False)  # errors="replace": one object
@example(lines=[b"\xff", b"\xfe", b"\xff"], csv=True, stream=True)
@example(lines=[b"a\xc2\xa0", b"a"], csv=False, stream=False)  # str.strip() took the NBSP
@example(lines=[b"\xc2\x85", b"a"], csv=False, stream=True)  # a NEL line: no blank
def test_text_ids_are_their_bytes(lines, csv, stream):
    """With ``obj-id-is-num=false`` two ids differing in any byte are two objects."""
    from simulator.stream_run import stream_run
    from simulator.trace_formats import load

    if csv:  # one column, no header, no quoting: a field is the line
        lines = [line.replace(b",", b";").replace(b'"', b"'") for line in lines]
        ids = [line for line in lines if line]
        data = b"id\n" + b"".join(line + b"\n" for line in ids)
        options = {"obj-id-col": 1, "obj-id-is-num": False, "header": "true",
                   "delimiter": ","}
    else:
        ids = [line.strip(_BLANKS) for line in lines if line.strip()]
        data = b"".join(line + b"\n" for line in lines)
        options = {"obj-id-is-num": False}
    if not ids:
        return
    folder = workdir()
    name = folder / ("t.csv" if csv else "t.txt")
    try:
        name.write_bytes(data)
        try:
            objects = (stream_run(name, "fifo", capacity=1, trace_params=options).trace.objects
                       if stream else load(name, trace_params=options).n_keys)
        except InputError as exc:  # a row the CSV reader cannot split (a NUL byte)
            assert csv and "line" in str(exc)
            return
        assert objects == len(set(ids))
    finally:
        shutil.rmtree(folder)


@given(delimiter=st.sampled_from([",", "\t", " ", "|", ";", ":"]),
       header=st.sampled_from(["true", "false", "auto"]))
@example(delimiter="\t", header="auto")  # an explicit tab was stripped to ''
@example(delimiter=" ", header="false")
def test_an_explicit_delimiter_is_kept(delimiter, header):
    rows = [(3, 10), (4, 20), (3, 10), (5, 5)]
    data = "".join(f"{i}{delimiter}{s}\n" for i, s in rows).encode()
    if header == "true":
        data = f"id{delimiter}size\n".encode() + data
    folder = workdir()
    try:
        (folder / "t.csv").write_bytes(data)
        out = folder / "r.json"
        argv = ["run", "--trace", "t.csv", "--trace-param", "obj-id-col=1", "--trace-param",
                "obj-size-col=2", "--trace-param", f"delimiter={delimiter}", "--trace-param",
                f"header={header}", "--policy", "fifo", "--out", str(out)]
        assert outcome(argv, folder) is None
        run = json.loads(out.read_text())["runs"][0]
        assert (run["steps"], run["requested_size"]) == (4, 45)
    finally:
        shutil.rmtree(folder)
