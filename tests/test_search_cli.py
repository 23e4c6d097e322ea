"""``semcache search``: the JSON the issue names, replay lines that work as printed, bad
input in one line with exit code 2, and the bench rows' function in quick mode."""

from __future__ import annotations

import json
import shlex

import pytest

from simulator.cli import main


def _cli(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_fields_and_replay_lines(capsys, tmp_path):
    code, out, _ = _cli(capsys, ["search", "--policy", "fifo", "--capacity", "2", "--budget",
                                 "80", "--out", str(tmp_path), "--json"])
    assert code == 0
    doc = json.loads(out)
    assert {"score", "steps", "reproduce"} <= set(doc["best"])
    assert {"verdict", "limit", "scores"} <= set(doc["grown"])
    assert doc["evaluations"] == 80 and doc["evaluations_per_s"] > 0
    assert doc["best"]["score"] > 1.5  # FIFO's worst case: Belady misses fewer
    fifo, belady, ratio = (shlex.split(line)[1:] + ["--json"]
                           for line in doc["best"]["reproduce"])
    runs = []
    for argv in (fifo, belady):
        code, out, _ = _cli(capsys, argv)
        assert code == 0
        runs.append(json.loads(out)["runs"][0])
    misses = [r["steps"] - r["hits"] for r in runs]
    assert misses == [doc["best"]["cost"], doc["best"]["opt"]]
    code, out, _ = _cli(capsys, ratio)
    assert code == 0 and json.loads(out)["ratio"]["value"] == pytest.approx(
        doc["best"]["score"])


def test_semantic_replay_prints_the_opt_the_search_used(capsys, tmp_path):
    code, out, _ = _cli(capsys, ["search", "--policy", "solar", "--mode", "semantic",
                                 "--capacity", "1", "--switch-cost", "0.5", "--param",
                                 "tau=1.0", "--score", "excess", "--c", "3", "--budget",
                                 "40", "--no-grow", "--out", str(tmp_path), "--json"])
    assert code == 0
    doc = json.loads(out)
    assert doc["grown"] is None
    run_line, opt_line, _ = doc["best"]["reproduce"]
    code, out, _ = _cli(capsys, shlex.split(opt_line)[1:] + ["--json"])
    assert code == 0 and json.loads(out)["opt_cost"] == pytest.approx(doc["best"]["opt"])


def test_several_capacities_fit_the_limits_on_K(capsys, tmp_path):
    code, out, _ = _cli(capsys, ["search", "--policy", "lru", "--capacity", "2,3,4",
                                 "--budget", "60", "--out", str(tmp_path), "--json"])
    assert code == 0
    doc = json.loads(out)
    assert [d["options"]["capacity"] for d in doc["capacities"]] == [2, 3, 4]
    assert doc["limit_fit"]["slope"] == pytest.approx(1, abs=0.02)  # LRU's ratio tends to K
    assert doc["limit_fit"]["intercept"] == pytest.approx(0, abs=0.05)


@pytest.mark.parametrize("argv", [
    ["--policy", "lru", "--capacity", "2,2"], ["--policy", "lru", "--capacity", "2,3",
                                               "--no-grow"],
    ["--policy", "nope", "--capacity", "2"], ["--policy", "lru", "--capacity", "0"],
    ["--policy", "lru", "--capacity", "2", "--score", "excess"],
    ["--policy", "lru", "--capacity", "2", "--budget", "0"],
    ["--policy", "lru", "--capacity", "2", "--param", "x=1"],
    ["--policy", "lru", "--capacity", "2", "--engine", "tabu"]])
def test_bad_input_exits_2_in_one_line(capsys, argv, tmp_path):
    code, out, err = _cli(capsys, ["search", *argv, "--out", str(tmp_path)])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("semcache: error: ")


def test_the_bench_rows_run_in_quick_mode():
    from simulator.experiments import bench_search

    name, kwargs = bench_search.targets(30)[0]
    row = bench_search.measure(name, kwargs, seeds=(0,))
    assert row["evaluations_equal"] and row["evaluations"] == 30
    assert row["ours_score"] > 1 and row["baseline_score"] > 1


def test_a_plugin_policy_is_searched_and_replayed(capsys, tmp_path, monkeypatch):
    import pathlib

    import simulator
    from simulator.experiments import plugins

    # the registry and the loaded plugins as they were, after the test: a plugin left
    # loaded without its policy would not register it again (test_plugins loads this file)
    monkeypatch.setattr(simulator.policies, "REGISTRY", dict(simulator.policies.REGISTRY))
    monkeypatch.setattr(plugins, "_LOADED", dict(plugins._LOADED))
    plugin = str(pathlib.Path(__file__).parent / "data" / "plugins" / "redundancy.py")
    code, out, _ = _cli(capsys, ["search", "--plugin", plugin, "--policy", "redundancy",
                                 "--mode", "semantic", "--capacity", "2", "--switch-cost",
                                 "0.5", "--budget", "30", "--no-grow", "--out",
                                 str(tmp_path), "--json"])
    assert code == 0
    doc = json.loads(out)
    run_line = doc["best"]["reproduce"][0]
    assert f"--plugin {plugin}" in run_line
    code, out, _ = _cli(capsys, shlex.split(run_line)[1:] + ["--json"])
    assert code == 0 and json.loads(out)["runs"][0]["cost"] == pytest.approx(
        doc["best"]["cost"])
