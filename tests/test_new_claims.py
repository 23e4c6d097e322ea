"""The paper's claims checked since the first ten: FIFO's paging ratio, the threshold's floor,
the modification rate against L/τ, SOLAR-E's ratio and regret, the heuristics' regret, the
cost-optimal threshold and the threshold's convergence time.

The verdicts are read from the session's quick run (:mod:`helpers.quick_runs`); the pieces
behind them are tested on small inputs, each with a mutation it would catch.
"""

import numpy as np
import pytest

from helpers import quick_runs
from theory.claims import fifo_paging
from theory.claims.verdicts import DECIDING


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return {r.id: r for r in quick_runs.quick_claims(tmp_path_factory)}


def test_fifo_paging_holds_over_its_exhaustive_range_and_reaches_k(quick):
    r = quick["fifo-paging"]
    assert r.verdict == "holds" and r.basis["kind"] == "exhaustive"
    assert "K ≤ 3" in r.verdict_note
    parts = {p["range"]: p for p in r.subranges}
    assert parts["at least K (the adversary)"]["basis"]["kind"] == "construction"
    assert parts["at most K, random sequences"]["verdict"] == "not refuted"
    assert all(p["basis"]["kind"] in DECIDING for p in r.subranges if p["verdict"] == "holds")
    longest = {row["K"]: row for row in r.measured["adversarial"]}
    assert longest[8]["ratio"] >= 0.95 * 8
    assert r.measured["exhaustive"]["max_ratio_over_K"] <= 1.0


def test_the_exhaustive_half_is_the_kits_enumeration():
    from theory.kit.families import Enumeration, exhaustive_count

    every = fifo_paging.every_sequence(True)
    assert isinstance(every, Enumeration)
    assert len(every) == sum(exhaustive_count("paging", length=n, pages=K + 1, capacity=[K])
                             for K, n in fifo_paging.LONGEST[True].items())


def test_fifo_paging_is_violated_when_fifo_misses_more_than_k_belady(monkeypatch, tmp_path):
    # were Belady one miss better at K = 1, FIFO would break "at most K" on the exhaustive
    # range; the claim must say so with a saved instance, not hold
    from theory.claims import lru_paging

    real = lru_paging.misses

    def fewer(trace, policy, K):
        return max(real(trace, policy, K) - (policy == "belady" and K == 1 and
                                             trace.steps >= 4), 1)

    for module in (fifo_paging, lru_paging):  # the rows' counts and the bound's predicate
        monkeypatch.setattr(module, "misses", fewer)
    monkeypatch.setitem(fifo_paging.GRID_K, True, (2,))
    monkeypatch.setitem(fifo_paging.LONGEST, True, {1: 5})
    monkeypatch.setitem(fifo_paging.RANDOM, True, 5)
    r = fifo_paging.CLAIM.run(True, str(tmp_path))
    assert r.verdict == "violated" and r.basis["kind"] == "exhaustive"
    assert r.instance["model"]["capacity"] == 1


def test_tau_floor_is_violated_by_the_closed_form_and_the_run_floor_holds(quick):
    r = quick["tau-floor"]
    assert r.verdict == "violated" and r.basis["kind"] == "closed form"
    assert r.corrected["verdict"] == "holds"
    assert r.measured["closed_form_gap"] <= 1e-9
    smallest = min(row["delta"] for row in r.measured["rows"])
    assert r.instance["model"]["policy"] == "solar"
    assert min(row["tau_final"] for row in r.measured["rows"]) < 2 * smallest


def test_the_constant_loss_closed_form_matches_the_replayed_gate():
    from simulator.runner import run
    from theory.claims.tau_floor import closed_form, constant_loss_trace
    from theory.gate_replay import gate_path

    trace = constant_loss_trace(0.1, 120)
    path = gate_path(run(trace, "solar", capacity=2, top_k=1, switch_cost=0.5,
                         params={"alpha": 0.2, "tau0": 1.0}))
    assert np.allclose(path["tau"], closed_form(path["fired"], 120, 1.0, 0.2, 0.1))
    # a wrong rate would not match: the check can fail
    assert not np.allclose(path["tau"], closed_form(path["fired"], 120, 1.0, 0.1, 0.1))


def test_tau_floor_reports_a_replay_that_departs_from_the_closed_form(monkeypatch, tmp_path):
    from theory.claims import tau_floor

    monkeypatch.setattr(tau_floor, "closed_form",
                        lambda fired, steps, tau0, alpha, delta: np.zeros(steps + 1))
    monkeypatch.setitem(tau_floor.GRID, True, dict(delta=(0.5,), tau0=(1.0,), alpha=(0.5,)))
    r = tau_floor.CLAIM.run(True, str(tmp_path))
    assert r.verdict == "violated" and "departs" in r.evidence
    assert r.corrected["verdict"] == "violated"


def test_tau_convergence_holds_in_alpha_and_not_uniformly_in_the_losses(quick):
    r = quick["tau-convergence"]
    assert r.verdict == "holds" and r.basis["kind"] == "closed form"
    assert r.form == "asymptotic upper bound"
    rows = r.measured["rows"]
    assert all(x["firings"] == x["firings_closed_form"] and x["steps"] <= x["bound"]
               for x in rows)
    (uniform,) = r.readings
    assert uniform["verdict"] == "violated" and uniform["instance"]["steps"] > 0


def test_tau_convergence_is_violated_when_runs_take_longer_than_the_bound(monkeypatch,
                                                                          tmp_path):
    from theory.claims import tau_convergence

    real = tau_convergence.step_bound
    monkeypatch.setattr(tau_convergence, "step_bound", lambda *a: real(*a) / 4)
    monkeypatch.setitem(tau_convergence.GRID, True, dict(alpha=(0.2,), phases=((1.0, 0.1),)))
    r = tau_convergence.CLAIM.run(True, str(tmp_path))
    assert r.verdict == "violated" and r.instance["model"]["policy_params"]["alpha"] == 0.2


def test_rate_over_tau_fails_below_the_largest_loss_and_the_bracket_holds(quick):
    r = quick["rate-over-tau"]
    assert r.verdict == "violated" and r.basis["kind"] == "search"
    assert r.instance["model"]["policy_params"]["tau"] <= 1
    parts = {p["range"]: p["verdict"] for p in r.subranges}
    assert parts["τ ≤ 1 (≤ ℓ_max)"] == "violated" and parts["τ ≥ 4"] == "not refuted"
    assert r.corrected["verdict"] == "holds" and r.corrected["basis"]["kind"] == "closed form"
    assert all(row["ratio"] <= 1 + 1e-9 for row in r.measured["rows"])  # N/T ≤ L/τ


def test_with_binary_losses_and_tau_below_one_every_miss_fires():
    # clusters brings a new item every step, so the gate is asked every step: with hit
    # quality and τ = 0.5 each miss reaches τ, N/T = L and (N/T)/(L/τ) = τ
    from theory.claims import rate_over_tau

    row = rate_over_tau.measure("clusters", "hit", 0.5, dict(seeds=(0,), steps=300))
    assert row["rate"] == pytest.approx(row["loss_rate"])
    assert row["ratio"] == pytest.approx(0.5) and not row["agrees"] and row["bracket_ok"]


def test_solar_e_ratio_grows_with_k_and_its_regret_is_linear(quick):
    r = quick["solar-e"]
    ratio, regret = r.readings
    assert ratio["verdict"] == "holds" and ratio["basis"]["kind"] == "construction"
    assert regret["verdict"] == "violated" and regret["basis"]["kind"] == "growth"
    assert r.verdict == "violated" and r.instance is not None
    parts = {p["range"]: p for p in r.subranges}
    assert parts["λ = 0"]["verdict"] == "inconclusive" and parts["λ > 0"]["verdict"] == "holds"
    rows = [x for x in r.measured["rows"] if x["switch_cost"] > 0]
    assert all(x["ratio"] >= x["admissions_bound"] - 1e-9 for x in rows)
    longest = {x["K"]: x["ratio"] for x in rows if x["cycles"] == max(y["cycles"] for y in rows)}
    assert list(longest.values()) == sorted(longest.values())


def test_solar_e_admits_every_step_of_the_construction_and_opt_grows_one_per_cycle():
    from theory.claims.solar_e_bounds import ratios

    found = ratios(2, 1.0, dict(cycles=(4, 8), seeds=(0,)))
    assert found["admits_all"] and found["opt_per_cycle"] == pytest.approx(1.0)
    assert all(row["ok"] for row in found["rows"])


class _Curve:
    """The fields of a regret curve the verdict rules read."""

    def __init__(self, ci, valid=True):
        self.policy, self.slope, self.ci, self.valid = "lru", sum(ci) / 2, ci, valid
        self.horizons, self.mean, self.reason = [500, 4000], [10.0, 80.0], "guard"


@pytest.mark.parametrize("ci, sub, lin", [((0.40, 0.60), "not refuted", "violated"),
                                          ((0.70, 0.90), "inconclusive", "not refuted"),
                                          ((0.95, 1.05), "violated", "not refuted")])
def test_sublinear_and_linear_are_judged_on_either_side_of_the_margin(ci, sub, lin,
                                                                      tmp_path):
    from theory.claims.heuristics_regret import linear
    from theory.claims.solar_e_bounds import sublinear

    assert sublinear(_Curve(ci), "s", str(tmp_path), True, "r")["verdict"] == sub
    assert linear(_Curve(ci), "s", str(tmp_path), True)["verdict"] == lin
    assert sublinear(_Curve(ci, valid=False), "s", str(tmp_path), True,
                     "r")["verdict"] == "inconclusive"


def test_heuristics_regret_is_not_refuted_member_by_member(quick):
    r = quick["heuristics-regret"]
    assert r.verdict == "not refuted" and r.form == "lower bound over every policy"
    assert {p["range"] for p in r.subranges} == {"fifo", "lru", "lfu"}
    assert all(p["basis"]["kind"] == "growth" for p in r.subranges)


def test_optimal_threshold_is_violated_with_the_target_outside_the_band(quick):
    r = quick["optimal-threshold"]
    assert r.verdict == "violated" and r.basis["kind"] == "search"
    off = [x for x in r.measured["rows"] if not x["agrees"]]
    assert off and all(not (x["band"][0] <= x["target"] <= float(x["band"][1])) for x in off)
    assert "tau" in r.instance["model"]["policy_params"]


def test_the_near_optimal_band_widens_with_the_seeds_noise_and_opens_at_the_edges():
    from theory.claims.optimal_threshold import band

    taus = [0.5, 1.0, 2.0, 4.0]
    sharp = band(taus, [[3.0, 2.0, 1.0, 2.0], [3.0, 2.1, 1.0, 2.1], [3.1, 2.0, 1.1, 2.0]])
    assert (sharp["best"], sharp["low"], sharp["high"]) == (2.0, 1.0, 4.0)
    # a noisy neighbour is as good as the best: the band takes it in
    noisy = band(taus, [[3.0, 0.5, 1.0, 4.0], [3.0, 1.6, 1.0, 4.1], [3.1, 0.9, 1.1, 4.0]])
    assert noisy["low"] == 0.5 and noisy["high"] == 4.0
    # a best τ at the grid's top edge: the optimum may lie beyond, so the band is open
    assert band(taus, [[4.0, 3.0, 2.0, 1.0], [4.0, 3.0, 2.1, 1.0]])["high"] == float("inf")
