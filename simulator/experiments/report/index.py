"""The report's ``index.md``: tables beside the paper, findings, claims, figures, versions.

Everything here is read from the run's documents (the tables' ``--json``, the claims'
results, the figure entries); nothing is typed in.  Each table shows under each of our
cells (mean ± std over the seeds) the paper's printed value and its verdict: ✓ match,
≠ with ours − paper, n/c when the paper's metric is another one (see
:mod:`~simulator.experiments.reproduce.paper_columns`).
"""

from __future__ import annotations

from collections import Counter

from simulator.experiments import doc_tables
from simulator.experiments.report.figures import command
from theory.claims import table

VERDICTS = ("match", "differs", "not comparable")
AUTHOR_SEEDS = "42, 1337, 2024"


def claim_command(claim_id: str, quick: bool) -> str:
    return f"semcache claims --only {claim_id}" + (" --quick" if quick else "")


def findings(doc: dict) -> list:
    """A table's findings, LoCoMo's temporal ones included."""
    return list(doc.get("findings", ())) + list(doc.get("temporal", {}).get("findings", ()))


def table_entry(doc: dict, quick: bool) -> dict:
    """One table in ``report.json``: its command, seeds, verdict counts and findings."""
    counts = dict.fromkeys(VERDICTS, 0)
    for row in doc["rows"]:
        for col in doc["columns"]:
            v = row.get(col, {}).get("verdict")
            if v is not None:
                counts[v] += 1
    return {"table": doc["table"], "title": doc["title"], "seeds": doc["seeds"],
            "command": command(doc["table"], doc["seeds"], quick), "verdicts": counts,
            "paper_table": doc["paper_table"], "files": doc["files"],
            "findings": [{"id": f["id"], "verdict": f["verdict"], "finding": f["finding"]}
                         for f in findings(doc)]}


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _value(c: dict) -> str:
    text = f"{c['mean']:.3f} ± {c['std']:.3f}"
    v = c.get("verdict")
    if v == "not comparable":
        return text + (f"<br>paper {c['paper']:.3f} n/c" if c.get("paper") is not None
                       else "<br>n/c")
    if v == "match":
        return text + f"<br>paper {c['paper']:.3f} ✓"
    if v == "differs":
        return text + f"<br>paper {c['paper']:.3f} ≠ {c['difference']:+.3f}"
    return text


def _grid(doc: dict) -> list:
    cols = doc["columns"]
    lines = ["| row | source | " + " | ".join(_cell(c) for c in cols) + " |",
             "|---|---|" + "---:|" * len(cols)]
    for row in doc["rows"]:
        lines.append(f"| {_cell(row['policy'])} | {row['source']} | "
                     + " | ".join(_value(row[c]) if c in row else "" for c in cols) + " |")
    return lines


def _versions(v: dict) -> list:
    tables = v["paper_tables"]
    return ["## Versions", "", "| | |", "|---|---|",
            f"| semcache | {v['semcache']} |", f"| code id | `{v['code_id']}` |",
            f"| python | {v['python']} |", f"| numpy | {v['numpy']} |",
            f"| numba | {v['numba']} |", f"| matplotlib | {v['matplotlib']} |",
            f"| paper tables | `{tables}`"
            + (f" (sha1 `{v['paper_tables_sha1']}`)" if v["paper_tables_sha1"] else "") + " |",
            ""]


def _figures(manifest: dict) -> list:
    lines = ["## Figures", "",
             "Each PNG is drawn from the JSON beside it (its data, command and seeds).", "",
             "| figure | paper | numbers made by | seeds |", "|---|---|---|---|"]
    for f in manifest["figures"]:
        if "missing" in f:
            lines.append(f"| {f['figure']} | | not made: {f['missing']} | |")
            continue
        seeds = f["source"]["seeds"]
        seeds = ",".join(map(str, seeds)) if isinstance(seeds, list) else seeds
        lines.append(f"| [{f['figure']}]({f['png']}) | {f['paper_figure'] or '—'} | "
                     f"`{f['source']['command']}` | {seeds} |")
    lines.append("")
    for f in manifest["figures"]:
        if "missing" not in f:
            lines += [f"### {f['figure']}", "", f"![{_cell(f['title'])}]({f['png']})", "",
                      f"Data: [{f['json']}]({f['json']}); made by `{f['source']['command']}`.",
                      ""]
    return lines


def _tables(manifest: dict, tables: dict) -> list:
    lines = ["## Tables beside the paper", "",
             "Under each of our cells (mean ± std over the seeds): the paper's printed value "
             "and the verdict, ✓ it lies in the seeds' 95% t-interval of our mean widened by "
             "the printed rounding (±0.005 when the seeds agree), ≠ it does not (then ours − "
             "paper), n/c the paper's metric is another one.  Rows marked `authors` ran on "
             f"the SOLAR authors' published traces with their seeds ({AUTHOR_SEEDS}).", "",
             "| table | command | seeds | ✓ match | ≠ differs | n/c | findings |",
             "|---|---|---|---:|---:|---:|---|"]
    for t in manifest["tables"]:
        v = t["verdicts"]
        found = ", ".join(f"{n} {verdict}" for verdict, n in
                          Counter(f["verdict"] for f in t["findings"]).items())
        lines.append(f"| [{t['table']}](#{t['table']}) | `{t['command']}` | "
                     f"{','.join(map(str, t['seeds']))} | {v['match']} | {v['differs']} | "
                     f"{v['not comparable']} | {found or '—'} |")
    for name, skip in manifest["skipped"].items():
        lines.append(f"| {name} | not run: {skip} | | | | | |")
    lines.append("")
    for t in manifest["tables"]:
        doc = tables[t["table"]]
        v = t["verdicts"]
        lines += [f"### {t['table']}", "", f"**{_cell(doc['title'])}** — {doc['metric']}; "
                  f"`{t['command']}` (seeds {','.join(map(str, t['seeds']))}); verdicts: "
                  f"{v['match']} match, {v['differs']} differ, {v['not comparable']} not "
                  f"comparable. {doc['paper_note']}.", ""]
        if doc["table"] == "agent-memories":  # one table per metric, and its figure
            lines += [doc_tables.by_metric(doc), "",
                      f"Figure: [{doc['files']['png']}]({doc['files']['png']}).", ""]
        else:
            lines += _grid(doc) + [""]
        if "temporal" in doc:
            lines += _temporal(doc["temporal"])
        if t["findings"]:
            lines += ["Findings:", ""]
            lines += [f"- **{f['verdict']}** `{f['id']}`: {_cell(f['finding'])}"
                      for f in t["findings"]]
            lines.append("")
        if doc["notes"]:
            lines += ["<details><summary>notes</summary>", ""]
            lines += [f"- {_cell(n)}" for n in doc["notes"]]
            lines += ["", "</details>", ""]
        lines += [f"Data: [{doc['files']['json']}]({doc['files']['json']}).", ""]
    return lines


def _num(v, fmt: str = ".3f") -> str:
    return "—" if v is None else format(v, fmt)


def _temporal(section: dict) -> list:
    """LoCoMo's Tables 5, 6 and 12 and Kendall's τ on our two metrics, each cell with the
    paper's printed value (an LLM's answer F1: a reference, n/c)."""
    lines = []
    for m, t in section["metrics"].items():
        t5 = t["table5"]["rows"]
        cols = list(dict.fromkeys(c for r in t5.values() for c in r))
        lines += [f"Paper Table 5 (SOLAR vs FIFO over time) on {m}; under ours the paper's "
                  "value (LLM F1, n/c):", "", "| | " + " | ".join(cols) + " |",
                  "|---|" + "---:|" * len(cols)]
        lines += [f"| {r} | " + " | ".join(
            f"{_num(v[c]['ours'])}<br>paper {_num(v[c]['paper'])}" if c in v else ""
            for c in cols) + " |" for r, v in t5.items()]
        t6 = t["table6"]
        lines += ["", f"Paper Table 6 (ablation at {t6['column']}) on {m}: " + "; ".join(
            f"{p} {_num(r['average'])} (paper {_num(r['paper_average'])})"
            for p, r in t6["rows"].items()) + ".", ""]
        t12 = t["table12"]["rows"]
        cols = list(dict.fromkeys(c for r in t12.values() for c in r))
        lines += [f"Paper Table 12 (learning slope × 10³) on {m}:", "",
                  "| policy | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
        lines += [f"| {p} | " + " | ".join(
            f"{_num(v[c]['mean'], '.2f')} ± {_num(v[c]['std'], '.2f')}<br>paper "
            f"{_num(v[c]['paper'], '.2f')}" if c in v else "" for c in cols) + " |"
            for p, v in t12.items()]
        lines += ["", f"Kendall's τ of our order against Table 4's on {m}: " + ", ".join(
            f"{c} {_num(k['tau'], '.2f')}" for c, k in t["kendall_tau"].items()) + ".", ""]
    return lines


def _claims(manifest: dict) -> list:
    lines = ["## Claims", "",
             "Each claim check's seeds and grid are in its conditions "
             "(`semcache claims --json`); docs/claims.md says what each basis allows.", ""]
    return lines + table.lines(manifest["claims"], command=lambda c: c["command"]) + [""]


def markdown(manifest: dict, tables: dict, marker: str) -> str:
    """The whole ``index.md``."""
    mode = "quick grids, for CI" if manifest["quick"] else "full grids"
    lines = [marker, "", "# semcache: every experiment in one report", "",
             f"Generated by `{manifest['command']}` ({mode}).  Every number comes from the "
             "command named beside it; `report.json` holds the same as data.", ""]
    lines += _versions(manifest["versions"])
    lines += _figures(manifest)
    lines += _tables(manifest, tables)
    lines += _claims(manifest)
    return "\n".join(lines)
