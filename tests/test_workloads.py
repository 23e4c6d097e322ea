"""Workloads: determinism by seed, parameter validation, and sanity of their statistics."""

import numpy as np
import pytest

import workloads
from simulator.errors import InputError
from simulator.trace import PagingTrace, Trace

# Small instances so every registered workload is exercised quickly; a workload not listed
# here runs with its defaults.
SMALL = {"clusters": {"steps": 300, "dim": 16}, "zipf_paging": {"steps": 3000, "objects": 200},
         "locomo": {"max_turns": 30}}


def _arrays(trace):
    if isinstance(trace, PagingTrace):
        return {"requests": trace.object_ids[trace.requests]}
    return trace.arrays()


@pytest.mark.parametrize("name", workloads.available())
def test_same_seed_same_trace_other_seed_other_trace(name):
    w = workloads.get(name)
    a, b = (w.generate(SMALL.get(name), seed=7) for _ in range(2))
    c = w.generate(SMALL.get(name), seed=8)
    assert isinstance(a, (Trace, PagingTrace))
    for key, arr in _arrays(a).items():
        np.testing.assert_array_equal(arr, _arrays(b)[key], err_msg=key)
    assert any(not np.array_equal(arr, _arrays(c)[key]) for key, arr in _arrays(a).items())


@pytest.mark.parametrize("name", workloads.available())
def test_unknown_parameter_lists_the_valid_ones(name):
    w = workloads.get(name)
    with pytest.raises(InputError) as err:
        w.generate({"no_such_param": 1})
    message = str(err.value)
    assert "no_such_param" in message and name in message
    for valid in w.params:
        assert valid in message


@pytest.mark.parametrize("name", workloads.available())
def test_registry_entries_are_documented(name):
    w = workloads.get(name)
    assert w.name == name and w.summary and isinstance(w.params, dict)


def test_unknown_workload_lists_the_valid_ones():
    with pytest.raises(InputError, match="unknown workload 'nope'; valid workloads: .*clusters"):
        workloads.get("nope")


@pytest.mark.parametrize("name, params, word", [
    ("clusters", {"steps": 0}, "steps"),
    ("clusters", {"topics": 0}, "topics"),
    ("clusters", {"dim": 0}, "dim"),
    ("clusters", {"item_noise": -0.1}, "item_noise"),
    ("clusters", {"query_noise": -1}, "query_noise"),
    ("clusters", {"zipf": -1}, "zipf"),
    ("clusters", {"steps": "1.5"}, "steps"),
    ("clusters", {"dim": "many"}, "dim"),
    ("clusters", {"item_noise": "nan"}, "item_noise"),
    ("zipf_paging", {"steps": 0}, "steps"),
    ("zipf_paging", {"objects": 0}, "objects"),
    ("zipf_paging", {"alpha": -0.5}, "alpha"),
])
def test_bad_parameter_values_are_input_errors(name, params, word):
    with pytest.raises(InputError, match=word):
        workloads.get(name).generate(params)


def test_string_parameters_are_coerced():
    tr = workloads.get("clusters").generate({"steps": "40", "dim": "8", "zipf": "1.2"}, seed=0)
    assert (tr.steps, tr.dim) == (40, 8)


def test_clusters_shapes_and_metadata():
    p = {"steps": 500, "topics": 7, "dim": 24}
    tr = workloads.get("clusters").generate(p, seed=3)
    assert tr.queries.shape == tr.items.shape == (500, 24)
    assert tr.queries.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(tr.items, axis=1), 1.0, atol=1e-6)
    assert set(np.unique(tr.query_topics)) <= set(range(7))
    assert set(np.unique(tr.item_topics)) <= set(range(7))
    assert tr.scored.all() and (tr.weights == 1).all() and not tr.has_evidence
    assert tr.meta["workload"] == "clusters" and tr.meta["seed"] == 3
    assert tr.meta["params"]["topics"] == 7


def test_clusters_same_topic_items_are_closer_than_cross_topic_items():
    tr = workloads.get("clusters").generate({"steps": 600, "dim": 64}, seed=1)
    x = tr.items.astype(np.float64)
    cos = x @ x.T
    same = tr.item_topics[:, None] == tr.item_topics[None, :]
    off_diagonal = ~np.eye(tr.steps, dtype=bool)
    within = cos[same & off_diagonal].mean()
    across = cos[~same].mean()
    assert within > across + 0.2
    # queries sit nearer their own topic's items than other topics' items
    qx = tr.queries.astype(np.float64) @ x.T
    own = tr.query_topics[:, None] == tr.item_topics[None, :]
    assert qx[own].mean() > qx[~own].mean() + 0.2


def test_clusters_zipf_skews_topics_and_zero_is_uniform():
    w = workloads.get("clusters")
    skewed = w.generate({"steps": 4000, "dim": 4, "zipf": 1.5}, seed=0)
    counts = np.bincount(skewed.query_topics, minlength=10)
    assert counts[0] > counts[1] > counts[9]
    flat = w.generate({"steps": 4000, "dim": 4, "zipf": 0.0}, seed=0)
    counts = np.bincount(flat.query_topics, minlength=10)
    assert counts.min() > 0.7 * 400 and counts.max() < 1.3 * 400


def test_query_and_item_topics_are_drawn_independently():
    tr = workloads.get("clusters").generate({"steps": 4000, "dim": 4}, seed=2)
    agree = (tr.query_topics == tr.item_topics).mean()
    assert 0.05 < agree < 0.15  # 1/topics for independent uniform draws


def test_zipf_paging_popularity_falls_with_rank():
    tr = workloads.get("zipf_paging").generate({"steps": 50000, "objects": 100, "alpha": 1.0},
                                               seed=0)
    ids = tr.object_ids[tr.requests]
    assert ids.min() >= 0 and ids.max() < 100
    counts = np.bincount(ids, minlength=100)
    assert counts[0] > counts[1] > counts[10] > counts[99]
    # P(0) / P(1) = 2 for alpha = 1
    assert 1.7 < counts[0] / counts[1] < 2.3
    assert tr.meta["workload"] == "zipf_paging"


def test_generators_orthonormalise_without_lapack():
    # workloads sum in numpy's fixed order, not BLAS's CPU-dependent one: the frame is QR's
    from workloads.data import topic_space as ts

    a = np.random.default_rng(0).standard_normal((41, 128))
    q = ts.orthonormal_rows(a)
    assert np.allclose(q @ q.T, np.eye(41), atol=1e-12)
    ref, r = np.linalg.qr(a.T)
    assert np.allclose(q, (ref * np.sign(np.diag(r))).T, atol=1e-12)
    assert np.allclose(ts.row_dots(a, a[0]), a @ a[0], rtol=1e-12)


def test_reported_statistics_never_print_negative_zero():
    from workloads.data import topic_space as ts

    assert str(ts._round(-1e-18)) == "0.0" and ts._round(None) is None
    stats = ts.trace_statistics(workloads.get("adversarial").generate(
        {"adversary": "missing_topic"}, 0))
    assert "-0.0" not in repr(stats)
