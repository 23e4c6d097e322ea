"""The limits on sizes that keep every tally of a run within int64 (docs/model.md §1.8).

A run adds sizes up: the total cached (``max_occupancy``), the size requested and hit
(``requested_size``, ``hit_size``), and the queue shares and ghost lists of the policies
that measure them in sizes.  int64 arithmetic wraps silently, so the sizes are bounded
where they come in (the readers, :class:`~simulator.trace.Trace` and
:class:`~simulator.trace.PagingTrace`, a streamed run's chunks) rather than checked in the
loops:

* a size is an integer in [1, :data:`MAX_SIZE`] = [1, 2⁵³] (exact as a float, as every
  integer option is);
* the sizes of one trace add up to at most :data:`MAX_TOTAL` = 2⁶¹, so the total
  cached, which never exceeds it, plus one arrival stays below the 2⁶² that stands for
  "no budget", and every sum of sizes a run keeps fits int64 with room to spare;
* a budget is at most 2⁵³ (:data:`simulator.run_options.MAX_BUDGET`), so a policy's share
  of it times a ratio of at most 1000 fits as well.

Examples
--------
>>> import numpy as np
>>> total_size(np.array([3, 4], np.int64), "item_sizes")
7
>>> total_size(np.array([MAX_SIZE, MAX_SIZE]), "item_sizes") == 2 * MAX_SIZE
True
"""

from __future__ import annotations

import numpy as np

from simulator.errors import InputError

MAX_SIZE = 1 << 53
MAX_TOTAL = 1 << 61


def total_size(sizes: np.ndarray, name: str, before: int = 0) -> int:
    """The total of ``sizes`` (int64, each already >= 1) plus ``before``, checked.

    Raises InputError naming ``name`` when a size exceeds :data:`MAX_SIZE` or the total
    exceeds :data:`MAX_TOTAL`.  The sum is exact: a float sum first bounds it, and only
    a total known to be far below 2⁶³ is summed in int64.
    """
    if sizes.size == 0:
        return before
    largest = int(sizes.max())
    if largest > MAX_SIZE:
        at = int(np.argmax(sizes > MAX_SIZE))
        raise InputError(f"{name}: size {largest} at index {at} is larger than 2**53; sizes "
                         "are integers in 1 .. 2**53 (docs/model.md §1.8)")
    rough = float(sizes.sum(dtype=np.float64)) + before
    total = int(sizes.sum()) + before if rough < 2.0 * MAX_TOTAL else None
    if total is None or total > MAX_TOTAL:
        raise InputError(f"{name}: the sizes add up to about {rough:.3g}, more than 2**61; a "
                         "trace's sizes total at most 2**61 (docs/model.md §1.8): use a "
                         "larger size unit")
    return total
