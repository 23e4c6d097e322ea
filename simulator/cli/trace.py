"""``semcache trace``: convert external traces to trace files (docs/model.md §6).

``semcache trace import FILE --out F.npz [--trace-format F] [--trace-param K=V]...
[--ignore-sizes] [--json]`` converts one of libCacheSim's request traces
(:mod:`simulator.trace_formats`); ``--json`` prints ``{"written", "source", "format",
"steps", "objects", "sized"}``.  It converts agent-memory events too (JSONL, Parquet, or
CSV with ``--trace-format events``: :mod:`workloads.data.events`); then ``--json`` prints
``{"written", "source", "format": "events", "steps", "dim", "items", "sized", "report"}``
and the line says how many steps are labelled and how many are unscored for want of a
label, the topic ids by label and the fields of the file's own kept or ignored
(``--extra-fields``).  ``semcache trace import-solar DIR --out F.npz [--json]``
converts one folder of the SOLAR authors' published synthetic traces (see
:mod:`workloads.solar_published`); ``--json`` prints ``{"written", "source", "steps",
"dim", "items", "re_arrivals", "relevance", "authors_meta"}``.  Files are written
atomically.
"""

from __future__ import annotations

import json

from simulator.cli import args as cli_args
from simulator.cli import output as out


def _events_line(doc: dict) -> str:
    """What an events import wrote, and what of it counts (docs/model.md §6.2)."""
    rep = doc["report"]
    how = f"{rep['kind']}, {rep['model']}" if rep["kind"] == "text" else rep["kind"]
    line = (f"wrote {doc['written']}: {doc['steps']} steps ({how}, d = {doc['dim']}) over "
            f"{doc['items']} items; labelled by topic {rep['labelled']['topic']}, by "
            f"evidence {rep['labelled']['evidence']}; {rep['scored']} scored")
    unscored = rep["unlabelled"] - rep["unlabelled_scored"]
    if unscored:
        line += (f"; {unscored} unlabelled (no topic, no evidence) and so unscored, not "
                 "counted as misses")
    if rep["unlabelled_scored"]:
        line += (f"; {rep['unlabelled_scored']} unlabelled but marked scored (a miss under "
                 "--quality hit or precision)")
    labels = rep.get("topic_labels")
    if labels:
        pairs = [f"{_quoted(label)} = {i}" for i, label in enumerate(labels[:_SHOWN])]
        more = f", ... ({len(labels)} labels in all)" if len(labels) > _SHOWN else ""
        line += f"; topic ids by label: {', '.join(pairs)}{more}"
    extra = rep.get("extra_fields")
    if extra:
        mode = next(m for m in extra if m != "rows")
        names = ", ".join(map(_quoted, extra[mode][:_SHOWN]))
        more = ", ..." if len(extra[mode]) > _SHOWN else ""
        done = "kept in the trace's meta" if mode == "keep" else "ignored"
        line += (f"; {len(extra[mode])} unknown fields ({names}{more}) on {extra['rows']} "
                 f"rows {done}")
    return line


_SHOWN = 5  # labels and field names the line shows


def _quoted(text: str) -> str:
    """A label or name as one short JSON string (control characters escaped)."""
    return json.dumps(text if len(text) <= 40 else text[:37] + "...", ensure_ascii=False)


def _answer(args, doc: dict, line: str) -> int:
    if args.json:
        out.emit_json(doc)
    else:
        out.print_line(line)
    return 0


def cmd_import(args) -> int:
    from simulator.cli.sources import read_trace

    out.check_writable(args.out)
    trace = read_trace(args.file, **cli_args.trace_options(args))
    out.save_trace(trace, args.out)
    if trace.meta.get("format") == "events":
        doc = {"written": args.out, "source": args.file, "format": "events",
               "steps": trace.steps, "dim": trace.dim, "items": trace.n_keys,
               "sized": trace.sized, "report": trace.meta["report"]}
        return _answer(args, doc, _events_line(doc))
    doc = {"written": args.out, "source": args.file,
           "format": trace.meta.get("format", "npz"), "steps": trace.steps,
           "objects": trace.n_keys, "sized": trace.sized}
    return _answer(args, doc, f"wrote {args.out}: {doc['steps']} requests over "
                   f"{doc['objects']} objects ({doc['format']}, "
                   f"{'sized' if doc['sized'] else 'unit sizes'})")


def cmd_import_solar(args) -> int:
    from workloads.solar_published import import_variant

    out.check_writable(args.out)
    trace = import_variant(args.dir)
    out.save_trace(trace, args.out)
    doc = {"written": args.out, "source": args.dir, "steps": trace.steps, "dim": trace.dim,
           "items": trace.n_keys, "re_arrivals": trace.steps - trace.n_keys,
           "relevance": trace.meta["relevance"], "authors_meta": trace.meta["authors_meta"]}
    return _answer(args, doc, f"wrote {args.out}: {doc['steps']} steps, d = {doc['dim']}, "
                   f"{doc['items']} items ({doc['re_arrivals']} re-arrivals), relevance by "
                   f"{doc['relevance']}")


def add_arguments(p) -> None:
    """The arguments of ``semcache trace`` on its parser ``p`` (its one-line help is
    in :data:`simulator.cli.commands.COMMANDS`)."""
    tsub = p.add_subparsers(dest="trace_command", metavar="{import,import-solar}",
                            required=True)
    imp = tsub.add_parser("import", help="convert one of libCacheSim's request traces or "
                          "agent-memory events", description="Convert a libCacheSim request "
                          "trace (oracleGeneral, CSV or text, optionally .zst) or agent-memory "
                          "events (.jsonl, .parquet, or CSV with --trace-format events) to a "
                          "trace .npz file (docs/model.md §6).")
    imp.add_argument("file", metavar="FILE", help="the trace file to read")
    cli_args.add_trace_format(imp)
    imp.add_argument("--out", metavar="FILE", required=True, help="the .npz file to write")
    imp.add_argument("--json", action="store_true", help="print one JSON object")
    imp.set_defaults(func=cmd_import)
    sol = tsub.add_parser("import-solar", help="convert one of the SOLAR authors' published "
                          "synthetic traces", description="Convert one variant folder of the "
                          "SOLAR authors' synthetic traces (meta.json, embeddings.npz, "
                          "items.jsonl, queries.jsonl, stream.jsonl) to a trace .npz file "
                          "(docs/model.md §6).")
    sol.add_argument("dir", metavar="DIR", help="a variant folder, e.g. cycling/m20/seed42")
    sol.add_argument("--out", metavar="FILE", required=True, help="the .npz file to write")
    sol.add_argument("--json", action="store_true", help="print one JSON object")
    sol.set_defaults(func=cmd_import_solar)
