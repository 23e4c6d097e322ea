"""``semcache trace``: convert external traces to trace files (docs/model.md §6).

``semcache trace import FILE --out F.npz [--trace-format F] [--trace-param K=V]...
[--ignore-sizes] [--json]`` converts one of libCacheSim's request traces
(:mod:`simulator.trace_formats`); ``--json`` prints ``{"written", "source", "format",
"steps", "objects", "sized"}``.  ``semcache trace import-solar DIR --out F.npz [--json]``
converts one folder of the SOLAR authors' published synthetic traces (see
:mod:`workloads.solar_published`); ``--json`` prints ``{"written", "source", "steps",
"dim", "items", "re_arrivals", "relevance", "authors_meta"}``.  Files are written
atomically.
"""

from __future__ import annotations

from simulator.cli import args as cli_args
from simulator.cli import output as out


def cmd_import(args) -> int:
    from simulator.trace_formats import load

    out.check_writable(args.out)
    trace = load(args.file, **cli_args.trace_options(args))
    out.save_trace(trace, args.out)
    doc = {"written": args.out, "source": args.file,
           "format": trace.meta.get("format", "npz"), "steps": trace.steps,
           "objects": trace.n_keys, "sized": trace.sized}
    if args.json:
        out.emit_json(doc)
    else:
        out.print_line(f"wrote {args.out}: {doc['steps']} requests over {doc['objects']} "
                       f"objects ({doc['format']}, {'sized' if doc['sized'] else 'unit sizes'})")
    return 0


def cmd_import_solar(args) -> int:
    from workloads.solar_published import import_variant

    out.check_writable(args.out)
    trace = import_variant(args.dir)
    out.save_trace(trace, args.out)
    doc = {"written": args.out, "source": args.dir, "steps": trace.steps, "dim": trace.dim,
           "items": trace.n_keys, "re_arrivals": trace.steps - trace.n_keys,
           "relevance": trace.meta["relevance"], "authors_meta": trace.meta["authors_meta"]}
    if args.json:
        out.emit_json(doc)
    else:
        out.print_line(f"wrote {args.out}: {doc['steps']} steps, d = {doc['dim']}, "
                       f"{doc['items']} items ({doc['re_arrivals']} re-arrivals), relevance by "
                       f"{doc['relevance']}")
    return 0


def add_parser(sub) -> None:
    """Register ``semcache trace`` on the subcommand set ``sub``."""
    p = sub.add_parser("trace", help="convert external traces to trace files")
    tsub = p.add_subparsers(dest="trace_command", metavar="{import,import-solar}",
                            required=True)
    imp = tsub.add_parser("import", help="convert one of libCacheSim's request traces",
                          description="Convert a libCacheSim request trace (oracleGeneral, "
                          "CSV or text, optionally .zst) to a trace .npz file "
                          "(docs/model.md §6).")
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
