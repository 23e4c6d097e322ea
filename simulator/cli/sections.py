"""Generated sections of a documentation page: read the page before any work, rewrite its
marked sections after the work, atomically (``semcache claims --update FILE``, ``semcache
reproduce NAME --update FILE``)."""

from __future__ import annotations

from simulator.cli import output as out
from simulator.errors import InputError


def read(path: str, option: str) -> str:
    """The page's text, or one line saying why it cannot be read or rewritten; called
    before any work, so a page that cannot take the result costs no run."""
    out.check_writable(path, option)
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        raise InputError(f"cannot read {option} '{path}': {why}") from None


def between(text: str, begin: str, end: str) -> tuple | None:
    """The span of the section from ``begin`` to the end of ``end``'s line, or None."""
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        return None
    return start, stop + len(end) + (text[stop + len(end):].startswith("\n"))
