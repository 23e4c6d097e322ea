"""Hidden partial outputs: who owns them, and removing those whose writer is gone.

Every output is first written under a hidden name beginning ``.semcache-`` beside its
target (a temporary file, or a staging folder for a command whose several files land
together) and renamed into place when whole.  A writer killed with SIGKILL cannot remove
its partial, so the next write into the same folder does (:func:`clean`, called once per
folder and process by :func:`simulator.files.atomic_write.write_atomically`).

A partial is stale when no live process owns it.  A writer owns its partial by holding an
exclusive ``flock`` on it (:func:`own`) from the moment it is made until it is renamed or
removed; the kernel drops the lock when the process dies, however it dies.  A report's
staging folder (``.semcache-report-*``) is made by the report builder, which the command
covers instead with a shared lock on the folder that holds it (:func:`building_in`).
:func:`clean` removes a ``.semcache-*`` entry only when it can take that entry's lock (a
report's: the folder's) and the entry was last changed more than :data:`AGE_S` seconds
ago, which covers the instant between making a partial and locking it.  The previous
report that a report swap moves aside (``.semcache-old-report-*``) is never removed: a
kill between the swap's two renames leaves it there, to be moved back by hand.

Where ``flock`` is missing (not a POSIX system) nothing is locked or removed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time

try:
    import fcntl
except ImportError:  # not POSIX: no locks, so no partial can be known to be stale
    fcntl = None

PREFIX = ".semcache-"
REPORT_STAGE = ".semcache-report-"  # report.build's staging folders
KEPT = ".semcache-old-report-"  # a previous report moved aside: never removed
AGE_S = 60.0
_CLEANED: set = set()  # folders cleaned by this process


def own(fd: int) -> None:
    """Mark the partial open at ``fd`` (a file, or a folder opened read-only) as owned by
    this process while ``fd`` stays open."""
    if fcntl is not None:
        with contextlib.suppress(OSError):  # a file system without locks: nothing cleaned
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


@contextlib.contextmanager
def _holding(path: str, lock: int):
    """``lock`` held on the folder ``path`` for the ``with`` block, where it can be: a
    folder that cannot be opened or locked is just not marked (then nothing cleans it)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        if fcntl is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, lock)
        yield
    finally:
        os.close(fd)


def owned_folder(path: str):
    """Hold the ownership lock on the staging folder ``path`` for the ``with`` block."""
    return _holding(path, fcntl.LOCK_EX | fcntl.LOCK_NB if fcntl is not None else 0)


def building_in(folder: str):
    """Say, for the ``with`` block, that a report is being staged in ``folder``: its
    ``.semcache-report-*`` folders there are not stale."""
    return _holding(folder, fcntl.LOCK_SH if fcntl is not None else 0)


def _unowned(path: str, fd_path: str | None = None) -> bool:
    """Whether the lock on ``fd_path`` (default ``path``) is free: no live owner."""
    try:
        fd = os.open(fd_path or path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing drops the lock taken here


def clean(folder: str) -> list:
    """Remove the stale partials directly in ``folder`` (once per folder and process);
    returns the names removed.  Never raises: a partial that cannot be removed stays."""
    folder = os.path.abspath(folder)
    if fcntl is None or folder in _CLEANED:
        return []
    _CLEANED.add(folder)
    try:
        names = [n for n in os.listdir(folder) if n.startswith(PREFIX) and
                 not n.startswith(KEPT)]
    except OSError:
        return []
    removed, now = [], time.time()
    for name in names:
        path = os.path.join(folder, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if now - info.st_mtime < AGE_S:
            continue
        is_dir = os.path.isdir(path) and not os.path.islink(path)
        free = _unowned(path, folder if name.startswith(REPORT_STAGE) else None)
        if not free:
            continue
        try:
            shutil.rmtree(path) if is_dir else os.remove(path)
            removed.append(name)
        except OSError:
            pass
    return removed
