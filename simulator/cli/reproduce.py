"""``semcache reproduce NAME``: one of the SOLAR paper's synthetic experiments.

NAME is ``table8``, ``table9``, ``table10``, ``table11``, ``drift``, ``ablation``, a figure
alias (``fig3`` = table8, ``fig4`` = table9, ``fig5`` = table10) or ``all``.  Each run
prints the table (mean ± std over the seeds and, under it where the paper prints the cell,
the paper's value with the verdict: ``✓`` match, ``≠`` and ours − paper where they differ;
``n/c`` where the paper's metric is another one) and writes ``NAME.png``, ``NAME.parquet``
(raw per-seed results with their configuration) and ``NAME.json`` under ``--out``: every
file of the command lands together, once all are written, or none does
(:mod:`simulator.files.output_set`).
``--json`` prints ``{"table", "columns", "rows": [{"policy", "source", COLUMN: {"mean",
"std", "n", "paper", "paper_std", "differs", "verdict", "difference"}}], "notes",
"paper_note", "paper_table", "files"}`` (for ``all``: ``{"tables": [...]}``); see
:mod:`simulator.experiments.reproduce.paper_columns` for the verdicts.  Some also have
``"findings": [{"id", "finding", "verdict", "measured"}]``, printed after the table:
``memory-study`` (verdict ``reproduced``, ``not reproduced`` or ``inconclusive``) and
``table8``, ``table9``, ``table10``, ``drift`` (the authors' own expectations,
:mod:`simulator.experiments.reproduce.authors_expectations`; verdict ``met``, ``not met``
or ``not measured``).  ``locomo`` also has ``"temporal"``: the paper's Tables 5, 6 and 12
on our two metrics, Kendall's τ against Table 4 and its findings
(:mod:`simulator.experiments.reproduce.locomo_temporal`), printed after the table.
``agent-memories`` (the agent frameworks' memory rules on LoCoMo beside FIFO, SOLAR and
OPT, :mod:`simulator.experiments.reproduce.agent_memories`) prints one markdown table per
metric and has ``"opt"``: OPT's bounds per conversation and column.

``--report DIR`` (with ``all`` only: a report is of everything) runs every table and every
claim check and writes ``DIR/index.md`` (the tables beside the paper, findings and claims
with their verdicts, the command and seeds behind each number, the versions), one PNG per
figure with its data as JSON beside it, and ``report.json``
(:mod:`simulator.experiments.report`).  DIR must be new, empty or a previous report; it
is checked before any work, and the report appears all at once or not at all.  With
``--report``, ``--out`` is not used (the tables' files go under ``DIR/tables``) and
``--json`` prints ``report.json``.

``--update FILE`` (repeatable) rewrites the parts of FILE marked ``<!-- reproduce:PART:begin
-->`` … ``<!-- reproduce:PART:end -->`` that this run makes, from its tables
(:mod:`simulator.experiments.doc_tables`: the paper side by side of ``table8`` …
``table11``, LoCoMo's tables): ``semcache reproduce all --report docs/report --update
docs/reproduction.md --update docs/locomo.md`` regenerates the committed report and the
pages together.  Each FILE is read before any work and must mark a part of this run.
"""

from __future__ import annotations

import os
import sys

from simulator.cli import output as out
from simulator.cli import sections
from simulator.files import partial_files
from simulator.errors import InputError
from simulator.files.output_set import landing


LEGEND = ("under our mean ± std: the paper's printed value; ✓ it lies in the seeds' 95% "
          "t-interval of our mean widened by the printed rounding (±0.005 when the seeds "
          "agree), ≠ it does not (then ours − paper); n/c the paper's metric is another one")


def _seeds(text: str) -> list:
    try:
        seeds = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise InputError(f"--seeds expects integers like 0,1,2; got {text!r}") from None
    if not seeds or min(seeds) < 0 or len(set(seeds)) != len(seeds):
        raise InputError(f"--seeds needs distinct integers >= 0, got {text!r}")
    return seeds


def _print_rows(doc: dict) -> None:
    """A study whose rows have their own columns (memory-study): one line each."""
    from rich.table import Table

    table = Table(title=doc["title"] + (" (quick)" if doc.get("quick") else ""))
    table.add_column("row")
    table.add_column("mean ± std over runs")
    for row in doc["rows"]:
        table.add_row(row["policy"], "; ".join(f"{col} {row[col]['mean']:.3f} ± "
                                               f"{row[col]['std']:.3f}"
                                               for col in doc["columns"] if col in row))
    out.console().print(table)


def _print(doc: dict, files: dict, grid: bool = True) -> None:
    from rich.table import Table

    from simulator.experiments import doc_tables

    if not grid:
        _print_rows(doc)
        return _print_tail(doc, files, paper_note=False)
    if doc["table"] == "agent-memories":  # one markdown table per metric
        out.print_line(doc["title"] + (" (quick)" if doc.get("quick") else "") + "\n")
        out.print_line(doc_tables.by_metric(doc, row_names=True))
        return _print_tail(doc, files, paper_note=False)
    table = Table(title=doc["title"] + (" (quick)" if doc.get("quick") else ""))
    table.add_column("row")
    table.add_column("source")
    for col in doc["columns"]:
        table.add_column(col, justify="right")
    for row in doc["rows"]:
        cells = []
        for col in doc["columns"]:
            c = row.get(col)
            if c is None:
                cells.append("")
                continue
            # the paper's value and verdict on a second line of the cell
            cells.append(f"{c['mean']:.3f} ± {c['std']:.3f}"
                         + doc_tables.paper_cell(c, "\n", exact=False))
        table.add_row(row["policy"], row["source"], *cells)
    out.console().print(table)
    if "temporal" in doc:  # locomo: the paper's temporal tables on our metrics
        from simulator.cli.reproduce_temporal import print_temporal

        print_temporal(doc["temporal"])
    _print_tail(doc, files)


def _brief(value) -> str:
    """A finding's measured numbers on one line (floats to 3 decimals)."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {_brief(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(_brief(v) for v in value) + ")"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _print_tail(doc: dict, files: dict, paper_note: bool = True) -> None:
    """Notes, findings, what the table says of the paper's values, the files written."""
    for note in doc["notes"]:
        out.print_line(f"note: {note}")
    for f in doc.get("findings", ()):
        out.print_line(f"{f['id']}: {f['verdict']} — {f['finding']} "
                       f"[{_brief(f['measured'])}]")
    if paper_note:
        out.print_line(doc["paper_note"])
        if any(row.get(c, {}).get("verdict") for row in doc["rows"] for c in doc["columns"]):
            out.print_line(LEGEND)
    out.print_line("wrote " + ", ".join(files.values()))


def cmd_reproduce(args) -> int:
    from simulator.experiments.reproduce import REGISTRY, get, reproduce

    seeds = _seeds(args.seeds)
    if args.report is not None:
        return _report(args, seeds)
    names = list(REGISTRY) if args.name == "all" else [get(args.name).name]
    if args.name == "all":
        skipped = [n for n in names if not REGISTRY[n].available()]
        names = [n for n in names if n not in skipped]
        for n in skipped:
            print(f"semcache: skipping '{n}': its data or the text extra is not here",
                  file=sys.stderr)
    out.check_folder(args.out)  # before any work
    _check_pages(args.update, names)
    _check_paper_tables(names)
    docs = []
    try:  # every table's files land together, once all are written, or none does
        with landing(args.out) as stage:
            for name in names:
                doc, files = reproduce(name, quick=args.quick, seeds=seeds, out_dir=stage)
                doc["files"] = {k: os.path.join(args.out, os.path.basename(v))
                                for k, v in files.items()}
                docs.append(doc)
    except OSError as exc:
        raise InputError(f"cannot write --out '{args.out}': {exc.strerror or exc}") from None
    _update_pages(args.update, docs)
    for doc in docs if not args.json else ():
        _print(doc, doc["files"], REGISTRY[doc["table"]].grid)
    if args.json:
        out.emit_json(docs[0] if args.name != "all" else {"tables": docs})
    return 0


def _check_paper_tables(names: list) -> None:
    """Read the paper-tables file and every table the experiments compare with, before
    any work: a bad file is one line at once, not after minutes of runs."""
    from simulator.experiments.reproduce import REGISTRY, paper_columns, paper_tables

    compared = [REGISTRY[n] for n in names if paper_columns.keys(REGISTRY[n])]
    if compared:
        doc = paper_tables.load()
        for exp in compared:
            paper_columns.merged(exp, doc)


def _check_pages(pages: list, names: list) -> None:
    """Before any work: every ``--update`` page can be rewritten and marks a part of this
    run's tables."""
    from simulator.experiments import doc_tables

    made = {p for n in names for p in doc_tables.PARTS.get(n, ())}
    for page in pages:
        if not made & set(doc_tables.marked(sections.read(page, "--update"))):
            raise InputError(f"--update '{page}' marks no part that this run makes "
                             f"(add <!-- reproduce:PART:begin --> … <!-- reproduce:PART:end "
                             f"--> for one of: {', '.join(sorted(made)) or 'none'})")


def _update_pages(pages: list, docs: list) -> None:
    """Rewrite each page's parts from the tables of this run (the others stay)."""
    from simulator.experiments import doc_tables

    made = {k: v for doc in docs for k, v in doc_tables.parts(doc).items()}
    for page in pages:
        out.write_atomic(page, doc_tables.replace(sections.read(page, "--update"), made),
                         "--update")


def _report_tables(folder: str) -> list:
    """The tables a report just wrote (``DIR/tables/NAME.json``)."""
    import json

    where = os.path.join(folder, "tables")
    docs = []
    for name in sorted(os.listdir(where)):
        if name.endswith(".json"):
            with open(os.path.join(where, name), encoding="utf-8") as fh:
                docs.append(json.load(fh))
    return docs


def _report(args, seeds: list) -> int:
    from simulator.experiments import report
    from simulator.experiments.reproduce import REGISTRY

    if args.name != "all":
        raise InputError(f"--report needs NAME 'all' (a report is of every experiment), "
                         f"got '{args.name}'")
    out.check_given(args.report, "--report")
    report.check_target(args.report)  # before any work
    _check_pages(args.update, [n for n in REGISTRY if REGISTRY[n].available()])
    _check_paper_tables(list(REGISTRY))
    progress = None if args.json else report.progress_to_stderr
    parent = os.path.dirname(os.path.abspath(args.report))
    partial_files.clean(parent)  # a killed report's staging folder, among others
    try:  # the report is staged and renamed into place: a failure leaves nothing
        with partial_files.building_in(parent):  # this one's staging folder is not stale
            manifest = report.build(args.report, quick=args.quick, seeds=seeds,
                                    progress=progress)
    except OSError as exc:
        raise InputError(f"cannot write --report '{args.report}': "
                         f"{exc.strerror or exc}") from None
    _update_pages(args.update, _report_tables(args.report))
    if args.json:
        out.emit_json(manifest)
    else:
        made = sum("png" in f for f in manifest["figures"])
        out.print_line(f"wrote {args.report}/index.md, {made} figures, "
                       f"{len(manifest['tables'])} tables, {len(manifest['claims'])} claims")
    return 0


def add_arguments(p) -> None:
    """The arguments of ``semcache reproduce`` on its parser ``p`` (its one-line help is
    in :data:`simulator.cli.commands.COMMANDS`)."""
    from simulator.experiments.reproduce import NAMES

    p.description = ("Reproduce a table or figure of the SOLAR paper: table, PNG plot and raw "
                     "Parquet results.")
    p.add_argument("name", metavar="NAME", help="one of: " + ", ".join(NAMES))
    p.add_argument("--quick", action="store_true", help="small grid, for CI")
    p.add_argument("--seeds", default="0,1,2", help="comma-separated seeds (default 0,1,2)")
    p.add_argument("--out", default="reproduce-out", metavar="DIR",
                   help="folder for NAME.png, NAME.parquet, NAME.json")
    p.add_argument("--report", metavar="DIR",
                   help="with 'all': run every table and claim check and write DIR/index.md, "
                        "the figures and report.json (DIR new, empty or a previous report)")
    p.add_argument("--update", action="append", default=[], metavar="FILE",
                   help="rewrite the parts of FILE marked <!-- reproduce:PART:begin --> "
                        "from this run's tables (repeatable; docs/reproduction.md, "
                        "docs/locomo.md, docs/agent-memories.md)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_reproduce)
