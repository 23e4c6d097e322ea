"""The reproduced tables as the documentation pages show them, rendered from a table's JSON.

A page marks each generated part with ``<!-- reproduce:PART:begin -->`` and
``<!-- reproduce:PART:end -->``; ``semcache reproduce NAME --update FILE`` rewrites the parts
of FILE that NAME's run makes, and the test suite renders the committed report's tables
(``docs/report/tables/NAME.json``, the same JSON ``reproduce --json`` prints) and compares
them with the pages, so no number on a page is typed by hand.  The parts:

- ``table8`` … ``table11``: the paper side by side, each cell "ours mean ± std · paper
  verdict", only the rows and columns the paper prints, with the notes about the paper;
- ``locomo-turns``, ``locomo-tokens``: LoCoMo's evidence hit@3 with memory counted in turns
  (K) and in tokens (B);
- ``locomo-table5``, ``locomo-table6``, ``locomo-table12``, ``locomo-tau``,
  ``locomo-findings``: the paper's temporal tables on our two metrics, Kendall's τ and the
  paper's LoCoMo findings with their verdicts;
- ``agent-memories``: the agent memory rules on LoCoMo, one table per metric (rows the
  policies, and OPT's cost bounds under the cost table).
"""

from __future__ import annotations

import re

# the notes that speak of the paper's printed values (simulator.experiments.reproduce.
# paper_columns.notes); a table's other notes are about the run and stay in its output
_PAPER_NOTE = re.compile(r"^(paper \(|paper column:|printed cells not measured|"
                         r"\S+ at \S+ \(\w+\): .* prints |\S+ vs \S+_ref \()")


_LOCOMO = ("locomo-turns", "locomo-tokens", "locomo-table5", "locomo-table6",
           "locomo-table12", "locomo-tau", "locomo-findings")
# the parts each table's run makes
PARTS = {"table8": ("table8",), "table9": ("table9",), "table10": ("table10",),
         "table11": ("table11",), "locomo": _LOCOMO, "agent-memories": ("agent-memories",)}


def markers(part: str) -> tuple:
    """The begin and end markers of ``part`` on a page."""
    return f"<!-- reproduce:{part}:begin -->", f"<!-- reproduce:{part}:end -->"


def parts(doc: dict) -> dict:
    """Every part that the table ``doc`` renders, as ``{part: markdown}``."""
    if doc["table"] == "locomo":
        made = {"locomo-turns": _grid(doc, "K="), "locomo-tokens": _grid(doc, "B=")}
        if "temporal" in doc:
            made.update(_temporal(doc["temporal"]))
        return made
    if doc["table"] == "agent-memories":
        # --quick runs the first seed only
        run = (" --quick` (one conversation, seed " + str(doc["seeds"][0]) if doc.get("quick")
               else f"` (seeds {doc['seeds']}")
        return {"agent-memories": f"`semcache reproduce agent-memories{run}; {doc['title']}):"
                                  "\n\n" + by_metric(doc) + "\n\n"
                                  + "\n".join(f"- {n}" for n in doc["notes"])}
    if any(c.get("verdict") for r in doc["rows"] for c in _cells(r, doc["columns"])):
        return {doc["table"]: side_by_side(doc)}
    return {}


def _cells(row: dict, columns: list) -> list:
    return [row[c] for c in columns if c in row]


def paper_cell(c: dict, sep: str = " · ", exact: bool = True) -> str:
    """The paper's value and the verdict after ``sep`` ("" where nothing is printed):
    ``✓`` match, ``≠`` and ours − paper, ``n/c`` another metric.  ``exact``: the value
    with the digits the paper prints it with, else with three."""
    from simulator.experiments.reproduce.paper_columns import decimals

    v = c.get("verdict")
    if v is None:
        return ""
    if v == "not comparable":
        return f"{sep}n/c"
    mark = "✓" if v == "match" else f"≠ {c['difference']:+.3f}"
    digits = decimals(c["paper"]) if exact else 3
    return f"{sep}{c['paper']:.{digits}f} {mark}"


def side_by_side(doc: dict) -> str:
    """One reproduced table beside the paper: the rows and columns the paper prints."""
    cols = [c for c in doc["columns"]
            if any(r.get(c, {}).get("verdict") for r in doc["rows"])]
    rows = [r for r in doc["rows"] if any(r.get(c, {}).get("verdict") for c in cols)]
    lines = [f"`semcache reproduce {doc['table']}` ({doc['title']}, seeds {doc['seeds']}):",
             "", "| row | source | " + " | ".join(cols) + " |",
             "|---|---|" + "---:|" * len(cols)]
    for r in rows:
        cells = [f"{r[c]['mean']:.3f} ± {r[c]['std']:.3f}" + paper_cell(r[c])
                 if c in r else "" for c in cols]
        lines.append(f"| {r['policy']} | {r['source']} | " + " | ".join(cells) + " |")
    notes = [n for n in doc["notes"] if _PAPER_NOTE.match(n)]
    if notes:
        lines += [""] + [f"- {n}" for n in notes]
    return "\n".join(lines)


def _grid(doc: dict, prefix: str) -> str:
    """LoCoMo's mean ± std per policy over the columns that start with ``prefix``."""
    cols = [c for c in doc["columns"] if c.startswith(prefix)]
    lines = ["| policy | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for r in doc["rows"]:
        lines.append(f"| {r['policy']} | " + " | ".join(
            f"{r[c]['mean']:.3f} ± {r[c]['std']:.3f}" for c in cols) + " |")
    return "\n".join(lines)


def by_metric(doc: dict, row_names: bool = False) -> str:
    """One table per metric of a document whose rows are ``POLICY`` (its ``metric``) and
    ``POLICY: METRIC`` (the others); rows named ``OPT: ...`` go under the ``cost`` table.
    Each row is labelled by its policy, or with ``row_names`` by its row's full name."""
    cols = doc["columns"]
    groups = {doc["metric"]: []}
    for r in doc["rows"]:
        head, _, metric = r["policy"].partition(": ")
        if head == "OPT":
            groups.setdefault("cost", []).append((r["policy"], r))
        else:
            label = r["policy"] if row_names else head
            groups.setdefault(metric or doc["metric"], []).append((label, r))
    digits = {"tokens kept": 0, "modifications": 1, "rewrites": 1, "cost": 1}
    out = []
    for metric, rows in groups.items():
        d = digits.get(metric, 3)
        rows = sorted(rows, key=lambda lr: lr[0].startswith("OPT"))  # OPT last
        out += [f"**{metric}**", "", "| policy | " + " | ".join(cols) + " |",
                "|---|" + "---:|" * len(cols)]
        out += [f"| {label} | " + " | ".join(
            f"{r[c]['mean']:.{d}f} ± {r[c]['std']:.{d}f}" if c in r else "" for c in cols)
            + " |" for label, r in rows]
        out.append("")
    return "\n".join(out[:-1])


def _num(value, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


# Table 5's rows: the label and the digits each is shown with
_TABLE5 = {"avg_gap": ("average gap", 3), "relative_improvement_pct":
           ("relative improvement (%)", 1), "second_half_gap": ("second-half gap", 3),
           "slope_ratio": ("slope ratio", 2)}
PAPER_ROW = "*paper (LLM F1)*"


def _temporal(sec: dict) -> dict:
    metrics = sec["metrics"]
    first = next(iter(metrics.values()))
    cols = list(first["table5"]["rows"]["avg_gap"])
    t5 = ["| row | metric | " + " | ".join(cols) + " |", "|---|---|" + "---|" * len(cols)]
    for key, (label, digits) in _TABLE5.items():
        for name, m in metrics.items():
            cells = m["table5"]["rows"][key]
            t5.append(f"| {label} | {name} | " + " | ".join(
                _num(cells[c]["ours"], digits) for c in cols) + " |")
        t5.append(f"| {label} | {PAPER_ROW} | " + " | ".join(
            f"*{_num(cells[c]['paper'], digits)}*" for c in cols) + " |")
    t6 = ["| policy | " + " | ".join(f"{n} | Δ vs FIFO" for n in metrics)
          + " | *paper F1* | *paper Δ* |", "|---|" + "---|---|" * (len(metrics) + 1)]
    for policy in first["table6"]["rows"]:
        cells = []
        for m in metrics.values():
            r = m["table6"]["rows"][policy]
            cells += [_num(r["average"]), _num(r["delta_vs_fifo"])]
        r = first["table6"]["rows"][policy]
        paper_delta = r["paper_delta_vs_fifo"]
        cells += [f"*{_num(r['paper_average'])}*",
                  "—" if paper_delta is None else f"*{_num(paper_delta)}*"]
        t6.append(f"| {policy} | " + " | ".join(cells) + " |")
    k12 = list(dict.fromkeys(c for r in first["table12"]["rows"].values() for c in r))
    t12 = ["| policy | metric | " + " | ".join(k12) + " |", "|---|---|" + "---|" * len(k12)]
    for policy in first["table12"]["rows"]:
        for name, m in metrics.items():
            r = m["table12"]["rows"][policy]
            t12.append(f"| {policy} | {name} | " + " | ".join(
                f"{r[c]['mean']:.2f} ± {r[c]['std']:.2f}" for c in k12) + " |")
        r = first["table12"]["rows"][policy]
        t12.append(f"| {policy} | {PAPER_ROW} | " + " | ".join(
            f"*{_num(r[c]['paper'], 2)}*" for c in k12) + " |")
    tau = "; ".join(f"on {name} " + ", ".join(
        f"{c} {_num(v['tau'], 2)}" + ("" if v["tau"] is None else f" (p {v['p_value']:.2f})")
        for c, v in m["kendall_tau"].items()) for name, m in metrics.items())
    return {"locomo-table5": "\n".join(t5), "locomo-table6": "\n".join(t6),
            "locomo-table12": "\n".join(t12),
            "locomo-tau": "Kendall's τ (τ-b, `scipy.stats.kendalltau`) between our ordering "
                          "of the seven bounded policies and the paper's Table 4 ordering, "
                          f"per K: {tau}.",
            "locomo-findings": _findings(sec["findings"], list(metrics))}


def _findings(findings: list, metrics: list) -> str:
    """One row per finding, one verdict column per metric."""
    by = {}
    for f in findings:
        name = f["id"].rsplit(" (", 1)[0]
        by.setdefault(name, {"finding": f["finding"]})[f["metric"]] = f["verdict"]
    lines = ["| finding | " + " | ".join(metrics) + " |", "|---|" + "---|" * len(metrics)]
    for name, f in by.items():
        lines.append(f"| `{name}`: {f['finding']} | " + " | ".join(
            f"**{f[m]}**" for m in metrics) + " |")
    return "\n".join(lines)


def replace(text: str, made: dict) -> str:
    """``text`` with every marked part that ``made`` has rewritten (the others as they were)."""
    for part, body in made.items():
        begin, end = markers(part)
        start, stop = text.find(begin), text.find(end)
        if start >= 0 and stop > start:
            text = text[:start] + f"{begin}\n{body}\n" + text[stop:]
    return text


def marked(text: str) -> list:
    """The parts marked on a page, in the order they appear."""
    return re.findall(r"<!-- reproduce:([a-z0-9-]+):begin -->", text)
