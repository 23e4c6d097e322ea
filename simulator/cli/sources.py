"""The trace a command reads (a registered workload or a trace file) and its JSON record.

``semcache run``, ``opt`` and ``workload make``/``show`` describe their trace the same way:
``{"name", "params", "seed"}`` for a workload or ``{"trace": FILE}`` for a file, then
``mode``, ``steps`` and ``dim``/``items`` (semantic) or ``objects`` (paging), and a
workload's own ``report`` where it has one.  A trace file is read by :func:`read_trace`:
agent-memory events (``.jsonl``, ``.parquet``, or ``--trace-format events``) by
:mod:`workloads.data.events`, every other format by :mod:`simulator.trace_formats`.
"""

from __future__ import annotations

from simulator.cli.args import pairs, trace_options
from simulator.errors import InputError
from simulator.trace import PagingTrace
from simulator.trace_formats import load


def mode_of(trace) -> str:
    return "paging" if isinstance(trace, PagingTrace) else "semantic"


def describe(trace, source: dict) -> dict:
    """``source`` completed with the trace's mode and size (the ``workload`` record)."""
    source.update(mode=mode_of(trace), steps=trace.steps)
    if isinstance(trace, PagingTrace):
        source.update(objects=trace.n_keys)
    else:
        source.update(dim=trace.dim, items=trace.n_keys)
    report = getattr(trace, "meta", {}).get("report")
    if report:  # a workload's own facts about its trace (locomo: data quirks, embeddings)
        source["report"] = report
    return source


def read_trace(path: str, trace_format: str | None = None, trace_params: dict | None = None,
               ignore_sizes: bool = False):
    """The trace in the file at ``path``: agent-memory events (docs/model.md §6.2) or one
    of :mod:`simulator.trace_formats` (§6), as the name or ``trace_format`` says."""
    from workloads.data import event_files
    from workloads.data import events  # here: `semcache --help` stays light

    if events.recognised(path, trace_format):
        return events.load(path, trace_params, ignore_sizes)
    event_files.refuse_misnamed(path, trace_format)
    if "extra_fields" in (trace_params or {}):
        raise InputError(f"--extra-fields is for agent-memory events (.jsonl, .parquet or "
                         f"--trace-format events); '{path}' is read as another format, so "
                         "drop it")
    return load(path, trace_format, trace_params, ignore_sizes)


def generate(name: str, given: dict, seed: int):
    """Build a registered workload's trace and its record."""
    import workloads  # imported here so `semcache --help` stays light

    workload = workloads.get(name)
    params = workload.resolve_params(given)
    trace = workload.build(params, seed)
    return trace, describe(trace, {"name": workload.name, "params": params, "seed": seed})


def source(args):
    """The trace of ``--workload``/``--param`` or ``--trace``, and its record."""
    reading = trace_options(args)
    if args.trace is None:
        if (reading["trace_format"] is not None or reading["trace_params"]
                or reading["ignore_sizes"]):
            raise InputError("--trace-format, --trace-param, --ignore-sizes and --extra-fields "
                             "say how to read --trace; they cannot be used with --workload")
        return generate(args.workload, pairs("--param", args.param), args.seed)
    if args.param:
        raise InputError("--param sets workload parameters; it cannot be used with --trace")
    trace = read_trace(args.trace, **reading)
    record = {"trace": args.trace}
    if "format" in trace.meta:  # read from one of libCacheSim's formats
        record.update(format=trace.meta["format"], sized=trace.sized)
    return trace, describe(trace, record)
