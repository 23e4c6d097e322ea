"""A reproduced table as figure panels: its rows faceted so a panel shows a few lines.

A table's rows are policies (``fifo``), a policy and a metric (``fifo cost/T``,
``solar: modification rate``) or a quantity of their own (``gap solar-fifo``,
``hit rate (code rule)``), each on one trace source (our ``generator`` or the
``authors``' traces).  :func:`panels` groups them: one panel per metric; where a metric
has more than :data:`~simulator.experiments.figures.style.MAX_LINES` lines, one per trace
source, then one for our policies and one for the authors' code (``X_ref``).  Columns of
different kinds (``K=…`` turns and ``B=…`` tokens) go to different panels.

The paper's printed values become marker-only series (style ``paper``) beside the rows
that meet them, once per panel, and only where they are comparable with ours (LoCoMo's
Table 4 is an LLM's answer F1: not drawn).
"""

from __future__ import annotations

import re

from simulator.experiments.figures.style import MAX_LINES, known

SOURCES = {"generator": "our generator", "authors": "the authors' traces"}


def _num(label: str) -> float:
    """The number of a column label (``K=20`` -> 20, ``m/K=1.5`` -> 1.5)."""
    return float(label.rpartition("=")[2])


def numeric(columns: list) -> bool:
    """Whether every column is ``NAME=number``."""
    try:
        [_num(c) for c in columns]
    except ValueError:
        return False
    return all("=" in c for c in columns)


def parts(label: str) -> tuple:
    """(policy, metric) of a row label: ``("fifo", None)``, ``("fifo", "cost/T")``,
    ``("solar", "modification rate")``; ``(None, None)`` when it names no policy."""
    if known(label):
        return label, None
    m = re.match(r"^([A-Za-z0-9_]+)(?::\s*|\s+)(.+)$", label)
    if m and known(m.group(1)):
        return m.group(1), m.group(2)
    return None, None


def _group(row: dict, any_policy: bool) -> str:
    """The metric panel a row belongs to ('' for the table's own metric)."""
    policy, metric = parts(row["policy"])
    if policy is not None:
        return metric or ""
    return row["policy"] if any_policy else ""


def _implementation(row: dict) -> str:
    policy, _ = parts(row["policy"])
    return "the authors' code (X_ref)" if policy and policy.endswith("_ref") else \
        "our policies"


def _kind(column: str) -> str:
    return column.rpartition("=")[0] if "=" in column else ""


def _facets(doc: dict, rows: list) -> list:
    """[(descriptors, rows, columns)]: rows split by metric and column kind, then by trace
    source and implementation while a panel would show more than MAX_LINES lines."""
    any_policy = any(parts(r["policy"])[0] for r in rows)
    kinds = list(dict.fromkeys(_kind(c) for c in doc["columns"]))
    groups = {}
    for row in rows:
        for kind in kinds:
            cols = [c for c in doc["columns"] if _kind(c) == kind and c in row]
            if cols:
                key = (_group(row, any_policy), kind)
                groups.setdefault(key, {"desc": {"metric": key[0] or doc["metric"],
                                                 "columns": kind}, "rows": []})
                groups[key]["rows"].append((row, cols))
    facets = list(groups.values())
    for level, name in (("source", lambda r: SOURCES.get(r["source"], r["source"])),
                        ("implementation", _implementation)):
        if max(len(f["rows"]) for f in facets) <= MAX_LINES:
            break
        split = []
        for f in facets:
            sub = {}
            for row, cols in f["rows"]:
                sub.setdefault(name(row), []).append((row, cols))
            split += [{"desc": {**f["desc"], level: k}, "rows": v} for k, v in sub.items()]
        facets = split
    return facets


def _title(desc: dict, varying: set) -> str:
    words = []
    for level in ("metric", "columns", "source", "implementation"):
        if level in varying:
            words.append(f"against {desc[level]}" if level == "columns" else desc[level])
    return ", ".join(words)


def panels(doc: dict, rows=None, as_numbers: bool = True, paper: bool = True) -> list:
    """The figure panels of a table document (``reproduce``'s ``--json``).

    Parameters
    ----------
    doc : dict
        The table document.
    rows : iterable of str, optional
        Only these row labels (default: every row).
    as_numbers : bool
        x as the columns' numbers (``K=20`` -> 20) rather than their labels.
    paper : bool
        Draw the paper's printed values (as markers) where they are comparable.

    Returns
    -------
    list of dict
        ``{"title", "metric", "series"}`` per panel (and ``"columns"``, the column kind,
        where the table has several, and ``"ylabel"`` where the panel's metric is not the
        table's; panels of one metric share their y range); each series ``{"label",
        "key", "x", "y", "yerr", "style"}``, a paper series ``{"label", "key", "x", "y",
        "style": "paper"}`` whose ``key`` is None when it stands beside rows of different
        colours.
    """
    chosen = [r for r in doc["rows"] if rows is None or r["policy"] in rows]
    if not chosen:
        return [{"title": "", "series": []}]
    facets = _facets(doc, chosen)
    varying = {level for level in ("metric", "columns", "source", "implementation")
               if len({f["desc"].get(level) for f in facets}) > 1}
    out = []
    for f in facets:
        panel = {"title": _title(f["desc"], varying), "metric": f["desc"]["metric"],
                 "series": _series(f["rows"], as_numbers, paper)}
        if "columns" in varying:
            panel["columns"] = f["desc"]["columns"]
        if f["desc"]["metric"] != doc["metric"]:  # a row's own quantity (modification rate)
            panel["ylabel"] = f["desc"]["metric"]
        out.append(panel)
    return out


def _series(rows: list, as_numbers: bool, paper: bool) -> list:
    """Mean ± std of each row, then the paper's values beside the first row meeting them
    (a printed row met by rows of different colours: one series, key None)."""
    out, printed = [], {}
    for row, cols in rows:
        policy, _ = parts(row["policy"])
        key = policy or row["policy"]
        x = [_num(c) for c in cols] if as_numbers else cols
        out.append({"label": row["policy"] + ("" if row["source"] == "generator"
                                              else f" ({row['source']})"),
                    "key": key, "x": x, "y": [row[c]["mean"] for c in cols],
                    "yerr": [row[c]["std"] for c in cols],
                    "style": "solid" if row["source"] == "generator" else "dashed"})
        shown = [c for c in cols if row[c].get("paper") is not None
                 and row[c].get("verdict") != "not comparable"]
        if not (paper and shown):
            continue
        points = ([_num(c) if as_numbers else c for c in shown],
                  [row[c]["paper"] for c in shown])
        same = printed.get(repr(points))
        if same is None:
            printed[repr(points)] = len(out)
            out.append({"label": f"{row['policy']} (paper)", "key": key, "x": points[0],
                        "y": points[1], "style": "paper"})
        elif out[same]["key"] != key:
            out[same]["key"] = None
    return out
