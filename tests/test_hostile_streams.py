"""Hostile trace streams: cut files, special files, huge chunks, files that change.

Each property starts from a valid request trace (libCacheSim's ``oracleGeneral``, CSV or
text, compressed or not) or trace ``.npz`` and breaks how it is read, not what it says:

* the file is cut anywhere (a copy or a full disk cut it short): every compressed reader,
  loaded, streamed and imported, refuses it; a ``.npz`` cut anywhere is refused too;
* the path names what is not a regular file (a FIFO, ``/dev/zero``, ``/dev/urandom``,
  ``/dev/null``, a folder): refused at once, never read (the FIFO would block the open,
  the devices never end);
* ``--chunk-requests`` is legal but huge: the run reads only what the file holds and
  equals the default run;
* the file is replaced between a streamed run's two readings: refused naming the change,
  never a bare ``KeyError`` or a run on mixed data.

Every refusal keeps the bad-input contract (:mod:`hostile_contract`).  Special files live
outside the compared work folder (reading a FIFO to compare it would block the test).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from unittest import mock

import numpy as np
import pytest
import zstandard
from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers.hostile_contract import assert_rejected
from helpers.hostile_files import npz_bytes, outcome, valid_arrays, workdir
from helpers.hostile_requests import request_commands, request_files

FORMATS = ["t.csv", "t.txt", "t.oracleGeneral"]


def _compressed(name: str, frames: int = 1) -> tuple:
    """(file name, compressed bytes, frame ends) of a valid trace in ``frames`` frames."""
    data = request_files()[name][0]
    cuts = np.linspace(0, len(data), frames + 1).astype(int)
    parts = [zstandard.ZstdCompressor().compress(data[a:b]) for a, b in zip(cuts, cuts[1:])]
    return name + ".zst", b"".join(parts), set(np.cumsum([len(p) for p in parts]).tolist())


@settings(max_examples=40)
@given(name=st.sampled_from(FORMATS), frames=st.integers(1, 3), where=st.floats(0, 1),
       command=st.integers(0, 2))
@example(name="t.oracleGeneral", frames=1, where=0.5, command=0)  # ran on half the requests
@example(name="t.oracleGeneral", frames=1, where=0.5, command=1)  # ... streamed
@example(name="t.oracleGeneral", frames=1, where=0.5, command=2)  # ... imported
@example(name="t.csv", frames=2, where=0.9, command=1)
def test_a_cut_compressed_trace_is_refused(name, frames, where, command):
    zst, data, ends = _compressed(name, frames)
    cut = min(int(where * len(data)), len(data) - 1)
    folder = workdir()
    try:
        (folder / zst).write_bytes(data[:cut])
        argv = request_commands(zst, request_files()[name][1])[command]
        line = outcome(argv, folder)
        if cut in ends:  # a cut between frames leaves a valid, shorter trace
            return
        assert line is not None, f"a trace cut at {cut} of {len(data)} bytes was read"
    finally:
        shutil.rmtree(folder)


@given(where=st.floats(0, 1), compress=st.booleans())
@example(where=0.5, compress=True)
def test_a_cut_npz_is_refused(where, compress):
    data = npz_bytes(valid_arrays(), compress)
    folder = workdir()
    try:
        (folder / "t.npz").write_bytes(data[:min(int(where * len(data)), len(data) - 1)])
        assert_rejected(["run", "--trace", "t.npz", "--policy", "fifo", "--out", "old.json"],
                        folder, "t.npz")
    finally:
        shutil.rmtree(folder)


# --------------------------------------------------------------------------- special files

@pytest.fixture(scope="module")
def specials():
    """Paths of things that are not regular files, each under a name that says a format
    (links to devices, a FIFO, a folder), outside any work folder."""
    folder = tempfile.mkdtemp(prefix="hostile-specials-")
    made = {}
    for device in ("/dev/zero", "/dev/urandom", "/dev/null"):
        if os.path.exists(device):
            made[device] = device
    os.mkfifo(os.path.join(folder, "fifo"))
    made["fifo"] = os.path.join(folder, "fifo")
    os.mkdir(os.path.join(folder, "folder"))
    made["folder"] = os.path.join(folder, "folder")
    yield folder, made
    shutil.rmtree(folder)


def _named(folder: str, target: str, name: str) -> str:
    """A link called ``name`` (a format's extension) to ``target``, in ``folder``."""
    link = os.path.join(folder, f"{len(os.listdir(folder))}-{name}")
    os.symlink(target, link)
    return link


@settings(max_examples=30, deadline=None)
@given(kind=st.sampled_from(["/dev/zero", "/dev/urandom", "/dev/null", "fifo", "folder"]),
       name=st.sampled_from(["t.oracleGeneral", "t.csv", "t.txt", "t.oracleGeneral.zst",
                             "t.npz"]),
       command=st.integers(0, 2))
@example(kind="/dev/zero", name="t.oracleGeneral", command=0)  # size-0 records forever
@example(kind="/dev/zero", name="t.oracleGeneral", command=1)
@example(kind="/dev/urandom", name="t.csv", command=0)  # one endless line: MemoryError
@example(kind="/dev/zero", name="t.txt", command=2)
@example(kind="fifo", name="t.txt", command=1)  # the open blocked for a writer
def test_a_special_file_is_refused_at_once(specials, kind, name, command):
    folder, made = specials
    if kind not in made:
        return
    path = _named(folder, made[kind], name)
    options = request_files().get(name.removesuffix(".zst"), (b"", []))[1]
    argv = (request_commands(path, options)[command] if not name.endswith(".npz") else
            [["run", "--trace", path, "--policy", "fifo"],
             ["opt", "--trace", path, "--capacity", "2"],
             ["trace", "import", path, "--out", "old.npz"]][command])
    work = workdir()
    try:
        assert_rejected(argv, work, "not a regular file", deadline=20)
    finally:
        shutil.rmtree(work)


# --------------------------------------------------------------------------- huge chunks

@settings(max_examples=12)
@given(chunk=st.one_of(st.sampled_from([10**9, 2**30, 2**40, 2**53]),
                       st.integers(1, 2**53)),
       name=st.sampled_from(FORMATS + ["t.oracleGeneral.zst"]))
@example(chunk=2**53, name="t.oracleGeneral")  # allocated 2**53 records before reading
@example(chunk=2**40, name="t.txt")
def test_a_huge_chunk_reads_only_the_file(chunk, name):
    from simulator.cli import main

    data, options = request_files()[name.removesuffix(".zst")]
    if name.endswith(".zst"):
        data = zstandard.ZstdCompressor().compress(data)
    folder = workdir()
    try:
        (folder / name).write_bytes(data)
        docs = []
        for extra in ([], ["--chunk-requests", str(chunk)]):
            out = folder / "r.json"
            argv = ["run", "--trace", str(folder / name), *options, "--policy", "fifo,lru",
                    "--stream", "--out", str(out), *extra]
            with contextlib.redirect_stdout(open(os.devnull, "w")):
                assert main(argv) == 0
            docs.append([{k: v for k, v in r.items() if k != "elapsed_s"}
                         for r in json.loads(out.read_text())["runs"]])
        assert docs[0] == docs[1]
    finally:
        shutil.rmtree(folder)


# --------------------------------------------------------------------------- replaced files

REPLACEMENTS = {
    "new ids": lambda data: data.replace(b"9", b"7").replace(b"3", b"8"),
    "more requests": lambda data: data + data,
    "fewer requests": lambda data: data[:len(data) // 2],
    "empty": lambda data: b"",
    "the same": lambda data: data,
}


@settings(max_examples=20)
@given(name=st.sampled_from(["t.csv", "t.txt"]), how=st.sampled_from(sorted(REPLACEMENTS)),
       also=st.sampled_from([None, "fifo", "deleted", "cut zst"]))
@example(name="t.txt", how="new ids", also=None)  # a bare KeyError from keys_of
@example(name="t.csv", how="the same", also="fifo")  # the second reading blocked
def test_a_file_replaced_between_the_two_readings_is_refused(name, how, also):
    import importlib

    stream_run = importlib.import_module("simulator.stream_run")  # the module, not the
    data, options = request_files()[name]  # function simulator's front door exports
    zst = also == "cut zst"
    first_reading = stream_run._first_reading

    def replace(path, reading):  # the first reading, then the file replaced
        found = first_reading(path, reading)
        new = REPLACEMENTS[how](data)
        os.remove(path)
        if also == "fifo":
            os.mkfifo(path)
        elif zst:
            packed = zstandard.ZstdCompressor().compress(new or b"1\n")
            with open(path, "wb") as f:
                f.write(packed[:len(packed) - 3])
        elif also is None:
            with open(path, "wb") as f:
                f.write(new)
        return found

    # the trace lives outside the compared folder: comparing a FIFO would read it
    where = tempfile.mkdtemp(prefix="hostile-replaced-")
    folder = workdir()
    try:
        trace = os.path.join(where, name + (".zst" if zst else ""))
        with open(trace, "wb") as f:
            f.write(zstandard.ZstdCompressor().compress(data) if zst else data)
        argv = ["run", "--trace", trace, *options, "--policy", "fifo", "--stream", "--out",
                "old.json"]
        with mock.patch.object(stream_run, "_first_reading", replace):
            if how == "the same" and also is None:
                assert outcome(argv, folder) is None
            else:
                assert_rejected(argv, folder, "trace file", deadline=20)
    finally:
        shutil.rmtree(folder)
        shutil.rmtree(where)
