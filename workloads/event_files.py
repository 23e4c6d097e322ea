"""Agent-memory event files read row by row: JSON Lines, CSV and Parquet.

The file's name says its kind: ``.jsonl`` (one JSON object a line; blank lines skipped),
``.csv`` (a header of field names, then one event a row, comma-separated, UTF-8; a vector
or evidence is a JSON list in one cell, an empty cell is an absent field) or ``.parquet``
(one column per field).  :func:`rows` yields ``(where, row)``: ``row`` a dict of field →
value as JSON would hold it (:mod:`workloads.event_fields` checks the values), ``where``
the file and the line (JSONL, CSV: a text editor's line number) or the row (Parquet,
counted from 1) for errors.  Only a regular file is read
(:func:`simulator.input_files.open_input`).

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

from simulator import memory_estimate
from simulator.errors import InputError
from simulator.input_files import open_input
from workloads.event_fields import FIELDS, from_cell, unknown_field
from workloads.json_text import parse_json, shown

MAX_LINE = 16 * 2**20  # bytes of one JSONL line: a 100,000-number vector fits
_BATCH = 1024  # Parquet rows decoded at a time
KINDS = {".jsonl": "jsonl", ".csv": "csv", ".parquet": "parquet"}


def suffix_kind(path: str) -> str | None:
    """``jsonl``, ``csv`` or ``parquet`` as the file's name ends (any case), else None."""
    ext = os.path.splitext(os.fspath(path))[1].lower()
    return KINDS.get(ext)


def rows(path: str):
    """``(where, row)`` for every event of the file at ``path``, in order (module
    docstring); InputError for a name of another kind or an unreadable file."""
    kind = suffix_kind(path)
    if kind is None:
        raise InputError(f"events file '{path}': its name does not say JSON Lines, CSV or "
                         "Parquet; name it .jsonl, .csv or .parquet", "trace")
    return {"jsonl": _jsonl, "csv": _csv, "parquet": _parquet}[kind](path)


def _open(path: str):
    return open_input(path, "events file", "trace")


def _lines(f, path: str):
    """``(where, line)`` for each line of the binary file ``f``, at most :data:`MAX_LINE`
    bytes read for one, an editor's byte-order mark dropped."""
    n = 0
    while line := f.readline(MAX_LINE + 1):
        n += 1
        where = f"events file '{path}' line {n}"
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            raise InputError(f"{where} is longer than {MAX_LINE >> 20} MiB; write one event "
                             "a line")
        yield where, line[len(codecs.BOM_UTF8):] if n == 1 and line.startswith(
            codecs.BOM_UTF8) else line


def _jsonl(path: str):
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


def _columns(names: list, where: str) -> list:
    """The header's field names, each a known field, each once."""
    seen = set()
    for name in names:
        if name not in FIELDS:
            raise unknown_field(name, where)
        if name in seen:
            raise InputError(f"{where}: field '{name}' is given twice; give each column once")
        seen.add(name)
    return names


def _csv(path: str):
    with _open(path) as f:
        reader = csv.reader(_decoded(f, path), strict=True)
        try:
            header = next(reader, None)
            if not header or header == [""]:
                raise InputError(f"events file '{path}' has no header; its first line names "
                                 "the fields (query,item,...)")
            names = _columns(header, f"events file '{path}' line 1 (the header)")
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


def _parquet(path: str):
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
        _columns(names, where)
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
