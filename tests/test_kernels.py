"""Each compiled kernel equals its slow twin in ``tests/helpers/naive.py`` on random inputs."""

import math

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from simulator.engine import kernels
from simulator.testing.reference_model import Item, f32, quality_of, retrieve, similarity

DIMS = st.sampled_from([1, 2, 3, 4, 8, 16, 33])


def unit_rows(n, d):
    """Normalised float32 rows from small integers (exact ties) or floats."""
    ints = st.lists(st.integers(-3, 3), min_size=d, max_size=d).filter(any)
    flts = st.lists(st.floats(-1, 1, width=32), min_size=d, max_size=d).filter(
        lambda v: max(map(abs, v)) > 1e-3)
    row = st.one_of(ints, flts)
    return st.lists(row, min_size=n, max_size=n).map(
        lambda rows: kernels.normalize_rows(np.array(rows, np.float32)))


@st.composite
def pairs(draw):
    d = draw(DIMS)
    return draw(unit_rows(2, d))


@given(pairs())
def test_dot_matches_naive(m):
    assert kernels.dot(m[0], m[1]) == similarity(m[0], m[1])
    assert kernels.dot(m[0], m[1]) == kernels.dot(m[1], m[0])


@st.composite
def slot_caches(draw):
    """A query and a slot cache with free slots, duplicate vectors and equal admissions."""
    d = draw(DIMS)
    n = draw(st.integers(1, 12))
    pool = draw(unit_rows(draw(st.integers(1, 4)), d))
    vecs = np.array([pool[draw(st.integers(0, len(pool) - 1))] for _ in range(n)])
    q = draw(st.one_of(st.just(pool[0]), unit_rows(1, d).map(lambda r: r[0])))
    occupied = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    keys = draw(st.permutations(range(n)))
    adm = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))  # repeats: key decides
    slot_key = np.array([k if o else -1 for k, o in zip(keys, occupied)], np.int64)
    return q, np.ascontiguousarray(vecs.T), slot_key, np.array(adm, np.int64)


@given(slot_caches())
def test_similarities_match_naive(c):
    q, vec_t, slot_key, _ = c
    n = vec_t.shape[1]
    out = np.full(n + 2, -7.0, np.float32)
    kernels.similarities(q, vec_t, n, out)
    assert out.tolist()[:n] == [similarity(q, vec_t[:, s]) for s in range(n)]
    assert out[n:].tolist() == [-7.0, -7.0]  # only the first n are written


@given(slot_caches(), st.data())
def test_similarities4_match_naive(c, data):
    _, vec_t, _, _ = c
    d, n = vec_t.shape
    qs = data.draw(unit_rows(4, d))
    out = np.full((4, n + 2), -7.0, np.float32)
    kernels.similarities4(qs, vec_t, n, out)
    for b in range(4):
        assert out[b].tolist()[:n] == [similarity(qs[b], vec_t[:, s]) for s in range(n)]
        assert out[b, n:].tolist() == [-7.0, -7.0]  # nothing written past column n


@given(slot_caches(), st.data())
def test_block_start_matches_naive(c, data):
    _, vec_t, _, _ = c
    d, n = vec_t.shape
    t = data.draw(st.integers(0, 2))
    queries, items = data.draw(unit_rows(t + 4, d)), data.draw(unit_rows(t + 4, d))
    sims = np.full((4, n + 1), -7.0, np.float32)
    cross = np.full((4, 4), -7.0, np.float32)
    kernels.block_start(queries, items, t, vec_t, n, sims, cross)
    for b in range(4):
        assert sims[b, :n].tolist() == [similarity(queries[t + b], vec_t[:, s])
                                        for s in range(n)]
        assert cross[b, :b].tolist() == [similarity(queries[t + b], items[t + c])
                                         for c in range(b)]
    assert sims[:, n].tolist() == [-7.0] * 4


def test_block_row_patches_the_slots_the_block_filled_and_still_holds():
    # A block from step 10.  Step 10 admits key 5 into slot 2; step 11 admits key 7 into
    # slot 2, evicting key 5; step 12 admits key 5 again, into slot 1.
    sims = np.arange(16, dtype=np.float32).reshape(4, 4)
    cross = np.zeros((4, 4), np.float32)
    cross[1, 0] = 0.5
    cross[2, :2] = [0.25, 0.375]
    cross[3, :3] = [0.625, 0.75, 0.125]
    out_adm = np.full(14, -1, np.int64)
    out_adm[10:13] = [5, 7, 5]
    key_slot = np.full(8, -1, np.int64)
    assert kernels.block_row(0, 10, sims, cross, out_adm, key_slot).tolist() == [0, 1, 2, 3]
    key_slot[5] = 2  # after step 10
    assert kernels.block_row(1, 10, sims, cross, out_adm, key_slot).tolist() == [4, 5, 0.5, 7]
    key_slot[5], key_slot[7] = -1, 2  # after step 11
    assert kernels.block_row(2, 10, sims, cross, out_adm, key_slot).tolist() == [
        8, 9, 0.375, 11]
    key_slot[5] = 1  # after step 12: the later admission of key 5 wins
    assert kernels.block_row(3, 10, sims, cross, out_adm, key_slot).tolist() == [
        12, 0.125, 0.75, 15]


@given(slot_caches(), st.integers(1, 6))
@example((np.array([1, 0], np.float32), np.array([[1, 1, 1], [0, 0, 0]], np.float32),
          np.array([2, 0, 1]), np.array([0, 0, 0])), 2)
def test_retrieve_matches_naive(c, k):
    q, vec_t, slot_key, slot_adm = c
    n = vec_t.shape[1]
    sims = np.empty(n, np.float32)
    out_slot = np.empty(k, np.int64)
    out_sim = np.empty(k, np.float64)
    cache = {int(slot_key[s]): Item(int(slot_key[s]), vec_t[:, s].tolist(), -1,
                                    int(slot_adm[s])) for s in range(n) if slot_key[s] >= 0}
    want = retrieve(q, cache, k)
    # the dense path (a start threshold from chunk maxima) only when no slot is empty
    for dense in (False, True) if (slot_key >= 0).all() else (False,):
        got = kernels.retrieve(q, vec_t, slot_key, slot_adm, n, k, sims, out_slot, out_sim,
                               dense)
        assert got == len(want)
        assert [int(slot_key[s]) for s in out_slot[:got]] == [key for key, _ in want]
        assert out_sim[:got].tolist() == [sim for _, sim in want]


@given(st.lists(st.sampled_from([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0]), min_size=1, max_size=40),
       st.integers(1, 8))
@example([0.5, 0.5, 0.5, 0.1], 3)  # a tie at the k-th place
@example([1.0, 0.0], 3)  # fewer entries than k
def test_kth_lower_bound_is_reached_by_k_entries(values, k):
    sims = np.array(values, np.float32)
    t = kernels.kth_lower_bound(sims, len(values), k)
    if len(values) < k:
        assert t == -np.inf
    else:
        assert (sims >= t).sum() >= k
        assert t >= sims.min()  # and it is one of the entries, not a loose constant
        assert t in sims


@given(st.integers(-1, 3), st.integers(-1, 3), st.lists(st.integers(0, 5), max_size=4),
       st.integers(0, 5), st.booleans())
def test_is_relevant(topic, a_t, evidence, key, has_ev):
    ev = np.array([9] + evidence + [9], np.int64)  # the step's slice excludes the 9s
    got = kernels.is_relevant(key, topic, a_t, has_ev, ev, 1, 1 + len(evidence))
    assert got == ((a_t >= 0 and topic == a_t) or (has_ev and key in evidence))


@given(st.integers(0, 4), st.integers(0, 4), st.integers(1, 4),
       st.floats(-2, 2), st.sampled_from(sorted(kernels.QUALITY_CODES)))
def test_quality_of(n_rel, n_ret, k, top_sim, quality):
    n_ret = max(n_ret, n_rel)
    got = kernels.quality_of(n_rel, n_ret, k, top_sim, kernels.QUALITY_CODES[quality])
    assert tuple(got) == quality_of(quality, n_rel, n_ret, k, top_sim)


@given(st.integers(1, 6).flatmap(lambda n: DIMS.flatmap(lambda d: st.lists(
    st.lists(st.floats(-1e3, 1e3, width=32), min_size=d, max_size=d).filter(
        lambda v: max(map(abs, v)) > 1e-6), min_size=n, max_size=n))))
@example([[0.6, 0.8], [3.0, 4.0], [1.0, 0.0]])
def test_normalize_rows(rows):
    x = np.array(rows, np.float32)
    y = kernels.normalize_rows(x)
    assert y.dtype == np.float32 and y.shape == x.shape
    for i in range(x.shape[0]):  # the naive twin of the docstring
        assert y[i].tolist() == naive_normalize(x[i].tolist())
    norms = np.sqrt((y.astype(np.float64) ** 2).sum(axis=1))
    assert np.allclose(norms, 1.0, rtol=0, atol=1e-6)
    assert np.array_equal(kernels.normalize_rows(y), y)  # idempotent, exactly
    assert ((np.sign(y) == np.sign(x)) | (y == 0)).all()  # tiny coordinates may underflow


def naive_normalize(row):
    """Float64 norm summed in index order; a row within 1e-6 of unit norm is kept."""
    acc = 0.0
    for v in row:
        acc += v * v
    norm = math.sqrt(acc)
    if abs(norm - 1.0) <= 1e-6:
        norm = 1.0
    return [f32(v / norm) for v in row]
