"""Theorem 5.5: FIFO's eviction regret is Ω(T).

The headline judges the statement by Definition 2.3: the comparator is any feasible
eviction policy *on FIFO's admission sequence*, so it admits every arrival and evicts an
item it already holds (the model of the paper's §2.1).  Measured on the proof's own
construction, ``cycling`` with m > K topics (:mod:`theory.claims.fifo_regret_construction`),
with a feasible comparator schedule, so each R_T is a lower bound on the regret:

- K = 1: the comparator must hold the latest arrival, exactly as FIFO does, so the class
  is {FIFO} and R_T = 0 for every T and every instance (a closed form): violated;
- K ≥ 2: holds on the construction, over the tested horizons, when R_T ≥ 0 at every
  horizon, R_T/T stays above a positive constant from four cycles on and R_T still grows
  over the longest span (the constant, the smallest R_T/T, is reported).

The headline is violated on K = 1 alone, so its ``verdict_note`` says so, with the verdict
of K ≥ 2 beside it (:func:`theory.claims.base.only_in`).

Readings: the proof's own comparator, which evicts each arrival at once and keeps the
first K topics (*outside the paper's definitions*: it does not operate on FIFO's admission
sequence), checked against the paper's formula R_T = (T − K) − T/(K + 1) at m = K + 1;
and our generalisation to stationary latent utilities (:mod:`theory.claims.regret_runs`),
a growth fit that can only violate (slope interval below 1 − 0.25, the margin of
:data:`theory.claims.verdicts.MARGIN`) or not refute.

Regret counts miss cost only (Definition 2.3), so λ plays no part in this claim.
"""

from __future__ import annotations

from theory.claims import regret_runs
from simulator.instance import Instance
from theory.claims.base import by_subrange, only_in, save_policy_instance
from theory.claims.fifo_regret_construction import measure
from theory.claims.verdicts import (
    CLOSED_FORM,
    CONSTRUCTION,
    GROWTH,
    MARGIN,
    NOT_REFUTED,
    VIOLATED,
    basis,
    verdict,
    weakest,
)
from theory.kit.claim import Claim

GRID = {True: dict(K=(1, 2, 4), cycles=(1, 4, 8, 16)),
        False: dict(K=(1, 2, 3, 5, 10), cycles=(1, 4, 16, 32, 64))}
SUBRANGES_REST = {"K ≥ 2": lambda r: r["K"] >= 2,
                  "m = K+1": lambda r: r["topics"] == r["K"] + 1,
                  "m > K+1": lambda r: r["topics"] > r["K"] + 1,
                  "k < K": lambda r: r["top_k"] < r["K"],
                  "k ≥ K": lambda r: r["top_k"] >= r["K"]}


def _configs(quick: bool) -> list:
    """One row per (K, m, k): R_T at every horizon and its marginal growth per step."""
    rows = []
    for K in GRID[quick]["K"]:
        for m in (K + 1, 2 * K + 2):
            for k in sorted({1, K, K + 2}):
                runs = [measure(K, m, k, c) for c in GRID[quick]["cycles"]]
                a, b = runs[-2], runs[-1]
                span = b["steps"] - a["steps"]
                rows.append(dict(
                    K=K, topics=m, top_k=k, steps=b["steps"],
                    instance=Instance(b["trace"], dict(capacity=K, top_k=k, switch_cost=0.0)),
                    horizons=[r["steps"] for r in runs],
                    regret_evict_arrival=[r["regret_evict_arrival"] for r in runs],
                    regret_keep_arrival=[r["regret_keep_arrival"] for r in runs],
                    paper_formula=[round(r["paper_formula"], 4) for r in runs],
                    rate=K / m,
                    rate_evict_arrival=(b["regret_evict_arrival"] -
                                        a["regret_evict_arrival"]) / span,
                    rate_keep_arrival=(b["regret_keep_arrival"] -
                                       a["regret_keep_arrival"]) / span,
                    min_keep_per_step=min(r["regret_keep_arrival"] / r["steps"]
                                          for r in runs if r["steps"] >= 4 * m),
                    formula_exact=m != K + 1 or all(
                        abs(r["regret_evict_arrival"] - r["paper_formula"]) < 1e-9
                        for r in runs)))
    return rows


def _paper_ok(r) -> bool:
    return (min(r["regret_evict_arrival"]) >= 0 and r["formula_exact"]
            and abs(r["rate_evict_arrival"] - r["rate"]) < 1e-9)


def _forced_ok(r) -> bool:
    return (min(r["regret_keep_arrival"]) >= 0 and r["rate_keep_arrival"] > 0
            and r["min_keep_per_step"] > 0)


def _scope(quick: bool, comparator: str) -> str:
    g = GRID[quick]
    return (f"the proof's construction: cycling, m ∈ {{K+1, 2K+2}}, K = {g['K'][0]}…"
            f"{g['K'][-1]}, k ∈ {{1, K, K+2}}, {g['cycles'][0]}…{g['cycles'][-1]} cycles, "
            f"exact losses; {comparator}")


def _rates(rows, tag):
    return ", ".join(f"K={r['K']},m={r['topics']}: {r[f'rate_{tag}']:.3f}"
                     for r in rows if r["top_k"] == 1)


def _headline(rows, quick, out_dir) -> tuple:
    ones = [r for r in rows if r["K"] == 1]
    if any(max(map(abs, r["regret_keep_arrival"])) > 1e-9 for r in ones):
        raise AssertionError("with K = 1 and forced admission the comparator is FIFO")
    worst = min(ones, key=lambda r: r["steps"])
    one = verdict(VIOLATED, basis(CLOSED_FORM, "K = 1, every instance: the comparator must "
                                  "hold the latest arrival, as FIFO does, so R_T = 0"),
                  f"R_T = 0 at every horizon of {len(ones)} configurations, e.g. K=1, "
                  f"m={worst['topics']}: R_T = {worst['regret_keep_arrival']} over T = "
                  f"{worst['horizons']}", range="K = 1", runs=len(ones),
                  instance=save_policy_instance(worst["instance"], "fifo", out_dir, "thm5_5_K1",
                                                with_opt=False))
    rest = [r for r in rows if r["K"] >= 2]
    scope = _scope(quick, "a feasible comparator that keeps each arrival")
    parts = by_subrange(rest, SUBRANGES_REST, _forced_ok,
                        lambda r: save_policy_instance(r["instance"], "fifo", out_dir,
                                                       f"thm5_5_K{r['K']}_m{r['topics']}",
                                                       with_opt=False),
                        basis(CONSTRUCTION, scope))
    return [one] + parts, scope


def _check(quick: bool, out_dir: str) -> dict:
    rows = _configs(quick)
    parts, scope = _headline(rows, quick, out_dir)
    head = weakest(parts, scope + "; K = 1 by a closed form")
    paper_rows = by_subrange(rows, {"all": lambda r: True}, _paper_ok,
                             lambda r: save_policy_instance(r["instance"], "fifo", out_dir,
                                                            f"thm5_5_paper_K{r['K']}",
                                                            with_opt=False),
                             basis(CONSTRUCTION, _scope(quick, "the proof's comparator")))[0]
    paper = dict(paper_rows, reading="the proof's comparator, which evicts each arrival at "
                                     "once (not on FIFO's admission sequence)",
                 within_definitions=False,
                 evidence=f"R_T = (T − K) − T/(K + 1) exactly at m = K+1 and growth K/m per "
                          f"step at every m ({paper_rows['evidence']}; "
                          f"{_rates(rows, 'evict_arrival')})")
    paper.pop("range", None)
    c = regret_runs.curve("fifo", (), quick)
    gscope = regret_runs.scope(quick, "fifo")
    general = verdict(VIOLATED if c.ci[1] < 1 - MARGIN else NOT_REFUTED, basis(GROWTH, gscope),
                      regret_runs.describe(c),
                      reading="our generalisation: stationary utilities, Definition 2.3 "
                              "comparator", within_definitions=True,
                      **({"instance": regret_runs.save_stationary_instance(
                          out_dir, "thm5_5_stationary", "fifo", {}, quick)}
                         if c.ci[1] < 1 - MARGIN else {}))
    measured = dict(construction=[{k: v for k, v in r.items() if k != "instance"}
                                  for r in rows],
                    stationary=regret_runs.summary(c))
    rest = [r for r in rows if r["K"] >= 2]
    evidence = (f"at K = 1 Definition 2.3's comparator on FIFO's admission sequence is FIFO "
                f"itself, so R_T = 0; at K ≥ 2 R_T ≥ "
                f"{min(r['min_keep_per_step'] for r in rest):.3f}·T from four cycles on, in "
                f"all {len(rest)} configurations ({_rates(rest, 'keep_arrival')} per step "
                "over the longest span)")
    return dict(verdict=head["verdict"], basis=head["basis"], evidence=evidence,
                instance=head.get("instance"), measured=measured, readings=[paper, general],
                subranges=parts, verdict_note=only_in(head, parts, "K = 1", "K ≥ 2"))


CLAIM = Claim(
    id="thm5.5",
    title="FIFO regret is linear",
    statement="Theorem 5.5: FIFO's eviction regret is Ω(T) on cycling workloads with m > K.",
    conditions="Definition 2.3's comparator on FIFO's admission sequence (it keeps every "
               "arrival and evicts an item it holds), on the proof's construction: cycling "
               "(2 items per topic, d = 32, hit quality), K ∈ {1, 2, 3, 5, 10}, m ∈ {K+1, "
               "2K+2}, k ∈ {1, K, K+2}, T = 1…64 cycles (quick: K ∈ {1, 2, 4}, up to 16 "
               "cycles); readings: the proof's comparator (evicts the arrival) and a "
               "stationary generalisation (50 items, p ~ U[0, 0.3], k = K = 5, T = "
               "1250…20000, 5 seeds; quick: 500…4000, 3 seeds); λ plays no part",
    evidence=_check)
