"""One agent-memory event, a row of an events file, checked field by field.

docs/model.md §6.2 defines the fields; this module checks each one's value where it is
read, so a bad value is one :class:`~simulator.errors.InputError` naming the file, the
line (or row), the field and what it must be.  :func:`check` takes a row as JSON holds it
(from a JSONL line, a Parquet row, or a CSV row through :func:`from_cell`) and returns its
fields as Python values; a field that is absent or null is left out (its default applies
later, :mod:`workloads.data.events`).  Text is Unicode text: a lone surrogate (a JSON
``"\\ud800"`` escape, half of a pair) is refused wherever it is, since no UTF-8 file, text
model or JSON writer can hold it.  A topic is an integer id or a text label
(:mod:`workloads.data.event_labels` maps labels to ids).

>>> row = check({"query": "Where do I live?", "item_id": 7, "evidence": [7, "m2"],
...              "topic": None, "weight": 0.5}, "line 1")
>>> sorted(row.items())
[('evidence', ['7', 'm2']), ('item_id', '7'), ('query', 'Where do I live?'), ('weight', 0.5)]
"""

from __future__ import annotations

import datetime
import math
import re

import numpy as np

from simulator.errors import InputError
from simulator.params import MAX_INT
from workloads.data.json_text import parse_json, shown

# field -> its kind; the order is the order docs and errors list them in
FIELDS = {"query": "text", "item": "text", "query_vector": "vector", "item_vector": "vector",
          "item_id": "id", "topic": "topic", "query_topic": "topic", "item_topic": "topic",
          "evidence": "ids", "weight": "weight", "scored": "flag", "size": "size",
          "time": "time", "supersedes": "id"}
WHAT = {"text": "a non-empty string",
        "vector": "a non-empty list of numbers (one dimension for the whole file)",
        "id": "a non-empty string or an integer",
        "ids": "a list of item ids (strings or integers)",
        "topic": "an integer in 0 .. 2**53 or a text label (leave it out, or null, for none)",
        "weight": "a number in [0, 1]", "flag": "true or false",
        "size": "an integer in 1 .. 2**53",
        "time": "a finite number of seconds (any origin) or an ISO 8601 text such as "
                "'2023-05-08T13:56:00Z'"}
_INTEGER = re.compile(r"[+-]?[0-9]{1,20}")  # CSV digits; longer is past 2**53 anyway
# a topic label that reads as a number but no topic id: a float column written as text
# (1.0, 2.5e3) is refused rather than split into labels "1.0" and "1"
_NUMBER = re.compile(r"\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*"
                     r"|\s*[+-]?(nan|inf|infinity)\s*", re.IGNORECASE)
_DIGITS = re.compile(r"[0-9]+")


def surrogate_error(text: str, where: str, what: str) -> InputError | None:
    """The error of ``text`` holding a lone surrogate (no Unicode text), or None.

    >>> surrogate_error("caf\\u00e9", "line 1", "field 'query'") is None
    True
    >>> str(surrogate_error("a\\ud800", "line 1", "field 'query'"))[:60]
    "line 1: field 'query' holds a lone surrogate (\\\\ud800 at char"
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return InputError(f"{where}: {what} holds a lone surrogate (\\u{ord(text[exc.start]):04x} "
                          f"at character {exc.start}), which is no Unicode text; write whole "
                          "characters (a \\uXXXX escape of half a surrogate pair is not one)")
    return None


def _text(value, where: str, name: str) -> bool:
    """Whether ``value`` is a string; a lone surrogate in it is an error."""
    if not isinstance(value, str):
        return False
    problem = surrogate_error(value, where, f"field '{name}'")
    if problem:
        raise problem
    return True


def unknown_field(name, where: str) -> InputError:
    """The error of a field (a JSON key, a CSV or Parquet column) that is no event field."""
    return InputError(f"{where}: unknown field {shown(name)}; the fields are "
                      f"{', '.join(FIELDS)} (docs/model.md §6.2), or keep or ignore the "
                      "others with --extra-fields keep|ignore")


def _bad(where: str, name: str, value, what: str | None = None) -> InputError:
    return InputError(f"{where}: field '{name}' must be {what or WHAT[FIELDS[name]]}, got "
                      f"{shown(value)}")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _vector(value, where: str, name: str) -> np.ndarray:
    """A finite float32 vector that is not zero (in float32: its direction is what counts)."""
    if not (isinstance(value, (list, tuple)) and value and all(map(_is_number, value))):
        raise _bad(where, name, value)
    try:
        wide = np.array(value, np.float64)
    except OverflowError:  # an integer past float64's range
        wide = np.array([v if -1e308 < v < 1e308 else math.inf for v in value], np.float64)
    with np.errstate(over="ignore"):
        vec = wide.astype(np.float32)
    finite = np.isfinite(vec)
    if not finite.all():
        j = int(np.flatnonzero(~finite)[0])
        raise InputError(f"{where}: field '{name}' has {shown(value[j])} at position {j}, "
                         "not a finite float32 (NaN, inf or beyond 3.4e38); vectors hold "
                         "finite numbers")
    if not vec.any():
        raise InputError(f"{where}: field '{name}' is a zero vector (in float32); a vector "
                         "needs a direction")
    return vec


class Instant(float):
    """A ``time`` given as a date and time (ISO 8601 text, or a Parquet timestamp): seconds
    since the Unix epoch, told apart from a plain number of seconds from any origin, which
    one file may not mix with it."""


def _time(value, where: str, name: str) -> float:
    """A ``time`` as seconds: a finite number as it is, an ISO 8601 text (Python's
    ``datetime.fromisoformat``) or a datetime as an :class:`Instant`.  A date and time
    without a zone is read as UTC (an events file from one machine; a zone given is
    honoured)."""
    if _is_number(value):
        try:
            seconds = float(value)
        except OverflowError:  # an integer past float64's range
            seconds = math.inf
        if not math.isfinite(seconds):
            raise _bad(where, name, value)
        return seconds
    if _text(value, where, name):
        try:
            value = datetime.datetime.fromisoformat(value.strip())
        except ValueError:
            raise _bad(where, name, value) from None
    if not isinstance(value, datetime.datetime):  # a date alone is a datetime at 00:00
        if not isinstance(value, datetime.date):
            raise _bad(where, name, value)
        value = datetime.datetime.combine(value, datetime.time())
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    return Instant(value.timestamp())


def _value(kind: str, value, where: str, name: str):
    """``value`` of a field of ``kind`` as its Python value, or InputError."""
    if kind == "time":
        return _time(value, where, name)
    if kind == "text":
        ok = _text(value, where, name) and value.strip() != ""
    elif kind == "vector":
        return _vector(value, where, name)
    elif kind == "id":
        ok = _is_int(value) or (_text(value, where, name) and value != "")
        value = str(value) if ok else value
    elif kind == "ids":
        if not isinstance(value, list):
            raise _bad(where, name, value)
        return [_value("id", v, where, name) for v in value]
    elif kind == "topic":
        ok = _is_int(value) and 0 <= value <= MAX_INT
        if _text(value, where, name):  # digits are the id they spell, in every format
            digits = value.strip()
            if _DIGITS.fullmatch(digits):
                if len(digits) > 20 or int(digits) > MAX_INT:
                    raise _bad(where, name, value)
                return int(digits)
            if _NUMBER.fullmatch(value):  # 1.0, 2e3: a float column written as text
                raise _bad(where, name, value, "an integer in 0 .. 2**53 or a text label "
                           "that does not read as another number (write 1.0 as 1)")
            ok = digits != ""
    elif kind == "weight":
        ok = _is_number(value) and 0 <= value <= 1  # NaN is in no interval
        value = float(value) if ok else value
    elif kind == "flag":
        ok = isinstance(value, bool)
    else:
        ok = _is_int(value) and 1 <= value <= MAX_INT
    if not ok:
        raise _bad(where, name, value)
    return value


def check(row: dict, where: str) -> dict:
    """The fields of ``row`` (a dict as JSON holds it) checked, as Python values: texts and
    ids as strings (an integer id as its decimal digits), vectors as float32 arrays,
    evidence as a list of id strings; absent and null fields left out.  ``where`` names
    the file and line in errors."""
    out = {}
    for name, value in row.items():
        problem = isinstance(name, str) and surrogate_error(name, where, "a field name")
        if problem:
            raise problem
        if name not in FIELDS:
            raise unknown_field(name, where)
        if value is not None:
            out[name] = _value(FIELDS[name], value, where, name)
    return out


def from_cell(name: str, cell: str, where: str):
    """A CSV cell of field ``name`` as JSON would hold it, for :func:`check`: empty is
    null, a vector or evidence is a JSON list, a topic or size digits, a weight a number,
a time a number when it reads as one (else its text, an ISO 8601 date and time),
    ``scored`` (and a topic, to be refused as JSON's would be) true or false (any case), a
    column that is no event field its text; what does not parse stays text (a topic's
    label), so :func:`check` names what it must be.

    >>> from_cell("evidence", '["m1", 2]', "line 2"), from_cell("weight", "0.5", "line 2")
    (['m1', 2], 0.5)
    >>> from_cell("topic", "cooking", "line 2"), from_cell("scored", "TRUE", "line 2")
    ('cooking', True)
    """
    if cell == "":
        return None
    if name not in FIELDS:  # a column kept or ignored as given (workloads.data.event_labels)
        return cell
    kind = FIELDS[name]
    if kind in ("vector", "ids"):
        return parse_json(cell.encode("utf-8"), f"{where}: field '{name}'")
    if kind == "topic" and cell.strip().lower() in ("true", "false"):
        return cell.strip().lower() == "true"  # as JSON's true: no topic (a flag column)
    if kind in ("topic", "size"):
        return int(cell) if _INTEGER.fullmatch(cell.strip()) else cell
    if kind == "time":  # seconds when it reads as a number, else an ISO 8601 text
        return float(cell) if _NUMBER.fullmatch(cell) else cell
    if kind == "weight":
        try:
            return float(cell)
        except ValueError:
            return cell
    if kind == "flag":
        return {"true": True, "false": False}.get(cell.strip().lower(), cell)
    return cell
