"""Numba flags, set in one place.

``fastmath`` stays off: reassociating float sums would let SIMD width change which of two
near-equal items is retrieved, and results must be identical across machines.  Compiled code
is cached on disk (``cache=True``); ``NUMBA_CACHE_DIR`` moves the cache.
"""

import numba

JIT = dict(cache=True, nogil=True, fastmath=False, error_model="numpy")


def njit(fn=None, **extra):
    """``numba.njit`` with the project's flags."""
    opts = {**JIT, **extra}
    if fn is None:
        return lambda f: numba.njit(**opts)(f)
    return numba.njit(**opts)(fn)
