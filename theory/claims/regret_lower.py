"""Theorem 5.7: every online eviction policy has regret Ω(√(KT)) on some instance.

A lower bound over every policy, with an unspecified constant and a supremum over
instances, cannot be confirmed by runs of some policies, and a finite search cannot show
that a policy does well on *every* instance; runs refute it only where an argument covers
every instance.  So the headline is ``violated`` only by a closed form, and otherwise ``not
refuted``.  Everything is measured on the proof's own construction in the stylized model
(:mod:`theory.eviction_bandit`): K + 1 items, K at utility 1/2 and one at 1/2 − ε,
ε = ½·√(K/T), K = 1, 2, 4 … 64, 16 seeds (:func:`theory.claims.bandit_runs.gap_rows`).

Headline, by the paper's definitions (forced admission, Definition 2.3's comparator).  The
statement bounds every *online* policy, so only online policies may witness against it:
``ts_restart`` (Algorithm 2), ``fifo`` and ``uniform`` (:data:`ONLINE`).  The ``oracle``
told μ knows the utilities, so it is not online: it is measured beside them as a reference
and never turns a verdict.

- K = 1: with one slot and forced admission the cached item is the only victim, so every
  policy is its own comparator and R_T = 0 on every instance (closed form): violated.  The
  headline then rests on K = 1 alone, and its ``verdict_note`` says so, with the verdict of
  K ≥ 2 beside it;
- K ≥ 2: not refuted while no online policy's R_T/√(KT) falls with T or with K (a log–log
  slope whose 95 % interval lies below −0.25, the margin of
  :data:`theory.claims.verdicts.MARGIN`, would show it; :func:`bandit_runs.slope_over`).

Readings: the proof's *displayed* inequality R_T ≥ (K − 1)·ε·T/K has its constant, so on
its construction an online policy whose seeds' 95 % interval of R_T lies below it breaks
it; the proof's device (the arrival may leave, posteriors kept: ``ts``, ``greedy``), *outside the
paper's definitions*, where the same fall of R_T/√(KT) with K shows that the construction
does not force Ω(√(KT)) in the model of the proof; and our generalisation to semantic
traces.
"""

from __future__ import annotations

import math

from theory.claims import bandit_runs, regret_runs
from theory.claims.base import only_in
from theory.claims.verdicts import (
    CLOSED_FORM,
    CONSTRUCTION,
    GROWTH,
    LOWER_EVERY_POLICY,
    MARGIN,
    NOT_REFUTED,
    VIOLATED,
    basis,
    verdict,
    weakest,
)
from theory.eviction_bandit import FORCED
from theory.kit.claim import Claim

DEVICE = ("ts", "greedy")
# The statement bounds every *online* policy: the oracle knows μ, so it is measured as a
# reference but never witnesses against the bound (docs/claims.md, Theorem 5.7).
ONLINE = tuple(p for p in FORCED + DEVICE if p != "oracle")
GAP = 0.5  # ε = ½·√(K/T), the proof's gap


def _scope(quick: bool, who: str) -> str:
    Ts = "/".join(str(T) for T in bandit_runs.GAP_HORIZONS[quick])
    return (f"the proof's construction (K + 1 items, one ε = ½√(K/T) below 1/2), "
            f"K = 1…64, T = {Ts}, {len(bandit_runs.SEEDS)} seeds; {who}")


def _falls(rows_by_policy: dict, scope: str, out_dir: str, name: str, **more) -> dict:
    """Violated (growth) when some online policy's R_T/√(KT) falls with T or K, else not
    refuted.  A policy outside :data:`ONLINE` (the oracle, which knows μ) is fitted and
    reported beside, as a reference, but never witnesses against a bound on every online
    policy."""
    slopes, falling = {}, []
    for p, rows in rows_by_policy.items():
        for by in ("steps", "K"):
            for group, fit in bandit_runs.slope_over(rows, by).items():
                slopes[f"{p} over {'T' if by == 'steps' else 'K'} at "
                       f"{'K' if by == 'steps' else 'T'}={group}"] = fit
                if p in ONLINE and fit["ci"][1] < -MARGIN:
                    falling.append(dict(policy=p, by=by, group=group, fit=fit))
    online = {p: rows for p, rows in rows_by_policy.items() if p in ONLINE}
    reference = _reference(rows_by_policy)
    if falling:
        f = min(falling, key=lambda f: f["fit"]["ci"][1])
        by, fit = f["by"], f["fit"]
        row = max((r for r in online[f["policy"]]
                   if (r["K"] if by == "steps" else r["steps"]) == f["group"]),
                  key=lambda r: r[by])
        return verdict(VIOLATED, basis(GROWTH, scope),
                       f"{f['policy']}'s R_T/√(KT) falls with {'T' if by == 'steps' else 'K'} "
                       f"(slope {fit['slope']:.2f}, 95 % CI [{fit['ci'][0]:.2f}, "
                       f"{fit['ci'][1]:.2f}]) down to {row['over_sqrt_KT']:.3f} at "
                       f"K={row['K']}, T={row['steps']}{reference}", form=LOWER_EVERY_POLICY,
                       instance=bandit_runs.save_gap_instance(out_dir, name, row, GAP),
                       slopes=slopes, **more)
    low = min((r for rows in online.values() for r in rows if r["K"] > 1),
              key=lambda r: r["over_sqrt_KT"])
    return verdict(NOT_REFUTED, basis(GROWTH, scope),
                   f"no online policy's R_T/√(KT) falls with T or K; the smallest is "
                   f"{low['over_sqrt_KT']:.3f} ({low['policy']}, K={low['K']}, "
                   f"T={low['steps']}){reference}", form=LOWER_EVERY_POLICY, slopes=slopes,
                   **more)


def _reference(rows_by_policy: dict) -> str:
    """The policies that are not online, reported beside the verdict: their smallest
    R_T/√(KT)."""
    said = []
    for p, rows in rows_by_policy.items():
        if p not in ONLINE and any(r["K"] > 1 for r in rows):
            low = min((r for r in rows if r["K"] > 1), key=lambda r: r["over_sqrt_KT"])
            said.append(f"{p}, not online, a reference: {low['over_sqrt_KT']:.3f} at "
                        f"K={low['K']}, T={low['steps']}")
    return f" ({'; '.join(said)})" if said else ""


def _displayed(rows_by_policy: dict, quick: bool, out_dir: str) -> dict:
    """The proof's inequality R_T ≥ (K − 1)εT/K, row by row, on the online forced policies
    (the oracle's rows are counted beside, as a reference)."""
    online = [p for p in rows_by_policy if p in ONLINE]
    rows = [r for p in online for r in rows_by_policy[p] if r["K"] > 1]
    below = [r for r in rows if r["interval"][1] < r["proof_bound"]]
    others = [p for p in rows_by_policy if p not in ONLINE]
    theirs = [r for p in others for r in rows_by_policy[p] if r["K"] > 1]
    beside = (f"; {', '.join(others)}, not online, a reference: "
              f"{sum(r['interval'][1] < r['proof_bound'] for r in theirs)} of {len(theirs)} "
              "lie below it") if theirs else ""
    scope = _scope(quick, "online forced policies " + ", ".join(online)) + \
        "; each (policy, K, T) against (K − 1)εT/K with its seeds' 95 % interval"
    name = "the proof's displayed inequality R_T ≥ (K − 1)·ε·T/K, on its construction"
    if below:
        r = min(below, key=lambda r: r["mean_regret"] / r["proof_bound"])
        return verdict(VIOLATED, basis(CONSTRUCTION, scope),
                       f"{len(below)} of {len(rows)} (policy, K, T) lie below it, e.g. "
                       f"{r['policy']} at K={r['K']}, T={r['steps']}: R_T = "
                       f"{r['mean_regret']:.1f} (95 % up to {r['interval'][1]:.1f}) < "
                       f"{r['proof_bound']:.1f}{beside}", form=LOWER_EVERY_POLICY,
                       reading=name, within_definitions=True,
                       instance=bandit_runs.save_gap_instance(out_dir, "thm5_7_displayed", r,
                                                              GAP))
    return verdict(NOT_REFUTED, basis(CONSTRUCTION, scope),
                   f"no interval of the {len(rows)} lies below it{beside}",
                   form=LOWER_EVERY_POLICY, reading=name, within_definitions=True)


def _semantic(quick: bool) -> tuple:
    from theory.claims.thompson_regret import VARIANTS

    policies = (("fifo", ()), ("lru", ())) + VARIANTS
    curves = [regret_runs.curve(p, prm, quick) for p, prm in policies]
    K, T = regret_runs.CAPACITY, curves[0].horizons[-1]
    rows = [dict(regret_runs.summary(c), normalised=c.mean[-1] / math.sqrt(K * T))
            for c in curves]
    low = min(rows, key=lambda r: r["normalised"])
    fast = [c for c in curves if c.valid and c.ci[1] < 0.5 - MARGIN]
    name = "our generalisation: the semantic stationary family"
    scope = regret_runs.scope(quick, "fifo, lru and the Thompson variants")
    if fast:  # a search: slower growth on these traces is not an argument for every instance
        c = fast[0]
        evidence = (f"{c.policy} grows as T^{c.slope:.2f} (CI upper {c.ci[1]:.2f}), but a search "
                    "on these traces is not an argument over every instance")
    else:
        evidence = f"smallest R(T)/√(KT) at T={T} is {low['normalised']:.1f} ({low['policy']})"
    return verdict(NOT_REFUTED, basis(GROWTH, scope), evidence, form=LOWER_EVERY_POLICY,
                   reading=name, within_definitions=True), rows


def _check(quick: bool, out_dir: str) -> dict:
    forced = {p: bandit_runs.gap_rows(p, GAP, quick) for p in FORCED}
    device = {p: bandit_runs.gap_rows(p, GAP, quick) for p in DEVICE}
    ones = [r for rows in forced.values() for r in rows if r["K"] == 1]
    if any(r["mean_regret"] != 0 for r in ones):
        raise AssertionError("K = 1 with forced admission must give zero regret")
    first = next(r for r in ones if r["policy"] == "ts_restart")
    one = verdict(VIOLATED, basis(CLOSED_FORM, "K = 1, every instance and every policy: the "
                                  "one cached item is the only victim, so R_T = 0"),
                  f"R_T = 0 for every policy, horizon and seed ({len(ones)} runs), below any "
                  "c·√T", form=LOWER_EVERY_POLICY, range="K = 1",
                  runs=len(ones) * len(bandit_runs.SEEDS),
                  instance=bandit_runs.save_gap_instance(out_dir, "thm5_7_K1", first, GAP))
    rest = _falls({p: [r for r in rows if r["K"] > 1] for p, rows in forced.items()},
                  _scope(quick, "online forced policies " +
                         ", ".join(p for p in FORCED if p in ONLINE) +
                         ", the oracle told μ beside as a reference"), out_dir,
                  "thm5_7_forced", range="K ≥ 2",
                  runs=len(bandit_runs.SEEDS) * sum(r["K"] > 1 for rows in forced.values()
                                                    for r in rows))
    parts = [one, rest]
    head = weakest(parts, _scope(quick, "forced policies; K = 1 by a closed form"),
                   form=LOWER_EVERY_POLICY)
    semantic, curves = _semantic(quick)
    readings = [
        _displayed(forced, quick, out_dir),
        dict(_falls(device, _scope(quick, "ts and greedy, the arrival may leave, against the "
                                   "best schedule of their class"), out_dir, "thm5_7_device"),
             reading="the construction forces Ω(√(KT)) in the proof's device (the arrival "
                     "may leave, posteriors kept)",
             within_definitions=False),
        semantic]
    evidence = (f"at K = 1 every policy has R_T = 0 (one slot, forced admission: no choice); "
                f"K ≥ 2: {rest['evidence']}")
    measured = dict(construction=forced, construction_device=device, curves=curves,
                    online=list(ONLINE))
    return dict(verdict=head["verdict"], basis=head["basis"], evidence=evidence,
                instance=head.get("instance"), measured=measured, readings=readings,
                subranges=parts, verdict_note=only_in(head, parts, "K = 1", "K ≥ 2"))


CLAIM = Claim(
    id="thm5.7",
    title="Regret lower bound",
    statement="Theorem 5.7: any online eviction policy suffers regret Ω(√(KT)).",
    conditions="the proof's construction in the stylized model (K + 1 items, one at 1/2 − ε, "
               "ε = ½√(K/T)), K = 1, 2, 4, 8, 16, 32, 64, T = 1000/4000/16000 (quick: "
               "1000/4000), 16 seeds, with the paper's definitions (forced admission, "
               "Definition 2.3's best feasible schedule, expected losses) for the online "
               "policies ts_restart (Algorithm 2), fifo and uniform, the oracle told μ (not "
               "online) beside as a reference; readings: the proof's "
               "displayed inequality, the proof's device (ts, greedy; arrival may leave), the "
               "semantic stationary family; a lower bound over every policy is violated only "
               "by a closed form, otherwise not refuted",
    evidence=_check, form=LOWER_EVERY_POLICY)
