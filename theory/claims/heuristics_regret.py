"""Table 3's text: classic heuristics (FIFO, LRU, LFU, …) have Ω(T) regret on semantic
workloads.

A lower bound for every member of a named class of policies: each member's Definition 2.3
regret on the ``stationary`` workload (:mod:`theory.claims.regret_runs`, the curves
Theorems 5.5–5.7 share), the slope of log R_T on log T with its bootstrap interval.  A
member refutes Ω(T) when its slope interval lies below 1 − MARGIN (docs/claims.md, "What a
slope shows"), with its trace saved; otherwise that member does not refute it.  Runs
never confirm a lower bound, so the best the class can get is ``not refuted`` (growth),
member by member (the sub-ranges).
"""

from __future__ import annotations

from theory.claims import regret_runs
from theory.claims.verdicts import (GROWTH, INCONCLUSIVE, LOWER_EVERY_POLICY, MARGIN,
                                    NOT_REFUTED, VIOLATED, basis, verdict, weakest)
from theory.kit.claim import Claim

POLICIES = {True: ("fifo", "lru", "lfu"), False: ("fifo", "lru", "lfu", "random")}


def linear(curve, scope: str, out_dir: str, quick: bool) -> dict:
    """One member's verdict on "R_T = Ω(T)" from its regret curve."""
    low, high = curve.ci
    grown = basis(GROWTH, scope)
    said = regret_runs.describe(curve)
    if not curve.valid:
        return verdict(INCONCLUSIVE, grown, f"{said}; {curve.reason}", form=LOWER_EVERY_POLICY,
                       range=curve.policy, would_decide="horizons at which the guard's "
                                                        "regret is linear")
    if high < 1 - MARGIN:
        saved = regret_runs.save_stationary_instance(
            out_dir, f"heuristics_regret_{curve.policy}", curve.policy, {}, quick)
        return verdict(VIOLATED, grown, f"{said}: below linear by more than the margin",
                       form=LOWER_EVERY_POLICY, range=curve.policy, instance=saved)
    return verdict(NOT_REFUTED, grown, said, form=LOWER_EVERY_POLICY, range=curve.policy)


def _check(quick: bool, out_dir: str) -> dict:
    names = POLICIES[quick]
    scope = regret_runs.scope(quick, ", ".join(names))
    curves = [regret_runs.curve(p, (), quick) for p in names]
    parts = [linear(c, scope, out_dir, quick) for c in curves]
    head = weakest(parts, scope, form=LOWER_EVERY_POLICY)
    slopes = ", ".join(f"{c.policy}: {c.slope:.3f} [{c.ci[0]:.3f}, {c.ci[1]:.3f}]"
                       for c in curves)
    refuting = [p for p in parts if p["verdict"] == VIOLATED]
    return dict(head, subranges=parts,
                measured=dict(curves=[regret_runs.summary(c) for c in curves]),
                evidence=(f"{refuting[0]['range']} stays below linear: {refuting[0]['evidence']}"
                          if refuting else
                          f"no member's slope interval lies below {1 - MARGIN:g}: {slopes}"))


CLAIM = Claim(
    id="heuristics-regret",
    title="Classic heuristics have Ω(T) regret",
    statement="Table 3: classic heuristics (FIFO, LRU, LFU, …) have Ω(T) eviction regret on "
              "semantic workloads.",
    conditions="fifo, lru, lfu, random (quick: fifo, lru, lfu) on the stationary "
               "workload (50 items, k = K = 5), T = 1250…20000, seeds 0–4 (quick: "
               "T = 500…4000, seeds 0–2); slope of log R_T on log T against Definition 2.3's "
               "comparator",
    form=LOWER_EVERY_POLICY,
    evidence=_check)
