"""Which compiled loops numba may cache on disk, and under which names.

numba's cache checks only the file that defines a function.  The engine's loops are
copies of functions in ``engine/fast.py`` (and ``engine/cache_slots.py``) with a policy's
hooks bound in, so their cache entries must be named after everything compiled into them: the
package sources that a loop can contain (hashed together) and the hooks.  A policy whose
hooks are defined in your own files (a plugin, a script) is cached too, under names that
also hash the bytes of those files and of the files of the compiled functions the hooks
call, by name or as a module's attribute (``helpers.f(...)``), followed recursively: edit
any of them and the next process compiles anew.  Hooks with no source file behind them (a
notebook cell, ``exec``) are never cached, since no hash can cover them.

>>> from simulator import policies
>>> from simulator.engine.fast import HOOKS
>>> disk_cached(policies.get("fifo"), HOOKS)
True
"""

from __future__ import annotations

import hashlib
import pathlib
import types

_HERE = pathlib.Path(__file__).parent
_PACKAGE = _HERE.parent
# Everything a compiled loop can contain: the loop, its kernels, the flags, the random
# stream, the policies and the types of its arguments (numba's cache index pickles them,
# so a moved or changed type must change the names).  Editing the CLI or the runner keeps
# the cache.
_SOURCES = [_HERE / "fast.py", _HERE / "cache_slots.py", _HERE / "kernels.py",
            _PACKAGE / "config.py", _HERE / "fast_index.py", _PACKAGE / "rng.py",
            _HERE / "run_arrays.py",
            *sorted((_PACKAGE / "policies").glob("*.py")),
            *sorted((_PACKAGE / "policies" / "parts").glob("*.py"))]
SOURCE_HASH = hashlib.sha1(b"".join(p.read_bytes() for p in _SOURCES)).hexdigest()[:10]
_HASHED = {p.resolve() for p in _SOURCES}


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
    if path in _HASHED:
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
    they call, by name or as a module's attribute (recursively), sorted: what the cache
    names hash.  None when one of them has no file on disk (a notebook cell, ``exec``)."""
    found = set()
    if not all(_user_files(fn, found) for fn in functions):
        return None
    return sorted(found)


def _user_hash(policy, hooks) -> str | None:
    """The hash of the user files behind ``policy``'s hooks ('' if none), or None when a
    hook has no file to hash."""
    found = user_files([getattr(policy, name) for name in hooks])
    if found is None:
        return None
    if not found:
        return ""
    digest = hashlib.sha1()
    for path in found:
        digest.update(str(path).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:10]


def disk_cached(policy, hooks) -> bool:
    """Whether the loops of ``policy`` may be cached: every hook in ``hooks`` (names of
    :class:`~simulator.policies.base.Policy` fields), and every compiled function it calls
    by name, is defined in a file (the package's sources or yours)."""
    return _user_hash(policy, hooks) is not None


def suffix(policy, hooks) -> str:
    """The salt of the names of ``policy``'s loops: its name, its hooks' qualified names,
    the package's source hash and the hash of your files behind the hooks, so that an
    entry is only loaded for the hooks it was compiled with, whatever name the policy was
    registered under."""
    where = "".join(f"{fn.__module__}.{fn.__qualname__};"
                    for fn in (_python(getattr(policy, name)) for name in hooks))
    user = _user_hash(policy, hooks)
    return (f"{policy.name}_{hashlib.sha1(where.encode()).hexdigest()[:6]}_{SOURCE_HASH}"
            + (f"_{user}" if user else ""))
