"""libCacheSim's trace formats in (:mod:`simulator.trace_formats`): the real CloudPhysics
block trace read from its binary, CSV and text files, compressed or not, in chunks or whole,
and unit-size runs from it equal to libCacheSim 0.3.5's own runs.

The trace is the dataset ``libcachesim-traces`` (tests/helpers/datasets.py, never copied here); the
tests that read it declare it and skip without it.
"""

import numpy as np
import pytest
import zstandard

from helpers.cloud_physics import CSV_PARAMS, NEEDED, file
from simulator.cli import main
from simulator.errors import InputError
from simulator.runner import run
from simulator.trace import PagingTrace
from simulator.trace_formats import load, request_chunks, save
from simulator.trace_formats.oracle_general import RECORD

needs_data = NEEDED
STEPS, OBJECTS = 113_872, 48_974


def _zst(path, folder):
    out = folder / (path.name + ".zst")
    out.write_bytes(zstandard.ZstdCompressor(level=3).compress(path.read_bytes()))
    return out


@needs_data
def test_the_three_files_hold_one_request_sequence():
    binary, text = load(file("bin")), load(file("txt"))
    csv = load(file("csv"), trace_params=CSV_PARAMS)
    assert binary.steps == csv.steps == text.steps == STEPS
    assert binary.n_keys == OBJECTS and binary.object_ids.dtype == np.uint64
    for other in (csv, text):
        assert np.array_equal(binary.object_ids[binary.requests],
                              other.object_ids[other.requests])
    assert binary.object_ids[binary.requests[:3]].tolist() == [42932745, 42932746, 42932747]
    # binary: one size per object; CSV: each request's own size; text: none
    first = np.unique(binary.requests, return_index=True)[1]
    assert np.array_equal(binary.request_sizes,
                          binary.request_sizes[first][binary.requests])
    assert not np.array_equal(csv.request_sizes, binary.request_sizes)
    assert binary.sized and csv.sized and not text.sized
    assert (text.request_sizes == 1).all()


@needs_data
@pytest.mark.parametrize("kind, params", [("bin", None), ("csv", CSV_PARAMS), ("txt", None)])
def test_compressed_and_chunked_reads_give_the_same_trace(kind, params, tmp_path):
    path = file(kind)
    whole = load(path, trace_params=params)
    squeezed = load(_zst(path, tmp_path), trace_params=params)
    assert np.array_equal(squeezed.requests, whole.requests)
    assert np.array_equal(squeezed.request_sizes, whole.request_sizes)
    parts = list(request_chunks(path, trace_params=params, chunk_requests=10_000))
    assert len(parts) == 12 and sum(len(ids) for ids, _ in parts) == STEPS
    ids = np.concatenate([ids for ids, _ in parts])
    assert np.array_equal(ids, whole.object_ids[whole.requests])


@needs_data
def test_ignore_sizes_and_npz_round_trip(tmp_path):
    unit = load(file("bin"), ignore_sizes=True)
    assert not unit.sized
    save(load(file("bin")), tmp_path / "t.npz")
    again = load(tmp_path / "t.npz")
    assert again.object_ids.dtype == np.uint64 and again.sized
    assert np.array_equal(again.request_sizes, load(file("bin")).request_sizes)


libcachesim = pytest.importorskip("libcachesim")
# libCacheSim's class for each policy we share with it, and our parameters that match it.
# LFU and W-TinyLFU are not here: tests/test_cloud_physics_unit.py holds them equal to
# libCacheSim on this trace with unit sizes (K = 100, 1000, 5000; the text file gives the
# binary file's requests, test_the_three_files_hold_one_request_sequence).
SHARED = {"fifo": ("FIFO", {}), "lru": ("LRU", {}), "arc": ("ARC", {}),
          "sieve": ("Sieve", {}), "s3fifo": ("S3FIFO", {}), "twoq": ("TwoQ", {})}


@pytest.fixture(scope="module")
def text_trace():
    return load(file("txt"))


@needs_data
@pytest.mark.parametrize("capacity", [100, 1000, 4000])
def test_unit_size_runs_equal_libcachesim_on_the_real_trace(text_trace, capacity):
    """From the text file (unit sizes), hits equal libCacheSim's, policy by policy; Belady
    from the binary file (it needs the next-use field) with sizes ignored."""
    trace = text_trace
    for policy, (name, params) in SHARED.items():
        reader = libcachesim.TraceReader(str(file("txt")),
                                         libcachesim.TraceType.PLAIN_TXT_TRACE)
        theirs = round((1 - getattr(libcachesim, name)(capacity).process_trace(reader)[0])
                       * STEPS)
        assert run(trace, policy, capacity=capacity, params=params).summary()["hits"] == \
            theirs, policy
    init = libcachesim.ReaderInitParam()
    init.ignore_obj_size = True
    reader = libcachesim.TraceReader(str(file("bin")),
                                     libcachesim.TraceType.ORACLE_GENERAL_TRACE,
                                     init)
    theirs = round((1 - libcachesim.Belady(capacity).process_trace(reader)[0]) * STEPS)
    ours = run(load(file("bin"), ignore_sizes=True), "belady", capacity=capacity)
    assert ours.summary()["hits"] == theirs


# ----------------------------------------------------------------------- bad input

def _records(n, sizes=512):
    records = np.zeros(n, RECORD)
    records["id"], records["size"] = np.arange(1, n + 1), sizes
    return records


BAD = {
    "truncated record": ("t.oracleGeneral", lambda: _records(3).tobytes() + b"\0" * 5,
                         None, "record 3 is truncated"),
    "missing column": ("t.csv", lambda: b"v,t\n1,2\n", CSV_PARAMS, "line 2: no column 5"),
    "text id in a numeric column": ("t.csv", lambda: b"v,t,o,s,id\na,b,c,512,xyz\n", CSV_PARAMS,
                                    "line 2, column 5: object id 'xyz' is not an integer"),
    "negative size": ("t.csv", lambda: b"v,t,o,s,id\na,b,c,-5,7\n", CSV_PARAMS,
                      "negative size"),
    "no obj-id-col": ("t.csv", lambda: b"1,2\n", None, "needs obj-id-col"),
    "corrupt zstd": ("t.oracleGeneral.zst", lambda: b"\x28\xb5\x2f\xfd garbage" * 4, None,
                     "is not valid zstd data"),
    "unknown format": ("t.dat", lambda: b"1\n", None, "does not say its format"),
    "bad text id": ("t.txt", lambda: b"5\nfive\n", None, "line 2: object id 'five'"),
    "empty": ("t.txt", lambda: b"\n\n", None, "holds no request"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_files_are_one_line_naming_the_file_and_the_place(case, tmp_path, capsys):
    name, content, params, words = BAD[case]
    path = tmp_path / name
    path.write_bytes(content())
    with pytest.raises(InputError, match=words):
        load(path, trace_params=params)
    argv = ["run", "--trace", str(path), "--policy", "fifo"]
    argv += [f"--trace-param={k}={v}" for k, v in (params or {}).items()]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words.split(" ")[0] in err and "Traceback" not in err


def test_zero_size_requests_are_skipped_as_libcachesim_does(tmp_path):
    path = tmp_path / "t.oracleGeneral"
    records = _records(4)
    records["size"][1] = 0
    records.tofile(path)
    trace = load(path)
    assert trace.steps == 3 and trace.object_ids[trace.requests].tolist() == [1, 3, 4]


@pytest.mark.parametrize("arrays, words", [
    ({"requests": [1, 2], "request_sizes": [1]}, "shape"),
    ({"requests": [1, 2], "request_sizes": [1, 0]}, "size below 1 at index 1"),
    ({"requests": [1, 2], "request_sizes": [1.5, 2]}, "dtype"),
])
def test_sizes_in_npz_files_are_checked(arrays, words, tmp_path):
    path = tmp_path / "t.npz"
    np.savez(path, **{k: np.asarray(v) for k, v in arrays.items()})
    with pytest.raises(InputError, match=words):
        load(path)


def test_equal_item_keys_need_equal_sizes():
    from simulator.trace import Trace

    vectors = np.eye(3, dtype=np.float32)
    with pytest.raises(InputError, match="item key 5 size 3 at index 2 but 2 before"):
        Trace.from_arrays(queries=vectors, items=vectors, item_keys=[5, 6, 5],
                          item_sizes=[2, 1, 3])
    trace = Trace.from_arrays(queries=vectors, items=vectors, item_keys=[5, 6, 5],
                              item_sizes=[2, 1, 2])
    assert trace.sized and trace.item_sizes.tolist() == [2, 1, 2]


def test_unsized_files_are_written_as_before(tmp_path):
    """No size array is written for unit sizes, so every existing file stays the same."""
    save(PagingTrace.from_requests([3, 1, 3]), tmp_path / "t.npz")
    assert sorted(np.load(tmp_path / "t.npz").files) == ["requests"]


@needs_data
def test_trace_import_and_run_from_the_command_line(tmp_path, capsys):
    import json

    out = tmp_path / "cp.npz"
    assert main(["trace", "import", str(file("csv")), "--out", str(out), "--json",
                 *(f"--trace-param={k}={v}" for k, v in CSV_PARAMS.items())]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["steps"] == STEPS and doc["objects"] == OBJECTS and doc["sized"] is True
    assert np.array_equal(load(out).request_sizes, load(file("csv"), trace_params=CSV_PARAMS)
                          .request_sizes)
    assert main(["run", "--trace", str(file("txt")), "--policy", "fifo", "--capacity", "100",
                 "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["workload"]["format"] == "txt" and record["runs"][0]["hits"] == 12377
    assert main(["run", "--trace", str(file("txt")), "--trace-format", "npz", "--policy",
                 "fifo"]) == 2
    assert main(["run", "--workload", "clusters", "--ignore-sizes"]) == 2
    capsys.readouterr()
