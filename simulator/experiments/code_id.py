"""Which code computed a result: a hash of semcache's own Python sources.

Results that outlive a process carry it (each row of a sweep store), so that rows
computed by two versions of semcache are never mixed without a word.  It hashes each
package's files by their path inside the package, so it does not depend on where the
packages are installed.

>>> len(code_id()) == 12 and code_id() == code_id()
True
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import pathlib

_PACKAGES = ("simulator", "workloads", "theory")


@functools.cache
def package_folders() -> dict:
    """Each package's name and the folder it is imported from (resolved)."""
    return {package: pathlib.Path(importlib.util.find_spec(package).origin).parent.resolve()
            for package in _PACKAGES}


@functools.cache
def code_id() -> str:
    """12 hex digits of a SHA-1 over every ``.py`` file of the three packages (path inside
    the package and contents, in path order): the same for two copies of the same code on
    any machine, wherever they are installed."""
    digest = hashlib.sha1()
    for package, folder in package_folders().items():
        for path in sorted(folder.rglob("*.py")):
            digest.update(f"{package}/{path.relative_to(folder).as_posix()}".encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]
