"""A sweep store's manifests: which code made its rows, read back and held to this process's.

Each part file keeps, in its Parquet metadata under ``semcache.code``, the JSON object
``{"parts": {label: hash}, "codes": {row code: [label, ...]}}`` of its rows (labels and
codes: :mod:`~simulator.experiments.sweep.code`).  A resume reads every part's manifest,
holds it to the part's ``code`` column (each code must be the hash of the parts it lists),
merges them (one label hashed two ways is a store that already mixes two versions), and
refuses, in one line naming it, when anything the store's rows depend on now hashes
otherwise (:func:`check_store`): semcache's sources, a plugin file, a trace file.

A part with no manifest (written before parts kept one, or stripped of it) counts as
semcache's sources alone, which is what its ``code`` meant then: a resume by the version
of semcache whose ``code_id()`` its rows carry goes on, any other is refused.
"""

from __future__ import annotations

import json

from simulator.errors import InputError
from simulator.experiments.sweep import code as sweep_code
from simulator.experiments.code_id import code_id
from simulator.experiments.sweep.code import SEMCACHE, describe, now, row_code
from simulator.experiments.sweep.store import shown

_FIX = "restore it to resume, or sweep into another folder"


def stored_parts(path: str, found: list) -> dict:
    """The merged parts (label → hash) of the store ``path``, from ``found``: each part's
    ``(name, codes, manifest)`` (its rows' distinct codes, None for a part with no code
    column; its manifest text or None)."""
    merged, first = {}, {}
    for name, codes, text in found:
        for label, value in _part(path, name, codes, text).items():
            if merged.setdefault(label, value) != value:
                raise InputError(f"out '{path}' already mixes two versions of "
                                 f"{describe(label)} (parts {shown(first[label])} and "
                                 f"{shown(name)}); "
                                 "keep the parts of one, or start the sweep in another "
                                 "folder", "out")
            first.setdefault(label, name)
    return merged


def _part(path: str, name: str, codes, text) -> dict:
    if text is None:  # a part with no manifest: its code named semcache's sources
        if codes is None or set(codes) != {code_id()}:
            other = ", ".join(shown(c)[1:-1] for c in sorted(set(codes or ()) - {code_id()}))
            raise InputError(f"out '{path}' holds runs of another version of semcache (part "
                             f"{shown(name)} has code {other[:200] or 'none'} and no manifest "
                             f"of its code; this "
                             f"one is {code_id()}); resume it with that version, or give "
                             "another folder", "out")
        return {SEMCACHE: code_id()}
    try:
        manifest = json.loads(text)
        parts, listed = manifest["parts"], manifest["codes"]
        problem = ("its rows have no code column" if codes is None
                   else _problem(parts, listed, codes))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        problem = f"it is not a manifest ({type(exc).__name__})"
    if problem:
        raise InputError(f"out '{path}': part {shown(name)} has a damaged code manifest "
                         f"({problem}), so a resume cannot tell which code made its rows; "
                         "restore the part, or start the sweep in another folder", "out")
    return parts


def _problem(parts, listed, codes) -> str | None:
    """What is wrong with a manifest of ``parts`` and ``listed`` codes for rows of
    ``codes``; None when it holds."""
    if not isinstance(parts, dict) or not isinstance(listed, dict):
        return "parts and codes must be objects"
    for label, value in parts.items():
        kind = label.partition(":")[0]
        if kind not in sweep_code.KINDS or not label.isprintable() or not (
                (isinstance(value, str) and value.isalnum() and len(value) <= 64)
                or (value is None and kind == "nofile")):
            return f"part {label[:80]!r} is not a label and a hash"
    for code in codes:
        labels = listed.get(code)
        if not isinstance(labels, list) or not all(label in parts for label in labels):
            return f"row code {code[:40]!r} is not listed with its parts"
        if row_code({label: parts[label] for label in labels}) != code:
            return f"row code {code[:40]!r} is not the hash of its listed parts"
    return None


def check_store(path: str, stored: dict) -> None:
    """Refuse to continue the store ``path`` when anything its rows depend on (``stored``,
    from :func:`stored_parts`) is not what this process sees now."""
    changed = [label for label in sorted(stored, key=sweep_code.rank)
               if label.startswith("nofile:") or now(label) != stored[label]]
    if not changed:
        return
    label, more = changed[0], changed[1:]
    also = (f" (and {len(more)} more: " + ", ".join(describe(m) for m in more[:3])
            + (", ..." if len(more) > 3 else "") + ")") if more else ""
    current = now(label)
    if label == SEMCACHE:
        line = (f" holds runs of another version of semcache (code {stored[label]}; this one "
                f"is {current}){also}; resume it with that version, or give another folder")
    elif label.startswith("nofile:"):
        line = (f" holds runs of {describe(label)} (a notebook cell or exec), so a resume "
                f"cannot tell whether it changed{also}; define it in a file (a plugin), or "
                "sweep into another folder")
    elif current is None:
        line = (f": {describe(label)}, which the store's runs read, is gone or not a "
                f"regular file{also}; {_FIX}")
    else:
        line = f": {describe(label)} changed since the store's runs{also}; {_FIX}"
    raise InputError(f"out '{path}'{line}", "out")


def merge(seen: dict, parts: dict, worker: str) -> None:
    """Add a finished chunk's ``parts`` to ``seen`` (the store's and this sweep's so far);
    a part seen with another hash stops the sweep (:func:`sweep_code.conflict`)."""
    for label in sorted(parts, key=sweep_code.rank):
        value = parts[label]
        if seen.setdefault(label, value) != value and not label.startswith("nofile:"):
            raise sweep_code.conflict(label, seen[label], value, worker)
