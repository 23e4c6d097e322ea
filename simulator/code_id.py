"""Which code computed a result: a hash of semcache's own Python sources.

Results that outlive a process carry it (each row of a sweep store), so that rows
computed by two versions of semcache are never mixed without a word.

>>> len(code_id()) == 12 and code_id() == code_id()
True
"""

from __future__ import annotations

import functools
import hashlib
import pathlib

_ROOT = pathlib.Path(__file__).resolve().parent.parent
_PACKAGES = ("simulator", "workloads", "theory")


@functools.cache
def code_id() -> str:
    """12 hex digits of a SHA-1 over every ``.py`` file of the three packages (path and
    contents, in path order): the same for two copies of the same code on any machine."""
    digest = hashlib.sha1()
    for package in _PACKAGES:
        for path in sorted((_ROOT / package).rglob("*.py")):
            digest.update(path.relative_to(_ROOT).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]
