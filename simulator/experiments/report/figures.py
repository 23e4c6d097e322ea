"""The report's figures: the data of each, drawn from the runs, then one PNG per figure.

Every figure is first a small JSON document (``FIGURE.json``, written beside
``FIGURE.png``): what it shows, the paper figure it stands for (if any), the command and
seeds that made its numbers, and its series.  The PNG is drawn from that document alone
(:func:`~simulator.experiments.figures.draw.draw`), so the JSON is the figure's data: a test
compares it, not PNG bytes, which differ across matplotlib versions and fonts.  A table's
rows become panels by :mod:`~simulator.experiments.figures.tables`; the claims' figures are
made by :mod:`~simulator.experiments.report.figures_claims`.

A figure whose runs are not here (LoCoMo without its data) is not made; its entry says
why (``{"figure", "missing"}``).
"""

from __future__ import annotations

import json

from simulator.files.atomic_write import write_atomically
from simulator.experiments.figures import tables as figure_tables
from simulator.experiments.report.figures_claims import ratio, regret

PAPER_ORDER = ("fifo", "lru", "lfu", "arc", "solar_e", "solar_a", "solar")
LOCOMO_K = ("K=10", "K=20", "K=50", "K=100")


def _table_source(doc: dict, quick: bool) -> dict:
    return {"kind": "table", "name": doc["table"], "seeds": doc["seeds"],
            "command": command(doc["table"], doc["seeds"], quick)}


def command(name: str, seeds: list, quick: bool) -> str:
    """The one command that makes a table's numbers."""
    return (f"semcache reproduce {name} --seeds {','.join(str(s) for s in seeds)}"
            + (" --quick" if quick else ""))


def _from_table(name, title, paper_figure, table, quick, rows=None, xscale="linear",
                hline=None):
    def make(tables, claims):
        doc = tables.get(table)
        if doc is None:
            return None
        return {"title": title, "paper_figure": paper_figure,
                "source": _table_source(doc, quick), "xlabel": _xlabel(table),
                "ylabel": doc["metric"], "xscale": xscale, "hline": hline,
                "panels": figure_tables.panels(doc, rows)}
    return name, make


def _xlabel(table: str) -> str:
    from simulator.experiments.reproduce import REGISTRY

    return REGISTRY[table].xlabel


def _locomo_bars(tables, claims, quick):
    doc = tables.get("locomo")
    if doc is None:
        return None
    series = doc["temporal"]["metrics"]["turn F1"]["series"]
    panels = []
    for col in LOCOMO_K:
        pols = [p for p in ("unlimited",) + PAPER_ORDER if col in series.get(p, {})]
        panels.append({"title": col, "kind": "bar", "series": [
            {"label": p, "key": p, "x": [p], "y": [series[p][col]["average"]["mean"]],
             "yerr": [series[p][col]["average"]["std"]]} for p in pols]})
    return {"title": "LoCoMo: turn F1 (best retrieved turn vs gold answer) by policy, one "
                     "panel per K", "paper_figure": "Figure 1 (LLM answer F1 by method per K; "
                                                    "ours is an LLM-free F1)",
            "source": _table_source(doc, quick), "xlabel": "policy",
            "ylabel": "turn F1 (mean over seeds)", "xscale": "linear", "hline": None,
            "panels": panels}


def _curve_panels(doc, metrics, columns):
    c = doc["temporal"]["curves"]
    panels = []
    for m in metrics:
        for col in columns:
            by_pol = c["metrics"][m].get(col, {})
            panels.append({"title": f"{m}, {col}", "series": [
                {"label": p, "key": p, "x": c["x"], "y": by_pol[p]["mean"],
                 "yerr": by_pol[p]["std"], "style": "solid"} for p in PAPER_ORDER if p in by_pol]})
    return panels


def _locomo_curves(columns, metrics, title, paper_figure):
    def make(tables, claims, quick):
        doc = tables.get("locomo")
        if doc is None:
            return None
        return {"title": title, "paper_figure": paper_figure,
                "source": _table_source(doc, quick),
                "xlabel": doc["temporal"]["curves"]["x_label"], "ylabel": "mean per bin",
                "xscale": "linear", "hline": None,
                "panels": _curve_panels(doc, metrics, columns)}
    return make


def specs(quick: bool) -> list:
    """(name, make(tables, claims) -> data or None, what is missing when None)."""
    no_locomo = "the LoCoMo data or the text extra is not here, so `locomo` did not run"
    t = [_from_table("fig3-cycling", "Cycling: hit rate against m/K (Table 8)", "Figure 3",
                     "table8", quick),
         _from_table("fig4-working-set", "Working set: FIFO and SOLAR against K (Table 9)",
                     "Figure 4", "table9", quick, rows=("fifo", "solar"), xscale="log"),
         _from_table("fig5-frozen-pool", "Frozen pool: retrieval quality against pool size "
                     "(Table 10)", "Figure 5", "table10", quick, xscale="log"),
         _from_table("phase-transition-gap", "Phase transition: gap SOLAR − FIFO against K "
                     "(Table 9; below 0 FIFO wins)", "Figure 4 (the gap)", "table9", quick,
                     rows=("gap solar-fifo",), xscale="log", hline=0.0),
         _from_table("u-curve", "The inverted U: hit rate against pool size (Table 10; it "
                     "bends under the code's relevance rule)",
                     "Figure 5 (hit rate)", "table10", quick,
                     rows=("hit rate", "hit rate (code rule)"), xscale="log")]
    late = [("fig1-locomo-f1", lambda tb, cl: _locomo_bars(tb, cl, quick), no_locomo),
            ("fig2-locomo-learning-k50", lambda tb, cl: _locomo_curves(
                ("K=50",), ("turn F1", "hit@3"), "LoCoMo learning curves at K = 50: per-"
                "question metric against position", "Figure 2 (F1 against step, K = 50)")(
                tb, cl, quick), no_locomo)]
    more = [("locomo-learning-curves", lambda tb, cl: _locomo_curves(
                LOCOMO_K, ("hit@3",), "LoCoMo learning curves: evidence hit@3 against "
                "position, one panel per K", None)(tb, cl, quick), no_locomo),
            ("regret-curves", lambda tb, cl: regret(cl, quick),
             "the regret claims did not run"),
            ("competitive-ratio", lambda tb, cl: ratio(cl, quick),
             "the cr-drift claim did not run")]
    # the paper's Figures 1-5 first, in order, then the others
    return late + [(name, make, "its table did not run") for name, make in t] + more


def write_all(folder: str, tables: dict, claims: dict, quick: bool) -> list:
    """Write every figure that can be made under ``folder``; return their entries
    (``{"figure", "png", "json", "title", "paper_figure", "source"}`` or ``{"figure",
    "missing"}``)."""
    import os

    from simulator.experiments.figures.draw import draw

    os.makedirs(folder, exist_ok=True)
    entries = []
    for name, make, missing in specs(quick):
        data = make(tables, claims)
        if data is None:
            entries.append({"figure": name, "missing": missing})
            continue
        data = {"figure": name, "quick": quick, **data}
        text = json.dumps(data, indent=1, allow_nan=False) + "\n"
        base = os.path.join(folder, name)
        write_atomically(base + ".json", lambda tmp: _write_text(tmp, text))
        draw(data, base + ".png")
        entries.append({"figure": name, "png": f"figures/{name}.png",
                        "json": f"figures/{name}.json", "title": data["title"],
                        "paper_figure": data["paper_figure"], "source": data["source"]})
    return entries


def _write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
