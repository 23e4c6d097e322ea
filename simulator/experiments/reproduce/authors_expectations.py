"""The SOLAR authors' own acceptance criteria for their synthetic runs, as findings.

The authors' repository (ysunbp/SOLAR, ``synthetic_workload_spec.md`` §9) states what
their synthetic experiments should show; beside the paper's printed values (the tables'
``paper`` column, :mod:`~simulator.experiments.reproduce.paper_columns`) these are their
reference results, checked as findings.  Each is
evaluated on our measured cells, for every trace source that ran (our generator, the
authors' published traces) and for both SOLAR variants (``solar``: the paper's
algorithms; ``solar_ref``: the authors' code, their "LMU+TS"):

* ``authors-cycling`` (Table 8): at m/K = 2, FIFO's hit rate is about 0 (we read "about"
  as a mean of at most ``NEAR_ZERO``) and SOLAR's is above 0.3;
* ``authors-crossover`` (Table 9): SOLAR beats FIFO at the smallest K and FIFO catches up
  by the largest, so a crossover K* exists (the first K where the mean gap is ≤ 0);
* ``authors-noise-peak`` (Table 10): FIFO's hit rate over the frozen pool rises, then
  falls, with its peak at a pool of 100 to 500 items (checked for both relevance rules);
* ``authors-drift`` (drift table): after the first phase, SOLAR keeps a higher hit rate
  than LFU (their "LMU+TS recovers quickly after a phase boundary, LFU stays low", read
  on per-phase hit rates: the mean over phases 2 and later).

A finding is ``{"id", "finding", "verdict", "measured"}`` with verdict ``met``,
``not met`` or ``not measured``: a row or column the grid did not run, or (for the
crossover and the peak, which depend on where the grid stops) a grid smaller than the full
one, as with ``--quick``.  Verdicts compare means over seeds; ``measured`` gives the numbers
they rest on.
"""

from __future__ import annotations

import numpy as np

NEAR_ZERO = 0.05
SOLARS = ("solar", "solar_ref")
SOURCES = ("generator", "authors")


def _means(cells, row, source) -> dict:
    """column -> mean over seeds of ``row`` from ``source`` (in measurement order)."""
    by_col: dict = {}
    for c in cells:
        if c["row"] == row and c["source"] == source:
            by_col.setdefault(c["column"], []).append(c["value"])
    return {col: float(np.mean(v)) for col, v in by_col.items()}


def _finding(fid, text, ok, measured) -> dict:
    verdict = "not measured" if ok is None else ("met" if ok else "not met")
    return {"id": fid, "finding": text, "verdict": verdict, "measured": measured}


def cycling(cells) -> list:
    """Table 8: FIFO about 0 and SOLAR above 0.3 at m/K = 2."""
    out = []
    for source in SOURCES:
        ran = {c["row"] for c in cells if c["source"] == source}
        fifo = _means(cells, "fifo", source).get("m/K=2")
        for solar in SOLARS:
            if solar not in ran:
                continue
            hit = _means(cells, solar, source).get("m/K=2")
            ok = None if fifo is None or hit is None else (fifo <= NEAR_ZERO and hit > 0.3)
            out.append(_finding(
                "authors-cycling",
                f"cycling at m/K = 2 ({source} traces): FIFO's hit rate is about 0 and "
                f"{solar}'s is above 0.3", ok, {"fifo": fifo, solar: hit}))
    return out


def crossover(cells, full=()) -> list:
    """Table 9: SOLAR − FIFO is positive at the smallest K and ≤ 0 at the largest.

    ``full``: the full grid's columns; with fewer the verdict is ``not measured``.
    """
    out = []
    for source in SOURCES:
        fifo = _means(cells, "fifo", source)
        for solar in SOLARS:
            mine = _means(cells, solar, source)
            cols = [c for c in fifo if c in mine]
            if not cols:
                continue
            gap = {c: mine[c] - fifo[c] for c in cols}
            star = next((c for c in cols if gap[c] <= 0), None)
            ok = gap[cols[0]] > 0 and gap[cols[-1]] <= 0 if set(full) <= set(cols) else None
            out.append(_finding(
                "authors-crossover",
                f"working set ({source} traces): {solar} beats FIFO at the smallest K and "
                f"FIFO catches up by the largest, so a crossover K* exists", ok,
                {"gap": gap, "K*": star}))
    return out


def noise_peak(cells, full=()) -> list:
    """Table 10: FIFO's hit rate peaks strictly inside the grid, at P in 100 … 500.

    ``full``: the full grid's columns; with fewer the verdict is ``not measured``.
    """
    out = []
    for row in ("hit rate", "hit rate (code rule)"):
        means = _means(cells, row, "generator")
        if not means:
            continue
        cols = list(means)
        peak = max(cols, key=lambda c: means[c])
        size = int(peak.split("=")[1])
        inside = cols.index(peak) not in (0, len(cols) - 1)
        ok = inside and 100 <= size <= 500 if set(full) <= set(cols) else None
        out.append(_finding(
            "authors-noise-peak",
            f"frozen pool, {row}: FIFO's hit rate rises, then falls, peaking at a pool of "
            f"100 to 500 items", ok,
            {"hit rate": means, "peak": peak}))
    return out


def drift(cells) -> list:
    """Drift: over phases 2 and later, SOLAR's mean hit rate is above LFU's."""
    out = []
    for source in SOURCES:
        lfu = _means(cells, "lfu", source)
        later = [c for c in lfu if c.startswith("phase ") and c != "phase 1"]
        for solar in SOLARS:
            mine = _means(cells, solar, source)
            if not later or not all(c in mine for c in later):
                continue
            a = float(np.mean([mine[c] for c in later]))
            b = float(np.mean([lfu[c] for c in later]))
            out.append(_finding(
                "authors-drift",
                f"topic drift ({source} traces): after the first phase {solar} keeps a "
                f"higher hit rate than LFU", a > b, {solar: a, "lfu": b,
                                                     "phases": later}))
    return out
