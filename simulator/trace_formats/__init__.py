"""Trace files in, trace files out: semcache's ``.npz`` and libCacheSim's request traces.

One module per format, each with ``EXTENSIONS``, ``PARAMS`` (its options and defaults) and
a reader: :mod:`~simulator.trace_formats.npz` (semcache's own, semantic or paging),
:mod:`~simulator.trace_formats.oracle_general` (libCacheSim's binary ``oracleGeneral``),
:mod:`~simulator.trace_formats.csv_requests` and
:mod:`~simulator.trace_formats.text_requests`.  Each of the last three may be
``.zst``-compressed (Zstandard), and yields the requests in chunks of object ids and sizes
(:func:`request_chunks`).  As libCacheSim's readers do by default, a request of size 0 is
skipped; ``ignore_sizes`` then gives every request size 1 (libCacheSim's
``--ignore-obj-size``).  The format comes from the file name (a trailing ``.zst`` aside) or
from ``format``.

>>> detect_format("traces/w01.oracleGeneral.bin.zst"), detect_format("t.csv")
('oracleGeneral', 'csv')
"""

from __future__ import annotations

import os

import numpy as np

from simulator.errors import InputError
from simulator.params import resolve
from simulator.engine.size_limits import total_size
from simulator.trace import PagingTrace
from simulator.trace_formats import csv_requests, npz, oracle_general, text_requests
from simulator.trace_formats.streams import open_bytes

REQUEST_FORMATS = {"oracleGeneral": oracle_general, "csv": csv_requests,
                   "txt": text_requests}
FORMATS = ("npz", *REQUEST_FORMATS)


def detect_format(path: str) -> str:
    """The format a file's name says (``.zst`` aside), or InputError."""
    name = path[:-4] if path.endswith(".zst") else path
    if name.endswith(".npz"):
        return "npz"
    for fmt, module in REQUEST_FORMATS.items():
        if name.endswith(module.EXTENSIONS):
            return fmt
    raise InputError(f"trace file '{path}': its name does not say its format (.npz, "
                     ".oracleGeneral[.bin], .csv, .txt, each optionally .zst); give one with "
                     f"format= (--trace-format): {', '.join(FORMATS)} (agent-memory events: "
                     ".jsonl, .parquet or --trace-format events, workloads.data.events)",
                     "trace_format")


def _params(fmt: str, given: dict | None) -> dict:
    module = REQUEST_FORMATS[fmt]
    params = resolve("trace format", fmt, module.PARAMS, given)
    problem = getattr(module, "check", lambda p: None)(params)
    if problem:
        raise InputError(f"trace format '{fmt}': {problem}", "trace_params")
    return params


def request_chunks(path, trace_format: str | None = None, trace_params: dict | None = None,
                   ignore_sizes: bool = False, chunk_requests: int = 1 << 20):
    """The requests of a libCacheSim trace file as ``(ids uint64, sizes int64)`` chunks of
    at most ``chunk_requests``, zero-size requests skipped; the file is read as it goes."""
    path = os.fspath(path)
    fmt = detect_format(path) if trace_format is None else trace_format
    if fmt not in REQUEST_FORMATS:
        raise InputError(f"trace_format must be one of {', '.join(REQUEST_FORMATS)} for a "
                         f"request trace, got {fmt!r}", "trace_format")
    params = _params(fmt, trace_params)
    total = 0  # the sizes so far, bounded as a trace's are (simulator.engine.size_limits)
    with open_bytes(path) as stream:
        for ids, sizes in REQUEST_FORMATS[fmt].chunks(stream, path, params, chunk_requests):
            kept = sizes > 0
            if (sizes < 0).any():
                raise InputError(f"trace file '{path}': a request has a negative size "
                                 f"({int(sizes[sizes < 0][0])}); sizes are >= 0 (0: skipped)")
            if not kept.all():
                ids, sizes = ids[kept], sizes[kept]
            sizes = np.ones_like(sizes) if ignore_sizes else sizes
            total = total_size(sizes, f"trace file '{path}'", total)
            yield ids, sizes


def load(path, trace_format: str | None = None, trace_params: dict | None = None,
         ignore_sizes: bool = False):
    """Load and validate a trace file: a :class:`~simulator.trace.Trace` or
    :class:`~simulator.trace.PagingTrace` from ``.npz``, a ``PagingTrace`` from libCacheSim's
    formats (read whole; see :func:`request_chunks` for a stream).

    Raises :class:`~simulator.errors.InputError` naming the file and the array, record or
    column on any problem, including a missing, truncated or corrupted file.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise InputError(f"trace file '{path}' does not exist; give the path of a trace file")
    fmt = detect_format(path) if trace_format is None else trace_format
    if fmt not in FORMATS:
        raise InputError(f"trace_format must be one of {', '.join(FORMATS)}, or events "
                         f"(agent-memory events, workloads.data.events), got {fmt!r}",
                         "trace_format")
    if fmt == "npz":
        if trace_params or ignore_sizes:
            raise InputError("trace_params and ignore_sizes are for libCacheSim's formats; an "
                             ".npz trace takes neither", "trace_params")
        return npz.read(path)
    parts = list(request_chunks(path, fmt, trace_params, ignore_sizes))
    if not parts:
        raise InputError(f"trace file '{path}' holds no request", "trace")
    ids = np.concatenate([p[0] for p in parts])
    sizes = np.concatenate([p[1] for p in parts])
    return PagingTrace.from_requests(ids, sizes, meta={"source": path, "format": fmt})


def save(trace, path) -> None:
    """Write a trace as semcache's ``.npz`` (docs/model.md §6), atomically."""
    npz.write(trace, os.fspath(path))
