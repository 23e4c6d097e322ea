"""The SOLAR authors' trace files read field by field, trusting nothing in them.

:mod:`workloads.solar_published` turns one folder into a trace; this module reads its files
and checks every field it will use, so a damaged or hand-edited file is one
:class:`~simulator.errors.InputError` naming the file, the line (JSON Lines) and the field.
The rules (the published files all follow them):

* every file is UTF-8 JSON, without ``NaN`` or ``Infinity``;
* ``meta.json`` is one object; ``has_prefill``, when present, is true, false or null, and
  ``n_warmup_steps`` an integer >= 0 or null; its other fields are kept as they are;
* each line of a ``.jsonl`` file is one object (blank lines are skipped); ids (``id``,
  ``streamed_item_id``, each of ``relevant_item_ids``) are strings, ``streamed_item_id``
  may be null (no arrival), ``relevant_item_ids`` is a list, ``topic_id`` an integer >= -1
  (−1: none) and ``timestep`` and ``t`` integers >= 0 (never true or false);
* ``embeddings.npz`` holds 1-D string arrays ``item_ids`` and ``query_ids``, each id once,
  and numeric 2-D ``item_embs`` and ``query_embs`` with one row per id and one width.

>>> check_field("topic_id", None)
'an integer >= -1 (-1: none)'
"""

from __future__ import annotations

import pathlib

import numpy as np

from simulator.errors import InputError
from simulator.files.input_files import open_input, read_input
from simulator.trace_formats.npz import read_arrays
from workloads.data.json_text import parse_json, shown

_LARGEST = 2**63 - 1  # what an int64 array can hold


def _integer(value, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= _LARGEST


def _strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


# field -> (test, what a valid value is)
_FIELDS = {
    "id": (lambda v: isinstance(v, str), "a string"),
    "topic_id": (lambda v: _integer(v, -1), "an integer >= -1 (-1: none)"),
    "timestep": (lambda v: _integer(v, 0), "an integer >= 0"),
    "t": (lambda v: _integer(v, 0), "an integer >= 0"),
    "streamed_item_id": (lambda v: v is None or isinstance(v, str), "a string or null"),
    "relevant_item_ids": (_strings, "a list of id strings"),
    "has_prefill": (lambda v: v in (True, False, None), "true, false or null"),
    "n_warmup_steps": (lambda v: v is None or _integer(v, 0), "an integer >= 0 or null"),
}


def check_field(name: str, value) -> str | None:
    """What ``value`` should be for field ``name``, or None when it is valid."""
    test, what = _FIELDS[name]
    return None if test(value) else what


def _checked(row: dict, fields: tuple, where: str) -> dict:
    for name in fields:
        if name not in row:
            raise InputError(f"{where} has no field '{name}'")
        problem = check_field(name, row[name])
        if problem:
            raise InputError(f"{where}: field '{name}' must be {problem}, got "
                             f"{shown(row[name])}")
    return row


def read_meta(path: pathlib.Path) -> dict:
    """``meta.json``: one JSON object, ``has_prefill`` and ``n_warmup_steps`` checked."""
    meta = parse_json(read_input(path, "solar file"), f"'{path}'")
    if not isinstance(meta, dict):
        raise InputError(f"'{path}' must hold one JSON object, got {type(meta).__name__} "
                         f"{shown(meta)}")
    return _checked(meta, tuple(k for k in ("has_prefill", "n_warmup_steps") if k in meta),
                    f"'{path}'")


def read_jsonl(path: pathlib.Path, fields: tuple) -> tuple:
    """``(rows, line numbers)`` of a JSON Lines file, each row an object whose ``fields``
    are present and valid (:func:`check_field`)."""
    rows, lines = [], []
    with open_input(path, "solar file") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"'{path}' line {n}"
            row = parse_json(line, where)
            if not isinstance(row, dict):
                raise InputError(f"{where} must be one JSON object, got {shown(row)}")
            rows.append(_checked(row, fields, where))
            lines.append(n)
    return rows, lines


def _ids(arrays: dict, name: str, where: str) -> list:
    ids = arrays[name]
    if ids.ndim != 1 or ids.dtype.kind not in "US":
        raise InputError(f"{where} array '{name}' must be a 1-D array of strings, got "
                         f"{ids.dtype} of shape {ids.shape}")
    ids = ids.astype(str).tolist()
    if len(set(ids)) != len(ids):
        seen = set()
        twice = next(i for i in ids if i in seen or seen.add(i))
        raise InputError(f"{where} array '{name}' lists id {twice!r} twice; ids are unique")
    return ids


def _vectors(arrays: dict, name: str, rows: int, where: str) -> np.ndarray:
    embs = arrays[name]
    if embs.ndim != 2 or embs.dtype.kind not in "fiu" or embs.shape[0] != rows or not embs.shape[1]:
        raise InputError(f"{where} array '{name}' must be numbers [{rows}, d] (one row per "
                         f"id), got {embs.dtype} of shape {embs.shape}")
    return embs


def read_embeddings(path: pathlib.Path) -> tuple:
    """``embeddings.npz`` as ``(item vectors by id, query vectors by id)``."""
    where = f"'{path}'"
    arrays = read_arrays(path, "solar embeddings file", "the authors' embeddings.npz is "
                         "numpy.savez_compressed(item_ids=, item_embs=, query_ids=, query_embs=)")
    for name in ("item_ids", "item_embs", "query_ids", "query_embs"):
        if name not in arrays:
            raise InputError(f"{where} has no array '{name}'")
    out = []
    for kind in ("item", "query"):
        ids = _ids(arrays, f"{kind}_ids", where)
        out.append(dict(zip(ids, _vectors(arrays, f"{kind}_embs", len(ids), where))))
    dims = {arrays["item_embs"].shape[1], arrays["query_embs"].shape[1]}
    if len(dims) > 1:
        raise InputError(f"{where} arrays 'item_embs' and 'query_embs' differ in width "
                         f"({' and '.join(map(str, sorted(dims)))}); they must be one space")
    return tuple(out)
