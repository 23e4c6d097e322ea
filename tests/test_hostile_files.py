"""Hostile trace files: valid files, corrupted, must be read or refused cleanly.

Each test starts from a valid file (a trace ``.npz``, an ``import-solar`` folder, a CSV,
text or ``oracleGeneral`` request trace) and corrupts it: bytes flipped inside a compressed
member, zip headers forged (encrypted, an unknown method, an inflated ``.npy`` shape), arrays
changed in dtype, length, sign or magnitude, dropped or duplicated, an inconsistent CSR,
``meta.json`` and JSON Lines fields of the wrong type.  Some corruptions leave a valid file
(a flipped byte in a float is another float), so the rule is per strategy: where the file
may still be valid, the command either succeeds or keeps the bad-input contract
(:mod:`hostile_contract`); where it cannot be, the contract must hold.  Pinned examples are
the instances that once ended in a traceback.  This module corrupts trace ``.npz`` files
(the valid trace and the shared helpers are :mod:`hostile_files`);
:mod:`test_hostile_imports` corrupts what ``trace import-solar`` and libCacheSim's
readers read.
"""

from __future__ import annotations

import io
import shutil
import struct
import zipfile

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from helpers.hostile_contract import assert_rejected
from helpers.hostile_files import T, npz_bytes, outcome, valid_arrays, workdir
from simulator.errors import InputError
from simulator.trace import Trace

NAMES = ("queries", "items", "query_topics", "item_topics", "weights", "scored", "item_keys",
         "evidence_indptr", "evidence_indices", "item_sizes")


def commands(trace: str) -> list:
    """The subcommands that read a trace file, each with an existing ``--out`` to keep."""
    return [["run", "--trace", trace, "--policy", "fifo", "--out", "old.json"],
            ["opt", "--trace", trace, "--capacity", "2", "--out", "old.json"]]


# --------------------------------------------------------------------------- zip surgery

def _entries(data: bytes) -> list:
    """``(name, local header offset, central entry offset)`` of each zip member."""
    end = data.rindex(b"PK\x05\x06")
    count, _, start = struct.unpack("<HII", data[end + 10:end + 20])
    out, at = [], start
    for _ in range(count):
        n, m, k = struct.unpack("<HHH", data[at + 28:at + 34])
        local = struct.unpack("<I", data[at + 42:at + 46])[0]
        out.append((data[at + 46:at + 46 + n].decode(), local, at))
        at += 46 + n + m + k
    return out


def forge(data: bytes, member: str, flag: int | None = None, method: int | None = None):
    """``data`` with one member's general-purpose flag bits or method set, in both headers."""
    out = bytearray(data)
    for name, local, central in _entries(data):
        if name == member:
            for field, local_at, central_at in ((flag, 6, 8), (method, 8, 10)):
                if field is not None:
                    out[local + local_at:local + local_at + 2] = struct.pack("<H", field)
                    out[central + central_at:central + central_at + 2] = struct.pack("<H", field)
    return bytes(out)


def member_data(data: bytes, member: str) -> tuple:
    """(start, length) of a member's stored (compressed) bytes."""
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo(member)
    n, m = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
    return info.header_offset + 30 + n + m, info.compress_size


def inflated_npy(array: np.ndarray, shape: tuple, descr: str | None = None) -> bytes:
    """``array``'s ``.npy`` bytes under a header claiming ``shape`` (and ``descr``)."""
    buf = io.BytesIO()
    descr = descr or np.lib.format.dtype_to_descr(array.dtype)
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False,
                                               "shape": shape})
    return buf.getvalue() + array.tobytes()


def check_all(data: bytes, word=None, may_pass=True):
    """Write ``data`` as a trace and run every command on it."""
    folder = workdir()
    try:
        (folder / "t.npz").write_bytes(data)
        for argv in commands("t.npz"):
            line = outcome(argv, folder, word)
            assert may_pass or line is not None, f"accepted: {argv}"
    finally:
        shutil.rmtree(folder)


# --------------------------------------------------------------------------- the archive

@given(member=st.sampled_from(NAMES), where=st.floats(0, 1), xor=st.integers(1, 255))
@example(member="queries", where=0.5, xor=0xFF)  # a corrupt zlib stream
def test_flipped_byte_in_a_compressed_member(member, where, xor):
    data = bytearray(npz_bytes(valid_arrays()))
    start, length = member_data(bytes(data), member + ".npy")
    data[start + min(int(where * length), length - 1)] ^= xor
    check_all(bytes(data))  # deflate may decode the flip into other valid numbers


def test_a_corrupt_zlib_stream_names_file_and_member():
    data = bytearray(npz_bytes(valid_arrays()))
    start, length = member_data(bytes(data), "queries.npy")
    data[start + length // 2] ^= 0xFF
    check_all(bytes(data), "'queries' cannot be read", may_pass=False)


@given(member=st.sampled_from(NAMES), flag=st.integers(0, 0xFFFF),
       method=st.sampled_from([None, 0, 1, 6, 9, 12, 14, 93, 99, 0xFFFF]))
@example(member="items", flag=0x1, method=None)  # encrypted
@example(member="queries", flag=0, method=99)  # an unsupported compression method
def test_forged_zip_headers(member, flag, method):
    data = npz_bytes(valid_arrays())
    must_fail = flag & 0x1 or method not in (None, 8)
    word = member if must_fail else None
    check_all(forge(data, member + ".npy", flag, method), word, may_pass=not must_fail)


@given(member=st.sampled_from(NAMES), factor=st.sampled_from([2, 10**3, 10**9, 10**12]),
       compress=st.booleans())
@example(member="queries", factor=10**12, compress=True)  # terabytes claimed
def test_inflated_npy_header(member, factor, compress):
    arrays = valid_arrays()
    folder = workdir()
    try:
        method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
        with zipfile.ZipFile(folder / "t.npz", "w", method) as zf:
            for name, array in arrays.items():
                shape = ((array.shape[0] * factor, *array.shape[1:]) if name == member
                         else array.shape)
                zf.writestr(name + ".npy", inflated_npy(array, shape))
        for argv in commands("t.npz"):
            assert_rejected(argv, folder, member)
    finally:
        shutil.rmtree(folder)


def test_a_zero_byte_dtype_cannot_claim_a_count():
    folder = workdir()
    try:
        with zipfile.ZipFile(folder / "t.npz", "w") as zf:
            zf.writestr("queries.npy", inflated_npy(np.zeros(0), (10**15,), "|S0"))
        for argv in commands("t.npz"):
            assert_rejected(argv, folder, "zero bytes")
    finally:
        shutil.rmtree(folder)


# --------------------------------------------------------------------------- the arrays

DTYPES = ["bool", "int8", "int32", "uint64", "float16", "float32", "float64", "complex64",
          "<U3"]


@st.composite
def mutated(draw):
    """``(arrays, must_fail)``: the valid trace with one corruption."""
    arrays = valid_arrays()
    name = draw(st.sampled_from(NAMES))
    kind = draw(st.sampled_from(["dtype", "length", "sign", "magnitude", "drop", "csr",
                                 "evidence", "keys"]))
    must_fail = False
    if kind == "dtype":
        dtype = draw(st.sampled_from(DTYPES))
        arrays[name] = arrays[name].astype(dtype)
        want = np.dtype(np.float32 if name in ("queries", "items") else
                        valid_arrays()[name].dtype)
        # docs/model.md §6: vectors float32, others a safe cast, bool only for 'scored'
        safe = (np.dtype(dtype) == want if want == np.float32 else
                np.can_cast(dtype, want, "safe") and (dtype != "bool" or want == np.bool_))
        must_fail = not safe
    elif kind == "length":
        n = draw(st.integers(0, 2 * T + 2).filter(lambda n: n != len(arrays[name])))
        arrays[name] = np.resize(arrays[name], (n, *arrays[name].shape[1:]))
        must_fail = True
    elif kind == "sign":
        arrays[name] = arrays[name].astype(arrays[name].dtype) * np.array(-1).astype(
            arrays[name].dtype if arrays[name].dtype != bool else np.int64)
    elif kind == "magnitude":
        scale = draw(st.sampled_from([0, 2**31, 2**62, 1e30, np.inf, np.nan]))
        with np.errstate(all="ignore"):
            arrays[name] = (arrays[name] * scale).astype(arrays[name].dtype)
    elif kind == "drop":
        del arrays[name]
        must_fail = name in ("queries", "items", "evidence_indptr", "evidence_indices")
    elif kind == "csr":
        arrays["evidence_indptr"] = np.array(draw(st.lists(
            st.integers(-2, 8), min_size=T + 1, max_size=T + 1)), np.int64)
    elif kind == "evidence":
        arrays["evidence_indices"] = np.array(draw(st.lists(
            st.integers(-3, 12), min_size=5, max_size=5)), np.int64)
    else:
        arrays["item_keys"] = np.array(draw(st.lists(st.integers(-1, 9), min_size=T,
                                                     max_size=T)), np.int64)
    return arrays, must_fail


@given(case=mutated(), compress=st.booleans())
def test_mutated_arrays(case, compress):
    arrays, must_fail = case
    check_all(npz_bytes(arrays, compress), may_pass=not must_fail)


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_an_array_held_twice_is_refused():
    folder = workdir()
    try:
        with zipfile.ZipFile(folder / "t.npz", "w") as zf:
            for name, array in [*valid_arrays().items(), ("items", valid_arrays()["items"])]:
                with zf.open(name + ".npy", "w") as member:
                    np.lib.format.write_array(member, array)
        for argv in commands("t.npz"):
            assert_rejected(argv, folder, "twice")
    finally:
        shutil.rmtree(folder)


# --------------------------------------------------------------------------- the rules

def test_the_documented_meanings_are_accepted():
    """Evidence naming a later item or one item twice, and equal keys with other vectors or
    topics, are allowed (simulator.trace, docs/model.md §6)."""
    arrays = valid_arrays()
    arrays["evidence_indices"] = np.array([7, 9, 9, 5, 7], np.int64)  # 7 arrives at step 5
    arrays["items"][2] *= -1  # key 5 re-arrives with another vector ...
    arrays["item_topics"][2] = 3  # ... and topic
    tr = Trace.from_arrays(**arrays)
    assert tr.evidence_indices.tolist() == [3, 1, 1, 0, 3]


@pytest.mark.parametrize("name", ["query_topics", "item_topics", "item_keys", "item_sizes",
                                  "evidence_indptr", "evidence_indices", "weights"])
def test_booleans_are_no_ids_topics_or_sizes(name, tmp_path):
    from simulator.trace_formats import load

    arrays = valid_arrays()
    arrays[name] = arrays[name] != 0
    np.savez(tmp_path / "t.npz", **arrays)
    with pytest.raises(InputError, match=f"'{name}' has dtype bool"):
        load(tmp_path / "t.npz")


def test_evidence_checks_are_vectorised():
    """10^6 evidence keys over 10^5 steps validate in well under a second's Python loop."""
    import time

    steps = 100_000
    rng = np.random.default_rng(0)
    vectors = np.ones((steps, 2), np.float32)
    ev = rng.integers(0, steps, 10 * steps)
    start = time.perf_counter()
    Trace.from_arrays(queries=vectors, items=vectors, evidence_indices=ev,
                      evidence_indptr=np.arange(0, 10 * steps + 1, 10))
    assert time.perf_counter() - start < 2.0
