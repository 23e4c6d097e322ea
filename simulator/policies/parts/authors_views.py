"""Views of the engine's cache shared by the ``*_ref`` policies (not a policy).

The SOLAR authors' synthetic runner (ysunbp/SOLAR ``synthetic_workloads/runners.py``) keeps
its cache in an insertion-ordered dict, scores cached items in that order and takes the
first minimum (``np.argmin``).  :func:`admission_order` rebuilds that order from the engine's
view, so ties follow it (``authors_thompson`` keeps the same order itself, for its draws).
Similarities are :mod:`simulator.engine.kernels`' float32 cosines; means of the top values add
them largest first, in float64.
"""

import numpy as np

from simulator.config import njit
from simulator.engine.kernels import similarities
from simulator.policies.base import admission_steps, slot_keys, slot_vectors


def scratch(capacity):
    """(slot order, float32 similarities, float64 values, float64 top-k buffer), one entry
    per slot."""
    return (np.zeros(capacity, np.int64), np.zeros(capacity, np.float32),
            np.zeros(capacity, np.float64), np.zeros(capacity, np.float64))


@njit
def admission_order(cache, out):
    """Occupied slots into ``out``, earliest admission first (then smaller key); their number."""
    slot_key, slot_adm = slot_keys(cache), admission_steps(cache)
    n = 0
    for s in range(slot_key.shape[0]):
        if slot_key[s] < 0:
            continue
        i = n
        while i > 0 and (slot_adm[out[i - 1]] > slot_adm[s] or (
                slot_adm[out[i - 1]] == slot_adm[s] and slot_key[out[i - 1]] > slot_key[s])):
            out[i] = out[i - 1]
            i -= 1
        out[i] = s
        n += 1
    return n


@njit
def sims_in_order(x, cache, order, n, sims32, out):
    """``out[i]`` = cos(x, slot ``order[i]``) as float64, for i < n."""
    similarities(x, slot_vectors(cache), slot_keys(cache).shape[0], sims32)
    for i in range(n):
        out[i] = np.float64(sims32[order[i]])


@njit
def occupied_sims(x, cache, sims32, out):
    """``out[:n]`` = cos(x, occupied slot) as float64, in slot order; returns n."""
    slot_key = slot_keys(cache)
    similarities(x, slot_vectors(cache), slot_key.shape[0], sims32)
    n = 0
    for s in range(slot_key.shape[0]):
        if slot_key[s] >= 0:
            out[n] = np.float64(sims32[s])
            n += 1
    return n


@njit
def top_mean(vals, n, k, skip, buf):
    """Mean of the ``k`` largest of ``vals[:n]`` leaving out index ``skip`` (-1: none).

    One pass keeps them sorted in ``buf`` (at least ``k`` long); they are added largest
    first.  ``k`` >= 1 and at most the number of candidates.
    """
    m = 0
    for i in range(n):
        v = vals[i]
        if i == skip or (m == k and v <= buf[k - 1]):
            continue
        j = m if m < k else k - 1
        while j > 0 and buf[j - 1] < v:
            buf[j] = buf[j - 1]
            j -= 1
        buf[j] = v
        if m < k:
            m += 1
    total = 0.0
    for j in range(k):
        total += buf[j]
    return total / k


@njit
def clip01(v):
    return min(max(v, 0.0), 1.0)
