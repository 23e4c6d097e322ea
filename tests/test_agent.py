"""The ``agent`` workload (``workloads/agent.py``) and the closed loop it runs in.

Determinism by seed, certification by re-running the realised trace (API, file and CLI),
both engines, the agent model's documented properties, and bad input.
"""

import json

import numpy as np
import pytest

import workloads
from simulator.cli import main
from simulator.errors import InputError
from simulator.runner import run
from simulator.trace_formats import load, save
from workloads import agent

SMALL = {"tasks": 300, "init_size": 30}
OUTCOMES = ("outputs", "error", "success", "accepted", "retrieved")


def same_run(a, b) -> bool:
    return (np.array_equal(a.result.admitted, b.result.admitted)
            and np.array_equal(a.result.hit, b.result.hit)
            and all(np.array_equal(a.trace.meta[k], b.trace.meta[k]) for k in OUTCOMES))


def test_deterministic_by_seed():
    a, b = (agent.simulate("combined", SMALL, seed=4) for _ in range(2))
    assert same_run(a, b)
    assert not same_run(a, agent.simulate("combined", SMALL, seed=5))


def test_trace_layout_and_registration():
    tr = workloads.get("agent").generate({**SMALL, "policy": "history"}, seed=1)
    assert tr.steps == 330 and not tr.scored[:30].any() and tr.scored[30:].all()
    assert tr.meta["policy"] == "history" and tr.meta["policy_params"]["warmup"] == 30
    assert tr.meta["capacity"] == 330 and tr.meta["top_k"] == 6
    assert tr.has_evidence and np.diff(tr.evidence_indptr)[:30].sum() == 0


@pytest.mark.parametrize("policy", ["strict", "combined", "fifo", "solar"])
def test_certified_rerun(policy):
    """The realised trace re-runs to the loop's decisions (closed_loop checks every array)."""
    r = agent.simulate(policy, SMALL, seed=2, capacity=60)
    again = run(r.trace, policy, capacity=60, top_k=6, seed=2,
                params=r.trace.meta["policy_params"])
    assert np.array_equal(again.admitted, r.result.admitted)
    assert np.array_equal(again.hit, r.result.hit)
    # quality = hit is the evaluator's verdict whenever something was retrieved
    assert np.array_equal(r.result.hit[30:].astype(bool), r.trace.meta["accepted"][30:])


def test_saved_trace_replays_through_the_cli(tmp_path, capsys):
    r = agent.simulate("strict", SMALL, seed=3)
    path = str(tmp_path / "agent.npz")
    save(r.trace, path)
    assert np.array_equal(run(load(path), "strict", capacity=330, top_k=6, seed=3,
                              params={"warmup": 30}).admitted, r.result.admitted)
    argv = ["run", "--workload", "agent", "--param", "tasks=300", "--param", "init_size=30",
            "--policy", "strict,add_all", "--top-k", "6", "--capacity", "330", "--seed", "3",
            "--json"]
    assert main(argv) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert runs[0]["hits"] == int(r.result.hit[30:].sum())
    assert runs[0]["admissions"] == int((r.result.admitted >= 0).sum())


def test_simpy_engine_closes_the_loop_too():
    fast = agent.simulate("strict", SMALL, seed=6)
    simpy = agent.simulate("strict", SMALL, seed=6, engine="simpy")
    assert same_run(fast, simpy)
    late = agent.simulate("strict", SMALL, seed=6, engine="simpy",
                          engine_options={"feedback_delay": 2, "sessions": 2})
    assert late.trace.meta["engine_options"]["feedback_delay"] == 2.0
    assert (late.result.admitted[30:] < 0).all()  # no verdict in time: strict adds nothing


def test_memory_is_irrelevant_when_the_agent_does_not_follow_it():
    """follow = 0: every strategy sees the same tasks, noise and answers."""
    runs = [agent.simulate(p, {**SMALL, "follow": 0.0}, seed=7).trace.meta
            for p in ("fixed", "add_all", "strict")]
    for m in runs[1:]:
        assert np.array_equal(m["outputs"], runs[0]["outputs"])


def test_answer_follows_an_exact_collinear_record():
    """A record (x, y) on the task's own direction predicts y exactly, so the error is the
    agent's own error scaled by 1 − follow·cos; with no positive cosine it answers alone."""
    x = np.array([1.0, 2.0, 0.0])
    xs, outputs = np.array([2 * x]), np.array([2 * 5.0])  # y = 5 at x, 10 at 2x
    got = agent.answer(x, 5.0 + 1.5, np.array([0]), np.array([1.0]), xs, outputs, 0.9, 16.0)
    assert got == pytest.approx(5.0 + 0.1 * 1.5)
    assert agent.answer(x, 7.0, np.array([0]), np.array([-0.2]), xs, outputs, 0.9, 16.0) == 7.0


def test_strict_from_an_error_free_memory_does_not_get_worse():
    """Error-free initial memory and strict addition: success over the last third of the
    tasks is at least that of the first third (summed over seeds), and above add-all's."""
    first = last = last_all = 0.0
    for seed in range(4):
        s = agent.simulate("strict", {"tasks": 900}, seed=seed).success
        first, last = first + s[:300].mean(), last + s[600:].mean()
        last_all += agent.simulate("add_all", {"tasks": 900}, seed=seed).success[600:].mean()
    assert last >= first and last > last_all


def test_erroneous_initial_records_propagate():
    """The same seeds with 50% erroneous initial records: lower early success, and an
    execution whose best demonstration is erroneous fails more often."""
    clean = bad = 0.0
    for seed in range(3):
        clean += agent.simulate("fixed", SMALL, seed=seed).success[:100].mean()
        r = agent.simulate("fixed", {**SMALL, "init_error": 0.5}, seed=seed)
        bad += r.success[:100].mean()
        m = r.trace.meta
        top = m["retrieved"][30:, 0]
        wrong = m["erroneous"][top]  # fixed: every record is an initial one
        assert (~m["success"][30:][wrong]).mean() > (~m["success"][30:][~wrong]).mean()
    assert clean > bad


def test_evaluator_noise_and_tolerance():
    everything = agent.simulate("strict", {**SMALL, "eval_fp": 1.0}, seed=0)
    assert everything.trace.meta["accepted"][30:].all()
    assert (everything.result.admitted >= 0).all()
    nothing = agent.simulate("strict", {**SMALL, "eval_fn": 1.0}, seed=0)
    assert not nothing.trace.meta["accepted"].any() and (nothing.result.admitted[30:] < 0).all()
    coarse = agent.simulate("strict", {**SMALL, "eval_tolerance": 1.4}, seed=0).trace.meta
    err = coarse["error"][30:]
    assert np.array_equal(coarse["accepted"][30:], err <= 1.4)
    assert np.array_equal(coarse["success"][30:], err <= 1.0)


def test_shift_changes_the_ground_truth_or_the_inputs():
    base = agent.simulate("fixed", SMALL, seed=1).trace.meta["truth"]
    w = agent.simulate("fixed", {**SMALL, "shift": 100}, seed=1).trace.meta["truth"]
    assert np.array_equal(w[:130], base[:130]) and not np.allclose(w[130:], base[130:])
    moved = agent.simulate("fixed", {**SMALL, "shift": 100, "shift_kind": "input"}, seed=1)
    x = moved.trace.queries.astype(float)
    assert abs(x[130:].mean(axis=0)).max() > 3 * abs(x[30:130].mean(axis=0)).max()


@pytest.mark.parametrize("params, message", [
    ({"tasks": 0}, "parameter 'tasks' must be >= 1"),
    ({"init_size": 0}, "parameter 'init_size' must be >= 1"),
    ({"init_error": 1.5}, "parameter 'init_error' must be in [0, 1]"),
    ({"shift_kind": "x"}, "parameter 'shift_kind' must be one of w, input"),
    ({"shift": 5000}, "parameter 'shift' must be -1 (none) or a task index"),
    ({"policy": "belady"}, "'belady' cannot run in a closed loop"),
    ({"policy": "nope"}, "unknown policy 'nope'"),
    ({"policy_params": "beta=2"}, "policy 'strict' has no parameter 'beta'"),
    ({"policy_params": "x"}, "expects key=value"),
    ({"own_noise": -1}, "parameter 'own_noise' must be a finite number >= 0"),
])
def test_bad_parameters(params, message):
    with pytest.raises(InputError) as err:
        workloads.get("agent").generate(params, seed=0)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_bad_parameter_on_the_command_line(capsys):
    assert main(["run", "--workload", "agent", "--param", "follow=2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "parameter 'follow' must be in [0, 1]" in err
