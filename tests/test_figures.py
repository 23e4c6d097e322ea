"""The figures read well: one colour per policy, a few lines per panel, the paper's values
as labelled markers, ratio axes that show 1, ticks that do not overlap, legends off the
data.

Each committed figure and table plot of ``docs/report`` is drawn again from its JSON with
today's code (no run needed) and the drawn Figure is inspected: where its legends and
tick labels fall, which colour each line took, what its y range holds.
"""

import json
import pathlib

import pytest

from simulator.experiments.figures import draw as figure_draw
from simulator.experiments.figures import style as figure_style
from simulator.experiments.figures import tables as figure_tables
from simulator.experiments.reproduce import REGISTRY

REPORT = pathlib.Path(__file__).resolve().parents[1] / "docs" / "report"
FIGURES = sorted((REPORT / "figures").glob("*.json"))
TABLES = sorted((REPORT / "tables").glob("*.json"))


def _load(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _table_figure(doc):
    """The document ``write_plot`` draws for a table (without writing a PNG)."""
    from simulator.experiments.reproduce.base import plot_document

    return plot_document(REGISTRY[doc["table"]], doc)


def _documents():
    docs = [(p.stem, _load(p)) for p in FIGURES]
    docs += [(f"table {p.stem}", _table_figure(_load(p))) for p in TABLES
             if REGISTRY[p.stem].plot is None]
    return docs


DOCUMENTS = _documents()


def test_the_committed_report_has_figures_and_tables():
    assert len(FIGURES) >= 7 and len(TABLES) >= 6


@pytest.mark.parametrize("name,data", DOCUMENTS, ids=[n for n, _ in DOCUMENTS])
def test_a_panel_shows_at_most_eight_lines(name, data):
    for panel in data["panels"]:
        lines = [s for s in panel["series"] if s.get("style") != "paper"]
        assert len(lines) <= figure_style.MAX_LINES, (name, panel["title"], len(lines))


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 - 0.5 and b.x0 < a.x1 - 0.5 and a.y0 < b.y1 - 0.5 and b.y0 < a.y1 - 0.5


@pytest.mark.parametrize("name,data", DOCUMENTS, ids=[n for n, _ in DOCUMENTS])
def test_drawn_legends_ticks_colours_reference_levels_and_paper_markers(name, data):
    # one drawing per document, read by both checks: drawing it is the test's cost
    fig = figure_draw.figure(data)
    _legends_ticks_colours_and_reference_levels(name, data, fig)
    _papers_values_are_markers_labelled_as_the_papers(name, data, fig)


def _legends_ticks_colours_and_reference_levels(name, data, fig):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    axes = [ax for ax in fig.axes if ax.get_visible()]
    legends = [ax.get_legend() for ax in axes if ax.get_legend()] + list(fig.legends)
    for legend in legends:  # never over any panel's data area
        box = legend.get_window_extent(renderer)
        assert not any(_overlap(box, ax.bbox) for ax in axes), name
    for ax, panel in zip(axes, data["panels"]):
        for axis in (ax.xaxis, ax.yaxis):  # tick labels side by side, none on another
            boxes = [t.get_window_extent(renderer) for t in axis.get_ticklabels()
                     if t.get_visible() and t.get_text()]
            assert not any(_overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]), \
                (name, panel["title"], [t.get_text() for t in axis.get_ticklabels()])
        if panel.get("kind") == "bar":
            continue
        lines = [s for s in panel["series"] if s.get("style") != "paper"]
        colors = figure_style.colors_for(s["key"] for s in lines)
        drawn = [c.lines[0].get_color() for c in ax.containers]  # one errorbar per line
        assert drawn == [colors[s["key"]] for s in lines], (name, panel["title"])
        for s in lines:
            if figure_style.known(s["key"]):  # a policy: its colour in every figure
                assert colors[s["key"]] == figure_style.policy_color(s["key"])
        if data.get("hline") is not None:
            lo, hi = ax.get_ylim()
            assert lo <= data["hline"] <= hi, name
        if "OPT" in data["ylabel"]:  # a ratio axis shows 1
            lo, hi = ax.get_ylim()
            assert lo <= 1 <= hi, name


def _papers_values_are_markers_labelled_as_the_papers(name, data, fig):
    for ax, panel in zip(fig.axes, data["panels"]):
        paper = [s for s in panel["series"] if s.get("style") == "paper"]
        for s in paper:
            assert s["label"].endswith("(paper)")
        if not paper:
            continue
        marks = [line for line in ax.get_lines() if line.get_marker() in
                 figure_draw.SHARED_MARKERS and line.get_linestyle() == "None"]
        assert len(marks) == len(paper), (name, panel["title"])  # crosses, never lines
        texts = [t.get_text() for t in (ax.get_legend() or fig.legends[0]).get_texts()]
        assert any("paper" in t for t in texts), (name, panel["title"])


def test_a_policy_keeps_its_colour_and_colours_are_distinct():
    from simulator.policies import REGISTRY as POLICIES

    built_in = sorted(POLICIES)
    colors = {p: figure_style.policy_color(p) for p in built_in}
    assert all(figure_style.known(p) for p in built_in), \
        [p for p in built_in if not figure_style.known(p)]
    assert len(set(colors.values())) == len(colors)
    assert not set(figure_style.OTHER) & set(figure_style.POLICY_COLORS.values())
    other = figure_style.colors_for(["hit rate", "precision@3", "fifo", "gap solar-fifo"])
    assert len(set(other.values())) == 4 and other["fifo"] == colors["fifo"]


def _table(rows, columns=("K=5", "K=50")):
    return {"table": "t", "metric": "hit rate", "columns": list(columns), "rows": [
        {"policy": p, "source": src, **{c: {"mean": 0.5, "std": 0.0, "paper": paper,
                                            "verdict": verdict} for c in columns}}
        for p, src, paper, verdict in rows]}


def test_a_large_table_is_faceted_by_source_then_implementation():
    pols = ("fifo", "lru", "lfu", "arc", "solar_e", "solar_a", "solar", "lru_ref", "arc_ref",
            "solar_ref")
    doc = _table([(p, src, 0.4, "match") for src in ("generator", "authors") for p in pols])
    panels = figure_tables.panels(doc)
    assert [p["title"] for p in panels] == [
        "our generator, our policies", "our generator, the authors' code (X_ref)",
        "the authors' traces, our policies", "the authors' traces, the authors' code (X_ref)"]
    assert max(len([s for s in p["series"] if s["style"] != "paper"]) for p in panels) == 7
    small = figure_tables.panels(_table([("fifo", "generator", 0.4, "match"),
                                         ("fifo", "authors", 0.4, "match")]))
    assert len(small) == 1  # two lines: no facets, one cross series for both rows
    assert [s["label"] for s in small[0]["series"]] == ["fifo", "fifo (paper)",
                                                        "fifo (authors)"]


def test_metrics_and_column_kinds_get_their_own_panels_and_not_comparable_is_not_drawn():
    doc = _table([("fifo", "generator", 0.2, "not comparable"),
                  ("solar: modification rate", "generator", None, None)],
                 columns=("K=10", "K=20", "B=500"))
    panels = figure_tables.panels(doc)
    assert [p["title"] for p in panels] == ["hit rate, against K", "hit rate, against B",
                                            "modification rate, against K",
                                            "modification rate, against B"]
    assert panels[2]["ylabel"] == "modification rate"
    assert not [s for p in panels for s in p["series"] if s["style"] == "paper"]


def test_shared_printed_values_are_drawn_once_in_black():
    doc = _table([("hit rate", "generator", 0.1, "differs"),
                  ("hit rate (code rule)", "generator", 0.1, "match")])
    series = figure_tables.panels(doc)[0]["series"]
    paper = [s for s in series if s["style"] == "paper"]
    assert len(paper) == 1 and paper[0]["key"] is None and paper[0]["label"] == \
        "hit rate (paper)"


def test_log_ticks_never_crowd():
    from matplotlib.ticker import LogLocator

    fig = figure_style.new_figure()
    ax = fig.subplots()
    ax.set_yscale("log")
    for lo, hi in ((40, 800), (4, 5000), (1, 1e6), (5.5, 9)):
        ax.set_ylim(lo, hi)
        figure_style.log_ticks(ax.yaxis, lo, hi)
        assert isinstance(ax.yaxis.get_major_locator(), LogLocator)
        fig.canvas.draw()
        shown = [t.get_text() for t in ax.yaxis.get_ticklabels() if t.get_text()]
        assert 1 <= len(shown) <= 9 and all("×" not in t and "^" not in t for t in shown)
