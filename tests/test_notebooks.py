"""Every notebook in ``notebooks/`` runs top to bottom without error (as CI executes them).

Notebooks run in a fresh kernel with the working directory set to a temporary folder, so
files they write never land in the repository; ``SEMCACHE_NOTEBOOK_QUICK=1`` asks them for
their small settings.  Some notebooks get a probe: a cell appended to the copy in memory
that prints, as one JSON line, what the test then checks (the file itself is untouched).
"""

import json
import math
import os
import pathlib

import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))

# bounds.ipynb: redraw's defaults, the controls that `interact` wired, what it called redraw
# with, and the panels of both figures (section 1's and the one drawn through the controls).
BOUNDS_PROBE = """
import inspect, json
def panel(ax):
    return dict(title=ax.get_title(), bars=[p.get_height() for p in ax.patches],
                points=[[float(y) for y in line.get_ydata()] for line in ax.get_lines()])
print(json.dumps(dict(
    defaults={n: p.default for n, p in inspect.signature(redraw).parameters.items()},
    controls={n: [type(w).__name__, w.value] for n, w in controls.items()},
    wired=sorted(w.description for w in ui.kwargs_widgets),
    called_with=ui.kwargs,
    figures=[[panel(ax) for ax in f.axes] for f in (fig, ui.result)])))
"""


def check_bounds(report, nb):
    defaults = report["defaults"]
    assert set(defaults) == {"K", "lam", "workload", "policy", "T"}
    # one control per argument, starting at redraw's default: the figure a user sees first
    # is the headless one
    assert {n: v for n, (_, v) in report["controls"].items()} == defaults
    assert report["controls"]["K"][0] == "IntSlider"
    assert report["controls"]["workload"][0] == "Dropdown"
    assert report["wired"] == sorted(["K", "λ", "workload", "policy", "T"])
    assert report["called_with"] == defaults
    headless, through_controls = report["figures"]
    assert [p["title"][:3] for p in headless] == ["(a)", "(b)", "(c)"]
    assert headless == through_controls
    a, b, c = headless
    cost, optimum = a["bars"]  # cycling: OPT is exact, two bars
    assert 0 < optimum <= cost and "ratio = " in a["title"]
    assert len(b["points"][0]) == 4 and all(r >= 1 for r in b["points"][0])
    assert len(c["points"][0]) == 4 and all(math.isfinite(r) and r > 0 for r in c["points"][0])
    # the widgets reached the (absent) front-end: nbclient stores their state
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    described = {m["state"].get("description") for m in state.values()}
    assert set(report["wired"]) <= described


# your_claim.ipynb: the false claim refuted with a small saved instance that replays, the
# true one not refuted (a search says no more), and the property test catching the same
YOUR_CLAIM_PROBE = """
import json, os
print(json.dumps(dict(
    refuted=[refuted.verdict, refuted.basis["kind"], refuted.instance["steps"],
             os.path.exists(refuted.instance["trace"]), refuted.instance["reproduce"]],
    parts=[p["verdict"] for p in refuted.subranges],
    survived=[survived.verdict, survived.basis["kind"]],
    property_failure=property_failure)))
"""


def check_your_claim(report, nb):
    verdict, kind, steps, saved, reproduce = report["refuted"]
    assert (verdict, kind, saved) == ("violated", "search", True)
    assert steps <= 4  # shrunk from 40 steps
    assert reproduce[0].startswith("semcache run --trace") and "--policy doorkeeper" in \
        reproduce[0] and reproduce[1].startswith("semcache opt --trace")
    assert report["parts"] == ["violated", "violated"]
    assert report["survived"] == ["not refuted", "search"]
    assert report["property_failure"].startswith("doorkeeper: cost ")
    assert "semcache opt --trace" in report["property_failure"]


# worst_case.ipynb: the search found a worst case by itself (not a trivial one), its grown
# family tends to K, and each verdict printed is the kit's for its quantifier; the witness
# replays to the ratio it claims (LRU and Belady rerun on the saved file here)
WORST_CASE_PROBE = """
import json, os
from simulator import load, run
def misses(trace, policy):
    s = run(trace, policy, capacity=K).summary()
    return s["steps"] - s["hits"]
witness = load(reaches.instance["trace"])
print(json.dumps(dict(
    K=K, best=[lru.best["score"], lru.best["steps"], os.path.exists(lru.best["trace"])],
    grown=[lru.grown["verdict"], lru.grown["limit"], lru.grown["scores"],
           [i.labels["scale"] for i in lru.family]],
    reaches=[reaches.verdict, reaches.basis["kind"],
             misses(witness, "lru") / misses(witness, "belady")],
    competitive=[competitive.verdict, competitive.basis["kind"], competitive.basis["scope"],
                 len(tiny)],
    solar=[solar.best["score"], solar.grown["verdict"], solar.grown["repeats"]],
    additive={f"{c:g}": [a.verdict, a.basis["kind"]] for c, a in additive.items()},
    figures=[[ax.get_title(), ax.get_xlabel(), ax.get_ylabel(),
              [line.get_linestyle() for line in ax.get_lines()]]
             for ax in (lru_figure.axes[0], solar_figure.axes[0])])))
"""


def check_worst_case(report, nb):
    K = report["K"]
    score, steps, saved = report["best"]
    assert score > 1.5 and steps <= 24 and saved  # a worst case, not the first candidate
    verdict, limit, scores, scales = report["grown"]
    assert verdict == "bounded" and limit == pytest.approx(K, rel=0.03)
    assert 0.95 * K <= max(scores) <= K + 1e-9  # Sleator-Tarjan: reached, never passed
    assert scales == sorted(scales) and len(set(scales)) >= 5
    verdict, kind, ratio = report["reaches"]
    assert (verdict, kind) == ("holds", "witness") and ratio >= 0.95 * K
    verdict, kind, scope, count = report["competitive"]
    assert (verdict, kind) == ("holds", "exhaustive") and count > 100
    assert f"{count}instances" in "".join(scope.split())  # the range, in the verdict
    excess, verdict, repeats = report["solar"]
    assert excess > 1 and verdict == "grows" and len(repeats) >= 5
    assert report["additive"] == {"3": ["violated", "growth"], "5": ["not refuted", "growth"]}
    lru_figure, solar_figure = report["figures"]
    assert "K = 3" in lru_figure[0] and lru_figure[1].startswith("repetition r")
    assert ":" in lru_figure[3]  # K, dotted
    assert "SOLAR" in solar_figure[0]


CHECKS = {"bounds.ipynb": (BOUNDS_PROBE, check_bounds),
          "your_claim.ipynb": (YOUR_CLAIM_PROBE, check_your_claim),
          "worst_case.ipynb": (WORST_CASE_PROBE, check_worst_case)}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("SEMCACHE_NOTEBOOK_QUICK", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    probe, check = CHECKS.get(path.name, (None, None))
    if probe:
        nb.cells.append(nbformat.v4.new_code_cell(probe))
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    if probe:
        printed = "".join(o["text"] for o in nb.cells[-1].outputs
                          if o.get("output_type") == "stream" and o["name"] == "stdout")
        check(json.loads(printed.strip().splitlines()[-1]), nb)


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ should hold at least one executed notebook"
    assert os.path.exists(NOTEBOOKS[0])
