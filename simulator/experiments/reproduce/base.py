"""What a reproduction is: measured cells, their aggregate table, and the files it writes.

An :class:`Experiment` measures *cells*: one value of one metric for one row (a policy,
or a policy and a metric), one column (the swept value, named like ``m/K=1.5`` or
``K=20``), one trace source (our generator, or the authors' published traces) and one
seed.  :func:`table` aggregates them over seeds into ``mean``, ``std`` and ``n`` and sets
the paper's printed value beside each (``paper``, ``paper_std``) with a ``verdict``
(``match``, ``differs`` with the ``difference`` ours − paper, ``not comparable``, or null
where nothing is printed) and ``differs`` (a bool, or null without a comparable value).

The printed values are the paper-tables file shipped with the package
(:mod:`~simulator.experiments.reproduce.paper_tables`); each experiment names the printed
table it compares with (``paper_table``) and maps its labels to the file's where they
differ; :mod:`~simulator.experiments.reproduce.paper_columns` attaches them and computes
the verdicts.  A cell the paper does not print has null paper keys.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Callable

import numpy as np

from simulator.files.atomic_write import write_atomically


@dataclasses.dataclass(frozen=True)
class Experiment:
    """One reproducible table (and its figure)."""

    name: str
    title: str
    metric: str
    xlabel: str
    # (quick: bool, seeds: list[int]) -> (cells, notes) or (cells, notes, sections), the
    # dict ``sections`` adding top-level keys to the JSON document (locomo's "temporal")
    measure: Callable
    # Optional: cells -> [{"id", "finding", "verdict", "measured"}] (the JSON "findings"),
    # and a plot writer (exp, doc, cells, path) that replaces write_plot.
    findings: Callable | None = None
    # rows share the swept columns (printed as one grid); False: each row has its own
    grid: bool = True
    plot: Callable | None = None
    # whether it can run here (False for data or extras not on this machine: ``all`` skips it)
    available: Callable = lambda: True
    # what the printed table says of the paper's values
    paper_note: str = "paper values: no printed table of the SOLAR paper corresponds"
    # The paper's printed table(s) compared with, keys of the paper-tables file (a later
    # one only fills cells the earlier leave empty), and our labels -> the file's where
    # they differ (see paper_columns)
    paper_table: str | tuple = ()
    paper_rows: dict = dataclasses.field(default_factory=dict)
    paper_columns: dict = dataclasses.field(default_factory=dict)
    # False where the paper's metric is another one (an LLM's answer F1): "not comparable"
    paper_comparable: bool = True
    # (file row, file column) -> why we do not measure that printed cell
    paper_unmeasured: dict = dataclasses.field(default_factory=dict)
    # () -> (rows, columns): every label a run (full or quick) can emit; the printed cells
    # are checked against them
    labels: Callable | None = None


def cell(row, column, seed, value, source="generator", **config) -> dict:
    """One measured value with its full configuration (a raw-results row)."""
    return dict(row=row, column=column, seed=int(seed), value=float(value), source=source,
                config=json.dumps(config, sort_keys=True, default=str))


def table(exp: Experiment, cells: list, notes: list, load: Callable | None = None) -> dict:
    """The ``--json`` document: columns in measurement order, one row per (row, source).

    ``load``: returns the paper-tables document (default: :func:`paper_tables.load`).
    """
    from simulator.experiments.reproduce import paper_columns, paper_tables

    # only an experiment that compares reads the file (a malformed one stops only those)
    tables = (load or paper_tables.load)() if paper_columns.keys(exp) else None
    found, conflicts = paper_columns.merged(exp, tables)
    columns = list(dict.fromkeys(c["column"] for c in cells))
    keys = list(dict.fromkeys((c["row"], c["source"]) for c in cells))
    rows = []
    for row, source in keys:
        out = {"policy": row, "source": source}
        for col in columns:
            vals = [c["value"] for c in cells
                    if (c["row"], c["source"], c["column"]) == (row, source, col)]
            if not vals:
                continue
            mean = float(np.mean(vals))
            std = float(np.std(vals, ddof=1)) if len(vals) > 1 else 0.0
            printed = found.get(paper_columns.file_label(exp, row, col))
            out[col] = {"mean": mean, "std": std, "n": len(vals),
                        **paper_columns.fields(exp, mean, std, len(vals), printed)}
        rows.append(out)
    notes = list(notes) + paper_columns.notes(exp, rows, columns, tables, found,
                                                      conflicts)
    doc = {"table": exp.name, "title": exp.title, "metric": exp.metric,
           "columns": columns, "rows": rows, "notes": notes, "paper_note": exp.paper_note,
           "paper_table": list(paper_columns.keys(exp))}
    if exp.findings is not None:
        doc["findings"] = exp.findings(cells)
    return doc


def write_parquet(cells: list, path: str) -> None:
    """The raw per-seed results, with each cell's full configuration (atomic)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tab = pa.Table.from_pylist(cells)
    write_atomically(path, lambda tmp: pq.write_table(tab, tmp))


def plot_document(exp: Experiment, doc: dict) -> dict:
    """The figure document of a table's own plot: mean ± std of every row against the
    swept columns and the paper's printed values as crosses, the rows faceted into panels
    of a few lines each (:mod:`~simulator.experiments.figures.tables`)."""
    from simulator.experiments.figures import tables as figure_tables

    cols = doc["columns"]
    as_numbers = figure_tables.numeric(cols)
    xs = [float(c.rpartition("=")[2]) for c in cols] if as_numbers else []
    # a sweep over more than a decade (K = 5 … 200) reads on a log axis
    wide = as_numbers and min(xs) > 0 and max(xs) / min(xs) >= 10
    return {"title": exp.title, "xlabel": exp.xlabel, "ylabel": exp.metric,
            "xscale": "log" if wide else "linear", "hline": None,
            "panels": figure_tables.panels(doc, as_numbers=as_numbers)}


def write_plot(exp: Experiment, doc: dict, path: str) -> None:
    """The table's plot (:func:`plot_document`) as a PNG at ``path`` (atomic), drawn as the
    report's figures are."""
    from simulator.experiments.figures import draw as figure_draw

    figure_draw.draw(plot_document(exp, doc), path)


def outputs(exp: Experiment, cells: list, doc: dict, out_dir: str) -> dict:
    """Write NAME.parquet, NAME.png and NAME.json under ``out_dir``; return the paths."""
    os.makedirs(out_dir, exist_ok=True)
    paths = {k: os.path.join(out_dir, f"{exp.name}.{k}") for k in ("parquet", "png", "json")}
    write_parquet(cells, paths["parquet"])
    if exp.plot is not None:
        exp.plot(exp, doc, cells, paths["png"])
    else:
        write_plot(exp, doc, paths["png"])
    text = json.dumps(doc, indent=2, allow_nan=False) + "\n"

    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)

    write_atomically(paths["json"], write)
    return paths


PAPER_POLICIES = ("fifo", "lru", "lfu", "arc", "solar_e", "solar_a", "solar")
AUTHOR_SEEDS = (42, 1337, 2024)


def ref_policies() -> tuple:
    """The authors'-code variants that are registered (reported beside ours)."""
    from simulator.policies import REGISTRY

    return tuple(p for p in ("lru_ref", "arc_ref", "solar_e_ref", "solar_a_ref", "solar_ref")
                 if p in REGISTRY)


def authors_trace(family: str, variant: str, seed: int):
    """One of the authors' published traces, or None when they are not available here."""
    import workloads
    from simulator.errors import InputError

    if "solar_published" not in workloads.REGISTRY:
        return None
    try:
        return workloads.get("solar_published").generate(
            {"family": family, "variant": variant, "trace_seed": seed}, 0)
    except InputError:
        return None


def run_policies(trace, policies, seed, column, source="generator", metric="hit_rate",
                 **model) -> list:
    """Cells of ``metric`` for each policy on one trace (``model``: capacity, top_k …)."""
    from simulator.runner import run

    out = []
    for pol in policies:
        s = run(trace, pol, seed=seed, **model).summary()
        out.append(cell(pol, column, seed, s[metric], source, policy=pol,
                        workload=trace.meta.get("workload"),
                        params=trace.meta.get("params"), **model))
    return out
