"""``paging``: K + 1 pages, each request the smallest page the target does not hold.

The target misses every request, while Belady's MIN misses at most once per K requests
after the first K + 1, so the ratio to Belady is at least K − o(1) for every target.  LRU
and FIFO, which are K-competitive (Sleator–Tarjan), stay below K + O(1/T), so their ratio
tends to K: the instance of "classical LRU has competitive ratio K in paging mode".
(Belady always admits; OPT that may skip admissions can be lower, see
:mod:`theory.adversary_ratio`.)
"""

import numpy as np

from workloads.adversaries.builder import Adversary, Step


def _start(params: dict, rng):
    pages = min(params["capacity"] + 1, params["steps"])

    def choose(view):
        held = np.zeros(pages + 1, np.bool_)
        held[view.cached_keys] = True
        return Step(request=int(np.argmin(held)))

    return choose, {}


ADVERSARY = Adversary(name="paging", summary="the smallest page the target lacks",
                      mode="paging", start=_start,
                      pages=lambda p: min(p["capacity"] + 1, p["steps"]))
