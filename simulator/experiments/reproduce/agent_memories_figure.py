"""The agent-memories figure: evidence recall@3 against tokens kept, one marker per policy,
one panel per column (K turns, B tokens).

Each marker is a policy's mean over the seeds (bars: the seeds' standard deviation on
both axes); a policy keeps its colour and marker shape in every panel.  OPT has no recall
(it minimises the cost), so each panel's title gives its cost bounds beside the
lowest cost of the policies instead; a dashed line marks the budget B.
"""

from __future__ import annotations

import numpy as np

from simulator.experiments.figures import style

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*", "h", "p")


def _stat(cells: list, row: str, column: str) -> tuple:
    vals = [c["value"] for c in cells if c["row"] == row and c["column"] == column]
    if not vals:
        return None, None
    return float(np.mean(vals)), float(np.std(vals, ddof=1)) if len(vals) > 1 else 0.0


def _policies(cells: list) -> list:
    """Policies in row order: the rows that are a policy's name alone (its recall row)."""
    return [r for r in dict.fromkeys(c["row"] for c in cells) if ":" not in r]


def _title(cells: list, column: str, policies: list) -> str:
    lo, _ = _stat(cells, "OPT: cost lower bound", column)
    hi, _ = _stat(cells, "OPT: cost upper bound", column)
    costs = {p: _stat(cells, f"{p}: cost", column)[0] for p in policies}
    costs = {p: v for p, v in costs.items() if v is not None}
    opt = ("" if lo is None else f"OPT cost {lo:.0f}" if lo == hi
           else f"OPT cost in [{lo:.0f}, {hi:.0f}]")
    best = min(costs, key=costs.get) if costs else None
    return f"{column}\n{opt}" + (f"; lowest {best} {costs[best]:.0f}" if best else "")


def plot(exp, doc, cells, path) -> None:
    """The figure (see the module docstring) as a PNG at ``path`` (atomic)."""
    from matplotlib.lines import Line2D

    from simulator.files.atomic_write import write_atomically

    recall = exp.metric
    columns = list(doc["columns"])
    policies = _policies(cells)
    colors = style.colors_for(policies)
    shape = {p: MARKERS[i % len(MARKERS)] for i, p in enumerate(policies)}
    ncol = min(3, len(columns))
    nrow = -(-len(columns) // ncol)
    fig = style.new_figure(figsize=(4.2 * ncol, 3.6 * nrow + 1.2), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrow, ncol, squeeze=False)).ravel()
    # recall from 0 to the largest drawn, in every panel: differences read at their true
    # size; tokens kept autoscaled, since the markers crowd near the limit
    top = max([_stat(cells, p, c)[0] or 0.0 for p in policies for c in columns] + [0.01])
    for ax, column in zip(axes, columns):
        xs = []
        for p in policies:
            y, ystd = _stat(cells, p, column)
            x, xstd = _stat(cells, f"{p}: tokens kept", column)
            if y is None or x is None:
                continue
            ax.errorbar(x, y, xerr=xstd, yerr=ystd, marker=shape[p], ms=7, capsize=2,
                        color=colors[p], ls="none")
            xs += [x - xstd, x + xstd]
        if column.startswith("B="):  # the budget: no rule keeps more
            xs.append(float(column[2:]))
            ax.axvline(xs[-1], color="0.5", ls="--", lw=1)
        if xs:  # at least a tenth of the largest wide: equal values do not fill a panel
            lo, hi = min(xs), max(xs)
            lo = min(lo, hi - 0.1 * hi)
            ax.set_xlim(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo))
        ax.ticklabel_format(axis="x", useOffset=False)
        ax.set_ylim(0, 1.1 * top)
        ax.set_title(_title(cells, column, policies), fontsize=8)
        ax.set_xlabel("tokens kept (largest total held)", fontsize=7)
        ax.set_ylabel(recall, fontsize=7)
        ax.tick_params(labelsize=6)
        ax.grid(alpha=0.3)
    for ax in axes[len(columns):]:
        ax.set_visible(False)
    handles = [Line2D([], [], marker=shape[p], color=colors[p], ls="none", ms=7)
               for p in policies]
    fig.legend(handles, policies, loc="outside lower center", fontsize=7,
               ncol=min(6, len(policies)), frameon=False)
    fig.suptitle(exp.title, fontsize=10)
    write_atomically(path, lambda tmp: fig.savefig(tmp, format="png", dpi=100,
                                                   bbox_inches="tight"))
