"""``semcache delay-study``: the JSON document, its determinism, the plot, bad input."""

import json
import statistics

import pytest

from simulator.experiments import delay_study
from simulator.cli import main

QUICK = ["delay-study", "--quick", "--policy", "fifo,solar_a,solar", "--param", "dim=32"]


def _json(capsys, argv):
    assert main(argv + ["--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return json.loads(captured.out)


@pytest.fixture(scope="module")
def quick_doc():
    return delay_study.study(params={"dim": 32}, policies=["fifo", "solar_a", "solar"],
                             quick=True)


def test_quick_json_shape(capsys, quick_doc):
    doc = _json(capsys, QUICK)
    assert doc.pop("plot") is None
    assert doc == json.loads(json.dumps(quick_doc))
    assert doc["workload"]["name"] == "clusters"
    assert doc["workload"]["params"]["steps"] == delay_study.QUICK_STEPS
    assert doc["workload"]["params"]["topics"] > doc["options"]["capacity"]
    assert doc["workload"]["seeds"] == [0, 1, 2]
    assert doc["sweeps"]["feedback_delay"]["values"] == [0, 1, 5, 20, 100]
    assert doc["sweeps"]["feedback_loss"]["values"] == [0.0, 0.1, 0.3, 0.5, 0.9]
    assert len(doc["rows"]) == 2 * 5 * 3
    for row in doc["rows"]:
        assert set(row) == {"sweep", "value", "policy", "hit_rate_mean", "hit_rate_std",
                            "hit_rates", "admissions", "feedback_delivered"}
        assert len(row["hit_rates"]) == 3
        assert row["hit_rate_mean"] == statistics.fmean(row["hit_rates"])
        assert row["hit_rate_std"] == statistics.stdev(row["hit_rates"])
    assert doc["runs"] == 3 * 3 * 9  # policies × seeds × distinct (delay, loss) points


def test_rows_come_from_runs(quick_doc):
    rows = {(r["sweep"], r["value"], r["policy"]): r for r in quick_doc["rows"]}
    # fifo never reads feedback: flat; both sweeps share the no-delay, no-loss point
    fifo = {tuple(r["hit_rates"]) for k, r in rows.items() if k[2] == "fifo"}
    assert len(fifo) == 1
    for policy in ("fifo", "solar"):
        assert rows["feedback_delay", 0, policy]["hit_rates"] == \
            rows["feedback_loss", 0.0, policy]["hit_rates"]
    steps = quick_doc["workload"]["params"]["steps"]
    assert rows["feedback_delay", 100, "solar"]["feedback_delivered"] == [steps - 100] * 3
    assert all(n < steps for n in rows["feedback_loss", 0.9, "solar"]["feedback_delivered"])
    # late feedback changes what the regret gate admits
    assert rows["feedback_delay", 20, "solar"]["admissions"] != \
        rows["feedback_delay", 0, "solar"]["admissions"]


def test_deterministic(quick_doc):
    again = delay_study.study(params={"dim": 32}, policies=["fifo", "solar_a", "solar"],
                              quick=True)
    assert again == quick_doc


def test_plot_file_written(tmp_path, capsys):
    path = tmp_path / "delay.png"
    assert main(["delay-study", "--quick", "--policy", "fifo,solar", "--param", "dim=8",
                 "--seeds", "2", "--delays", "0,5", "--losses", "0,0.5",
                 "--plot", str(path)]) == 0
    out = capsys.readouterr().out
    assert "solar" in out and f"wrote {path}" in out
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size > 10_000


@pytest.mark.parametrize("argv, word", [
    (["--seeds", "1"], "--seeds"),
    (["--workload", "zipf_paging"], "paging"),
    (["--losses", "0,1.5"], "--losses"),
    (["--delays", "0,-1"], "--delays"),
    (["--delays", "0,x"], "--delays"),
    (["--policy", "belady"], "semantic"),
    (["--param", "nope=1"], "nope"),
    (["--plot", "/no/such/folder/x.png"], "--plot"),
])
def test_bad_input_is_one_line(argv, word, capsys):
    policy = [] if "--policy" in argv else ["--policy", "fifo"]  # an option is given once
    assert main(["delay-study", "--quick", *policy, *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and word in err, err
