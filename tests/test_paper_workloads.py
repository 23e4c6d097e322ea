"""The paper's workloads (docs/model.md §3): shapes, seeds, parameter checks, statistics."""

import json

import numpy as np
import pytest

import workloads
from simulator.cli import main
from simulator.errors import InputError
from simulator.runner import run
from workloads.data import item_sizes
from workloads.drift import active_sets
from workloads.data.topic_space import round_robin_keys, trace_statistics

# Small instances so the whole file stays fast.
SMALL = {
    "cycling": {"topics": 6, "items_per_topic": 3, "steps": 60, "dim": 32},
    "working_set": {"topics": 5, "items_per_topic": 4, "steps": 120, "dim": 32},
    "noise_pool": {"topics": 8, "items_per_topic": 10, "queries": 40, "dim": 32},
    "drift": {"topics": 12, "active": 4, "overlap": 1, "phases": 3, "phase_length": 40,
              "dim": 32},
    "stationary": {"items": 10, "steps": 200, "dim": 16},
}
PAPER = list(SMALL)
# Other registered workloads, small, for the registry-wide tests of this file.
OTHERS = {"locomo": {"max_turns": 30}}

BAD = [
    ("cycling", {"topics": 0}, "topics"),
    ("cycling", {"steps": 0}, "steps"),
    ("cycling", {"items_per_topic": 0}, "items_per_topic"),
    ("cycling", {"dwell": 0}, "dwell"),
    ("cycling", {"preset": "loose"}, "preset"),
    ("cycling", {"item_noise": -0.1}, "item_noise"),
    ("cycling", {"query_noise": "x"}, "query_noise"),
    ("working_set", {"zipf": -1}, "zipf"),
    ("working_set", {"steps": 2.5}, "steps"),
    ("working_set", {"dim": 0}, "dim"),
    ("noise_pool", {"mode": "thawed"}, "mode"),
    ("noise_pool", {"separation": 0}, "separation"),
    ("noise_pool", {"separation": 1.5}, "separation"),
    ("noise_pool", {"pool": 0}, "pool"),
    ("noise_pool", {"pool": 5001}, "pool"),
    ("noise_pool", {"relevant": 101}, "relevant"),
    ("noise_pool", {"queries": 0}, "queries"),
    ("drift", {"overlap": 5}, "overlap"),
    ("drift", {"overlap": -1}, "overlap"),
    ("drift", {"topics": 24}, "topics"),
    ("drift", {"phase_length": 0}, "phase_length"),
    ("drift", {"active": 0}, "active"),
    ("stationary", {"p_max": 1.5}, "p_max"),
    ("stationary", {"p_min": -0.1}, "p_min"),
    ("stationary", {"p_min": 0.5, "p_max": 0.4}, "p_max"),
    ("stationary", {"items": 100, "steps": 50}, "steps"),
]


def _gen(name, seed=0, **extra):
    return workloads.get(name).generate({**SMALL[name], **extra}, seed=seed)


# --- every paper workload -------------------------------------------------------------------

@pytest.mark.parametrize("name", PAPER)
def test_shapes_dtypes_and_metadata(name):
    tr = _gen(name, seed=3)
    T, d = tr.steps, tr.dim
    assert d == SMALL[name]["dim"]
    assert tr.queries.shape == tr.items.shape == (T, d)
    assert tr.queries.dtype == tr.items.dtype == np.float32
    for arr in (tr.query_topics, tr.item_topics, tr.item_keys):
        assert arr.dtype == np.int64 and arr.shape == (T,)
    assert tr.weights.dtype == np.float64 and tr.scored.dtype == np.bool_
    np.testing.assert_allclose(np.linalg.norm(tr.queries, axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(tr.items, axis=1), 1.0, atol=1e-6)
    # equal keys are the same item: same vector, same topic
    _, first, inverse = np.unique(tr.item_keys, return_index=True, return_inverse=True)
    np.testing.assert_array_equal(tr.items, tr.items[first][inverse.ravel()])
    np.testing.assert_array_equal(tr.item_topics, tr.item_topics[first][inverse.ravel()])
    assert tr.meta["workload"] == name and tr.meta["seed"] == 3
    resolved = workloads.get(name).resolve_params(SMALL[name])
    # unsized, the size parameters are left out, so the trace is as it was before them
    assert resolved["sizes"] == "none"
    assert tr.meta["params"] == {k: v for k, v in resolved.items() if k not in item_sizes.PARAMS}


@pytest.mark.parametrize("name", PAPER)
def test_same_seed_same_arrays_other_seed_other_arrays(name):
    a, b, c = _gen(name, seed=5), _gen(name, seed=5), _gen(name, seed=6)
    for key, arr in a.arrays().items():
        np.testing.assert_array_equal(arr, b.arrays()[key], err_msg=key)
    assert not np.array_equal(a.queries, c.queries)
    assert not np.array_equal(a.items, c.items)


@pytest.mark.parametrize("name", PAPER)
def test_unknown_parameter_lists_the_valid_ones(name):
    w = workloads.get(name)
    with pytest.raises(InputError) as err:
        w.generate({"colour": "red"})
    assert "colour" in str(err.value)
    for valid in w.params:
        assert valid in str(err.value)


@pytest.mark.parametrize("name, params, word", BAD)
def test_bad_parameter_values_name_the_parameter(name, params, word):
    with pytest.raises(InputError, match=f"'{word}'"):
        workloads.get(name).generate(params)


def test_round_robin_keys_cycle_through_each_topics_pool():
    keys = round_robin_keys(np.array([1, 0, 1, 1, 0, 1]), per_topic=2)
    assert keys.tolist() == [2, 0, 3, 2, 1, 3]


# --- cycling --------------------------------------------------------------------------------

def test_cycling_strict_round_robin_order_and_pool():
    m, per, steps = 7, 3, 50
    tr = workloads.get("cycling").generate(
        {"topics": m, "items_per_topic": per, "steps": steps, "dim": 16}, seed=0)
    t = np.arange(steps)
    np.testing.assert_array_equal(tr.query_topics, t % m)
    np.testing.assert_array_equal(tr.item_topics, t % m)
    assert tr.scored.all() and (tr.weights == 1).all() and not tr.has_evidence
    # the n-th arrival of a topic is its pool item n mod per; the pool is m·per items
    assert tr.n_keys == m * per
    np.testing.assert_array_equal(tr.item_keys[m * per:], tr.item_keys[:steps - m * per])
    for a in range(m):
        seen = tr.item_keys[tr.item_topics == a]
        assert len(set(seen[:per].tolist())) == per
        np.testing.assert_array_equal(seen[per:], seen[:seen.size - per])


def test_cycling_dwell_keeps_a_topic_for_dwell_steps():
    tr = workloads.get("cycling").generate({"topics": 4, "dwell": 3, "steps": 30, "dim": 8},
                                           seed=0)
    np.testing.assert_array_equal(tr.query_topics, (np.arange(30) // 3) % 4)


@pytest.mark.parametrize("m", [15, 20, 30, 50])
def test_cycling_fifo_hits_nothing_after_the_first_cycle_when_m_exceeds_k(m):
    # Table 8: K = 10, m / K ∈ {1.5, 2, 3, 5}; FIFO holds the K topics before the current one
    tr = workloads.get("cycling").generate({"topics": m, "steps": 10 * m}, seed=m)
    r = run(tr, "fifo", capacity=10, top_k=3)
    assert r.hit[m:].sum() == 0 and r.hit[:m].sum() == 0
    assert r.summary()["hit_rate"] == 0.0


@pytest.mark.parametrize("per", [1, 5])
def test_cycling_fifo_hits_every_step_after_the_first_cycle_when_m_fits(per):
    m = 10  # m / K = 1
    tr = workloads.get("cycling").generate({"topics": m, "steps": 10 * m,
                                            "items_per_topic": per}, seed=1)
    r = run(tr, "fifo", capacity=10, top_k=3)
    assert r.hit[m:].mean() == 1.0 and r.hit[:m].sum() == 0


def test_cycling_presets_give_the_documented_cosines():
    paper = trace_statistics(workloads.get("cycling").generate({}, seed=0))
    # at d = 128 with σ = 0.1 / 0.05: 1 / (1 + 1.28) ≈ 0.44 and ≈ 0.58
    assert abs(paper["same_topic_item_cosine_mean"] - 0.44) < 0.02
    assert abs(paper["query_own_topic_item_cosine_mean"] - 0.577) < 0.02
    assert abs(paper["cross_topic_item_cosine_mean"]) < 0.03
    assert (paper["item_noise"], paper["query_noise"]) == (0.1, 0.05)
    # the published rejection (centre cosine < 0.5) never binds at d = 128
    assert paper["centre_cosine_max"] < 0.5
    compact = trace_statistics(workloads.get("cycling").generate({"preset": "compact"}, seed=0))
    assert abs(compact["same_topic_item_cosine_mean"] - 0.9) < 0.01
    assert abs(compact["query_own_topic_item_cosine_mean"] - 0.935) < 0.01
    explicit = workloads.get("cycling").generate({"preset": "compact", "item_noise": 0.1},
                                                 seed=0)
    assert explicit.meta["item_noise"] == 0.1


# --- working_set ----------------------------------------------------------------------------

def test_working_set_defaults_are_table_9():
    tr = workloads.get("working_set").generate({}, seed=0)
    assert (tr.steps, tr.dim) == (500, 128)
    assert tr.n_keys <= 150 and set(np.unique(tr.item_topics)) <= set(range(15))
    np.testing.assert_array_equal(tr.query_topics, tr.item_topics)
    counts = np.bincount(tr.query_topics, minlength=15)
    assert counts.min() > 0.5 * 500 / 15 and counts.max() < 1.5 * 500 / 15
    for a in range(15):  # round-robin within each topic's pool of 10
        seen = tr.item_keys[tr.item_topics == a]
        assert len(set(seen[:10].tolist())) == min(10, seen.size)
        np.testing.assert_array_equal(seen[10:], seen[:max(seen.size - 10, 0)])


def test_working_set_zipf_skews_topics():
    tr = workloads.get("working_set").generate({"steps": 3000, "zipf": 1.2, "dim": 8}, seed=0)
    counts = np.bincount(tr.query_topics, minlength=15)
    assert counts[0] > counts[1] > counts[5] > counts[14]


# --- noise_pool -----------------------------------------------------------------------------

def test_noise_pool_centres_are_at_cosine_distance_0_30():
    tr = workloads.get("noise_pool").generate({}, seed=0)
    centres = tr.meta["centre_cosine"]
    # built exactly (orthonormal parts, 50 topics < d = 128)
    assert abs(centres["min"] - 0.70) < 1e-9 and abs(centres["max"] - 0.70) < 1e-9
    stats = trace_statistics(tr)
    # Measured from the items alone: cross / same-topic mean cosine estimates the centre
    # cosine; over 20 seeds of the default 5000-item pool its sd is 0.0016, so ± 0.01 is 6 sd.
    assert abs(stats["centre_cosine_estimate"] - 0.70) < 0.01
    assert abs(stats["same_topic_item_cosine_mean"] - 1 / (1 + 128 * 0.15 ** 2)) < 0.01
    assert stats["query_own_topic_item_cosine_mean"] > stats["query_other_topic_item_cosine_mean"]
    assert (stats["items"], stats["topics"], stats["scored_steps"]) == (5000, 50, 1000)


def test_noise_pool_centre_cosine_follows_separation_also_when_topics_exceed_dim():
    w = workloads.get("noise_pool")
    far = w.generate({**SMALL["noise_pool"], "separation": 0.6}, seed=0)
    assert abs(far.meta["centre_cosine"]["mean"] - 0.4) < 1e-9
    many = w.generate({"topics": 40, "items_per_topic": 2, "queries": 5, "dim": 16}, seed=0)
    assert abs(many.meta["centre_cosine"]["mean"] - 0.7) < 0.03


def test_noise_pool_stream_mode_streams_the_pool_then_scores_queries():
    p = SMALL["noise_pool"]
    n, q = p["topics"] * p["items_per_topic"], p["queries"]
    tr = workloads.get("noise_pool").generate(p, seed=1)
    assert tr.steps == n + q and tr.n_keys == n
    assert sorted(tr.item_keys[:n].tolist()) == list(range(n))
    assert not tr.scored[:n].any() and tr.scored[n:].all()
    assert (tr.weights == 1).all()
    np.testing.assert_array_equal(tr.query_topics[:n], tr.item_topics[:n])  # topic-aligned
    assert (tr.item_keys[n:] == tr.item_keys[n - 1]).all()  # no new item after the stream


def test_noise_pool_frozen_mode_prefills_exactly_the_pool():
    pool = 12
    tr = workloads.get("noise_pool").generate({**SMALL["noise_pool"], "mode": "frozen",
                                               "pool": pool}, seed=2)
    q = SMALL["noise_pool"]["queries"]
    assert tr.steps == pool + q and tr.n_keys == pool
    assert not tr.scored[:pool].any() and tr.scored[pool:].all()
    assert (tr.weights[:pool] == 0).all() and (tr.weights[pool:] == 1).all()
    assert (tr.item_keys[pool:] == tr.item_keys[pool - 1]).all()
    # an always-admit policy with K = pool admits the pool, then the cache never changes,
    # and it answers exactly like the unbounded reference
    r = run(tr, "fifo", capacity=pool, top_k=3)
    s = r.summary()
    assert (s["admissions"], s["evictions"], s["modifications"]) == (pool, 0, pool)
    assert (r.size[pool - 1:] == pool).all()
    np.testing.assert_array_equal(r.hit, run(tr, "unlimited", top_k=3).hit)


@pytest.mark.parametrize("mode", ["stream", "frozen"])
def test_noise_pool_relevant_items_are_evidence_from_the_query_topic(mode):
    p = {**SMALL["noise_pool"], "mode": mode, "relevant": 3, "pool": 30}
    tr = workloads.get("noise_pool").generate(p, seed=4)
    assert tr.has_evidence and (tr.query_topics == -1).all()
    latent = np.asarray(tr.meta["query_topic"])
    key_topic = np.full(tr.n_keys, -1)
    key_topic[tr.item_keys] = tr.item_topics
    counts = np.diff(tr.evidence_indptr)
    for t in range(tr.steps):
        listed = tr.evidence_indices[tr.evidence_indptr[t]:tr.evidence_indptr[t + 1]]
        assert len(set(listed.tolist())) == listed.size <= 3
        assert (key_topic[listed] == latent[t]).all()
    if mode == "stream":
        assert (counts == 3).all()  # every pool item arrives, so nothing is filtered out
    else:
        # 40 queries list up to 120 items, more than the pool of 30: the pool is a subset of
        # the listed items (the published rule), so every pool item is some query's evidence
        listed = set(tr.evidence_indices[tr.evidence_indptr[30]:].tolist())
        assert listed == set(range(tr.n_keys))


# --- drift ----------------------------------------------------------------------------------

def test_drift_phases_use_their_active_sets_with_the_given_overlap():
    tr = workloads.get("drift").generate({}, seed=0)
    sets = tr.meta["active_sets"]
    assert sets == active_sets(6, 5, 1) and tr.meta["phase_starts"] == [0, 100, 200, 300, 400,
                                                                          500]
    assert tr.steps == 600
    for p in range(6):
        seen = set(tr.query_topics[100 * p:100 * (p + 1)].tolist())
        assert seen == set(sets[p])  # every active topic appears, nothing else
        if p:
            assert len(set(sets[p]) & set(sets[p - 1])) == 1
    np.testing.assert_array_equal(tr.query_topics, tr.item_topics)
    assert tr.n_keys <= 25 * 8


def test_drift_overlap_zero_gives_disjoint_phases():
    sets = workloads.get("drift").generate({"overlap": 0, "dim": 8}, seed=0).meta["active_sets"]
    for a, b in zip(sets, sets[1:]):
        assert not set(a) & set(b)


# --- stationary -----------------------------------------------------------------------------

def test_stationary_relevance_frequencies_match_the_latent_utilities():
    n, steps = 20, 8000
    tr = workloads.get("stationary").generate({"items": n, "steps": steps, "p_min": 0.0,
                                               "p_max": 0.9, "dim": 8}, seed=0)
    p = np.array(tr.meta["utilities"])
    assert p.shape == (n,) and (p >= 0).all() and (p <= 0.9).all()
    freq = np.bincount(tr.evidence_indices, minlength=n) / steps
    se = np.sqrt(p * (1 - p) / steps)
    assert (np.abs(freq - p) <= 5 * se + 1e-12).all()  # 5 standard errors, per item
    assert (tr.query_topics == -1).all() and (tr.item_topics == -1).all()
    assert tr.item_keys[:n].tolist() == list(range(n))  # keys are the utilities' indices
    for b in range(1, steps // n):
        assert sorted(tr.item_keys[b * n:(b + 1) * n].tolist()) == list(range(n))


def test_stationary_hit_is_nonempty_evidence_once_every_item_is_cached():
    n = 10
    tr = workloads.get("stationary").generate({"items": n, "steps": 400, "dim": 8}, seed=1)
    r = run(tr, "fifo", capacity=n, top_k=n)
    nonempty = np.diff(tr.evidence_indptr) > 0
    np.testing.assert_array_equal(r.hit[n:].astype(bool), nonempty[n:])


# --- semcache workload show -----------------------------------------------------------------

def _show(capsys, argv):
    code = main(["workload", "show", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("name", workloads.available())
def test_workload_show_json_for_every_registered_workload(capsys, name):
    small = {**SMALL, **OTHERS}.get(name)
    params = [f"--param={k}={v}" for k, v in (small or {}).items()]
    code, out, err = _show(capsys, [name, *params, "--seed", "2", "--json"])
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["workload"]["name"] == name and doc["workload"]["seed"] == 2
    assert doc["workload"]["params"] == workloads.get(name).resolve_params(small)
    stats = doc["statistics"]
    assert stats["steps"] == doc["workload"]["steps"]
    if stats["mode"] == "semantic":
        for key in ("dim", "items", "same_topic_item_cosine_mean", "same_topic_item_cosine_min",
                    "cross_topic_item_cosine_mean", "centre_cosine_estimate",
                    "query_own_topic_item_cosine_mean"):
            assert key in stats


def test_workload_show_text_and_errors(capsys):
    code, out, err = _show(capsys, ["cycling", "--param", "topics=4", "--param", "steps=8",
                                    "--param", "dim=8"])
    assert code == 0 and err == ""
    assert "topics=4" in out and "same_topic_item_cosine_mean" in out
    code, out, err = _show(capsys, ["cycling", "--param", "colour=red"])
    assert code == 2 and out == "" and "colour" in err and "topics" in err
    code, out, err = _show(capsys, ["nope"])
    assert code == 2 and "nope" in err
