"""Agent-memory event files read row by row: JSON Lines, CSV and Parquet.

The file's name says its kind: ``.jsonl`` (one JSON object a line, each key once; blank
lines skipped), ``.csv`` (a header of field names, blanks around them dropped, then one
event a row, comma-separated, UTF-8; a vector or evidence is a JSON list in one cell, an
empty cell is an absent field) or ``.parquet`` (one column per field).  A UTF-8
byte-order mark at the start is dropped, a NUL byte refused.  :func:`rows` yields
``(where, row)``: ``row`` a dict of field → value as JSON would hold it
(:mod:`workloads.data.event_fields` checks the values), ``where`` the file and the line (JSONL,
CSV: a text editor's line number) or the row (Parquet, counted from 1) for errors.  Only a
regular file is read (:func:`simulator.files.input_files.open_input`).
:func:`refuse_misnamed` tells events apart from the request traces a ``.csv`` or ``.txt``
name means.

What a hostile file cannot do: a JSONL line is at most :data:`MAX_LINE` bytes (read no
further), a CSV cell at most Python's ``csv.field_size_limit()`` (131,072 characters; a
vector of thousands of numbers belongs in JSONL or Parquet), and a Parquet file is read a
batch of rows at a time, refused first when its uncompressed size (from its own footer)
exceeds the memory available.

>>> suffix_kind("memory.jsonl"), suffix_kind("EVENTS.CSV")
('jsonl', 'csv')
"""

from __future__ import annotations

import codecs
import csv
import os
import re

from simulator.engine import memory_estimate
from simulator.errors import InputError
from simulator.files.input_files import open_input
from workloads.data.event_fields import FIELDS, from_cell, unknown_field
from workloads.data.json_text import parse_json, shown

MAX_LINE = 16 * 2**20  # bytes of one JSONL line: a 100,000-number vector fits
_BATCH = 1024  # Parquet rows decoded at a time
KINDS = {".jsonl": "jsonl", ".csv": "csv", ".parquet": "parquet"}


def suffix_kind(path: str) -> str | None:
    """``jsonl``, ``csv`` or ``parquet`` as the file's name ends (any case), else None."""
    ext = os.path.splitext(os.fspath(path))[1].lower()
    return KINDS.get(ext)


def rows(path: str, unknown: bool = False):
    """``(where, row)`` for every event of the file at ``path``, in order (module
    docstring); InputError for a name of another kind or an unreadable file.  ``unknown``:
    a CSV or Parquet column that is no event field is read (to keep or ignore), not
    refused."""
    kind = suffix_kind(path)
    if kind is None:
        raise InputError(f"events file '{path}': its name does not say JSON Lines, CSV or "
                         "Parquet; name it .jsonl, .csv or .parquet", "trace")
    return {"jsonl": _jsonl, "csv": _csv, "parquet": _parquet}[kind](path, unknown)


def _open(path: str):
    return open_input(path, "events file", "trace")


def _lines(f, path: str):
    """``(where, line)`` for each line of the binary file ``f``, at most :data:`MAX_LINE`
    bytes read for one, an editor's byte-order mark dropped, a NUL byte refused."""
    n = 0
    while line := f.readline(MAX_LINE + 1):
        n += 1
        where = f"events file '{path}' line {n}"
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            raise InputError(f"{where} is longer than {MAX_LINE >> 20} MiB; write one event "
                             "a line")
        if b"\0" in line:  # no text has one; UTF-16 has one in every other byte
            raise InputError(f"{where} holds a NUL byte (byte {line.index(0)}), which is no "
                             "text; save the file as UTF-8 text")
        yield where, line[len(codecs.BOM_UTF8):] if n == 1 and line.startswith(
            codecs.BOM_UTF8) else line


def _jsonl(path: str, unknown: bool):
    with _open(path) as f:
        for where, line in _lines(f, path):
            if not line.strip():
                continue
            row = parse_json(line, where)
            if not isinstance(row, dict):
                raise InputError(f"{where} must be one JSON object (an event), got "
                                 f"{shown(row)}")
            yield where, row


def _decoded(f, path: str):
    for where, line in _lines(f, path):
        try:
            yield line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{where} is not UTF-8 text (byte {exc.start}); save it as "
                             "UTF-8") from None


def _columns(names: list, where: str, unknown: bool) -> list:
    """The header's field names, each once, each a known field unless ``unknown``."""
    seen = set()
    for name in names:
        if name not in FIELDS and not unknown:
            raise unknown_field(name, where)
        if name in seen:
            raise InputError(f"{where}: field '{name}' is given twice; give each column once")
        seen.add(name)
    return names


def _csv(path: str, unknown: bool):
    with _open(path) as f:
        reader = csv.reader(_decoded(f, path), strict=True)
        try:
            header = next(reader, None)
            if not header or header == [""]:
                raise InputError(f"events file '{path}' has no header; its first line names "
                                 "the fields (query,item,...)")
            names = _columns([name.strip(" \t") for name in header],  # "a, b" as "a,b"
                             f"events file '{path}' line 1 (the header)", unknown)
            for cells in reader:
                where = f"events file '{path}' line {reader.line_num}"
                if not cells:
                    continue
                if len(cells) != len(names):
                    raise InputError(f"{where} has {len(cells)} cells, the header "
                                     f"{len(names)}; give one cell per column (empty: none)")
                yield where, {name: from_cell(name, cell, where)
                              for name, cell in zip(names, cells)}
        except csv.Error as exc:
            raise InputError(f"events file '{path}' line {max(reader.line_num, 1)} cannot be "
                             f"read as CSV ({exc}); quote cells holding commas, quotes or "
                             "newlines, and keep a cell under 131,072 characters") from None


def _parquet(path: str, unknown: bool):
    import pyarrow as pa
    import pyarrow.parquet as pq

    def unreadable(exc, where):
        why = (str(exc).strip().splitlines() or [exc.__class__.__name__])[0][:120]
        return InputError(f"{where} cannot be read as Parquet ({why}); write it with "
                          "pyarrow.parquet.write_table or pandas' to_parquet")

    with _open(path) as f:
        where = f"events file '{path}'"
        try:
            pf = pq.ParquetFile(f)
            names = pf.schema_arrow.names
            meta = pf.metadata
            size = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise unreadable(exc, where) from None
        _columns(names, where, unknown)
        # what its footer says it holds unpacked: a few compressed bytes can claim terabytes
        memory_estimate.require(max(size, 0), where, "memory to read", "trace")
        n = 0
        try:
            for batch in pf.iter_batches(batch_size=_BATCH):
                for row in batch.to_pylist():
                    n += 1
                    yield f"{where} row {n}", row
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise unreadable(exc, f"{where} row {n + 1}") from None


_SNIFF = 1 << 16  # bytes of a first line read to tell events from a request trace
_JSON_QUERY = re.compile(r'\s*\{\s*"(query|query_vector)"\s*:')


def refuse_misnamed(path: str, trace_format: str | None) -> None:
    """Refuse a trace file that its name makes a libCacheSim CSV or text trace (no
    ``trace_format`` given) but that holds events: a CSV header naming ``query`` or
    ``query_vector``, a JSON object a line, or Parquet.  One line says what to add or
    rename, instead of the request reader's complaint about the events' first column."""
    from simulator.trace_formats import detect_format

    try:
        fmt = None if trace_format is not None else detect_format(path)
    except InputError:  # the request reader says what names it reads
        return
    if fmt not in ("csv", "txt") or not os.path.isfile(path):
        return
    try:
        with open(path, "rb") as f:
            first = f.readline(_SNIFF)
    except OSError:  # unreadable: the request reader says so
        return
    first = first[len(codecs.BOM_UTF8):] if first.startswith(codecs.BOM_UTF8) else first
    text = first.decode("utf-8", errors="replace")
    if first.startswith(b"PAR1"):
        what, fix = "a Parquet file", "name it .parquet"
    elif _JSON_QUERY.match(text):
        what, fix = "a JSON object a line", "name it .jsonl"
    else:
        try:
            header = [cell.strip() for cell in next(csv.reader([text.strip("\r\n")]), [])]
        except csv.Error:  # no CSV header at all (a stray carriage return): not events
            return
        if not {"query", "query_vector"} & set(header):
            return
        what = f"a CSV header naming {', '.join(n for n in header if n in FIELDS)[:80]}"
        fix = ("add --trace-format events" if fmt == "csv" else
               "name it .csv and add --trace-format events")
    raise InputError(f"trace file '{path}' looks like agent-memory events ({what}), not "
                     f"libCacheSim's {fmt}; {fix} (docs/model.md §6.2), or give "
                     f"--trace-format {fmt} to read it as requests")
