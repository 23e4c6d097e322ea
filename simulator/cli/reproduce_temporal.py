"""Printing the ``temporal`` section of ``semcache reproduce locomo`` (the paper's Tables 5,
6 and 12 on our two metrics, Kendall's τ against Table 4, and the findings); see
:mod:`simulator.experiments.reproduce.locomo_temporal` for the definitions."""

from __future__ import annotations

from simulator.cli import output as out

PAPER = "paper (LLM F1, n/c)"


def _num(v, digits=3) -> str:
    return "—" if v is None else f"{v:.{digits}f}"


def _table(title: str, head: list, rows: list) -> None:
    from rich.table import Table

    table = Table(title=title)
    for i, h in enumerate(head):
        table.add_column(h, justify="left" if i == 0 else "right")
    for r in rows:
        table.add_row(*r)
    out.console().print(table)


def print_temporal(sec: dict) -> None:
    """Every table of the section, per metric, then the findings with their verdicts; the
    paper's printed value is the row under ours, never comparable (an LLM's F1)."""
    for metric, m in sec["metrics"].items():
        t5 = m["table5"]["rows"]
        cols = list(t5["avg_gap"])
        rows = []
        for r, cells in t5.items():
            rows += [[r, *(_num(cells[c]["ours"]) for c in cols)],
                     [f"  {PAPER}", *(_num(cells[c]["paper"]) for c in cols)]]
        _table(f"Table 5 layout, SOLAR vs FIFO ({metric})", ["row", *cols], rows)
        t6 = m["table6"]
        _table(f"Table 6 layout, ablation at {t6['column']} ({metric})",
               ["policy", "average", "Δ vs FIFO", f"{PAPER}: average", "Δ vs FIFO"],
               [[p, _num(r["average"]), _num(r["delta_vs_fifo"]), _num(r["paper_average"]),
                 _num(r["paper_delta_vs_fifo"])] for p, r in t6["rows"].items()])
        t12 = m["table12"]["rows"]
        cols = list(dict.fromkeys(c for r in t12.values() for c in r))
        rows = []
        for p, r in t12.items():
            rows += [[p, *(f"{r[c]['mean']:.3f} ± {r[c]['std']:.3f}" for c in cols)],
                     [f"  {PAPER}", *(_num(r[c]["paper"], 2) for c in cols)]]
        _table(f"Table 12 layout, learning slope {m['table12']['unit']} ({metric})",
               ["policy", *cols], rows)
        taus = ", ".join(f"{c} {_num(v['tau'])}" + ("" if v["tau"] is None
                                                     else f" (p {v['p_value']:.2f})")
                         for c, v in m["kendall_tau"].items())
        out.print_line(f"Kendall's tau vs paper Table 4 ordering ({metric}): {taus}")
    for f in sec["findings"]:
        out.print_line(f"{f['id']}: {f['verdict']} — {f['finding']}")
