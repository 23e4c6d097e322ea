"""Trace files (docs/model.md §6): round trips, normalisation on load, dense keys, paging traces."""

import numpy as np
import pytest

from simulator.errors import InputError
from simulator.trace import PagingTrace, Trace
from simulator.trace_formats import load, save

T, D = 8, 5


def _raw(rng):
    """Arrays for a full trace: every optional array, repeated and sparse item keys."""
    keys = np.array([100, 7, 100, 42, 7, 9, 300, 42], np.int64)
    # evidence names item ids by key: step 0 -> {7}, step 1 -> {}, step 2 -> {100, 42} ...
    ev_lists = [[7], [], [100, 42], [9], [], [300, 7], [42], [100]]
    indptr = np.concatenate([[0], np.cumsum([len(e) for e in ev_lists])]).astype(np.int64)
    return dict(
        queries=(rng.normal(size=(T, D)) * 3).astype(np.float32),
        items=(rng.normal(size=(T, D)) * 0.2).astype(np.float32),
        query_topics=np.array([0, 1, -1, 2, 0, 1, 2, -1], np.int64),
        item_topics=np.array([1, 1, 0, -1, 2, 2, 0, 1], np.int64),
        weights=np.array([1, 0.5, 0, 1, 0.25, 1, 1, 0.75], np.float64),
        scored=np.array([0, 0, 1, 1, 1, 1, 1, 1], bool),
        item_keys=keys,
        evidence_indptr=indptr,
        evidence_indices=np.array([k for e in ev_lists for k in e], np.int64))


def _assert_same(a, b, vectors_exact=False):
    """Equal arrays; vectors within one float32 ulp unless ``vectors_exact``.

    Loading re-normalises, and normalising a unit float32 vector again can move a
    coordinate by one ulp (see ``test_normalising_twice_changes_nothing``).
    """
    assert type(a) is type(b)
    assert a.has_evidence == b.has_evidence
    for name, arr in a.arrays().items():
        other = b.arrays()[name]
        assert arr.dtype == other.dtype, name
        if name in ("queries", "items") and not vectors_exact:
            np.testing.assert_array_max_ulp(arr, other, maxulp=1)
        else:
            np.testing.assert_array_equal(arr, other, err_msg=name)


def test_round_trip_keeps_every_array(tmp_path):
    tr = Trace.from_arrays(**_raw(np.random.default_rng(0)))
    path = tmp_path / "full.npz"
    save(tr, path)
    back = load(path)
    _assert_same(tr, back)
    assert set(back.arrays()) == {"queries", "items", "query_topics", "item_topics", "weights",
                                  "scored", "item_keys", "evidence_indptr", "evidence_indices"}
    # a second round trip changes nothing either
    save(back, tmp_path / "again.npz")
    _assert_same(back, load(tmp_path / "again.npz"))


def test_raw_file_loads_like_from_arrays(tmp_path):
    raw = _raw(np.random.default_rng(1))
    np.savez(tmp_path / "raw.npz", **raw)
    _assert_same(Trace.from_arrays(**raw), load(tmp_path / "raw.npz"))


def test_round_trip_without_optional_arrays_fills_defaults(tmp_path):
    rng = np.random.default_rng(2)
    np.savez(tmp_path / "bare.npz", queries=rng.normal(size=(T, D)).astype(np.float32),
             items=rng.normal(size=(T, D)).astype(np.float32))
    tr = load(tmp_path / "bare.npz")
    assert (tr.query_topics == -1).all() and (tr.item_topics == -1).all()
    assert (tr.weights == 1).all() and tr.scored.all() and not tr.has_evidence
    np.testing.assert_array_equal(tr.item_keys, np.arange(T))
    save(tr, tmp_path / "bare2.npz")
    _assert_same(tr, load(tmp_path / "bare2.npz"))


def test_vectors_are_normalised_on_load(tmp_path):
    raw = _raw(np.random.default_rng(3))
    np.savez(tmp_path / "raw.npz", **raw)
    tr = load(tmp_path / "raw.npz")
    for name in ("queries", "items"):
        arr = getattr(tr, name)
        assert arr.dtype == np.float32 and arr.flags.c_contiguous
        np.testing.assert_allclose(np.linalg.norm(arr.astype(np.float64), axis=1), 1.0,
                                   atol=1e-6)
        # same directions as the raw vectors
        unit = raw[name] / np.linalg.norm(raw[name].astype(np.float64), axis=1, keepdims=True)
        np.testing.assert_allclose(arr, unit, atol=1e-6)


def test_normalising_twice_changes_nothing(tmp_path):
    x = np.random.default_rng(4).normal(size=(2000, 5)).astype(np.float32)
    tr = Trace.from_arrays(queries=x, items=x)
    save(tr, tmp_path / "t.npz")
    _assert_same(tr, load(tmp_path / "t.npz"), vectors_exact=True)


def test_item_keys_are_remapped_densely_in_order_of_first_arrival():
    tr = Trace.from_arrays(**_raw(np.random.default_rng(5)))
    # raw keys 100, 7, 100, 42, 7, 9, 300, 42
    np.testing.assert_array_equal(tr.item_keys, [0, 1, 0, 2, 1, 3, 4, 2])
    assert tr.n_keys == 5
    # evidence follows the same map: 7->1, 100->0, 42->2, 9->3, 300->4
    np.testing.assert_array_equal(tr.evidence_indices, [1, 0, 2, 3, 4, 1, 2, 0])
    np.testing.assert_array_equal(tr.evidence_indptr, [0, 1, 1, 3, 4, 4, 6, 7, 8])


def test_paging_round_trip(tmp_path):
    requests = np.array([5, 1000, 5, 7, 7, 123456789, 5], np.int64)
    tr = PagingTrace.from_requests(requests)
    np.testing.assert_array_equal(tr.object_ids[tr.requests], requests)
    assert tr.n_keys == 4 and tr.requests.max() == 3
    save(tr, tmp_path / "paging.npz")
    back = load(tmp_path / "paging.npz")
    assert isinstance(back, PagingTrace)
    np.testing.assert_array_equal(back.requests, tr.requests)
    np.testing.assert_array_equal(back.object_ids, tr.object_ids)
    with np.load(tmp_path / "paging.npz") as npz:
        assert npz.files == ["requests"]
        np.testing.assert_array_equal(npz["requests"], requests)


def test_save_replaces_an_existing_file_and_leaves_no_temporaries(tmp_path):
    path = tmp_path / "t.npz"
    path.write_bytes(b"old contents")
    save(PagingTrace.from_requests([1, 2, 3]), path)
    assert isinstance(load(path), PagingTrace)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.npz"]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_id_arrays_of_any_width_load(tmp_path, dtype):
    np.savez(tmp_path / "p.npz", requests=np.array([3, 1, 3], dtype))
    tr = load(tmp_path / "p.npz")
    assert tr.requests.dtype == np.int64


@pytest.mark.parametrize("build, words", [
    (lambda: PagingTrace.from_requests([]), "'requests' must be 1-D and non-empty"),
    (lambda: Trace.from_arrays(queries=[], items=[], query_topics=[], item_topics=[]),
     "'queries' must be 2-D"),
])
def test_empty_python_lists_are_refused_by_their_shape(build, words):
    """An empty list has no dtype to speak of: the line says the trace is empty, not that
    float64 is the wrong type."""
    with pytest.raises(InputError, match=words):
        build()
