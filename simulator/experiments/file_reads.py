"""Which data files a piece of work reads: the files it opens for reading, seen through
Python's audit events (``sys.addaudithook``, PEP 578).

A sweep's row depends on the files its workload reads to make the trace (a conversation
log, an ``.npz`` of vectors) and on any file a policy reads while it runs.  They are found
by watching, not declared: every ``open`` of a regular file for reading made by this
thread inside :func:`watching` (``open``, ``numpy.load``, ``pathlib``, ``os.open``).
Files that are code or the system's are left out: Python sources and bytecode, numba's
cache, the metadata of installed distributions (``*.dist-info``, ``*.egg-info``, which
``importlib.metadata`` reads from wherever a path entry points, the working folder too),
anything under the interpreter's and the site-packages' folders, ``/proc``,
``/sys``, ``/dev``, ``/etc``, ``/usr``, and semcache's embedding cache (a vector is a
function of its text and model, whatever the cache holds).  A library that opens files
in its own C code (pyarrow's readers) is not seen; a file that a workload parameter names
is covered anyway (:func:`named_files`).

The hook, once added, stays for the life of the process (Python has no way to remove
one); outside :func:`watching` it returns at once.

>>> import os, pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp(), "data.txt")
>>> _ = path.write_text("x")
>>> with watching() as seen:
...     _ = path.read_text()
>>> data_files(seen) == [os.path.realpath(path)]
True
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import site
import stat
import sys
import threading

_WATCH = threading.local()  # .seen: the list the current watch fills, in this thread
_HOOK_LOCK = threading.Lock()
_HOOKED: list = []  # one entry once the hook is added
_CODE_SUFFIXES = (".py", ".pyc", ".pyo", ".pyi", ".pyd", ".so", ".pth", ".nbi", ".nbc")
# an installed distribution's metadata (entry_points.txt, METADATA, RECORD), which
# importlib.metadata reads whenever a library looks up its plugins (numba does, on its
# first compile), also from a source checkout that is the working folder
_METADATA = re.compile(r"\.(dist|egg)-info(/|\\)")
_WRITING = os.O_WRONLY | os.O_RDWR | getattr(os, "O_DIRECTORY", 0)


def _audit(event: str, args: tuple) -> None:
    # runs for every audited event of the process: the cheapest tests first, and nothing
    # here may raise (an exception would fail the audited call itself)
    if event != "open" or len(args) != 3:
        return
    seen = getattr(_WATCH, "seen", None)
    if seen is None:
        return
    path, _mode, flags = args
    if isinstance(path, (str, bytes, os.PathLike)) and not (
            isinstance(flags, int) and flags & _WRITING):
        seen.append(path)


def _hook() -> None:
    with _HOOK_LOCK:
        if not _HOOKED:
            sys.addaudithook(_audit)
            _HOOKED.append(_audit)


@contextlib.contextmanager
def watching():
    """Yield a list that collects the paths this thread opens for reading meanwhile
    (raw, as given to ``open``: filter them with :func:`data_files`)."""
    _hook()
    seen, outer = [], getattr(_WATCH, "seen", None)
    _WATCH.seen = seen
    try:
        yield seen
    finally:
        _WATCH.seen = outer


@functools.cache
def _skipped_folders() -> tuple:
    from workloads.data import text_embed

    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
               *site.getsitepackages(), site.getusersitepackages(),
               "/proc", "/sys", "/dev", "/etc", "/usr", str(text_embed.cache_root().parent)}
    return tuple(os.path.join(os.path.realpath(f), "") for f in folders if f)


def data_files(paths) -> list:
    """The regular files among ``paths`` that are data (module docstring), as real
    absolute paths, sorted, each once."""
    found = set()
    skipped = _skipped_folders()
    for raw in paths:
        path = os.fsdecode(os.fspath(raw))
        if path.endswith(_CODE_SUFFIXES):  # most of what a compile reads: no syscall
            continue
        path = os.path.realpath(path)
        if (path.endswith(_CODE_SUFFIXES) or f"{os.sep}__pycache__{os.sep}" in path
                or _METADATA.search(path) or path.startswith(skipped)):
            continue
        try:
            if stat.S_ISREG(os.stat(path).st_mode):
                found.add(path)
        except OSError:
            continue  # gone since it was read: the hash will say so
    return sorted(found)


def named_files(params: dict) -> list:
    """The data files that the text values of ``params`` (a workload's parameters) name:
    a file read by code the audit does not see is covered when a parameter names it."""
    texts = [v for v in params.values() if isinstance(v, str) and v.strip()]
    return data_files(v for v in texts if os.path.isfile(v))
