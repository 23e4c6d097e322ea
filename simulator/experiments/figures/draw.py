"""Draw a figure document (the JSON beside each PNG) and nothing else.

A document holds ``title``, ``xlabel``, ``ylabel``, ``xscale``, ``yscale``, ``hline`` (a
reference level the y axis always shows: 1 on a ratio axis, 0 under a gap) and its
``panels``, each ``{"title", "series"}`` (``"kind": "bar"`` for bars named on the axis;
a table's facets add ``"metric"``, and panels of one metric share their y range, and
``"ylabel"`` where it is not the figure's).
A series is ``{"label", "key", "x", "y"}`` with optional ``yerr`` and ``style`` (``solid``,
``dashed``, ``dotted``, ``dashdot``; ``paper``: the paper's printed values, drawn as
crosses, never as a line).  ``key`` names the policy whose colour the series takes
(:func:`~simulator.experiments.figures.style.policy_color`); a paper series with key None
stands beside several of our rows and is drawn in black.

Legends hang below the axes: one for the whole figure when every panel would show the
same, else one under each panel.  A panel's crosses in their rows' colours share one
legend entry.
"""

from __future__ import annotations

import numpy as np

from simulator.files.atomic_write import write_atomically
from simulator.experiments.figures import style

LINES = {"solid": "-", "dashed": "--", "dotted": ":", "dashdot": "-."}
SHARED_MARKERS = ("x", "+", "1", "*")  # paper series in black, one shape each
PAPER_LABEL = "× the paper's printed value"  # its crosses take their rows' colours
# one point shape per line of a panel: lines that coincide (FIFO's and LRU's regret) stay
# visible, and a panel reads in grey
POINTS = ("o", "s", "^", "D", "v", "P", "X", "<")


def figure(data: dict):
    """The matplotlib Figure of one figure document (Agg, made without pyplot)."""
    panels = data["panels"]
    n = len(panels)
    cols = 1 if n == 1 else 2 if n in (2, 4) else 3
    rows = (n + cols - 1) // cols
    fig = style.new_figure(layout="constrained",
                           figsize=(7 if cols == 1 else 5.4 * cols, 4.2 * rows))
    grid = list(fig.subplots(rows, cols, squeeze=False).flat)
    used = grid[:n]
    legends = [_panel(ax, panel, data) for ax, panel in zip(used, panels)]
    for ax in grid[n:]:
        ax.set_visible(False)
    _share_y(used, panels)
    fig.suptitle(data["title"], fontsize=9)
    shared = n > 1 and all(_same(legends[0], other) for other in legends[1:])
    if shared and legends[0][0]:
        fig.legend(*legends[0], loc="outside lower center", fontsize=7, frameon=False,
                   ncol=min(len(legends[0][0]), 4))
    else:
        fig.canvas.draw()  # the legends hang below the tick labels, measured once drawn
        for ax, (handles, labels) in zip(used, legends):
            if handles:
                style.legend_below(ax, handles, labels, fontsize=6.5, drawn=True,
                                   ncol=_columns(labels))
    return fig


def _share_y(axes: list, panels: list) -> None:
    """Panels of one metric (a table's facets) get one y range, so they compare at a
    glance."""
    groups = {}
    for ax, panel in zip(axes, panels):
        if panel.get("metric") is not None:
            groups.setdefault(panel["metric"], []).append(ax)
    for same in groups.values():
        lows, highs = zip(*(ax.get_ylim() for ax in same))
        for ax in same:
            ax.set_ylim(min(lows), max(highs))


def draw(data: dict, path: str) -> None:
    """The PNG of one figure document at ``path`` (atomic), drawn from ``data`` alone."""
    fig = figure(data)
    write_atomically(path, lambda tmp: fig.savefig(tmp, format="png", dpi=100,
                                                   bbox_inches="tight"))


def _same(a, b) -> bool:
    """Whether two panels' legends show the same entries (labels and colours)."""
    def entries(legend):
        return [(label, _color(h)) for h, label in zip(*legend)]
    return entries(a) == entries(b)


def _color(handle):
    from matplotlib.colors import to_hex

    line = handle[0] if isinstance(handle, tuple) else handle
    try:
        return to_hex(line.get_color())
    except (AttributeError, ValueError):
        return None


def _columns(labels: list) -> int:
    if max(len(label) for label in labels if label != PAPER_LABEL) > 34:
        return 1
    return 1 if len(labels) <= 3 else 2 if len(labels) <= 10 else 3


def _drawable(value) -> float:
    """A point of a series: None, and the "inf"/"nan" strings that stand for a
    non-finite value in JSON (a ratio against a zero OPT, theory.claims), are gaps."""
    return np.nan if value is None or isinstance(value, str) else value


def _panel(ax, panel: dict, data: dict) -> tuple:
    """Draw one panel; return its legend's (handles, labels)."""
    series = panel["series"]
    if panel.get("kind") == "bar":
        for i, s in enumerate(series):
            ax.bar([i], s["y"], yerr=s.get("yerr"), capsize=2,
                   color=style.policy_color(s.get("key", s["label"])))
        ax.set_xticks(range(len(series)), [s["label"] for s in series], rotation=40,
                      fontsize=7)
        _finish(ax, panel, data, [])
        return [], []  # the bars are named on the axis
    categories = _categories(series)
    colors = style.colors_for(s["key"] for s in series if s.get("key") is not None
                              and s.get("style") != "paper")
    handles, labels, crosses, shapes = [], [], None, iter(SHARED_MARKERS)
    paper_handles, paper_labels = [], []  # listed after the lines
    points = iter(POINTS * len(series))
    under = _covered(series, data.get("yscale") == "log")
    for i, s in enumerate(series):
        x = [categories.index(v) for v in s["x"]] if categories else s["x"]
        y = [_drawable(v) for v in s["y"]]
        if s.get("style") == "paper":
            if s.get("key") is None:  # beside rows of several colours: black, its own entry
                h, = ax.plot(x, y, color="black", **{**style.PAPER_MARKER,
                                                     "marker": next(shapes, "x")})
                paper_handles.append(h)
                paper_labels.append(s["label"])
            else:
                h, = ax.plot(x, y, color=colors.get(s["key"], style.policy_color(s["key"])),
                             **style.PAPER_MARKER)
                crosses = crosses or h
            continue
        err = s.get("yerr")
        err = None if err is None else [0 if v is None else v for v in err]
        h = ax.errorbar(x, y, yerr=err, marker=next(points), ms=4.5, mfc="none", capsize=2,
                        lw=1.4, color=colors[s["key"]] if s.get("key") is not None else None,
                        ls=LINES.get(s.get("style"), "-"))
        handles.append(h)
        labels.append(s["label"] + (f" (under {under[i]})" if i in under else ""))
    if crosses is not None:  # one entry for every cross drawn in its row's colour
        from matplotlib.lines import Line2D

        paper_handles.append(Line2D([], [], color="black", **style.PAPER_MARKER))
        paper_labels.append(PAPER_LABEL)
    handles, labels = handles + paper_handles, labels + paper_labels
    if categories:
        ax.set_xticks(range(len(categories)), categories, fontsize=7,
                      rotation=30 if max(len(str(c)) for c in categories) > 4 else 0)
    else:
        ax.set_xscale(data.get("xscale", "linear"))
        xs = {v for s in series for v in s["x"]}
        if data.get("xscale") == "log":  # ticks at the measured x, no crowded minor labels
            style.log_ticks_at(ax.xaxis, xs)
        elif len(xs) <= 8:  # a few swept values (m/K = 1 … 5): ticks at them
            ax.set_xticks(sorted(xs), [f"{v:g}" for v in sorted(xs)])
    _finish(ax, panel, data, series)
    return handles, labels


def _covered(series: list, log: bool) -> dict:
    """{index: short label of the later line drawn over it} for each line that a later one
    hides (within 1.5% of the panel's y span at every x): the legend says where it is."""
    lines = [(i, s) for i, s in enumerate(series) if s.get("style") != "paper"]

    def ys(s):
        y = np.array([_drawable(v) for v in s["y"]], float)
        return np.log10(np.where(y > 0, y, np.nan)) if log else y

    every = np.concatenate([ys(s) for _, s in lines]) if lines else np.array([])
    every = every[np.isfinite(every)]
    if every.size == 0:
        return {}
    tol = 0.015 * max(float(every.max() - every.min()), 1e-12)
    out = {}
    for n, (i, s) in enumerate(lines):
        for j, later in reversed(lines[n + 1:]):
            if later["x"] == s["x"]:
                gap = np.abs(ys(s) - ys(later))
                if np.all(gap[np.isfinite(gap)] <= tol) and np.isfinite(gap).any():
                    out[i] = later["label"].split(":")[0].replace(" (authors)", "")
                    break
    return out


def _categories(series: list) -> list:
    """The x labels in order of first appearance, when x is not numeric (else [])."""
    xs = [v for s in series for v in s["x"]]
    if not any(isinstance(v, str) for v in xs):
        return []
    return list(dict.fromkeys(xs))


def _finish(ax, panel: dict, data: dict, series: list) -> None:
    """Scales, reference level, labels and title of one panel."""
    ax.set_yscale(data.get("yscale", "linear"))
    if data.get("hline") is not None:
        ax.axhline(data["hline"], color="grey", lw=0.8, ls=":")
        style.include_in_y(ax, data["hline"])
    if data.get("yscale") == "log":
        lo, hi = ax.get_ylim()
        style.log_ticks(ax.yaxis, lo, hi)
    ax.tick_params(labelsize=7)
    ax.set_xlabel(panel.get("xlabel", data["xlabel"]), fontsize=8)
    ax.set_ylabel(panel.get("ylabel", data["ylabel"]), fontsize=8)
    if panel["title"]:
        ax.set_title(panel["title"], fontsize=8)
