"""Agent memories on LoCoMo: the memory rules of agent frameworks side by side, with FIFO,
SOLAR and the offline optimum.

Rows are the agent rules (:data:`AGENT_RULES`: MemoryBank as in its paper and as shipped,
MemoryOS both ways, Generative Agents, Letta, LangMem, the mem0 surrogate, A-MEM, Zep),
those registered in :data:`simulator.policies.REGISTRY`; a rule that is not registered
has no row and is named in the notes.  Beside them: ``fifo`` and ``solar``
(:data:`BASELINES`) and OPT (docs/model.md §4, :func:`theory.opt.opt`).  Columns: memory
counted in turns, K = 10, 20, 50 (``capacity``), and in tokens, B = 500, 1000, 2000
(``budget``).  Every run is on the LoCoMo traces of :mod:`workloads.locomo` with their
defaults and ``sizes=tokens`` (a turn's size is its all-MiniLM-L6-v2 WordPiece token
count), so that tokens kept are measured in the K columns too; without a budget sizes play
no part in the model.  Each conversation is its own run from an empty memory, top-k = 3
and the run defaults (λ = 0, quality ``hit``), as ``semcache reproduce locomo``.

Cells, per policy, column and seed (tables show the mean ± std over the seeds):

``evidence recall@3`` (the row named by the policy alone)
    a scored question's share of its evidence turns among its top-3 retrieved turns
    |R_t ∩ E_t| / |E_t|, pooled: the mean over every scored question of the conversations.
    It is not ``semcache reproduce locomo``'s hit@3 (1 when *one* evidence turn is
    retrieved): a question with three evidence turns and one retrieved scores 1/3 here.
``answer F1``
    the best LoCoMo token F1 of one retrieved turn's text against the gold answer
    (:func:`workloads.data.answer_f1.best_turn_f1` over R_t, LLM-free), pooled over the
    scored questions of categories 1–4 (category 5 has no F1), as
    :mod:`~simulator.experiments.reproduce.locomo_temporal` computes it.
``tokens kept``
    the largest total of tokens the memory held at any step of a conversation
    (``max_occupancy``), mean over the conversations.
``modifications``
    N, the steps at which the memory changed (docs/model.md §7), mean per conversation;
    ``rewrites`` (in-place rewrites of cached items) beside it where the run record has it.
``cost``
    the run's Σℓ + λ·N (+ λ·rewrites where counted), mean per conversation: with λ = 0 the
    scored questions whose top-3 holds no evidence turn.

OPT minimises that same cost over every schedule, knowing the whole trace: rows ``OPT:
cost lower bound`` and ``OPT: cost upper bound`` (mean per conversation of each
conversation's bounds; equal where OPT is exact).  On LoCoMo no exact method fits at
these K (relevance is by evidence, not by topic, and T is in the hundreds), so OPT is
certified bounds, each call stopped after :data:`OPT_TIME_LIMIT` seconds of wall clock
(without a limit one call runs for minutes), so the bounds, unlike the rules' cells, may
differ from machine to machine; the ``opt`` section says per column how many
conversations had the bounds meet.  OPT optimises the
cost, not recall or F1: they are not reported for it.

``--quick`` runs one conversation and the first seed.
"""

from __future__ import annotations

import numpy as np

from simulator.experiments.reproduce import agent_memories_figure
from simulator.experiments.reproduce.base import Experiment, cell

AGENT_RULES = ("memorybank", "memorybank_shipped", "memoryos", "memoryos_shipped",
               "generative_agents", "letta", "langmem", "mem0_surrogate", "amem", "zep")
BASELINES = ("fifo", "solar")
CAPACITIES = (10, 20, 50)
TOKEN_BUDGETS = (500, 1000, 2000)
TOP_K = 3
# seconds per OPT call (one conversation, one column): a phase under way finishes first
OPT_TIME_LIMIT = 10.0
QUICK_OPT_TIME_LIMIT = 3.0
RECALL = "evidence recall@3"
METRICS = (RECALL, "answer F1", "tokens kept", "modifications", "rewrites", "cost")
OPT_ROWS = ("OPT: cost lower bound", "OPT: cost upper bound")


def row_name(policy: str, metric: str) -> str:
    """The table row of ``metric`` for ``policy`` (recall's row is the policy's name).

    >>> row_name("fifo", RECALL), row_name("fifo", "cost")
    ('fifo', 'fifo: cost')
    """
    return policy if metric == RECALL else f"{policy}: {metric}"


def _traces(seeds: list, quick: bool) -> dict:
    """{(conversation, seed): trace}, token-sized, for the conversations of the run."""
    import workloads
    from workloads.data import locomo_data

    w = workloads.get("locomo")
    names = [c.name for c in locomo_data.load()]
    if quick:
        names = names[:1]
    return {(name, s): w.generate({"conversations": name, "sizes": "tokens"}, s)
            for name in names for s in seeds}


def recall(trace, retrieved: np.ndarray) -> np.ndarray:
    """|R_t ∩ E_t| / |E_t| of every scored step of ``trace`` with evidence, in step order.

    >>> from simulator.trace import Trace
    >>> tr = Trace.from_arrays(queries=np.eye(2, dtype=np.float32),
    ...                        items=np.eye(2, dtype=np.float32), query_topics=[-1, -1],
    ...                        item_topics=[-1, -1], evidence_indptr=[0, 1, 3],
    ...                        evidence_indices=[0, 0, 1])
    >>> recall(tr, np.array([[-1, -1], [1, 5]])).tolist()  # step 1: one of its two
    [0.0, 0.5]
    """
    ptr, idx = trace.evidence_indptr, trace.evidence_indices
    out = []
    for t in np.flatnonzero(trace.scored):
        evidence = set(idx[ptr[t]:ptr[t + 1]].tolist())
        if evidence:
            out.append(len(evidence & set(retrieved[t].tolist())) / len(evidence))
    return np.array(out, float)


def _rule_cells(policy, column, limit, seed, runs, traces, recorder) -> list:
    """The metrics' cells of one policy at one column and seed (``runs``: {key: result})."""
    from simulator.experiments.reproduce.locomo_temporal import statistics

    keys = sorted(runs)
    summaries = [runs[k].summary() for k in keys]
    recorder.add(policy, column, seed, runs)
    f1 = statistics(recorder.values[(policy, column, seed)]["turn F1"])["average"]
    values = {RECALL: float(np.mean(np.concatenate(
                  [recall(traces[k], runs[k].retrieved) for k in keys]))),
              "answer F1": f1,
              "tokens kept": float(np.mean([s["max_occupancy"] for s in summaries])),
              "modifications": float(np.mean([s["modifications"] for s in summaries])),
              "cost": float(np.mean([s["cost"] for s in summaries]))}
    if all("rewrites" in s for s in summaries):  # a record that counts rewrites
        values["rewrites"] = float(np.mean([s["rewrites"] for s in summaries]))
    conf = dict(policy=policy, top_k=TOP_K, workload="locomo", sizes="tokens",
                conversations=sorted({k[0] for k in keys}), **limit)
    return [cell(row_name(policy, m), column, seed, values[m], **conf)
            for m in METRICS if m in values]


def _opt_cells(column, limit, seed, traces, time_limit, found) -> list:
    """OPT's bounds at one column and seed, mean per conversation; each conversation's
    method and bounds go to ``found[column]``."""
    import warnings

    from theory.opt import opt

    lows, highs = [], []
    for key in sorted(k for k in traces if k[1] == seed):
        with warnings.catch_warnings():  # a slow OPT is expected: the time limit bounds it
            warnings.simplefilter("ignore")
            r = opt(traces[key], capacity=limit.get("capacity"), top_k=TOP_K,
                    budget=limit.get("budget"), time_limit=time_limit)
        lows.append(r.lower_bound)
        highs.append(r.upper_bound)
        found.setdefault(column, []).append(
            {"conversation": key[0], "seed": seed, "method": r.method,
             "exact": bool(r.exact or r.lower_bound == r.upper_bound),
             "lower_bound": r.lower_bound, "upper_bound": r.upper_bound})
    conf = dict(top_k=TOP_K, workload="locomo", sizes="tokens", time_limit=time_limit,
                **limit)
    return [cell(OPT_ROWS[0], column, seed, float(np.mean(lows)), policy="opt", **conf),
            cell(OPT_ROWS[1], column, seed, float(np.mean(highs)), policy="opt", **conf)]


def measure(quick: bool, seeds: list, rules: tuple = AGENT_RULES,
            baselines: tuple = BASELINES, capacities: tuple = CAPACITIES,
            budgets: tuple = TOKEN_BUDGETS, opt_time_limit: float | None = None):
    """``(cells, notes, {"opt": ...})`` of the experiment (see the module docstring).

    ``rules`` and ``baselines`` are policy names: the rules not registered are named in a
    note and get no row.  ``opt_time_limit``: seconds per OPT call (default
    :data:`OPT_TIME_LIMIT`, :data:`QUICK_OPT_TIME_LIMIT` with ``quick``).
    """
    from simulator.experiments.reproduce import locomo_temporal
    from simulator.policies import REGISTRY
    from simulator.runner import run

    seeds = list(seeds)[:1] if quick else list(seeds)
    if opt_time_limit is None:
        opt_time_limit = QUICK_OPT_TIME_LIMIT if quick else OPT_TIME_LIMIT
    missing = [p for p in rules if p not in REGISTRY]
    policies = [p for p in rules if p in REGISTRY] + [p for p in baselines if p not in rules]
    traces = _traces(seeds, quick)
    limits = ([(f"K={K}", {"capacity": K}) for K in capacities]
              + [(f"B={B}", {"budget": B}) for B in budgets])
    recorder = locomo_temporal.Recorder(traces)
    cells, found = [], {}
    for policy in policies:
        for column, limit in limits:
            for s in seeds:
                runs = {key: run(tr, policy, top_k=TOP_K, seed=s, retrievals=True, **limit)
                        for key, tr in traces.items() if key[1] == s}
                cells += _rule_cells(policy, column, limit, s, runs, traces, recorder)
    for column, limit in limits:
        for s in seeds:
            cells += _opt_cells(column, limit, s, traces, opt_time_limit, found)
    return cells, _notes(traces, seeds, missing, found, opt_time_limit), {
        "opt": {"time_limit_s": opt_time_limit, "columns": found}}


def _notes(traces, seeds, missing, found, time_limit) -> list:
    convs = sorted({k[0] for k in traces})
    asked = sum(int(tr.scored.sum()) for k, tr in traces.items() if k[1] == seeds[0])
    sizes = np.concatenate([tr.item_sizes[np.unique(tr.item_keys, return_index=True)[1]]
                            for k, tr in traces.items() if k[1] == seeds[0]])
    exact = {c: f"{sum(r['exact'] for r in rs)}/{len(rs)}" for c, rs in found.items()}
    # "bounds:<lower>+<upper>": the lower bounds' methods (the JSON keeps each whole)
    methods = sorted({r["method"].removeprefix("bounds:").split("+")[0]
                      for rs in found.values() for r in rs})
    return [
        f"{len(convs)} conversation(s) ({', '.join(convs)}), {asked} scored questions "
        f"(seed {seeds[0]}), top-{TOP_K}; each conversation starts from an empty memory",
        "agent rules not registered here (no row): " + (", ".join(missing) or "none"),
        "λ = 0 and quality hit (the run defaults, as `semcache reproduce locomo`): cost = "
        "scored questions without an evidence turn in the top 3, per conversation",
        f"OPT minimises that cost, not recall or F1; its bounds per conversation, "
        f"{time_limit:g} s (wall clock) per call, so they may tighten on a faster or idler "
        f"machine, where the rules' cells stay the same; bounds that meet (exact) by column: "
        + ", ".join(f"{c} {v}" for c, v in exact.items()) + "; exact or lower-bound methods: "
        + ", ".join(methods),
        f"sizes=tokens: turns have {sizes.mean():.1f} tokens on average (max {sizes.max()}); "
        "tokens kept = the largest total tokens held at one step, mean over conversations",
    ]


def _available() -> bool:
    import workloads

    return workloads.get("locomo").available()


EXPERIMENT = Experiment(
    name="agent-memories",
    title="LoCoMo: agent memory rules beside FIFO, SOLAR and OPT (K turns, B tokens)",
    metric=RECALL, xlabel="capacity K (turns) or budget B (tokens)", measure=measure,
    available=_available, plot=agent_memories_figure.plot)
