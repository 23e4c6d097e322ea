"""CSV request traces, read as libCacheSim's CSV reader reads them.

Parameters (libCacheSim's names): ``obj-id-col`` (1-based column of the object id;
required), ``obj-size-col`` (the size column; none: every size is 1), ``time-col``
(accepted, not used), ``header`` (``true``, ``false`` or ``auto``), ``delimiter`` (one
character, or ``auto``) and ``obj-id-is-num`` (``true``: ids are non-negative integers,
decimal or ``0x`` hex; ``false``: any text, one id per distinct field, byte for byte,
valid UTF-8 or not).  ``auto`` detects as
libCacheSim does: the delimiter is the most frequent of tab, comma, ``|`` and ``:`` in
the first line (weighted 4, 3, 2, 1), and the first line is a header unless it holds
more digits than letters.  Ids are read in decimal or ``0x`` hex (libCacheSim reads a
leading ``0`` as octal).  Unlike libCacheSim, which warns and reads 0, a row without the
named column, a row the CSV reader cannot split (a NUL byte, an overlong field), an id that
is not an integer in 0 .. 2**64-1 or a size that is not one in 0 .. 2**53 is an error
naming the line and column.

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
import re

import numpy as np

from simulator.errors import InputError
from simulator.engine.size_limits import MAX_SIZE

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


_INTEGER = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|[0-9]+)")  # ASCII only: int() takes more
ID_LIMIT = 2**64 - 1  # uint64 ids
BLANKS = " \t\r\n\v\f"  # ASCII white space: what a text id loses at its ends


def integer(text: str) -> int:
    """A decimal or ``0x`` hex integer, optionally negative, surrounding blanks aside (no
    ``+``, ``_`` or non-ASCII digits, which :func:`int` would take); ValueError if not."""
    text = text.strip()
    if not _INTEGER.fullmatch(text):
        raise ValueError(text)
    body = text.lstrip("-")
    value = int(body, 16) if body[:2].lower() == "0x" else int(body, 10)
    return -value if text.startswith("-") else value


def shown(text: str) -> str:
    """A field as a short one-line quote."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


def parse_id(text: str, where: str) -> int:
    """An object id (0 .. 2**64-1) from ``text``; ``where`` names the file and line."""
    try:
        value = integer(text)
    except ValueError:
        raise InputError(f"{where}: object id {shown(text)} is not an integer; set "
                         "obj-id-is-num=false for text ids") from None
    if not 0 <= value <= ID_LIMIT:
        raise InputError(f"{where}: object id {shown(text)} is negative or beyond 64 bits; "
                         "ids are 0 .. 2**64-1")
    return value


def _size(text: str, where: str) -> int:
    try:
        value = integer(text)
    except ValueError:
        raise InputError(f"{where}: size {shown(text)} is not an integer") from None
    if value < 0:
        raise InputError(f"{where}: negative size {shown(text)}; sizes are >= 0 (0: skipped)")
    if value > MAX_SIZE:
        raise InputError(f"{where}: size {shown(text)} is larger than 2**53, the largest "
                         "size (docs/model.md §1.8); use a larger size unit")
    return value


def chunks(stream, path: str, params: dict, chunk_requests: int = 1 << 20):
    """``(ids uint64, sizes int64)`` for successive runs of at most ``chunk_requests`` rows."""
    # surrogateescape: a byte that is not UTF-8 becomes its own code point, so text ids
    # that differ in such bytes stay apart (errors="replace" merged them)
    text = io.TextIOWrapper(stream, encoding="utf-8", errors="surrogateescape", newline="")
    first = text.readline()
    delimiter, has_header = _detect(first, params)
    id_col, size_col = int(params["obj-id-col"]) - 1, params["obj-size-col"]
    size_col = None if size_col is None else int(size_col) - 1
    numeric, names = bool(params["obj-id-is-num"]), {}
    skipped = 1 if has_header else 0  # the header line, read before the csv reader
    ids, sizes = [], []
    rows = csv.reader(_chain([] if has_header else [first], text), delimiter=delimiter)
    need = max(id_col, size_col if size_col is not None else 0)
    while True:
        try:
            row = next(rows)
        except StopIteration:
            break
        except csv.Error as exc:
            raise InputError(f"trace file '{path}', line {rows.line_num + skipped}: not a CSV "
                             f"row ({exc}); check the delimiter and the file") from None
        line = rows.line_num + skipped
        if not row:
            continue
        if len(row) <= need:
            raise InputError(f"trace file '{path}', line {line}: no column {need + 1} "
                             f"(the row has {len(row)}); check obj-id-col, obj-size-col "
                             "and delimiter")
        if numeric:
            ids.append(parse_id(row[id_col], f"trace file '{path}', line {line}, column "
                                             f"{id_col + 1}"))
        else:
            ids.append(names.setdefault(row[id_col], len(names)))
        if size_col is not None:
            sizes.append(_size(row[size_col], f"trace file '{path}', line {line}, column "
                                              f"{size_col + 1}"))
        if len(ids) == chunk_requests:
            yield _arrays(ids, sizes)
            ids, sizes = [], []
    if ids:
        yield _arrays(ids, sizes)


def _chain(first_lines, rest):
    yield from first_lines
    yield from rest


def _arrays(ids: list, sizes: list) -> tuple:
    size_array = np.array(sizes, np.int64) if sizes else np.ones(len(ids), np.int64)
    return np.array(ids, np.uint64), size_array
