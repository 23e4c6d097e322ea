"""The memory study's figure: six panels, one per experiment (see ``memory_study``).

Each strategy is a policy and keeps its colour (:func:`~simulator.experiments.figures.style
.policy_color`); E4's "none" deletion runs ``strict`` and takes its colour, and the
evaluator there is the point's fill (filled: exact, hollow: coarse).  Means with 95%
intervals over the seeds; every legend sits below its panel.
"""

from __future__ import annotations

from simulator.experiments.figures import style
from simulator.experiments.reproduce.memory_findings import _rows, _values, interval


def _key(label: str) -> str:
    """The policy a row label runs: ``coarse c=1.4`` -> ``coarse``, ``none`` -> ``strict``
    (no deletion: strict addition alone)."""
    head = label.split(" ")[0]
    return "strict" if head == "none" else head


def _lines(ax, cells, rows, cols, label_of) -> None:
    """One line per row against the columns; a policy's further variants dashed, dotted."""
    seen = {}
    for row in rows:
        stats = [(i, interval(_values(cells, row, c).values())) for i, c in enumerate(cols)]
        stats = [(i, s) for i, s in stats if s["n"]]  # a row may lack a column
        key = _key(label_of(row))
        seen[key] = seen.get(key, -1) + 1
        ax.errorbar([i for i, _ in stats], [s["mean"] for _, s in stats],
                    yerr=[s["ci"][1] - s["mean"] for _, s in stats], marker="o", ms=4,
                    capsize=2, color=style.policy_color(key),
                    ls=("-", "--", ":", "-.")[seen[key] % 4], label=label_of(row))
    ax.set_xticks(range(len(cols)), cols, rotation=20, fontsize=6)


def _bars(ax, cells, rows, column) -> None:
    """Horizontal bars of one column, a bar per row in its policy's colour (hatched: from
    an erroneous memory)."""
    stats = [interval(_values(cells, r, column).values()) for r in rows]
    labels = [r[3:] for r in rows]
    bars = ax.barh(labels, [s["mean"] for s in stats],
                   xerr=[s["ci"][1] - s["mean"] for s in stats],
                   color=[style.policy_color(_key(label)) if not label.startswith("control")
                          else "#bbbbbb" for label in labels])
    for bar, label in zip(bars, labels):
        if label.endswith("erroneous"):  # E3: the same strategy from an erroneous memory
            bar.set_hatch("///")
            bar.set_edgecolor("white")


def plot(exp, doc, cells, path) -> None:
    """Six panels: E1 windows, E2 correlations, E3 early success, E4 memory vs success,
    E5 shift phases and capacity sweep (means with 95% intervals); atomic PNG."""
    from simulator.files.atomic_write import write_atomically

    fig = style.new_figure(figsize=(15, 9), layout="constrained")
    ax = fig.subplots(2, 3)
    e1 = _rows(cells, "E1 ")
    cols = list(dict.fromkeys(c["column"] for c in cells if c["row"] in e1))
    _lines(ax[0, 0], cells, e1, cols, lambda r: r[3:])
    ax[0, 0].set_title("E1 success over tasks", fontsize=9)
    _bars(ax[0, 1], cells, _rows(cells, "E2 "), "correlation")
    ax[0, 1].set_title("E2 corr(input cosine, output similarity)", fontsize=9)
    _bars(ax[0, 2], cells, _rows(cells, "E3 "), "early success")
    ax[0, 2].set_title("E3 success over the first 20% of tasks", fontsize=9)
    for row in _rows(cells, "E4 "):
        s = interval(_values(cells, row, "success").values())
        m = interval(_values(cells, row, "memory size").values())
        deletion, evaluator = row[3:].split(" / ")
        color = style.policy_color(_key(deletion))
        ax[1, 0].errorbar(m["mean"], s["mean"], xerr=m["ci"][1] - m["mean"],
                          yerr=s["ci"][1] - s["mean"], marker="o", ms=6, capsize=2,
                          color=color, mfc=color if evaluator == "exact" else "none",
                          label=row[3:])
    ax[1, 0].set_xlabel("mean memory size", fontsize=7)
    ax[1, 0].set_title("E4 deletion: success vs memory (filled: exact evaluator)", fontsize=9)
    e5 = _rows(cells, "E5 shift")
    cols = list(dict.fromkeys(c["column"] for c in cells if c["row"] in e5))
    _lines(ax[1, 1], cells, e5, cols, lambda r: r[9:])
    ax[1, 1].set_title("E5 task-distribution shift (new w)", fontsize=9)
    caps = _rows(cells, "E5 capacity")
    cols = list(dict.fromkeys(c["column"] for c in cells if c["row"] in caps))
    _lines(ax[1, 2], cells, caps, cols, lambda r: r[12:])
    ax[1, 2].set_title("E5 capacity sweep", fontsize=9)
    for a in ax.flat:
        a.tick_params(labelsize=6)
        a.set_ylabel("success rate" if a not in (ax[0, 1], ax[0, 2]) else "", fontsize=7)
    ax[0, 1].set_xlabel("correlation", fontsize=7)
    ax[0, 2].set_xlabel("success rate", fontsize=7)
    fig.suptitle(exp.title, fontsize=10)
    fig.canvas.draw()  # the legends hang below the tick labels, measured once drawn
    for a in (ax[0, 0], ax[1, 0], ax[1, 1], ax[1, 2]):
        style.legend_below(a, fontsize=6.5, drawn=True)
    write_atomically(path, lambda tmp: fig.savefig(tmp, format="png", dpi=100,
                                                   bbox_inches="tight"))
