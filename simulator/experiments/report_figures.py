"""The report's figures: the data of each, drawn from the runs, then one PNG per figure.

Every figure is first a small JSON document (``FIGURE.json``, written beside
``FIGURE.png``): what it shows, the paper figure it stands for (if any), the command and
seeds that made its numbers, and its series.  The PNG is drawn from that document alone
(:func:`draw`), so the JSON is the figure's data: a test compares it, not PNG bytes, which
differ across matplotlib versions and fonts.

A figure whose runs are not here (LoCoMo without its data) is not made; its entry says
why (``{"figure", "missing"}``).
"""

from __future__ import annotations

import json
import math

import numpy as np

from simulator.atomic_write import write_atomically

PAPER_ORDER = ("fifo", "lru", "lfu", "arc", "solar_e", "solar_a", "solar")
LOCOMO_K = ("K=10", "K=20", "K=50", "K=100")


def _num(label: str) -> float:
    """The number of a column label (``K=20`` -> 20, ``m/K=1.5`` -> 1.5)."""
    return float(label.rpartition("=")[2])


def _table_source(doc: dict, quick: bool) -> dict:
    return {"kind": "table", "name": doc["table"], "seeds": doc["seeds"],
            "command": command(doc["table"], doc["seeds"], quick)}


def _claim_source(ids: list, quick: bool) -> dict:
    return {"kind": "claim", "name": ",".join(ids), "seeds": "as in the claim's conditions",
            "command": f"semcache claims --only {','.join(ids)}" + (" --quick" if quick else "")}


def command(name: str, seeds: list, quick: bool) -> str:
    """The one command that makes a table's numbers."""
    return (f"semcache reproduce {name} --seeds {','.join(str(s) for s in seeds)}"
            + (" --quick" if quick else ""))


def _table_series(doc: dict, rows=None, numeric: bool = True, paper: bool = True) -> list:
    """Mean ± std of the table's rows (all, or those named) against its columns, and the
    paper's printed values as a marker-only series per row."""
    out = []
    for row in doc["rows"]:
        if rows is not None and row["policy"] not in rows:
            continue
        cols = [c for c in doc["columns"] if c in row]
        x = [_num(c) for c in cols] if numeric else cols
        label = row["policy"] + ("" if row["source"] == "generator" else f" ({row['source']})")
        out.append({"label": label, "key": row["policy"], "x": x,
                    "y": [row[c]["mean"] for c in cols], "yerr": [row[c]["std"] for c in cols],
                    "style": "solid" if row["source"] == "generator" else "dashed"})
        printed = [c for c in cols if row[c].get("paper") is not None]
        if paper and printed and row["source"] == "generator":
            out.append({"label": f"{row['policy']} (paper)", "style": "paper",
                        "x": [_num(c) if numeric else c for c in printed],
                        "y": [row[c]["paper"] for c in printed]})
    return out


def _from_table(name, title, paper_figure, table, quick, rows=None, xscale="linear",
                numeric=True, hline=None):
    def make(tables, claims):
        doc = tables.get(table)
        if doc is None:
            return None
        return {"title": title, "paper_figure": paper_figure,
                "source": _table_source(doc, quick), "xlabel": _xlabel(table),
                "ylabel": doc["metric"], "xscale": xscale, "hline": hline,
                "panels": [{"title": "", "series": _table_series(doc, rows, numeric)}]}
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
            {"label": p, "x": [p], "y": [series[p][col]["average"]["mean"]],
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
                {"label": p, "x": c["x"], "y": by_pol[p]["mean"], "yerr": by_pol[p]["std"],
                 "style": "solid"} for p in PAPER_ORDER if p in by_pol]})
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


def _regret(tables, claims, quick):
    ids = [i for i in ("thm5.5", "thm5.6", "thm5.7") if i in claims]
    if not ids:
        return None
    curves, stylized = [], []
    for i in ids:
        m = claims[i]["measured"]
        # thm5.5 keeps its stationary curve under "stationary", the others under "curves"
        for c in m.get("curves", [m["stationary"]] if "stationary" in m else []):
            key = (c["policy"], json.dumps(c["params"], sort_keys=True))
            if key not in {(s["policy"], s["params"]) for s in curves}:
                curves.append({**c, "params": key[1]})
        for name in ("algorithm2", "oracle", "device"):  # thm5.6's fixed pools
            live = [c for c in m.get(name, []) if not c["zero"]]
            stylized += [{**c, "params": f"K={c['K']}"} for c in live
                         if c["K"] in (live[0]["K"], live[-1]["K"])]
    panels = [{"title": "semantic traces (Definition 2.3)", "series": _series(curves)}]
    if stylized:
        panels.append({"title": "the stylized model, each policy against the best schedule "
                                "of its class", "series": _series(stylized)})
    return {"title": "Eviction regret against T (log-log; the legend gives each fitted "
                     "slope and its 95% CI: 1 = linear, 0.5 = √T)",
            "paper_figure": None, "source": _claim_source(ids, quick), "xlabel": "horizon T",
            "ylabel": "mean regret", "xscale": "log", "yscale": "log", "hline": None,
            "panels": panels}


LINES = {"solid": "-", "dashed": "--", "dotted": ":", "dashdot": "-."}


def _series(curves: list) -> list:
    """One series per curve; a policy keeps its colour, its next curves are dashed, dotted,
    dash-dotted."""
    seen = {}
    out = []
    for c in curves:
        seen[c["policy"]] = seen.get(c["policy"], -1) + 1
        out.append({"label": f"{c['policy']}{'' if c['params'] == 'null' else ' ' + c['params']}"
                             f": slope {c['slope']:.2f} [{c['ci'][0]:.2f}, {c['ci'][1]:.2f}]",
                    "x": c["horizons"], "y": c["mean_regret"], "key": c["policy"],
                    "style": list(LINES)[seen[c["policy"]] % len(LINES)],
                    "slope": c["slope"], "ci": c["ci"]})
    return out


def _ratio(tables, claims, quick):
    if "cr-drift" not in claims:
        return None
    rows = claims["cr-drift"]["measured"]["rows"]
    x = [r["steps"] for r in rows]
    kinds = sorted({r["kind"] for r in rows})
    return {"title": "Competitive ratio (cost / OPT) against T on the drift workload "
                     f"(phases of growing length; OPT {', '.join(kinds)})",
            "paper_figure": None, "source": _claim_source(["cr-drift"], quick),
            "xlabel": "steps T (6 phases)", "ylabel": "cost / OPT", "xscale": "log",
            "yscale": "log", "hline": 1.0,
            "panels": [{"title": "", "series": [
                {"label": "solar", "x": x, "y": [r["solar_ratio"] for r in rows],
                 "style": "solid"},
                {"label": "fifo", "x": x, "y": [r["fifo_ratio"] for r in rows],
                 "style": "solid"}]}]}


def specs(quick: bool) -> list:
    """(name, make(tables, claims) -> data or None, what is missing when None)."""
    no_locomo = "the LoCoMo data or the text extra is not here, so `locomo` did not run"
    t = [_from_table("fig3-cycling", "Cycling: hit rate against m/K (Table 8)", "Figure 3",
                     "table8", quick, numeric=True),
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
            ("regret-curves", lambda tb, cl: _regret(tb, cl, quick),
             "the regret claims did not run"),
            ("competitive-ratio", lambda tb, cl: _ratio(tb, cl, quick),
             "the cr-drift claim did not run")]
    # the paper's Figures 1-5 first, in order, then the others
    return late + [(name, make, "its table did not run") for name, make in t] + more


def write_all(folder: str, tables: dict, claims: dict, quick: bool) -> list:
    """Write every figure that can be made under ``folder``; return their entries
    (``{"figure", "png", "json", "title", "paper_figure", "source"}`` or ``{"figure",
    "missing"}``)."""
    import os

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


def draw(data: dict, path: str) -> None:
    """The PNG of one figure document (atomic), drawn from ``data`` alone."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = data["panels"]
    n = len(panels)
    cols = min(n, 2)
    rows = (n + cols - 1) // cols
    legend_rows = max(math.ceil(len(p["series"]) / _legend_columns(p)) for p in panels)
    # the legends sit below the axes: room for them, so the plot keeps its height
    fig, axes = plt.subplots(rows, cols, squeeze=False,
                             figsize=(7 if cols == 1 else 11, (4 + 0.13 * legend_rows) * rows))
    for ax, panel in zip(axes.flat, panels):
        _panel(ax, panel, data)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.suptitle(data["title"], fontsize=9)
    fig.tight_layout()
    write_atomically(path, lambda tmp: fig.savefig(tmp, format="png", dpi=100,
                                                   bbox_inches="tight"))
    plt.close(fig)


def _drawable(value) -> float:
    """A point of a series: None, and the "inf"/"nan" strings that stand for a
    non-finite value in JSON (a ratio against a zero OPT, theory.claims), are gaps."""
    return np.nan if value is None or isinstance(value, str) else value


def _panel(ax, panel: dict, data: dict) -> None:
    if panel.get("kind") == "bar":
        for i, s in enumerate(panel["series"]):
            ax.bar([i], s["y"], yerr=s.get("yerr"), capsize=2, label=s["label"])
        ax.set_xticks(range(len(panel["series"])), [s["label"] for s in panel["series"]],
                      rotation=40, fontsize=7)
    else:
        colors, cycle = {}, iter(matplotlib_colors())
        for s in panel["series"]:  # one colour per key (a policy), its paper markers too
            if s.get("style") != "paper":
                key = s.get("key", s["label"])
                colors[s["label"]] = colors[key] = colors.get(key) or next(cycle)
        for s in panel["series"]:
            y = [_drawable(v) for v in s["y"]]
            if s.get("style") == "paper":
                owner = s["label"].rsplit(" (paper)", 1)[0]
                ax.plot(s["x"], y, "x", ms=7, color=colors.get(owner), label=s["label"])
                continue
            key = s.get("key", s["label"])
            err = s.get("yerr")
            err = None if err is None else [0 if v is None else v for v in err]
            ax.errorbar(s["x"], y, yerr=err, marker="o", ms=3, capsize=2, color=colors[key],
                        ls=LINES.get(s.get("style"), "-"), label=s["label"])
        ax.set_xscale(data.get("xscale", "linear"))
        ax.set_yscale(data.get("yscale", "linear"))
        if data.get("xscale") == "log":  # ticks at the measured x, no crowded minor labels
            _log_ticks(ax, sorted({x for s in panel["series"] for x in s["x"]}))
        ax.set_xlabel(data["xlabel"], fontsize=8)
    if data.get("hline") is not None:
        ax.axhline(data["hline"], color="grey", lw=0.8, ls=":")
    ax.set_ylabel(data["ylabel"], fontsize=8)
    if panel["title"]:
        ax.set_title(panel["title"], fontsize=8)
    if panel.get("kind") != "bar":  # bars are named on the axis; the legend sits below
        ax.legend(fontsize=6, ncol=_legend_columns(panel), loc="upper center",
                  bbox_to_anchor=(0.5, -0.16), frameon=False)


def _legend_columns(panel: dict) -> int:
    return 3 if len(panel["series"]) > 12 else 2


def matplotlib_colors() -> list:
    """matplotlib's default colour cycle, repeated: one colour per policy in a panel."""
    import matplotlib.pyplot as plt

    return plt.rcParams["axes.prop_cycle"].by_key()["color"] * 4


def _log_ticks(ax, xs: list) -> None:
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

    ax.xaxis.set_major_locator(FixedLocator(xs))
    ax.xaxis.set_major_formatter(lambda x, _: f"{x:g}")
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.tick_params(axis="x", labelsize=7)
