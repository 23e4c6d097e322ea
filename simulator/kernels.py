"""Compiled building blocks of one step of SPEC §1: similarity, retrieval and scoring.

Both engines call these, so retrieval and scoring are written once.  Each has a plain
Python twin in ``tests/naive.py`` that it is tested against.

Similarity is the float32 sum, in index order, of the float32 products of coordinates
(IEEE single precision, no fused multiply-add, no fastmath), so it is bit-identical on
every machine and in the reference implementation.  Normalisation on load uses a float64
norm.
"""

import numpy as np

from simulator.config import njit

QUALITY_CODES = {"hit": 0, "precision": 1, "similarity": 2}


@njit
def dot(a, b):
    """Cosine of two unit float32 vectors: float32 products summed in index order."""
    acc = np.float32(0.0)
    for j in range(a.shape[0]):
        acc += a[j] * b[j]
    return acc


@njit
def similarities(q, vec_t, n, out):
    """``out[s] = dot(q, vec_t[:, s])`` for the first ``n`` columns, same order as :func:`dot`.

    Columns are items (the matrix is stored transposed), so the inner loop runs across
    items and vectorises while each item's sum keeps the index order.
    """
    for s in range(n):
        out[s] = 0.0
    for j in range(vec_t.shape[0]):
        qj = q[j]
        row = vec_t[j]
        for s in range(n):
            out[s] += qj * row[s]


@njit
def _normalize_rows(x, out):
    for i in range(x.shape[0]):
        acc = 0.0
        for j in range(x.shape[1]):
            acc += np.float64(x[i, j]) * np.float64(x[i, j])
        n = np.sqrt(acc)
        if abs(n - 1.0) <= 1e-6:
            n = 1.0  # already unit up to float32 rounding: keep it, so loading is idempotent
        for j in range(x.shape[1]):
            out[i, j] = np.float32(np.float64(x[i, j]) / n)


def normalize_rows(x):
    """L2-normalise each row (float64 norm in index order, float32 result).

    Rows whose norm is already within 1e-6 of 1 are left as they are, so normalising a
    saved trace again changes nothing.

    Examples
    --------
    >>> import numpy as np
    >>> normalize_rows(np.array([[3.0, 4.0]], dtype=np.float32)).tolist()
    [[0.6000000238418579, 0.800000011920929]]
    """
    x = np.ascontiguousarray(x, dtype=np.float32)
    out = np.empty_like(x)
    _normalize_rows(x, out)
    return out


@njit
def retrieve(q, vec_t, slot_key, slot_adm, n_slots, k, sims, out_slot, out_sim):
    """Top-k occupied slots by cosine to ``q``; ties: earlier admission, then smaller key.

    ``vec_t`` is [d, slots]; ``sims`` is float32 scratch of length >= ``n_slots``.  Writes the chosen
    slots (best first) into ``out_slot`` and their similarities into ``out_sim``; returns
    how many were found (``min(k, occupied)``).
    """
    similarities(q, vec_t, n_slots, sims)
    n = 0
    for s in range(n_slots):
        if slot_key[s] < 0:
            continue
        sim = np.float64(sims[s])
        if n == k:  # quick reject against the current k-th best
            o = out_slot[k - 1]
            if sim < out_sim[k - 1] or (sim == out_sim[k - 1] and (
                    slot_adm[s] > slot_adm[o] or (slot_adm[s] == slot_adm[o] and slot_key[s] > slot_key[o]))):
                continue
        pos = n
        while pos > 0:
            o = out_slot[pos - 1]
            osim = out_sim[pos - 1]
            better = sim > osim or (sim == osim and (
                slot_adm[s] < slot_adm[o] or (slot_adm[s] == slot_adm[o] and slot_key[s] < slot_key[o])))
            if not better:
                break
            pos -= 1
        last = n if n < k else k - 1
        for j in range(last, pos, -1):
            out_slot[j] = out_slot[j - 1]
            out_sim[j] = out_sim[j - 1]
        out_slot[pos] = s
        out_sim[pos] = sim
        if n < k:
            n += 1
    return n


@njit
def is_relevant(key, topic, a_t, has_ev, ev_indices, ev_lo, ev_hi):
    """SPEC §1.3: relevant iff the topic equals a_t >= 0, or the key is in the step's evidence."""
    if a_t >= 0 and topic == a_t:
        return True
    if has_ev:
        for j in range(ev_lo, ev_hi):
            if ev_indices[j] == key:
                return True
    return False


@njit
def quality_of(n_rel, n_ret, k, top_sim, quality_code):
    """(hit, precision, quality) of one step from its retrieval outcome."""
    hit = 1 if n_rel > 0 else 0
    precision = n_rel / k
    if quality_code == 0:
        q = float(hit)
    elif quality_code == 1:
        q = precision
    else:
        q = 0.0
        if n_ret > 0:
            q = min(max(top_sim, 0.0), 1.0)
    return hit, precision, q
