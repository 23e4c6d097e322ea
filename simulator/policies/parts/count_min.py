"""W-TinyLFU's frequency sketch: libCacheSim's ``minimalIncrementCBF``, stored sparsely.

libCacheSim sizes the sketch for ``entries`` = the main cache's size at error 0.001:
n = ``ceil(bpe·entries)`` counters (bpe = −ln 0.001 / ln² 2; capped at 2³¹ − 1, and 2·10
when below 10) and 10 hash functions.  Cell i of an object is ``(a + i·b) mod 2³² mod n``,
with a and b the low 32 bits of XXH64 of the object id's 8 little-endian bytes under seeds
0x12345678 and 0x12344321.  An update adds 1 to all 10 cells (the minimal-increment
branch of its code is empty, so it is a plain count-min sketch), an estimate is their
minimum, and aging halves every counter.  ``entries`` is a C ``int``: a main cache of
2³¹ or more is taken modulo 2³² as a signed number (the two's complement wrap of the
compilers libCacheSim is built with), and a negative count makes n = 20.

With a byte-sized cache n is of the order of 10⁹ (libCacheSim allocates them all and the
kernel maps only the pages it touches).  Only cells that some key of the run hashes to
can ever be non-zero, so here each key's 10 cells are computed once and, when n exceeds
the cells the keys can reach, renumbered densely (``np.unique``): a counter per distinct
reachable cell, at most 10 per key.  Keys that share a cell share its counter exactly as
in the full array, so every estimate, update and halving gives the same numbers.
"""

import math

import numpy as np

from simulator.config import njit

ERROR = 0.001
BITS_PER_ENTRY = -math.log(ERROR) / 0.480453013918201  # libCacheSim's ln(2)^2
HASHES = int(math.ceil(0.693147180559945 * BITS_PER_ENTRY))  # = 10
SEEDS = (0x12345678, 0x12344321)
INT_MAX = 2**31 - 1

_PRIME = [np.uint64(p) for p in (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                                 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)]


def _rotl(x, r):
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


def xxh64_u64(values, seed):
    """XXH64 of each value's 8 little-endian bytes (one lane, no stripes), vectorised.

    Examples
    --------
    >>> int(xxh64_u64(np.array([5], np.uint64), 0x12345678)[0])
    8639530770649877703
    """
    p1, p2, p3, p4, p5 = _PRIME
    v = np.asarray(values, np.uint64)
    with np.errstate(over="ignore"):
        h = np.full(v.shape, np.uint64(seed) + p5 + np.uint64(8), np.uint64)
        h ^= _rotl(v * p2, 31) * p1
        h = _rotl(h, 27) * p1 + p4
        h ^= h >> np.uint64(33)
        h *= p2
        h ^= h >> np.uint64(29)
        h *= p3
        h ^= h >> np.uint64(32)
    return h


def width(entries):
    """Counters of libCacheSim's sketch for a main cache of size ``entries``.

    Examples
    --------
    >>> width(990), width(1), width(132875551), width(1 << 30), width(3 << 30)
    (14234, 15, 1910429870, 2147483647, 20)
    """
    entries = (int(entries) + 2**31) % 2**32 - 2**31  # a C int
    n = min(math.ceil(BITS_PER_ENTRY * entries), INT_MAX)
    return 2 * HASHES if n < HASHES else n


def build(ids, entries, sparse=None):
    """(counters, cells) of an empty sketch for the objects ``ids`` (row i of ``cells``:
    the counters of ``ids[i]``), with a main cache of size ``entries``.

    ``sparse``: renumber the reachable cells (True), keep all n counters (False), or
    renumber only when n exceeds the cells of the table (None).  Memory stays near the
    40 bytes a key of the int32 ``cells`` table: cells are computed one hash at a time
    and renumbered in chunks.
    """
    n = width(entries)
    a, b = (xxh64_u64(ids, seed) & np.uint64(0xFFFFFFFF) for seed in SEEDS)
    cells = np.empty((a.size, HASHES), np.int32)  # every cell < n <= 2**31 - 1
    for i in range(HASHES):
        cells[:, i] = ((a + np.uint64(i) * b) & np.uint64(0xFFFFFFFF)) % np.uint64(n)
    if not (n > cells.size if sparse is None else sparse):
        return np.zeros(n, np.int64), cells
    reachable = np.unique(cells)
    for start in range(0, cells.shape[0], 1 << 16):
        rows = cells[start:start + (1 << 16)]
        rows[:] = np.searchsorted(reachable, rows)
    return np.zeros(reachable.size, np.int64), cells


@njit
def estimate(counters, cells, key):
    best = counters[cells[key, 0]]
    for i in range(1, HASHES):
        v = counters[cells[key, i]]
        if v < best:
            best = v
    return best


@njit
def add(counters, cells, key):
    for i in range(HASHES):
        counters[cells[key, i]] += 1


@njit
def halve(counters):
    for i in range(counters.shape[0]):
        counters[i] >>= 1
