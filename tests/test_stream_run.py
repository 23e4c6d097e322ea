"""Streamed runs (simulator.stream_run): a trace file read in chunks gives the loaded run's
results request for request; the id table against a dict; chunked workload files."""

import json

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import workloads
from helpers.cloud_physics import CSV_PARAMS, NEEDED, file
from simulator import policies
from simulator.cli import main
from simulator.errors import InputError
from simulator.live_run import LiveRun
from simulator.files.object_table import ObjectTable
from simulator.runner import run
from simulator.stream_run import stream_run
from simulator.trace import PagingBuffer
from simulator.trace_formats import load

ONLINE_PAGING = [name for name, p in policies.REGISTRY.items()
                 if "paging" in p.modes and not p.traits_of(p.resolve_params(None)).offline]


def _naive_keys(chunks):
    """Dense keys as a loaded trace has them: the rank of each id among the distinct ids."""
    distinct = sorted({int(i) for chunk in chunks for i in chunk})
    rank = {object_id: k for k, object_id in enumerate(distinct)}
    return distinct, [[rank[int(i)] for i in chunk] for chunk in chunks]


@settings(settings.get_profile("ci"), deadline=None)
@given(st.lists(st.lists(st.integers(0, 2**64 - 1) | st.integers(0, 40), max_size=60),
                max_size=6), st.integers(1, 64))
@example([[0, 2**64 - 1, 0, 5]], 1)  # the extreme ids, and a table that must grow at once
@example([list(range(200)), list(range(100, 300))], 2)  # growth across chunks
def test_the_id_table_ranks_ids_as_a_dict_does(chunks, rows):
    table = ObjectTable(rows=1 << (rows.bit_length()))
    for chunk in chunks:
        table.add(np.array(chunk, np.uint64))
    distinct, keys = _naive_keys(chunks)
    assert table.finish().tolist() == distinct
    assert [table.keys_of(np.array(c, np.uint64)).tolist() for c in chunks] == keys
    absent = next(i for i in range(len(distinct) + 1) if i not in set(distinct))
    with pytest.raises(KeyError):
        table.keys_of(np.array([absent], np.uint64))


@pytest.fixture(scope="module")
def zipf_files(tmp_path_factory):
    """A sized and a unit-size Zipf trace as oracleGeneral, written by `workload make`.

    5000 requests over 750 objects: seven chunks of 777, and every capacity and budget
    below evicts 500 to 2000 times (LRU, S3-FIFO, TinyLFU, ARC), so a state lost at a chunk
    boundary changes hits; 20000 requests added only length."""
    folder = tmp_path_factory.mktemp("streams")
    files = {}
    for label, extra in (("sized", ["--param", "sizes=lognormal"]), ("unit", [])):
        path = str(folder / f"{label}.oracleGeneral.zst")
        assert main(["workload", "make", "zipf_paging", "--param", "steps=5000",
                     "--param", "objects=750", *extra, "--seed", "4", "--out", path]) == 0
        files[label] = path
    return files


def _streamed_hits(path, names, chunk, **options):
    pieces = {name: [] for name in names}
    streamed = stream_run(path, names, chunk_requests=chunk, seed=3,
                          on_chunk=lambda name, first, hit: pieces[name].append((first, hit)),
                          **options)
    hits = {}
    for name, parts in pieces.items():
        assert [first for first, _ in parts] == list(np.cumsum([0] + [len(h) for _, h in
                                                                    parts])[:-1])
        hits[name] = np.concatenate([h for _, h in parts])
    return streamed, hits


@pytest.mark.parametrize("label, options", [("sized", {"budget": 100_000}),
                                            ("sized", {"capacity": 300}),
                                            ("unit", {"capacity": 200}),
                                            ("unit", {"budget": 150})])
def test_a_streamed_run_equals_the_loaded_run(zipf_files, label, options):
    """In one chunk and in chunks of 777, each against the loaded run, made once."""
    path = zipf_files[label]
    trace = load(path)
    wholes = {name: run(trace, name, seed=3, **options) for name in ONLINE_PAGING}
    for chunk in (1 << 20, 777):
        streamed, hits = _streamed_hits(path, ONLINE_PAGING, chunk, **options)
        assert (streamed.trace.steps, streamed.trace.objects, streamed.trace.sized) == \
            (trace.steps, trace.n_keys, trace.sized), chunk
        for name, result in zip(ONLINE_PAGING, streamed.runs):
            whole = wholes[name]
            assert np.array_equal(hits[name], whole.hit), (name, chunk)
            ours, theirs = result.summary(), whole.summary()
            ours.pop("elapsed_s"), theirs.pop("elapsed_s")
            assert ours == theirs, (name, chunk)


def test_chunks_of_one_request_carry_every_state(zipf_files):
    path = zipf_files["sized"]
    _, hits = _streamed_hits(path, ["lru", "s3fifo", "tinylfu"], 1, budget=50_000)
    trace = load(path)
    for name in ("lru", "s3fifo", "tinylfu"):
        assert np.array_equal(hits[name], run(trace, name, seed=3, budget=50_000).hit), name


@NEEDED
def test_the_real_trace_streams_as_it_loads():
    for kind, params in (("bin", None), ("csv", CSV_PARAMS)):
        path = file(kind)
        streamed = stream_run(path, ["fifo", "lru", "sieve"], budget="256MiB",
                              trace_params=params, chunk_requests=10_000)
        trace = load(path, trace_params=params)
        for result in streamed.runs:
            whole = run(trace, result.config["policy"], budget="256MiB").summary()
            assert result.summary()["hits"] == whole["hits"]
            assert result.summary()["hit_size"] == whole["hit_size"]


def test_the_zipf_stream_is_the_whole_trace():
    wl = workloads.get("zipf_paging")
    for sizes in ("none", "lognormal"):
        p = wl.resolve_params({"steps": 5000, "objects": 700, "sizes": sizes})
        trace = wl.build(p, 9)
        chunks = list(wl.stream(p, 9, 999))
        ids = np.concatenate([c[0] for c in chunks])
        assert np.array_equal(ids, trace.object_ids[trace.requests] + 1)
        if sizes == "none":
            assert all(c[1] is None for c in chunks) and not trace.sized
        else:
            assert np.array_equal(np.concatenate([c[1] for c in chunks]), trace.request_sizes)


def test_offline_policies_and_whole_files_are_refused(zipf_files, tmp_path, capsys):
    with pytest.raises(InputError, match="belady.*cannot be streamed"):
        stream_run(zipf_files["unit"], ["belady"], capacity=10)
    assert main(["run", "--trace", zipf_files["unit"], "--stream", "--policy", "belady"]) == 2
    npz = str(tmp_path / "t.npz")
    assert main(["workload", "make", "zipf_paging", "--param", "steps=100", "--out", npz]) == 0
    assert main(["run", "--trace", npz, "--stream", "--policy", "fifo"]) == 2
    assert main(["run", "--trace", zipf_files["unit"], "--stream", "--policy", "fifo",
                 "--chunk-requests", "0"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert [line.split(":")[0] for line in err] == ["semcache"] * 3
    assert "--chunk-requests must be an integer >= 1" in err[-1]


def test_stream_json_record(zipf_files, capsys):
    assert main(["run", "--trace", zipf_files["sized"], "--stream", "--policy", "fifo,lru",
                 "--budget", "1MiB", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["workload"]["streamed"] and doc["workload"]["sized"]
    assert [r["policy"] for r in doc["runs"]] == ["fifo", "lru"]
    assert all(r["budget"] == 1 << 20 and r["steps"] == 5000 for r in doc["runs"])


def test_a_semantic_workload_is_not_written_as_requests(tmp_path, capsys):
    out = tmp_path / "c.oracleGeneral"
    assert main(["workload", "make", "clusters", "--out", str(out)]) == 2
    assert "semantic" in capsys.readouterr().err and not out.exists()
    assert not list(tmp_path.iterdir())  # no partial or temporary file either


def test_feed_checks_what_it_is_given():
    live = LiveRun(PagingBuffer(np.zeros(0, np.int64), 5), "fifo", capacity=2)
    with pytest.raises(InputError, match="^requests must be dense keys in 0 .. 4"):
        live.feed([0, 5])
    with pytest.raises(InputError, match="^sizes must be"):
        live.feed([0, 1], [1, 0])
    with pytest.raises(InputError, match="need a run made for sizes"):
        live.feed([0, 1], [1, 2])
    assert live.feed([0, 1, 0]).tolist() == [0, 0, 1] and live.requests_fed == 3
