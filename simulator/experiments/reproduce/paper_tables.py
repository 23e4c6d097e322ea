"""The SOLAR paper's printed table values: cited package data, read by one reader.

The numbers the paper prints (Tables 4-12 and the data printed with Figure 3) are facts
about the paper, not results of ours, and every reproduction puts them in its ``paper``
column beside what it measures.  They ship with the package in
``solar_paper_tables.json`` (beside this module), each table with the paper, its number
and a caption in our words; ``$SEMCACHE_PAPER_TABLES`` names another file of the same
form to read instead (a corrected transcription, say).

The file is one JSON object.  Each table is a key (``table8_cycling_hit_rate`` …) whose
value has ``columns`` (the column labels, as the reproductions name their columns) and
``rows``, mapping a row name (a policy of the registry, ``unlimited`` for the paper's
"Embedder", or a metric's name) to one entry per column: a number, ``null`` where the
paper prints nothing, or ``[mean, std]`` where it prints both.  The shipped file adds
``paper``, ``table`` and ``caption`` to every table; other keys are ignored.

Examples
--------
>>> doc = {"t": {"columns": ["K=5", "K=10"], "rows": {"fifo": [0.31, [0.49, 0.01]]}}}
>>> cells = printed(doc, "t")
>>> cells[("fifo", "K=10")]
Printed(value=0.49, std=0.01)
>>> cells[("fifo", "K=5")].std is None
True
>>> printed(load(), "table8_cycling_hit_rate")[("fifo", "m/K=1.0")]
Printed(value=0.9, std=None)
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import pathlib

from simulator.errors import InputError
from simulator.files.input_files import UnreadableInput, read_input

ENV = "SEMCACHE_PAPER_TABLES"
SHIPPED = pathlib.Path(__file__).with_name("solar_paper_tables.json")


@dataclasses.dataclass(frozen=True)
class Printed:
    """One printed cell: its value and, where the paper prints one, its std."""

    value: float
    std: float | None = None


def location() -> pathlib.Path:
    """``$SEMCACHE_PAPER_TABLES`` if set, else the shipped file."""
    return pathlib.Path(os.environ[ENV]) if os.environ.get(ENV) else SHIPPED


def load() -> dict:
    """The whole file as a dict; an unreadable or malformed file is an InputError naming
    it."""
    path = location()
    try:  # a regular file only: a FIFO or a device named here would hang or never end
        doc = json.loads(read_input(path, "paper tables", "paper_tables").decode("utf-8"))
    except UnreadableInput as exc:  # (an InputError is a ValueError: caught first)
        reason = exc.reason
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        reason = str(exc)
    else:
        reason = None
    if reason is not None:
        raise InputError(f"paper tables {path}: cannot be read as JSON ({reason}); fix the "
                         f"file or unset {ENV}", "paper_tables")
    if not isinstance(doc, dict):
        raise InputError(f"paper tables {path}: must be a JSON object of tables", "paper_tables")
    return doc


def printed(doc: dict | None, key: str) -> dict:
    """``{(row, column): Printed}`` of table ``key`` in ``doc`` (empty when ``doc`` is None
    or has no such table); cells printed as null are left out."""
    if doc is None or key not in doc:
        return {}
    tab = doc[key]
    where = f"paper tables: table '{key}'"
    if not (isinstance(tab, dict) and isinstance(tab.get("columns"), list)
            and isinstance(tab.get("rows"), dict)):
        raise InputError(f"{where} needs 'columns' (a list) and 'rows' (an object)",
                         "paper_tables")
    out = {}
    for row, entries in tab["rows"].items():
        if not isinstance(entries, list) or len(entries) != len(tab["columns"]):
            raise InputError(f"{where}, row '{row}': needs one entry per column "
                             f"({len(tab['columns'])})", "paper_tables")
        for column, entry in zip(tab["columns"], entries):
            cell = _cell(entry, f"{where}, row '{row}', column '{column}'")
            if cell is not None:
                out[(row, column)] = cell
    return out


def _cell(entry, where: str) -> Printed | None:
    if entry is None:
        return None
    pair = entry if isinstance(entry, list) else [entry, None]
    if len(pair) != 2 or not all(v is None or _number(v) for v in pair) or pair[0] is None:
        raise InputError(f"{where}: must be a number, null or [mean, std]", "paper_tables")
    return Printed(float(pair[0]), None if pair[1] is None else float(pair[1]))


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
