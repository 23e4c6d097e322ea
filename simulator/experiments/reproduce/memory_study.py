"""``semcache reproduce memory-study``: the memory-management study of Xiong et al..

The experience-following agent (:mod:`workloads.agent`, closed loop, every run certified
by a re-run) under the study's strategies.  Each given seed s runs ``replicates`` seeds
1000·s + r (5 a seed; 1 with ``--quick``, which also runs 600 tasks instead of 2,000 and
a smaller grid), so the default seeds 0, 1, 2 give 15 runs per configuration.  All runs of
one seed share their tasks and noise, so strategies are compared seed by seed.

Experiments (rows are prefixed E1 … E5; values are success rates unless named otherwise):

1. Long-run success over task windows for fixed / add-all / coarse evaluators
   (``eval_tolerance`` 1.2 and 1.4; the ``coarse`` policy's noisy judge, full run only) /
   strict.
2. Experience following: Pearson correlation of input cosine and output similarity
   exp(−|ŷ₁ − ŷ₂|²) over (task, retrieved record) pairs, per strategy, and a control
   agent that ignores its memory (``follow=0``).
3. Error propagation: the same strategies from an error-free initial memory and from one
   with 30% erroneous records; success over the first 20% of tasks, and how much more often
   an execution fails when its best demonstration is an erroneous record.
4. Deletion (30% erroneous initial memory): none / periodic / history / combined, with the
   exact and the coarse (1.4) evaluator: overall success and mean memory size.
5. A task-distribution shift (new w at mid-run) for strict / add-all / history /
   combined, and a capacity sweep of combined against FIFO (and SOLAR, full run).

The findings and their verdicts (paired per-seed differences, 95% t intervals) are in
:mod:`simulator.experiments.reproduce.memory_findings`; the PNG has one panel per experiment.
"""

from __future__ import annotations

import numpy as np

from simulator.experiments.reproduce.base import Experiment, cell

NAME = "memory-study"
FULL = {"tasks": 2000, "replicates": 5, "capacities": (100, 200, 400, 800),
        "capacity_policies": ("combined", "fifo", "solar"),
        "deletions": ("none", "periodic", "history", "combined")}
# the quick grid also leaves out the policies only it would compile (periodic, coarse, solar)
QUICK = {"tasks": 600, "replicates": 1, "capacities": (100,),
         "capacity_policies": ("combined", "fifo"), "deletions": ("none", "history", "combined")}
INIT_ERROR = 0.3
EARLY = 0.2  # E3: the first 20% of tasks
WINDOWS = 5
# E1 rows: (label, policy, workload params, policy params); QUICK_ADDITION: the quick ones
ADDITION = (("fixed", "fixed", {}, {}), ("add_all", "add_all", {}, {}),
            ("coarse c=1.4", "strict", {"eval_tolerance": 1.4}, {}),
            ("coarse c=1.2", "strict", {"eval_tolerance": 1.2}, {}),
            ("coarse judge fp=0.2", "coarse", {}, {}), ("strict", "strict", {}, {}))
QUICK_ADDITION = ("fixed", "add_all", "coarse c=1.4", "strict")
EVALUATORS = (("exact", {}), ("coarse c=1.4", {"eval_tolerance": 1.4}))


def run_seeds(seeds, quick: bool) -> list:
    """The run seeds: each given seed s expands to 1000·s + r, r < replicates."""
    reps = (QUICK if quick else FULL)["replicates"]
    return [1000 * int(s) + r for s in seeds for r in range(reps)]


def _simulate(policy, params, seed, capacity=None, policy_params=None):
    from workloads import agent

    return agent.simulate(policy, params, seed=seed, capacity=capacity,
                          policy_params=policy_params)


def _windows(success: np.ndarray, n: int) -> list:
    return [float(part.mean()) for part in np.array_split(success, n)]


def _columns(tasks: int, n: int) -> list:
    edges = np.array_split(np.arange(1, tasks + 1), n)
    return [f"tasks {e[0]}-{e[-1]}" for e in edges]


def following(run) -> float:
    """E2: correlation of input cosine and output similarity over retrieved pairs."""
    m = run.trace.meta
    rows = np.flatnonzero(run.trace.scored)
    keys, cos = m["retrieved"][rows], m["cosines"][rows]
    have = keys >= 0
    out = np.exp(-(m["outputs"][rows][:, None] - m["outputs"][np.maximum(keys, 0)]) ** 2)
    a, b = cos[have] - cos[have].mean(), out[have] - out[have].mean()
    # Pearson's r in numpy's own summation order (np.corrcoef goes through BLAS, whose
    # order, and so the last digits, depend on the CPU)
    return float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum()))


def _misled(run) -> float | None:
    """E3: P(fail | best demonstration erroneous) − P(fail | it is clean), or None."""
    m = run.trace.meta
    rows = np.flatnonzero(run.trace.scored)
    top = m["retrieved"][rows, 0]
    bad = np.zeros(m["outputs"].shape[0], np.bool_)
    bad[:m["erroneous"].shape[0]] = m["erroneous"]
    fail = ~m["success"][rows]
    wrong = bad[top]
    if not wrong.any() or wrong.all():
        return None
    return float(fail[wrong].mean() - fail[~wrong].mean())


def _config(label, policy, params, **extra) -> dict:
    """A cell's configuration (its seed is the cell's own)."""
    return dict(workload="agent", strategy=label, policy=policy, params=params, **extra)


def _addition(s, seeds, tasks):
    """E1 and E2 (the same runs), plus E2's control."""
    e1, e2, cols = [], [], _columns(tasks, WINDOWS)
    rows = ADDITION if not s["quick"] else [a for a in ADDITION if a[0] in QUICK_ADDITION]
    for label, policy, params, pp in rows:
        for seed in seeds:
            prm = {"tasks": tasks, **params}
            r = _simulate(policy, prm, seed, policy_params=pp)
            cfg = _config(label, policy, prm, policy_params=r.trace.meta["policy_params"])
            for col, value in zip(cols, _windows(r.success, WINDOWS)):
                e1.append(cell(f"E1 {label}", col, seed, value, **cfg))
            e2.append(cell(f"E2 {label}", "correlation", seed, following(r), **cfg))
    for seed in seeds:
        prm = {"tasks": tasks, "follow": 0.0}
        r = _simulate("strict", prm, seed)
        e2.append(cell("E2 control (follow=0)", "correlation", seed, following(r),
                       **_config("control", "strict", prm)))
    return e1 + e2


def _propagation(seeds, tasks):
    cells = []
    for label in ("fixed", "add_all", "strict"):
        for memory, error in (("clean", 0.0), ("erroneous", INIT_ERROR)):
            for seed in seeds:
                prm = {"tasks": tasks, "init_error": error}
                r = _simulate(label, prm, seed)
                cfg = _config(label, label, prm)
                early = r.success[:max(1, int(EARLY * tasks))].mean()
                cells.append(cell(f"E3 {label} {memory}", "early success", seed, early, **cfg))
                cells.append(cell(f"E3 {label} {memory}", "success", seed,
                                  r.success.mean(), **cfg))
                misled = _misled(r) if error else None
                if misled is not None:
                    cells.append(cell(f"E3 {label} {memory}", "extra failures when misled",
                                      seed, misled, **cfg))
    return cells


def _deletion(s, seeds, tasks):
    cells = []
    for evaluator, params in EVALUATORS:
        for deletion in s["deletions"]:
            policy = "strict" if deletion == "none" else deletion
            for seed in seeds:
                prm = {"tasks": tasks, "init_error": INIT_ERROR, **params}
                r = _simulate(policy, prm, seed)
                row = f"E4 {deletion} / {evaluator}"
                cfg = _config(deletion, policy, prm, evaluator=evaluator)
                scored = r.trace.scored
                cells.append(cell(row, "success", seed, r.success.mean(), **cfg))
                cells.append(cell(row, "memory size", seed, r.result.size[scored].mean(),
                                  **cfg))
    return cells


def _shift(seeds, tasks):
    cells, half = [], tasks // 2
    cols = ("before shift", "after shift, 1st half", "after shift, 2nd half")
    for label in ("strict", "add_all", "history", "combined"):
        for seed in seeds:
            prm = {"tasks": tasks, "shift": half, "shift_kind": "w"}
            r = _simulate(label, prm, seed)
            after = r.success[half:]
            values = (r.success[half - max(1, tasks // 10):half].mean(),
                      after[:len(after) // 2].mean(), after[len(after) // 2:].mean())
            for col, value in zip(cols, values):
                cells.append(cell(f"E5 shift {label}", col, seed, value,
                                  **_config(label, label, prm)))
    return cells


def _capacity(s, seeds, tasks):
    cells = []
    for policy in s["capacity_policies"]:
        for K in (*s["capacities"], None):
            if K is None and policy != "combined":
                continue
            col = "K=unlimited" if K is None else f"K={K}"
            for seed in seeds:
                prm = {"tasks": tasks}
                r = _simulate(policy, prm, seed, capacity=K)
                cells.append(cell(f"E5 capacity {policy}", col, seed, r.success.mean(),
                                  **_config(policy, policy, prm, capacity=K)))
    return cells


def _measure(quick: bool, seeds: list):
    s = {**(QUICK if quick else FULL), "quick": quick}
    runs = run_seeds(seeds, quick)
    tasks = s["tasks"]
    cells = (_addition(s, runs, tasks) + _propagation(runs, tasks) + _deletion(s, runs, tasks)
             + _shift(runs, tasks) + _capacity(s, runs, tasks))
    notes = [f"{len(runs)} runs per configuration (seeds {runs[0]} … {runs[-1]}), "
             f"{tasks} tasks each after a 50-record warm-up; every closed-loop run is "
             "certified by a re-run of its trace",
             f"E3/E4: erroneous initial memory = {INIT_ERROR:.0%} of 50 records off by ±U(2, 4)"]
    return cells, notes


def _findings(cells):
    from simulator.experiments.reproduce.memory_findings import findings

    return findings(cells)


def _plot(exp, doc, cells, path):
    from simulator.experiments.reproduce.memory_figure import plot

    plot(exp, doc, cells, path)


EXPERIMENT = Experiment(name=NAME, title="Memory-management study (Xiong et al.): the "
                        "experience-following agent", metric="success rate (see rows)",
                        xlabel="see panels", measure=_measure, findings=_findings, grid=False,
                        plot=_plot)
