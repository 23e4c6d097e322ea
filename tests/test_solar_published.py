"""The SOLAR authors' published traces: import, CLI, and the ``*_ref`` policies against the
authors' runner loop.

:class:`Loop` replays ``synthetic_workloads/runners.py`` (ysunbp/SOLAR) as we read it, written
from that reading and not from our policies: an insertion-ordered dict cache; each step
retrieves the top 3 from the cache as it is, scores by the query's relevant ids, updates
statistics, then offers the step's item.  Its random draws use our stream (SplitMix64 with
the ``authors_thompson`` salt) in the runner's order, so the seeded policies must agree exactly
too.  Similarities are exact float32 index-order sums, as the engine's.

Tests on the authors' files skip when the folder is absent; a small folder in their format
(:mod:`solar_folders`) covers the same code in CI.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from helpers import datasets
from helpers.solar_folders import write_variant
from simulator.cli import main
from simulator.errors import InputError
from simulator.runner import run
from simulator.testing import SplitMix64
from simulator.trace_formats import load, save
from workloads import solar_published
from workloads.solar_published import import_variant

needs_shared = pytest.mark.data("solar-synthetic")
OURS = {"fifo": "fifo", "lru": "lru_ref", "lfu": "lfu", "arc": "arc_ref",
        "solar_e": "solar_e_ref", "solar_a": "solar_a_ref", "solar": "solar_ref"}


# --------------------------------------------------------------------------- the fixture

@pytest.fixture(scope="module")
def fixture_dir(tmp_path_factory):
    return write_variant(tmp_path_factory.mktemp("solar") / "fixture" / "v" / "seed7", seed=7)


def stream_ids(folder):
    return [json.loads(line)["streamed_item_id"] for line in open(folder / "stream.jsonl")]


def check_import(folder, T, dim):
    tr = import_variant(folder)
    ids = stream_ids(folder)[:T]
    assert (tr.steps, tr.dim) == (T, dim)
    assert tr.n_keys == len(set(ids))
    pairs = set(zip(ids, tr.item_keys.tolist()))  # same id <=> same key
    assert len(pairs) == len(set(ids)) == len(set(tr.item_keys.tolist()))
    assert tr.has_evidence and tr.meta["relevance"].startswith("topic and evidence")
    assert (tr.query_topics >= 0).all() and (tr.item_topics >= 0).all()
    return tr


def test_fixture_imports(fixture_dir, tmp_path):
    tr = check_import(fixture_dir, 80, 16)
    assert tr.n_keys < tr.steps  # items re-arrive
    assert tr.meta["authors_meta"]["workload_type"] == "fixture"
    save(tr, tmp_path / "f.npz")
    back = load(tmp_path / "f.npz")
    for name, arr in tr.arrays().items():
        assert np.array_equal(getattr(back, name), arr), name


@pytest.mark.parametrize("change, message", [
    ({"drop": "stream.jsonl"}, "has no stream.jsonl"),
    ({"drop": "embeddings.npz"}, "has no embeddings.npz"),
    ({"has_prefill": True}, "prefill"),
])
def test_bad_folders_are_one_line_errors(tmp_path, change, message):
    folder = write_variant(tmp_path / "v", **change)
    with pytest.raises(InputError, match=message):
        import_variant(folder)


def test_malformed_files(tmp_path):
    folder = write_variant(tmp_path / "v", steps=10)
    lines = (folder / "queries.jsonl").read_text().splitlines()
    (folder / "queries.jsonl").write_text("\n".join(lines[1:] + lines[:1]) + "\n")
    with pytest.raises(InputError, match="timestep order"):
        import_variant(folder)
    folder = write_variant(tmp_path / "w", steps=10)
    (folder / "stream.jsonl").write_text('{"t": 0, "streamed_item_id": null}\n' * 10)
    with pytest.raises(InputError, match="stream.jsonl"):
        import_variant(folder)
    with pytest.raises(InputError, match="does not exist"):
        import_variant(tmp_path / "none")


def test_workload_root_and_errors(fixture_dir, monkeypatch, tmp_path):
    from workloads import get

    root = fixture_dir.parents[2]
    params = {"family": "cycling", "variant": "v", "trace_seed": 7, "root": str(root)}
    with pytest.raises(InputError, match="available: none"):
        get("solar_published").generate(params)
    (root / "cycling").symlink_to(root / "fixture")
    assert get("solar_published").generate(params).steps == 80
    monkeypatch.setenv(solar_published.ENV, str(root))
    assert get("solar_published").generate({**params, "root": ""}).steps == 80
    monkeypatch.setenv(solar_published.ENV, str(tmp_path / "nowhere"))
    with pytest.raises(InputError, match="SEMCACHE_SOLAR_DATA"):
        get("solar_published").generate({**params, "root": ""})
    with pytest.raises(InputError, match="family"):
        get("solar_published").generate({"family": "zipf"})


def test_cli_import_solar(fixture_dir, tmp_path, capsys):
    out = tmp_path / "t.npz"
    assert main(["trace", "import-solar", str(fixture_dir), "--out", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["steps"] == 80 and doc["dim"] == 16 and load(out).n_keys == doc["items"]
    assert main(["trace", "import-solar", str(tmp_path / "no"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("semcache: error: solar trace folder") and err.count("\n") == 1


# --------------------------------------------------------------------------- the authors' files

def shared_variants():
    """The authors' variants as their INDEX.json lists them, in a test that declares them."""
    return json.loads((datasets.path("solar-synthetic") / "INDEX.json").read_text())["variants"]


@needs_shared
def test_every_shared_variant_imports(tmp_path):
    variants = shared_variants()
    assert len(variants) == 21
    for v in variants:
        folder = datasets.path("solar-synthetic") / v["path"]
        tr = check_import(folder, v["n_queries"], v["embedding_dim"])
        assert v["n_stream_steps"] == tr.steps
        assert len(open(folder / "items.jsonl").readlines()) == v["n_items"] >= tr.n_keys
    save(tr, tmp_path / "last.npz")
    assert np.array_equal(load(tmp_path / "last.npz").item_keys, tr.item_keys)


# --------------------------------------------------------------------------- the runner loop

def f32_sims(a, b):
    """Exact float32 index-order cosines of every row of a with every row of b."""
    acc = np.zeros((len(a), len(b)), np.float32)
    for j in range(a.shape[1]):
        acc += np.outer(a[:, j], b[:, j])
    return acc.astype(np.float64)


def trace_sims(trace):
    """(query-item, item-item) similarities of ``trace``, items by key (first arrival)."""
    first = {}
    for t, key in enumerate(trace.item_keys.tolist()):
        first.setdefault(key, t)
    vecs = trace.items[[first[i] for i in range(trace.n_keys)]]
    return f32_sims(trace.queries, vecs), f32_sims(vecs, vecs)


class Entry:
    def __init__(self, t):
        self.inserted = self.last = t
        self.count = 0
        self.alpha, self.beta = 2.0, 1.0


class Loop:
    """runners.py's ``BaseRunner.step`` for one method (see the module docstring)."""

    def __init__(self, method, trace, K, seed, k=3, sims=None):
        self.method, self.K, self.k = method, K, k
        self.sq, self.si = sims or trace_sims(trace)
        self.rng = SplitMix64(seed, 0x52455454)
        self.cache: dict = {}
        self.t1, self.t2, self.b1, self.b2, self.p = {}, {}, {}, {}, 0.0  # ARC
        self.regret, self.tau, self.hist, self.L, self.seen = 0.0, math.sqrt(5.0), [], None, 0
        self.calls = 0

    def step(self, t, key, relevant):
        ids = list(self.cache)
        ranked = sorted(range(len(ids)), key=lambda i: (-self.sq[t, ids[i]], i))[:self.k]
        got = [ids[i] for i in ranked]
        self.retrieved(got, t)
        self.arrive(key, t)
        return int(bool(set(got) & relevant))

    def retrieved(self, got, t):
        for key in got:
            self.cache[key].last = t
            self.cache[key].count += 1
        if self.method == "arc":
            for key in got:
                self.t1.pop(key, None)
                self.t2.pop(key, None)
                self.t2[key] = True
        if self.method in ("solar_e", "solar"):
            for key in got:
                self.cache[key].alpha += 1
            self.calls += 1
            if self.calls % 5 == 0:
                for key, e in self.cache.items():
                    if key not in got:
                        e.beta += 0.05

    def arrive(self, key, t):
        if self.method == "arc":
            return self.arc_arrive(key, t)
        if self.method in ("solar_a", "solar") and not self.gate(key):
            return
        if key in self.cache:
            return
        if len(self.cache) >= self.K:
            del self.cache[self.victim(t)]
        self.cache[key] = Entry(t)

    def gate(self, key):
        self.seen += 1
        ig = 1.0
        if self.cache:
            sims = self.si[key, list(self.cache)]
            top = np.partition(sims, -min(5, len(sims)))[-min(5, len(sims)):]
            ig = max(0.6 * float(np.clip(1 - sims.max(), 0, 1))
                     - 0.4 * float(np.clip(np.mean(top), 0, 1)), 0.0)
        self.hist.append(ig)
        self.regret += ig
        if len(self.hist) >= 30:
            new = max(float(np.std(self.hist[-30:])) * 2, 0.1)
            self.L = new if self.L is None else 0.7 * self.L + 0.3 * new
            self.tau = float(np.clip(math.sqrt(10.0 / self.L), 0.1, 5.0))
        if len(self.cache) < min(max(self.K // 2, 5), 25) or self.regret > self.tau:
            self.regret = 0.0
            return True
        return False

    def victim(self, t):
        ids = list(self.cache)
        es = [self.cache[i] for i in ids]
        if self.method == "fifo":
            return ids[0]
        if self.method == "lru":
            return ids[int(np.argmin([e.last for e in es]))]
        if self.method == "lfu":
            return min(ids, key=lambda i: (self.cache[i].count, self.cache[i].inserted))
        sim = self.si[np.ix_(ids, ids)].copy()
        np.fill_diagonal(sim, -np.inf)
        n = len(ids)
        scores = []
        for j, e in enumerate(es):
            if self.method == "solar_a":
                div = float(np.clip(1 - sim[j].max(), 0, 1)) if n > 1 else 1.0
                scores.append(0.4 * math.exp(-(t - e.last) / 100.0)
                              + 0.3 * e.count / max(self.seen, 1) + 0.3 * div)
                continue
            theta = self.rng.beta(e.alpha, e.beta)
            nov = 0.5
            if n > 1:
                kn = min(3, n - 1)
                nov = float(np.clip(1 - np.mean(np.partition(sim[j], -kn)[-kn:]), 0, 1))
            scores.append(theta + 0.3 * nov)
        return ids[int(np.argmin(scores))]

    def arc_arrive(self, key, t):
        if key in self.cache:
            self.t1.pop(key, None)
            self.t2.pop(key, None)
            self.t2[key] = True
            return
        ghost = 1 if key in self.b1 else 2 if key in self.b2 else 0
        if ghost == 1:
            self.p = min(self.p + max(1.0, len(self.b2) / max(len(self.b1), 1)), self.K)
            del self.b1[key]
        elif ghost == 2:
            self.p = max(self.p - max(1.0, len(self.b1) / max(len(self.b2), 1)), 0.0)
            del self.b2[key]
        if len(self.cache) >= self.K:
            n1 = len(self.t1)
            if n1 and (n1 > self.p or (ghost == 2 and n1 == int(self.p))) or not self.t2:
                lst, ghosts = self.t1, self.b1
            else:
                lst, ghosts = self.t2, self.b2
            out = next(iter(lst))
            del lst[out], self.cache[out]
            ghosts[out] = True
            if len(ghosts) > self.K:
                del ghosts[next(iter(ghosts))]
        self.cache[key] = Entry(t)
        (self.t2 if ghost else self.t1)[key] = True


def loop_hits(method, trace, K, seed, sims=None):
    loop = Loop(method, trace, K, seed, sims=sims)
    ptr, idx = trace.evidence_indptr, trace.evidence_indices
    return np.array([loop.step(t, int(trace.item_keys[t]), set(idx[ptr[t]:ptr[t + 1]].tolist()))
                     for t in range(trace.steps)])


def compare(trace, K, seed):
    sims = trace_sims(trace)  # read, never written, by every method's loop
    for method, ours in OURS.items():
        got = run(trace, ours, capacity=K, top_k=3, seed=seed).hit
        want = loop_hits(method, trace, K, seed, sims)
        assert np.array_equal(got, want), \
            f"{ours} K={K} seed={seed}: {int(got.sum())} hits, the runner loop {int(want.sum())}"


@pytest.mark.parametrize("K", [3, 5, 8])
def test_ref_policies_equal_the_runner_loop_on_the_fixture(fixture_dir, K):
    compare(import_variant(fixture_dir), K, seed=K)


@needs_shared
@pytest.mark.parametrize("family, capacities", [("cycling", (10,)), ("working_set", (5, 10, 50)),
                                                ("topic_drift", (20,))])
def test_ref_policies_equal_the_runner_loop_on_the_authors_traces(family, capacities):
    for v in shared_variants():
        if v["exp"] == family:
            trace = import_variant(datasets.path("solar-synthetic") / v["path"])
            for K in capacities:
                compare(trace, K, v["seed"])
