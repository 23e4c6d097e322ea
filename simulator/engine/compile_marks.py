"""Which policies' compiled loops are already in numba's disk cache, so a command can say
what it is about to compile ("compiling fifo, lru, … (first run only)").

numba compiles a loop at its first call and keeps no public record, before that call, of
whether a disk entry exists; so semcache keeps its own: after a loop that may be cached
(:func:`simulator.engine.kernel_cache.disk_cached`) has run, an empty file named after its cache
salt (:func:`simulator.engine.kernel_cache.suffix`), its mode and whether it is sized is written
beside numba's cache (``NUMBA_CACHE_DIR`` when set, else the package's ``__pycache__``,
numba's default for these loops).  A mark only decides a message: a stale one (the cache
wiped since) means a compilation goes unannounced, a missing one that a load is announced.
"""

from __future__ import annotations

import os
import pathlib

from simulator.engine import kernel_cache
from simulator.engine.fast import built_name, hooks_of

_PACKAGE_CACHE = pathlib.Path(__file__).parent / "__pycache__"


def _named(policy, sized: bool) -> tuple:
    """``(disk_cached, suffix)`` of ``policy``'s loops: the name they were built under, once
    built (every run asks, in :func:`remember`), else walked from the hooks."""
    built = built_name(policy, sized)
    if built is None:
        hooks = hooks_of(policy)
        built = kernel_cache.disk_cached(policy, hooks), kernel_cache.suffix(policy, hooks)
    return built


def _mark(policy, mode: str, sized: bool) -> pathlib.Path | None:
    cached, salt = _named(policy, sized)
    if not cached:
        return None
    root = pathlib.Path(os.environ.get("NUMBA_CACHE_DIR") or _PACKAGE_CACHE)
    name = f"{salt}-{mode}{'-sized' if sized else ''}"
    return root / "semcache-compiled" / name


def cacheable(policy, sized: bool = False) -> bool:
    """Whether ``policy``'s loops may be disk-cached
    (:func:`~simulator.engine.kernel_cache.disk_cached`), read from the loops once built."""
    return _named(policy, sized)[0]


def to_compile(policies, mode: str, sized: bool = False) -> list:
    """The names of those of ``policies`` (Policy objects) whose loops for ``mode`` have
    not run from this cache before: a run compiles them first."""
    return [p.name for p in policies if (m := _mark(p, mode, sized)) is not None
            and not m.exists()]


def remember(policy, mode: str, sized: bool = False) -> None:
    """Note that ``policy``'s loops for ``mode`` have run (and so are in the disk cache).
    A cache folder that cannot be written is left as it is: the mark only decides a
    message."""
    mark = _mark(policy, mode, sized)
    if mark is None or mark.exists():
        return
    try:
        mark.parent.mkdir(parents=True, exist_ok=True)
        mark.touch()
    except OSError:
        pass
