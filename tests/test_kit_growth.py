"""Rates and the additive form of the claim kit (theory.kit.growth, theory.kit.fit): each
form holds a true and a false statement to the right verdict, on small runs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import theory
from simulator.errors import InputError
from simulator.instance import Instance
from simulator.run_options import RunOptions
from simulator.runner import run
from theory.claims import verdicts
from theory.claims import cr3_families
from theory.kit.fit import growth_fit
from theory.opt import opt_with
from theory.regret_fit import bootstrap_slope, fit_slope

LAM = 0.25  # the P-phase family's switch cost; SOLAR runs with τ = 2λ


def rows_of(bound, policy, family, params=None):
    """One row per instance, as theory.check builds them: the run options, the labels and
    the bound's numbers."""
    rows = []
    for i, inst in enumerate(family):
        options = RunOptions.build(policy=policy, params=params, **inst.options)
        result = run(inst.trace, options=options)
        best = opt_with(inst.trace, options) if bound.needs_opt else None
        status, numbers = bound.apply(result, best, inst)
        rows.append(dict(index=i, status=status, steps=inst.steps, labels=inst.labels,
                         **inst.options, **numbers))
    return rows


def phases(P: int, lam: float = LAM) -> Instance:
    """K = 1, P phases: weights 2λ − 0.001 then 1 then 1, the last step bringing the next
    topic's item; SOLAR (τ = 2λ) pays 3λ + 0.999 a phase and OPT λ (cr3_families)."""
    return cr3_families.phases(P, lam)


@pytest.fixture(scope="module")
def stationary():
    """FIFO on stationary traces at K = 2, four horizons, two seeds: its regret is linear."""
    return theory.families.grid("stationary", params={"items": 6, "dim": 4}, capacity=[2],
                                top_k=[2], steps=[100, 200, 400, 800], seeds=[0, 1])


@pytest.fixture(scope="module")
def fifo_regret(stationary):
    return rows_of(theory.bounds.rate_at_most(lambda K, T: T), "fifo", stationary)


@pytest.fixture(scope="module")
def p_phase():
    return theory.families.Family(tuple(phases(P) for P in (1, 2, 3, 4, 6, 8)),
                                  "the K = 1 P-phase family, P = 1…8")


def _judged(bound, rows, scope="test rows"):
    said = bound.conclude(rows, scope)
    verdicts.check(said["verdict"], said["basis"], said.get("form"), said.get("would_decide"),
                   verdicts.RATE)  # the rules of a rate allow it
    assert said["basis"]["kind"] == verdicts.GROWTH
    return said


# --- the fit ---------------------------------------------------------------------------

@given(st.floats(-2, 2), st.floats(0.1, 10))
@example(0.5, 1.0)
@example(-1.0, 3.0)
def test_a_power_law_fits_its_exponent(p, a):
    xs = [100, 200, 400, 800]
    fit = growth_fit(xs, [a * x ** p for x in xs])
    assert fit.slope == pytest.approx(p, abs=1e-9)
    assert fit.low == pytest.approx(p, abs=1e-9) and fit.high == pytest.approx(p, abs=1e-9)
    assert fit.method == "instances" and fit.n == 4


@given(st.integers(0, 2**16))
@example(0)
def test_over_seeds_the_fit_is_the_regret_curves_fit(seed):
    horizons = [100, 200, 400, 800]
    per_seed = np.random.default_rng(seed).random((4, 4)) * np.array(horizons)
    fit = growth_fit(np.tile(horizons, 4), per_seed.ravel(), resamples=200, seed=seed)
    low, high, n = bootstrap_slope(horizons, per_seed, 200, 0.95, seed)
    assert fit.method == "seeds"
    assert (fit.slope, fit.low, fit.high, fit.resamples) == \
        (fit_slope(horizons, per_seed.mean(axis=0)), low, high, n)


def test_a_linear_fit_and_an_undefined_one():
    assert growth_fit([1, 2, 3], [5.0, 7.0, 9.0], log=False).slope == pytest.approx(2.0)
    bad = growth_fit([1, 2, 3], [1.0, 0.0, 2.0])  # a mean of 0 has no logarithm
    assert math.isnan(bad.slope) and not bad.defined and bad.describe() == "undefined"
    assert bad.as_dict()["slope"] is None


@pytest.mark.parametrize("kwargs, field", [
    (dict(xs=[1, 2], ys=[1.0]), "ys"),
    (dict(xs=[0, 1], ys=[1.0, 2.0]), "xs"),
    (dict(xs="12", ys=[1.0, 2.0]), "xs"),
    (dict(xs=[1, 2], ys=[1.0, 2.0], resamples=0), "resamples"),
    (dict(xs=[1, 2], ys=[1.0, 2.0], level=1.0), "level"),
])
def test_bad_input_to_the_fit_is_one_line(kwargs, field):
    with pytest.raises(InputError) as err:
        growth_fit(**kwargs)
    assert err.value.param == field and "\n" not in str(err.value)


# --- rates -----------------------------------------------------------------------------

@pytest.mark.parametrize("upper, f, said", [
    (True, lambda K, T: T ** 0.5, verdicts.VIOLATED),       # FIFO's regret is not O(√T)
    (True, lambda K, T: T, verdicts.NOT_REFUTED),           # it is O(T) as far as runs tell
    (False, lambda K, T: T, verdicts.NOT_REFUTED),          # and Ω(T)
    (False, lambda K, T: T ** 1.5, verdicts.VIOLATED),      # but not Ω(T^1.5)
])
def test_fifos_regret_rate(fifo_regret, upper, f, said):
    bound = (theory.bounds.rate_at_most if upper else theory.bounds.rate_at_least)(f)
    rows = [dict(r, f=f(r["K"], r["T"])) for r in fifo_regret]
    found = _judged(bound, rows)
    assert found["verdict"] == said
    assert found["form"] == (verdicts.UPPER_ASYMPTOTIC if upper else None)
    (fit,) = found["measured"]["fits"]
    assert fit["fit"]["method"] == "seeds" and fit["fit"]["n"] == 8
    if said == verdicts.VIOLATED:  # the witness is an instance at the largest horizon
        assert fifo_regret[found["witness"]]["T"] == 800


def test_fifo_measures_regret_exactly_and_linearly(fifo_regret):
    assert all(r["value"] == r["value_upper"] > 0 for r in fifo_regret)
    by_T = {T: np.mean([r["value"] for r in fifo_regret if r["T"] == T])
            for T in (100, 800)}
    assert 6 < by_T[800] / by_T[100] < 10


def test_at_k1_every_regret_is_zero_so_omega_t_fails():
    family = theory.families.grid("stationary", params={"items": 6, "dim": 4}, capacity=[1],
                                  top_k=[1], steps=[50, 100, 200])
    bound = theory.bounds.rate_at_least(lambda K, T: T)
    found = _judged(bound, rows_of(bound, "fifo", family))
    assert found["verdict"] == verdicts.VIOLATED and "0 at every T" in found["evidence"]
    upper = theory.bounds.rate_at_most(lambda K, T: 1.0)
    assert _judged(upper, rows_of(upper, "fifo", family))["verdict"] == verdicts.NOT_REFUTED


def test_two_horizons_are_inconclusive(fifo_regret):
    rows = [r for r in fifo_regret if r["T"] in (100, 200)]
    found = _judged(theory.bounds.rate_at_most(lambda K, T: 1.0), rows)
    assert found["verdict"] == verdicts.INCONCLUSIVE
    assert "3 distinct T" in found["would_decide"]


def test_a_lower_bound_on_the_value_cannot_refute_omega():
    """Against the greedy comparator the regret is a lower bound: it may break O(f), never
    Ω(f)."""
    big = theory.families.grid("stationary", params={"items": 40, "dim": 4}, capacity=[5],
                               top_k=[5], steps=[100])  # beyond the exact comparator's reach
    (row,) = rows_of(theory.bounds.rate_at_least(lambda K, T: T), "fifo", big)
    assert row["comparator"] == "greedy" and "value_upper" not in row and row["value"] > 0
    rows = [dict(index=i, K=3, T=T, value=float(T), comparator="greedy", f=1.0)
            for i, T in enumerate((100, 200, 400))]
    assert _judged(theory.bounds.rate_at_most(lambda K, T: 1.0), rows)["verdict"] == \
        verdicts.VIOLATED
    found = _judged(theory.bounds.rate_at_least(lambda K, T: T ** 3), rows)
    assert found["verdict"] == verdicts.INCONCLUSIVE and "exact" in found["would_decide"]


def test_growth_in_k_is_fitted_where_three_k_share_t():
    rows = [dict(index=i, K=K, T=1000, value=float(K * K), value_upper=float(K * K), f=1.0)
            for i, K in enumerate((2, 4, 8))]
    found = _judged(theory.bounds.rate_at_most(lambda K, T: 1.0), rows)
    assert found["verdict"] == verdicts.VIOLATED and "on log K" in found["evidence"]
    assert found["witness"] == 2


@pytest.mark.parametrize("of, f, said", [
    ("cost", lambda K, T: 1.0, verdicts.VIOLATED),           # FIFO's cost grows with T
    ("cost", lambda K, T: T, verdicts.NOT_REFUTED),          # linearly
    ("excess", lambda K, T: T ** 2, verdicts.NOT_REFUTED),   # cost − OPT is O(T²)
    ("modifications", lambda K, T: T ** 2, verdicts.NOT_REFUTED),
])
def test_other_quantities(of, f, said):
    family = theory.families.grid("cycling", params={"topics": 3, "items_per_topic": 1,
                                                     "dim": 8},
                                  capacity=[2], top_k=[2], steps=[12, 24, 48])
    bound = theory.bounds.rate_at_most(f, of=of)
    assert bound.needs_opt == (of == "excess")
    found = _judged(bound, rows_of(bound, "fifo", family))
    assert found["verdict"] == said


def test_a_quantity_of_your_own():
    family = theory.families.grid("cycling", params={"topics": 3, "items_per_topic": 1,
                                                     "dim": 8},
                                  capacity=[2], top_k=[2], steps=[12, 24, 48])

    def misses_squared(run, opt, instance):
        return float(run.summary()["cost"]) ** 2

    bound = theory.bounds.rate_at_least(lambda K, T: T ** 2, of=misses_squared)
    found = _judged(bound, rows_of(bound, "fifo", family))
    assert found["verdict"] == verdicts.NOT_REFUTED
    assert bound.describe().startswith("misses_squared = Ω(")


@pytest.mark.parametrize("make, field", [
    (lambda: theory.bounds.rate_at_most(3), "f"),
    (lambda: theory.bounds.rate_at_least(lambda K, T: T, of="latency"), "of"),
    (lambda: theory.bounds.rate_at_most(lambda K, T: T, needs_opt=1), "needs_opt"),
    (lambda: theory.bounds.competitive_at_most(0), "c"),
    (lambda: theory.bounds.competitive_at_most(3, scale="P"), "scale"),
])
def test_bad_constructor_arguments_are_one_line(make, field):
    with pytest.raises(InputError) as err:
        make()
    assert err.value.param == field and "\n" not in str(err.value)


def test_a_limit_that_is_not_positive_is_refused(stationary):
    bound = theory.bounds.rate_at_most(lambda K, T: 0.0)
    with pytest.raises(InputError, match=r"f\(K, T\) returned 0.0 at K = 2"):
        rows_of(bound, "fifo", list(stationary)[:1])


def test_regret_needs_latent_utilities():
    family = theory.families.grid("cycling", params={"topics": 3, "items_per_topic": 1,
                                                     "dim": 8}, capacity=[2], top_k=[2],
                                  steps=[12])
    with pytest.raises(InputError, match="latent utilities"):
        rows_of(theory.bounds.rate_at_most(lambda K, T: T), "fifo", family)


# --- the additive form -----------------------------------------------------------------

def test_solar_minus_three_opt_grows_on_the_p_phase_family(p_phase):
    bound = theory.bounds.competitive_at_most(3)
    rows = rows_of(bound, "solar", p_phase, params={"tau": 2 * LAM})
    for r in rows:  # SOLAR − 3·OPT = 0.999·P, OPT exact
        assert r["opt_lower"] == r["opt_upper"]
        assert r["excess"] == pytest.approx(0.999 * r["scale"])
    found = _judged(bound, rows, p_phase.scope)
    assert found["verdict"] == verdicts.VIOLATED and "grows" in found["evidence"]
    assert found["measured"]["fit"]["slope"] == pytest.approx(0.999)
    assert rows[found["witness"]]["scale"] == 8


def test_the_corrected_constant_is_not_refuted(p_phase):
    bound = theory.bounds.competitive_at_most(3 + 1 / LAM)
    found = _judged(bound, rows_of(bound, "solar", p_phase, params={"tau": 2 * LAM}))
    assert found["verdict"] == verdicts.NOT_REFUTED
    assert found["form"] == verdicts.UPPER_ASYMPTOTIC
    assert "does not grow" in found["evidence"]


def _excess_rows(values, upper=None):
    upper = values if upper is None else upper
    return [dict(index=i, scale=float(s), excess=float(e), excess_upper=float(u))
            for i, (s, e, u) in enumerate(zip(range(1, len(values) + 1), values, upper))]


def test_an_excess_that_levels_off_is_bounded():
    """e = 2 − 2/s rises at first, then flattens: the larger half's slope is under a
    quarter of the whole family's, so it does not count as growth."""
    rows = _excess_rows([2 - 2 / s for s in range(1, 9)])
    found = _judged(theory.bounds.competitive_at_most(3), rows)
    assert found["verdict"] == verdicts.NOT_REFUTED
    assert found["measured"]["fit"]["low"] > 0  # the whole family's slope alone would say grows


def test_growth_against_opts_lower_bound_only_is_inconclusive():
    rows = _excess_rows([0.0] * 6, upper=[float(s) for s in range(1, 7)])
    found = _judged(theory.bounds.competitive_at_most(3), rows)
    assert found["verdict"] == verdicts.INCONCLUSIVE and "exact OPT" in found["would_decide"]


def test_four_scales_are_inconclusive():
    found = _judged(theory.bounds.competitive_at_most(3), _excess_rows([1.0, 2, 3, 4]))
    assert found["verdict"] == verdicts.INCONCLUSIVE and "5 distinct" in found["would_decide"]


def test_the_scale_may_come_from_a_function(p_phase):
    bound = theory.bounds.competitive_at_most(3, scale=lambda inst: inst.trace.steps)
    rows = rows_of(bound, "solar", list(p_phase)[:2], params={"tau": 2 * LAM})
    assert [r["scale"] for r in rows] == [4.0, 7.0]
    unlabelled = [Instance(inst.trace, inst.options) for inst in list(p_phase)[:1]]
    with pytest.raises(InputError, match=r"labels\['scale'\]"):
        rows_of(theory.bounds.competitive_at_most(3), "solar", unlabelled,
                params={"tau": 2 * LAM})


# --- through theory.check --------------------------------------------------------------

def test_check_saves_the_largest_p_phase_instance_as_the_witness(p_phase, tmp_path):
    claim = theory.Claim(id="pphase", statement="SOLAR's cost ≤ 3·OPT + b for some b",
                         policy="solar", params={"tau": 2 * LAM}, instances=p_phase,
                         bound=theory.bounds.competitive_at_most(3))
    result = theory.check(claim, out_dir=str(tmp_path))
    assert (result.verdict, result.basis["kind"]) == (verdicts.VIOLATED, verdicts.GROWTH)
    assert result.form == verdicts.UPPER_ASYMPTOTIC
    assert result.instance["steps"] == phases(8).steps  # P = 8, the largest scale
    assert any(line.startswith("semcache opt") for line in result.instance["reproduce"])
    assert [r["excess"] for r in result.measured["rows"]] == \
        pytest.approx([0.999 * P for P in (1, 2, 3, 4, 6, 8)])


def test_check_judges_a_rate_per_subrange(stationary, tmp_path):
    claim = theory.Claim(id="fifo-rate", statement="FIFO's regret is Ω(T)", policy="fifo",
                         instances=stationary, bound=theory.bounds.rate_at_least(lambda K, T: T),
                         subranges={"seed 0": lambda inst: inst.labels["seed"] == 0})
    result = theory.check(claim, out_dir=str(tmp_path))
    assert (result.verdict, result.basis["kind"]) == (verdicts.NOT_REFUTED, verdicts.GROWTH)
    assert result.instance is None and not list(tmp_path.iterdir())
    (part,) = result.subranges
    assert part["verdict"] == verdicts.NOT_REFUTED and part["runs"] == 4


def test_the_guides_rate_claim_comes_back_as_it_says(tmp_path):
    """docs/extending.md, "Rates and additive forms": its claim is violated."""
    import pathlib
    import re

    guide = pathlib.Path(__file__).resolve().parents[1] / "docs" / "extending.md"
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", guide.read_text("utf-8"), re.S)
                if "fifo-sqrt" in b]
    space = dict(theory=theory, bounds=theory.bounds, families=theory.families)
    exec(block, space)
    result = theory.check(space["REGRET"], out_dir=str(tmp_path))
    assert result.verdict == verdicts.VIOLATED and result.instance["steps"] == 800


def test_a_family_without_scales_is_one_line_naming_the_claim(p_phase, tmp_path):
    unlabelled = [Instance(inst.trace, inst.options) for inst in list(p_phase)[:2]]
    claim = theory.Claim(id="no-scale", statement="s", policy="solar",
                         params={"tau": 2 * LAM}, instances=unlabelled,
                         bound=theory.bounds.competitive_at_most(3))
    with pytest.raises(InputError) as err:
        theory.check(claim, out_dir=str(tmp_path))
    assert str(err.value).startswith("claim 'no-scale'") and "labels['scale']" in str(err.value)
    assert "\n" not in str(err.value) and not list(tmp_path.iterdir())


def test_a_rate_over_a_class_of_policies(stationary, tmp_path):
    """Ω(f) for every policy of a class is a lower bound over every policy: never holds,
    refuted by the first member that falls behind f."""
    def claim(f):
        return theory.Claim(id="heuristics", statement="every heuristic's regret is Ω(f)",
                            policy=["fifo", "lru"], instances=stationary,
                            bound=theory.bounds.rate_at_least(f))

    fine = theory.check(claim(lambda K, T: T), out_dir=str(tmp_path))
    assert (fine.verdict, fine.form) == (verdicts.NOT_REFUTED, verdicts.LOWER_EVERY_POLICY)
    broken = theory.check(claim(lambda K, T: T ** 1.5), out_dir=str(tmp_path))
    assert broken.verdict == verdicts.VIOLATED and "fifo" in broken.evidence
