"""``semcache workload list|make|show``: the registered workloads, their traces and statistics.

``list`` prints every workload with its parameters and defaults; ``make NAME --out F.npz``
writes one trace file (docs/model.md §6) atomically, and a paging workload's ``--out
F.oracleGeneral[.zst]`` writes libCacheSim's format (object ids + 1, since libCacheSim
reserves 0), in chunks when the workload streams; ``show NAME`` prints the parameters
and measured statistics of the generated trace.  Each takes ``--json``.
"""

from __future__ import annotations

import os
import shutil

import numpy as np

from simulator.engine import memory_estimate
from simulator.cli import output as out
from simulator.cli.args import check_seed, pairs
from simulator.cli.sources import generate
from simulator.errors import InputError


def cmd_list(args) -> int:
    import workloads

    rows = [{"name": w.name, "summary": w.summary, "params": dict(w.params)}
            for w in workloads.REGISTRY.values()]
    if args.json:
        out.emit_json({"workloads": rows})
    else:
        out.print_workloads(rows)
    return 0


def cmd_make(args) -> int:
    check_seed(args.seed)
    out.check_writable(args.out)
    if args.out.endswith(".npz"):
        trace, record = generate(args.name, pairs("--param", args.param), args.seed)
        out.save_trace(trace, args.out)
    else:
        record = _write_requests(args)
    if args.json:
        out.emit_json({"written": args.out, "workload": record})
    else:
        out.print_line(f"wrote {args.out}: {out.describe_source(record)}")
    return 0


def _write_requests(args) -> dict:
    """Write a paging workload as libCacheSim ``oracleGeneral`` (ids + 1: 0 is reserved),
    in chunks when the workload can stream; returns its record."""
    import workloads
    from simulator.trace import PagingTrace
    from simulator.trace_formats import oracle_general

    if not args.out.endswith(tuple(e + z for e in oracle_general.EXTENSIONS
                                   for z in ("", ".zst"))):
        raise InputError(f"--out must end in .npz or in .oracleGeneral (.bin, .zst), got "
                         f"{args.out!r}", "out")
    workload = workloads.get(args.name)
    params = workload.resolve_params(pairs("--param", args.param))
    record = {"name": workload.name, "params": params, "seed": args.seed,
              "mode": "paging", "format": "oracleGeneral"}
    if workload.stream is not None:
        workload.check_memory(params, chunk=1 << 20)  # the stream's default chunk
        _check_disk(args.out, params["steps"])
        _write(args.out, workload.stream(params, args.seed))
        return dict(record, steps=params["steps"])
    trace = workload.build(params, args.seed)
    if not isinstance(trace, PagingTrace):
        raise InputError(f"--out {args.out}: an oracleGeneral file holds paging requests; "
                         f"workload '{workload.name}' is semantic (write it as .npz)", "out")
    ids = trace.object_ids.astype(np.uint64)[trace.requests] + np.uint64(1)
    _check_disk(args.out, trace.steps)
    _write(args.out, [(ids, trace.request_sizes if trace.sized else None)])
    return dict(record, steps=trace.steps, objects=trace.n_keys)


def _write(path: str, chunks) -> None:
    """Write the requests; a failed write (a full disk) is one line, the file unchanged."""
    from simulator.trace_formats import oracle_general

    try:
        oracle_general.write(path, chunks)
    except OSError as exc:
        raise InputError(f"cannot write --out '{path}': {exc.strerror or exc}") from None


def disk_bound(path: str, steps: int) -> int:
    """An upper bound on the bytes of ``steps`` requests written as ``path``: 24 a record,
    and compressed no more than Zstandard's own bound on its output (its input plus
    1/256, plus a frame's overhead), whatever the data.

    >>> disk_bound("z.oracleGeneral", 1000), disk_bound("z.oracleGeneral.zst", 1000)
    (24000, 89629)
    """
    raw = 24 * steps
    return raw + (raw >> 8) + (64 << 10) if path.endswith(".zst") else raw


def _check_disk(path: str, steps: int) -> None:
    """Refuse to start writing what may not fit: the upper bound :func:`disk_bound`, so
    a file refused here might have fitted, but one that starts always does."""
    folder = os.path.dirname(os.path.abspath(path))
    nbytes = disk_bound(path, steps)
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return  # check_writable has vetted the folder; without a figure, just try
    if nbytes > free:
        fix = "fewer steps" if path.endswith(".zst") else "fewer steps, or .zst to compress"
        raise InputError(f"--out {path}: the trace may need up to "
                         f"{memory_estimate.human(nbytes)} of disk; about "
                         f"{memory_estimate.human(free)} is free there ({fix})", "out")


def cmd_show(args) -> int:
    from workloads.data.topic_space import trace_statistics

    check_seed(args.seed)
    trace, record = generate(args.name, pairs("--param", args.param), args.seed)
    doc = {"workload": record, "statistics": trace_statistics(trace)}
    if args.json:
        out.emit_json(doc)
        return 0
    out.print_line(out.describe_source(record))
    out.print_line("parameters: " + ", ".join(f"{k}={v}" for k, v in record["params"].items()))
    for key, value in doc["statistics"].items():
        out.print_line(f"  {key:<36} {'—' if value is None else value}")
    for key, value in record.get("report", {}).items():
        out.print_line(f"{key}: {value}")
    return 0


def _workload_options(p) -> None:
    p.add_argument("name", metavar="NAME", help="a registered workload")
    p.add_argument("--param", metavar="KEY=VALUE", action="append", default=[],
                   help="workload parameter (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="workload seed")


def add_arguments(p) -> None:
    """The arguments of ``semcache workload`` on its parser ``p`` (its one-line help is
    in :data:`simulator.cli.commands.COMMANDS`)."""
    wsub = p.add_subparsers(dest="workload_command", metavar="{list,make,show}", required=True)
    lst = wsub.add_parser("list", help="the registered workloads and their parameters")
    lst.add_argument("--json", action="store_true", help="print one JSON object")
    lst.set_defaults(func=cmd_list)
    mk = wsub.add_parser("make", help="write a workload's trace to a file")
    mk.add_argument("--out", metavar="FILE", required=True,
                    help="the file to write: .npz, or (paging) .oracleGeneral[.zst]")
    _workload_options(mk)
    mk.add_argument("--json", action="store_true", help="print one JSON object")
    mk.set_defaults(func=cmd_make)
    sh = wsub.add_parser("show", help="a workload's parameters and measured trace statistics")
    _workload_options(sh)
    sh.add_argument("--json", action="store_true", help="print one JSON object")
    sh.set_defaults(func=cmd_show)
