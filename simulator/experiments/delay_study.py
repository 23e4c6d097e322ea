"""The feedback-delay study (``semcache delay-study``): hit rate as feedback comes late or is lost.

The SOLAR paper's analysis assumes that each step's feedback reaches the policy before
the next decision.  This study runs every policy on the SimPy engine
(:mod:`simulator.engine.simpy`) twice over: once with feedback delayed by each of
``delays`` steps (none lost), once with a fraction ``losses`` of it lost (no delay).
Each point is the mean and the sample standard deviation (ddof = 1) over ``seeds`` runs;
seed s generates the workload and seeds the policy and the loss draws, as ``--seed``
does for ``semcache run``.  Every number in the result comes from those runs; the point
"delay 0" of one sweep and "loss 0" of the other is the same run, made once.

Policies that ignore feedback (every always-admit policy) give flat lines: they are the
control.  Regret-gated admission (``solar_a``, ``solar``) reads the miss cost, so delay
makes its admissions lag and loss starves its regret counter.

Examples
--------
>>> doc = study(params={"steps": 120, "topics": 12, "dim": 8}, policies=["fifo", "solar"],
...             delays=(0, 5), losses=(0.0, 1.0), seeds=2, capacity=5)
>>> [(r["sweep"], r["value"], r["policy"]) for r in doc["rows"]][:3]
[('feedback_delay', 0, 'fifo'), ('feedback_delay', 0, 'solar'), ('feedback_delay', 5, 'fifo')]
>>> [(r["policy"], r["admissions"]) for r in doc["rows"] if r["value"] == 1.0]
[('fifo', [120, 120]), ('solar', [0, 0])]
"""

from __future__ import annotations

import math
import statistics

from simulator import policies as policy_registry
from simulator.files.atomic_write import write_atomically
from simulator.errors import InputError
from simulator.run_options import RunOptions
from simulator.runner import run
from simulator.trace import Trace

DELAYS = (0, 1, 5, 20, 100)
LOSSES = (0.0, 0.1, 0.3, 0.5, 0.9)
# A small paper-like default: more topics than cache slots, so what is kept matters.
WORKLOAD = "clusters"
WORKLOAD_PARAMS = {"clusters": {"steps": 2000, "topics": 40}}
QUICK_STEPS = 300


def _check(seeds, delays, losses, latency, sessions):
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 2:
        raise InputError(f"seeds must be an integer >= 2 (points are mean ± std over "
                         f"seeds), got {seeds!r}", "seeds")
    for name, values in (("delays", delays), ("losses", losses)):
        if not values:
            raise InputError(f"{name} needs at least one value", name)
        if len(set(values)) != len(values):
            raise InputError(f"{name} lists a value twice: {list(values)}", name)
    for d in delays:
        if not math.isfinite(d) or d < 0:
            raise InputError(f"delays must be numbers >= 0 (steps), got {d!r}", "delays")
    for p in losses:
        if not 0.0 <= p <= 1.0:
            raise InputError(f"losses must be probabilities in [0, 1], got {p!r}", "losses")
    if not math.isfinite(latency) or latency < 0:
        raise InputError(f"latency must be a number >= 0 (steps), got {latency!r}", "latency")
    if isinstance(sessions, bool) or not isinstance(sessions, int) or sessions < 1:
        raise InputError(f"sessions must be an integer >= 1, got {sessions!r}", "sessions")


def study(workload: str = WORKLOAD, params: dict | None = None, policies=None,
          delays=DELAYS, losses=LOSSES, seeds: int = 3, first_seed: int = 0,
          capacity: int = 20, top_k: int = 3, switch_cost: float = 0.0, quality: str = "hit",
          latency: float = 0.0, sessions: int = 1, quick: bool = False,
          budget=None) -> dict:
    """Run the study and return its JSON document (see ``semcache delay-study --json``).

    ``params`` overrides the workload's parameters (for ``clusters`` the defaults are
    :data:`WORKLOAD_PARAMS`); ``quick`` shortens the trace to :data:`QUICK_STEPS` steps
    unless ``params`` sets ``steps``.  ``policies`` defaults to every policy defined in
    semantic mode.  ``latency`` and ``sessions`` are held fixed in both sweeps; ``budget``
    (docs/model.md §1.8) limits the total size cached.
    """
    import workloads  # the simulator package does not import workloads at load time

    shared = RunOptions.build(capacity=capacity, top_k=top_k, switch_cost=switch_cost,
                              quality=quality, budget=budget)
    _check(seeds, delays, losses, latency, sessions)
    if isinstance(first_seed, bool) or not isinstance(first_seed, int) or first_seed < 0:
        raise InputError(f"first_seed must be an integer >= 0, got {first_seed!r}",
                         "first_seed")
    wl = workloads.get(workload)
    given = dict(WORKLOAD_PARAMS.get(workload, {}))
    if quick and "steps" in wl.params:
        given["steps"] = QUICK_STEPS
    given.update(params or {})
    resolved = wl.resolve_params(given)
    runs_of = {pol.name: shared.with_policy(pol) for pol in _policies(policies)}
    names = list(runs_of)
    seed_list = list(range(first_seed, first_seed + seeds))
    traces = {}
    for seed in seed_list:
        traces[seed] = wl.build(resolved, seed)
        if not isinstance(traces[seed], Trace):
            raise InputError(f"workload {workload} makes a paging trace; the delay study "
                             "needs a semantic workload (the SimPy engine runs those only)",
                             "workload")
    options = dict(capacity=shared.capacity, top_k=shared.top_k,
                   switch_cost=shared.switch_cost, quality=shared.quality)
    if shared.budget is not None:  # recorded only when given: other documents stay as they were
        options["budget"] = shared.budget
    runs = {}

    def measure(name, seed, delay, loss):
        key = (name, seed, delay, loss)
        if key not in runs:
            result = run(traces[seed], options=runs_of[name].with_seed(seed), engine="simpy",
                         engine_options={"feedback_delay": delay, "feedback_loss": loss,
                                         "latency": latency, "sessions": sessions})
            summary = result.summary()
            runs[key] = {"hit_rate": summary["hit_rate"], "admissions": summary["admissions"],
                         "delivered": result.feedback["delivered"]}
        return runs[key]

    rows = []
    for sweep, values in (("feedback_delay", delays), ("feedback_loss", losses)):
        for value in values:
            for name in names:
                point = {"feedback_delay": 0, "feedback_loss": 0.0, sweep: value}
                records = [measure(name, seed, point["feedback_delay"], point["feedback_loss"])
                           for seed in seed_list]
                rates = [r["hit_rate"] for r in records]
                rows.append({"sweep": sweep, "value": value, "policy": name,
                             "hit_rate_mean": statistics.fmean(rates),
                             "hit_rate_std": statistics.stdev(rates), "hit_rates": rates,
                             "admissions": [r["admissions"] for r in records],
                             "feedback_delivered": [r["delivered"] for r in records]})
    return {"workload": {"name": wl.name, "params": resolved, "seeds": seed_list},
            "options": {**options, "latency": float(latency), "sessions": sessions,
                        "engine": "simpy"},
            "policies": names,
            "sweeps": {"feedback_delay": {"values": list(delays), "feedback_loss": 0.0},
                       "feedback_loss": {"values": list(losses), "feedback_delay": 0}},
            "rows": rows, "runs": len(runs)}


def _policies(names) -> list:
    """The policies named (each looked up once), or every one defined in semantic mode."""
    if names is None:
        return [p for p in policy_registry.REGISTRY.values() if "semantic" in p.modes]
    names = list(names)
    if not names:
        raise InputError("policies needs at least one name", "policies")
    found = []
    for name in names:
        pol = policy_registry.get(name)
        if "semantic" not in pol.modes:
            raise InputError(f"policies: {name} is not defined in semantic mode; it runs "
                             "in: " + ", ".join(pol.modes), "policies")
        if names.count(name) > 1:
            raise InputError(f"policies names '{name}' twice", "policies")
        found.append(pol)
    return found


def plot(doc: dict, path: str) -> None:
    """Write the study as a PNG: hit rate against delay (left) and loss (right), ± std.

    The file is written beside ``path`` and renamed into place, so a failure leaves an
    existing file as it was.
    """
    from simulator.experiments.figures.style import colors_for, new_figure

    fig = new_figure(figsize=(12, 4.5))
    axes = fig.subplots(1, 2, sharey=True)
    colors = colors_for(doc["policies"])  # each policy in its colour of every figure
    for ax, sweep, label, title in (
            (axes[0], "feedback_delay", "feedback delay (steps)", "feedback late, none lost"),
            (axes[1], "feedback_loss", "feedback loss probability", "feedback lost, none late")):
        ax.set_title(title, fontsize="medium")
        ax.set_prop_cycle(marker=list("os^Dv<>p*hXd8P+xos^Dv"[:20]))
        values = doc["sweeps"][sweep]["values"]
        # delays span 0 … 100: equally spaced positions, labelled with the values
        xs = list(range(len(values))) if sweep == "feedback_delay" else values
        for name in doc["policies"]:
            pts = [r for r in doc["rows"] if r["sweep"] == sweep and r["policy"] == name]
            ax.errorbar(xs, [r["hit_rate_mean"] for r in pts],
                        yerr=[r["hit_rate_std"] for r in pts], capsize=3,
                        color=colors[name], label=name)
        if sweep == "feedback_delay":
            ax.set_xticks(xs, [f"{v:g}" for v in values])
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"hit rate (mean ± std, {len(doc['workload']['seeds'])} seeds)")
    o = doc["options"]
    fig.suptitle(f"{doc['workload']['name']} {_describe(doc['workload']['params'])}; "
                 f"K = {o['capacity']}, k = {o['top_k']}, λ = {o['switch_cost']:g}")
    axes[1].legend(fontsize="small", loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    try:
        write_atomically(path, lambda tmp: fig.savefig(tmp, format="png", dpi=120,
                                                       bbox_inches="tight"),
                         suffix=".png")
    except OSError as exc:
        raise InputError(f"plot '{path}' cannot be written: {exc.strerror}", "plot") from None


def _describe(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())
