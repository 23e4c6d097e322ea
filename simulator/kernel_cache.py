"""Which compiled loops numba may cache on disk, and under which names.

numba's cache checks only the file that defines a function.  The engine's loops are
copies of functions in ``engine_fast.py`` (and ``cache_slots.py``) with a policy's hooks
bound in, so their cache entries must be named after everything compiled into them: the
package sources that a loop can contain (hashed together) and the hooks.  A policy whose
hooks are defined outside those sources, one a user registers from a script or a
notebook, is never cached: no hash covers its file, so a cached loop could hold an old
version of its hooks.

>>> from simulator import policies
>>> from simulator.engine_fast import HOOKS
>>> disk_cached(policies.get("fifo"), HOOKS)
True
"""

from __future__ import annotations

import hashlib
import pathlib

_HERE = pathlib.Path(__file__).parent
# Everything a compiled loop can contain: the loop, its kernels, the flags, the random
# stream, the policies and the types of its arguments (numba's cache index pickles them,
# so a moved or changed type must change the names).  Editing the CLI or the runner keeps
# the cache.
_SOURCES = [_HERE / "engine_fast.py", _HERE / "cache_slots.py", _HERE / "kernels.py",
            _HERE / "config.py", _HERE / "fast_index.py", _HERE / "rng.py",
            _HERE / "run_arrays.py",
            *sorted((_HERE / "policies").glob("*.py")),
            *sorted((_HERE / "policies" / "parts").glob("*.py"))]
SOURCE_HASH = hashlib.sha1(b"".join(p.read_bytes() for p in _SOURCES)).hexdigest()[:10]
_HASHED = {p.resolve() for p in _SOURCES}


def _python(fn):
    return getattr(fn, "py_func", fn)  # a numba dispatcher's Python function


def disk_cached(policy, hooks) -> bool:
    """Whether the loops of ``policy`` may be cached: every hook in ``hooks`` (names of
    :class:`~simulator.policies.base.Policy` fields) is defined in a hashed source."""
    for name in hooks:
        code = getattr(_python(getattr(policy, name)), "__code__", None)
        if code is None or pathlib.Path(code.co_filename).resolve() not in _HASHED:
            return False
    return True


def suffix(policy, hooks) -> str:
    """The salt of the names of ``policy``'s loops: its name, its hooks' qualified names and
    the source hash, so that an entry is only loaded for the hooks it was compiled with,
    whatever name the policy was registered under."""
    where = "".join(f"{fn.__module__}.{fn.__qualname__};"
                    for fn in (_python(getattr(policy, name)) for name in hooks))
    return f"{policy.name}_{hashlib.sha1(where.encode()).hexdigest()[:6]}_{SOURCE_HASH}"
