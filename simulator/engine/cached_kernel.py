"""Compiled functions called from Python, kept in numba's disk cache under salted names.

numba checks a cached function only against its own file, so a function that calls
compiled code in other files (the exact optimum's dynamic programmes call
``kernels.dot`` and ``model.set_loss``) cannot simply be ``cache=True``: an edit to a
callee would keep running the old code.  :func:`cached_kernel` caches such a function the
way the engine caches its loops (:mod:`simulator.engine.kernel_cache`): a copy of it,
named after the engine's hash and the hash of everything it reaches (files and frozen
constants), compiled under a lock file so that one process compiles it and the others
load it.  Without that, every process that called it (each test worker, each
``semcache`` command) compiled it again.

The name is worked out on the first call, not at import: hashing the files a function
reaches costs milliseconds, and most imports never call it.  A function whose files have
no source on disk, or were edited since they were loaded, is compiled as plain ``njit``
(never cached), as the engine does for such hooks.

Only the function called from Python is wrapped: the compiled functions it calls stay
plain ``njit``, and their code is saved inside its cache entry.  A compiled caller cannot
call the wrapper; call the plain function there.
"""

from __future__ import annotations

import functools
import types

import numba

from simulator.config import JIT
from simulator.engine import kernel_cache


class CachedKernel:
    """``fn`` compiled with the project's flags, disk-cached under a salted name.

    Parameters
    ----------
    fn : function
        A plain Python function numba can compile (arrays and scalars in and out).

    Examples
    --------
    >>> import numpy as np
    >>> from simulator.engine.cached_kernel import cached_kernel
    >>> total = cached_kernel(lambda a: a.sum())  # no file to hash: compiled, not cached
    >>> float(total(np.arange(4.0)))
    6.0
    >>> total.cache_name is None
    True
    """

    def __init__(self, fn):
        self.py_func = fn  # kernel_cache walks what this calls, as for a dispatcher
        self._compiled = None
        self.cache_name = None  # the salted name, once the first call has built it
        functools.update_wrapper(self, fn)

    def __call__(self, *args):
        compiled = self._compiled or self._build()
        return compiled(*args)

    def _build(self):
        fn = self.py_func
        reach = kernel_cache.reach_hash([fn])
        if reach is None:
            self._compiled = numba.njit(**JIT)(fn)
            return self._compiled
        self.cache_name = name = f"{fn.__name__}_{kernel_cache.ENGINE_HASH}_{reach}"
        copy = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__,
                                  fn.__closure__)
        copy.__qualname__, copy.__module__ = name, fn.__module__
        self._compiled = kernel_cache.locked(numba.njit(copy, **{**JIT, "cache": True}))
        return self._compiled


def cached_kernel(fn) -> CachedKernel:
    """Decorator: ``fn`` as a :class:`CachedKernel` (compiled and disk-cached under a name
    salted with everything it reaches, on its first call)."""
    return CachedKernel(fn)
