"""Which compiled loops numba may cache on disk, under which names, and one compile at a time.

numba's cache checks only the file that defines a function.  The engine's loops are
copies of functions in ``engine/fast.py`` with a policy's hooks bound in, so their cache
entries must be named after everything compiled into them and nothing else, so that
editing one policy recompiles only that policy's loops:

* the engine's files (:data:`ENGINE_HASH`, a fixed list: the loops, their kernels, the
  flags, the random stream and the types of their arguments, which numba's cache index
  pickles);
* the files of the hooks and of everything they reach (:func:`reached`): the compiled
  functions they call, by name or as a module's attribute (``helpers.f(...)``), and the
  classes they use, followed recursively, whether the package's or yours;
* the values of the globals they read, which numba freezes into the code: a constant
  imported from another module (``from .parts import _ROWS``) changes the name when it
  changes, wherever it is defined.

Hooks with no source file behind them (a notebook cell, ``exec``) are never cached, since
no hash can cover them; nor is a function whose file was edited after it was loaded (its
code is not among the file's), since the file's hash would name code it no longer holds.

Compiled functions called from Python that reach other files (the exact optimum's) are
cached the same way, each under its own salted name (:mod:`simulator.engine.cached_kernel`).

Two processes (the test session's workers) may want one loop at once: :func:`locked` makes
a loop compile under a lock file named after it, so one process compiles and saves it and
the other then loads it from disk.

>>> from simulator import policies
>>> from simulator.engine.fast import HOOKS
>>> disk_cached(policies.get("fifo"), HOOKS)
True
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import os
import pathlib
import site
import sys
import sysconfig
import types

import llvmlite
import numba
import numpy as np


def _folders(paths) -> tuple:
    """``paths`` as real folder prefixes (with a final separator), for ``startswith``."""
    return tuple(os.path.join(os.path.realpath(p), "") for p in paths)


def _python_paths(*keys) -> list:
    """The interpreter's ``sysconfig`` folders ``keys``, of this environment and its base."""
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}
    return [sysconfig.get_path(key, vars=v) for v in (None, base) for key in keys]


_HERE = pathlib.Path(__file__).parent.parent  # the package: this file is in engine/
_ROOT = _HERE.parent  # names hash package files by their path below it, so clones agree
# Everything of the engine a compiled loop contains; editing the CLI or the runner, or a
# policy, keeps the others' loops.
_ENGINE = [_HERE / "engine" / "fast.py", _HERE / "engine" / "counts.py",
           _HERE / "engine" / "kernels.py", _HERE / "config.py",
           _HERE / "engine" / "fast_index.py", _HERE / "rng.py",
           _HERE / "engine" / "run_arrays.py"]
ENGINE_HASH = hashlib.sha1(b"".join(p.read_bytes() for p in _ENGINE)).hexdigest()[:10]
_ENGINE_FILES = {p.resolve() for p in _ENGINE}
# The files user_files leaves out (a sweep's rows hash semcache's own sources apart).
_PACKAGE_SOURCES = {p.resolve() for p in [*_ENGINE, *(_HERE / "policies").glob("*.py"),
                                          *(_HERE / "policies" / "parts").glob("*.py")]}
# Code not followed: Python's own, and numba's and what numba builds on (its cache index
# is dropped when its version changes).  Any other installed code is followed: a plugin
# installed with pip, or semcache itself, is hashed like a checkout.
_STDLIB = _folders(_python_paths("stdlib", "platstdlib"))
_SITE = _folders([*_python_paths("purelib", "platlib"), *site.getsitepackages(),
                  site.getusersitepackages()])
_NUMBA = _folders(os.path.dirname(m.__file__) for m in (np, numba, llvmlite))
_FILES: dict = {}  # (a file, its mtime and size) -> its hash and the code compiled from it
_LOCKS = "semcache-locks"


def _python(fn):
    return getattr(fn, "py_func", fn)  # a numba dispatcher's Python function


def _user_files(fn, found: set) -> bool:
    """Add to ``found`` the files outside the package behind ``fn`` and the compiled
    functions it calls by name (recursively); False if one has no file on disk."""
    py = _python(fn)
    code = getattr(py, "__code__", None)
    if code is None:
        return False
    path = pathlib.Path(code.co_filename).resolve()
    if path in _PACKAGE_SOURCES:
        return True
    if not path.is_file():
        return False  # a notebook cell or exec'd code: nothing on disk to hash
    if path in found:
        return True
    found.add(path)
    names = getattr(py, "__globals__", {})
    callees = [names.get(n) for n in code.co_names]
    # a helper reached as a module attribute (helpers.f, pkg.helpers.f): the code names
    # both the module and the attribute, so try every name it uses on every module it uses
    modules = [c for c in callees if isinstance(c, types.ModuleType)]
    for module in modules:
        for n in code.co_names:
            attr = getattr(module, n, None)
            if isinstance(attr, types.ModuleType) and attr not in modules:
                modules.append(attr)
            elif hasattr(attr, "py_func"):
                callees.append(attr)
    return all(_user_files(c, found) for c in callees if hasattr(c, "py_func"))


def user_files(functions) -> list | None:
    """The files outside the package behind ``functions`` and behind the compiled functions
    they call, by name or as a module's attribute (recursively), sorted: what a sweep's
    row code hashes of your code.  None when one of them has no file on disk (a notebook
    cell, ``exec``)."""
    found = set()
    if not all(_user_files(fn, found) for fn in functions):
        return None
    return sorted(found)


class _Reach:
    """What a walk from some hooks found: files, and the frozen values by where read."""

    def __init__(self):
        self.files, self.values, self.seen = set(), {}, set()


def _in_library(path: str) -> bool:
    path = os.path.realpath(path)
    return path.startswith(_NUMBA) or (path.startswith(_STDLIB) and not path.startswith(_SITE))


def _names(code):
    """The global names ``code`` and the functions defined inside it use."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _walk(fn, found: _Reach) -> bool:
    """Add what ``fn`` reaches to ``found``; False when some of it has no file on disk."""
    py = _python(fn)
    code = getattr(py, "__code__", None)
    if code is None:
        return False
    if id(py) in found.seen:
        return True
    found.seen.add(id(py))
    path = pathlib.Path(code.co_filename).resolve()
    if not path.is_file():
        return False  # a notebook cell or exec'd code: nothing on disk to hash
    if _in_library(str(path)):
        return True
    if path not in _ENGINE_FILES:
        if code not in _file(path)[1]:
            return False  # the file was edited since this code was loaded from it
        found.files.add(path)
    names = getattr(py, "__globals__", {})
    used = list(dict.fromkeys(_names(code)))
    where = f"{py.__module__}.{py.__qualname__}"
    pairs = [(n, names[n]) for n in used if n in names]
    pairs += [(n, cell.cell_contents) for n, cell in zip(code.co_freevars, py.__closure__ or ())]
    # a name reached as a module's attribute (helpers.f, pkg.helpers.CONST): the code names
    # both the module and the attribute, so try every name it uses on every module it uses
    modules = [v for _, v in pairs if isinstance(v, types.ModuleType)]
    for module in modules:
        for n in used:
            attr = getattr(module, n, None)
            if isinstance(attr, types.ModuleType):
                if attr not in modules:
                    modules.append(attr)
            elif attr is not None:
                pairs.append((f"{module.__name__}.{n}", attr))
    return all(_value(v, f"{where}:{n}", found) for n, v in pairs
               if not isinstance(v, types.ModuleType))


def _value(v, label: str, found: _Reach) -> bool:
    """Add what the global ``v`` (read as ``label``) brings into compiled code: a
    constant's value, a function's walk, or the file of a class (or of an object's class)
    defined outside the libraries."""
    if isinstance(v, tuple) and not hasattr(v, "_fields"):
        return all(_value(x, f"{label}[{i}]", found) for i, x in enumerate(v))
    frozen = _frozen(v)
    if frozen is not None:
        found.values[label] = frozen
        return True
    if hasattr(v, "py_func") or isinstance(v, types.FunctionType):
        return _walk(v, found)
    if hasattr(v, "_defn"):  # a numba intrinsic: the function that generates its code
        return _walk(v._defn, found)
    kind = v if isinstance(v, type) else type(v)  # a class, or an instance of one
    module = sys.modules.get(getattr(kind, "__module__", ""), None)
    source = getattr(module, "__file__", None)
    if source and not _in_library(source):
        path = pathlib.Path(source).resolve()
        if path not in _ENGINE_FILES:
            found.files.add(path)
    if isinstance(v, tuple):  # a named tuple: its class's file, then its fields
        return all(_value(x, f"{label}.{f}", found) for f, x in zip(v._fields, v))
    return True


def _frozen(v) -> str | None:
    """A text that changes with a constant's value (what numba freezes), or None."""
    if v is None or isinstance(v, (bool, int, float, complex, str, bytes, enum.Enum)):
        return f"{type(v).__qualname__}:{v!r}"
    if isinstance(v, np.generic):
        return f"{v.dtype.str}:{v!r}"
    if isinstance(v, np.ndarray):
        data = hashlib.sha1(np.ascontiguousarray(v).tobytes()).hexdigest()
        return f"{v.dtype.str}{v.shape}:{data}"
    return None


def reached(functions) -> tuple | None:
    """The files behind ``functions`` and behind what they reach (outside the engine's
    files and the installed libraries), sorted, and the values of the constants they read,
    by where they are read; None when one of them has no file on disk."""
    found = _Reach()
    if not all(_walk(fn, found) for fn in functions):
        return None
    return sorted(found.files), found.values


def _file(path: pathlib.Path) -> tuple:
    """The hash of ``path``'s bytes and the code objects compiled from them.

    A function whose code is not among them was loaded before the file was last edited:
    naming its loops by the file's new bytes would save old code under the new code's
    name, so such a function is not cached.
    """
    stat = path.stat()
    key = (path, stat.st_mtime_ns, stat.st_size)
    if key not in _FILES:
        data = path.read_bytes()
        try:
            todo = [compile(data, str(path), "exec", dont_inherit=True)]
        except (SyntaxError, ValueError):  # code named after a file that is no Python
            todo = []  # (a docs page whose examples were exec'd): nothing to cache it by
        codes = []
        while todo:
            code = todo.pop()
            codes.append(code)
            todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        _FILES[key] = (hashlib.sha1(data).hexdigest(), codes)
    return _FILES[key]


def _reach_hash(policy, hooks) -> str | None:
    """The hash of what ``policy``'s hooks reach, or None when a hook has no file."""
    return reach_hash([getattr(policy, name) for name in hooks])


def reach_hash(functions) -> str | None:
    """The hash of what ``functions`` reach (the files and constants of :func:`reached`),
    or None when one of them has no file on disk."""
    found = reached(functions)
    if found is None:
        return None
    files, values = found
    digest = hashlib.sha1()
    for path in files:  # a package file by its place in the package, yours by its path
        shown = path.relative_to(_ROOT) if path.is_relative_to(_ROOT) else path
        digest.update(f"{shown}\0{_file(path)[0]}\0".encode())
    for label in sorted(values):
        digest.update(f"{label}\0{values[label]}\0".encode())
    return digest.hexdigest()[:10]


def disk_cached(policy, hooks) -> bool:
    """Whether the loops of ``policy`` may be cached: every hook in ``hooks`` (names of
    :class:`~simulator.policies.base.Policy` fields), and every compiled function it calls
    by name, is defined in a file (the package's sources or yours)."""
    return _reach_hash(policy, hooks) is not None


def suffix(policy, hooks) -> str:
    """The salt of the names of ``policy``'s loops: its name, its hooks' qualified names,
    the engine's hash and the hash of what the hooks reach, so that an entry is only loaded
    for the hooks it was compiled with, whatever name the policy was registered under."""
    where = "".join(f"{fn.__module__}.{fn.__qualname__};"
                    for fn in (_python(getattr(policy, name)) for name in hooks))
    reach = _reach_hash(policy, hooks)
    return (f"{policy.name}_{hashlib.sha1(where.encode()).hexdigest()[:6]}_{ENGINE_HASH}"
            + (f"_{reach}" if reach else ""))


def cache_root() -> pathlib.Path:
    """The folder of numba's cache for the engine's loops: ``NUMBA_CACHE_DIR`` when set,
    else ``engine/__pycache__`` (numba's default for them, beside ``engine/fast.py``)."""
    return pathlib.Path(os.environ.get("NUMBA_CACHE_DIR") or _HERE / "engine" / "__pycache__")


@contextlib.contextmanager
def _lock_file(name: str):
    """Hold an exclusive lock on ``name``'s file in the lock folder beside numba's cache;
    without one when the folder cannot be written (then each process compiles)."""
    import fcntl  # not at import: the module stays importable where there is no fcntl

    if len(name) > 120:  # a long policy name: keep the file name legal
        name = name[:80] + hashlib.sha1(name.encode()).hexdigest()[:16]
    try:
        folder = cache_root() / _LOCKS
        folder.mkdir(parents=True, exist_ok=True)
        handle = open(folder / f"{name}.lock", "a")
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def locked(dispatcher):
    """``dispatcher`` (a disk-cached loop) compiling under a lock named after it.

    numba looks on disk before it compiles, so a process that waited on the lock finds
    the entry the other saved and loads it.  numba's own compiler lock is taken first, so
    threads of one process queue there and never hold a file lock another thread waits on.
    """
    if not _has_fcntl():
        return dispatcher
    from numba.core.compiler_lock import global_compiler_lock

    compile_here = dispatcher.compile
    name = dispatcher.py_func.__qualname__

    def compile_locked(sig):
        with global_compiler_lock, _lock_file(name):
            return compile_here(sig)

    dispatcher.compile = compile_locked
    return dispatcher


def _has_fcntl() -> bool:
    try:
        import fcntl  # noqa: F401
    except ImportError:
        return False
    return True
