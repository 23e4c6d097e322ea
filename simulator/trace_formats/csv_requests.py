"""CSV request traces, read as libCacheSim's CSV reader reads them.

Parameters (libCacheSim's names): ``obj-id-col`` (1-based column of the object id;
required), ``obj-size-col`` (the size column; none: every size is 1), ``time-col``
(accepted, not used), ``header`` (``true``, ``false`` or ``auto``), ``delimiter`` (one
character, or ``auto``) and ``obj-id-is-num`` (``true``: ids are non-negative integers,
decimal or ``0x`` hex; ``false``: any text, one id per distinct text).  ``auto`` detects as
libCacheSim does: the delimiter is the most frequent of tab, comma, ``|`` and ``:`` in
the first line (weighted 4, 3, 2, 1), and the first line is a header unless it holds
more digits than letters.  Ids are read in decimal or ``0x`` hex (libCacheSim reads a
leading ``0`` as octal).  Unlike libCacheSim, which warns and reads 0, a row without the
named column or with an id or size that is not an integer is an error naming the line.

>>> import io
>>> rows = io.BytesIO(b"size,id\\n512,42\\n1024,43\\n")
>>> [(i.tolist(), s.tolist()) for i, s in chunks(rows, "t.csv", {
...     "obj-id-col": 2, "obj-size-col": 1, "time-col": None, "header": "auto",
...     "delimiter": "auto", "obj-id-is-num": True})]
[([42, 43], [512, 1024])]
"""

from __future__ import annotations

import csv
import io

import numpy as np

from simulator.errors import InputError

PARAMS = {"obj-id-col": None, "obj-size-col": None, "time-col": None, "header": "auto",
          "delimiter": "auto", "obj-id-is-num": True}
EXTENSIONS = (".csv",)
_DELIMITERS = "\t,|:"


def check(params: dict) -> str | None:
    """A problem sentence for bad parameters, or None."""
    if params["obj-id-col"] is None:
        return "needs obj-id-col, the 1-based column of the object id (--trace-param obj-id-col=N)"
    for name in ("obj-id-col", "obj-size-col", "time-col"):
        value = params[name]
        if value is not None and (value != int(value) or value < 1):
            return f"{name} must be a column number >= 1, got {value}"
    if params["header"] not in ("auto", "true", "false"):
        return f"header must be true, false or auto, got {params['header']!r}"
    if params["delimiter"] != "auto" and len(params["delimiter"]) != 1:
        return f"delimiter must be one character or auto, got {params['delimiter']!r}"
    return None


def _detect(first: str, params: dict) -> tuple:
    """(delimiter, has_header), by libCacheSim's rules where the parameters say auto."""
    delimiter = params["delimiter"]
    if delimiter == "auto":
        counts = [first.count(c) * (4 - i) for i, c in enumerate(_DELIMITERS)]
        delimiter = _DELIMITERS[counts.index(max(counts))] if max(counts) else ","
    header = params["header"]
    if header == "auto":
        digits = sum(c.isdigit() for c in first)
        letters = sum(c.isalpha() for c in first)
        header = "false" if digits > letters else "true"
    return delimiter, header == "true"


def _number(text: str) -> int:
    text = text.strip()
    return int(text, 16) if text[:2].lower() == "0x" else int(text, 10)


def chunks(stream, path: str, params: dict, chunk_requests: int = 1 << 20):
    """``(ids uint64, sizes int64)`` for successive runs of at most ``chunk_requests`` rows."""
    text = io.TextIOWrapper(stream, encoding="utf-8", errors="replace", newline="")
    first = text.readline()
    delimiter, has_header = _detect(first, params)
    id_col, size_col = int(params["obj-id-col"]) - 1, params["obj-size-col"]
    size_col = None if size_col is None else int(size_col) - 1
    numeric, names = bool(params["obj-id-is-num"]), {}
    lines = ([] if has_header else [first])
    line_no = 1 if has_header else 0
    ids, sizes = [], []
    rows = csv.reader(_chain(lines, text), delimiter=delimiter)
    for row in rows:
        line_no += 1
        if not row:
            continue
        need = max(id_col, size_col if size_col is not None else 0)
        if len(row) <= need:
            raise InputError(f"trace file '{path}', line {line_no}: no column {need + 1} "
                             f"(the row has {len(row)}); check obj-id-col, obj-size-col "
                             "and delimiter")
        field = row[id_col]
        if numeric:
            try:
                ids.append(_number(field))
            except ValueError:
                raise InputError(f"trace file '{path}', line {line_no}, column {id_col + 1}: "
                                 f"object id {field!r} is not an integer; set "
                                 "obj-id-is-num=false for text ids") from None
        else:
            ids.append(names.setdefault(field, len(names)))
        if size_col is not None:
            try:
                sizes.append(_number(row[size_col]))
            except ValueError:
                raise InputError(f"trace file '{path}', line {line_no}, column "
                                 f"{size_col + 1}: size {row[size_col]!r} is not an "
                                 "integer") from None
        if len(ids) == chunk_requests:
            yield _arrays(ids, sizes, path)
            ids, sizes = [], []
    if ids:
        yield _arrays(ids, sizes, path)


def _chain(first_lines, rest):
    yield from first_lines
    yield from rest


def _arrays(ids: list, sizes: list, path: str) -> tuple:
    try:
        id_array = np.array(ids, np.uint64)
    except OverflowError:
        raise InputError(f"trace file '{path}': an object id is negative or beyond 64 "
                         "bits") from None
    size_array = np.array(sizes, np.int64) if sizes else np.ones(len(ids), np.int64)
    return id_array, size_array
