"""Numba flags, set in one place.

``fastmath`` stays off: reassociating float sums would let SIMD width change which of two
near-equal items is retrieved, and results must be identical across machines.  The one
exception is a maximum (``kernels._chunk_max``), which is exact in any order.

Disk caching.  numba checks a cached function only against its own source file, not
against the functions it calls in other files, so a hook cached on its own could keep
running an old ``kernels.dot``.  Hence ``njit`` does not cache by default; only the
engine's loops are cached (``cache=True``), under names salted with a hash of every source
they contain (see :mod:`simulator.engine.kernel_cache`), plus self-contained kernels that call
nothing outside their own file.  ``NUMBA_CACHE_DIR`` moves the cache.
"""

import numba

JIT = dict(cache=False, nogil=True, fastmath=False, error_model="numpy")


def njit(fn=None, **extra):
    """``numba.njit`` with the project's flags (``cache=True`` only as explained above)."""
    opts = {**JIT, **extra}
    if fn is None:
        return lambda f: numba.njit(**opts)(f)
    return numba.njit(**opts)(fn)
