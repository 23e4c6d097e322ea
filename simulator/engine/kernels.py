"""Compiled building blocks of one step of docs/model.md §1: similarity, retrieval and scoring.

Both engines call these, so retrieval and scoring are written once.  Each has a plain
Python twin in ``tests/helpers/naive.py`` that it is tested against.

Similarity is the float32 sum, in index order, of the float32 products of coordinates
(IEEE single precision, no fused multiply-add, no fastmath), so it is bit-identical on
every machine and in the reference implementation.  Normalisation on load uses a float64
norm.

Nothing here calls code outside this file, so each function is cached on disk on its own
(numba checks a cached function against its own file: ``simulator/config.py``): a process
that compiles a policy's loop loads them rather than compiling them again (about 2.5 s).
"""

import numpy as np

from simulator.config import njit

QUALITY_CODES = {"hit": 0, "precision": 1, "similarity": 2}
# Steps whose queries are scored together by block_start (its kernels are written for four).
BLOCK = 4


@njit(cache=True)
def dot(a, b):
    """Cosine of two unit float32 vectors: float32 products summed in index order."""
    acc = np.float32(0.0)
    for j in range(a.shape[0]):
        acc += a[j] * b[j]
    return acc


@njit(cache=True)
def similarities(q, vec_t, n, out):
    """``out[s] = dot(q, vec_t[:, s])`` for the first ``n`` columns, same order as :func:`dot`.

    Columns are items (the matrix is stored transposed), so the inner loop runs across
    items and vectorises while each item's sum keeps the index order; four coordinates
    are added per pass over ``out`` (still one after another) to spare loads and stores.
    """
    d = vec_t.shape[0]
    for s in range(n):
        out[s] = 0.0
    m = d - d % 4
    for j in range(0, m, 4):
        q0, q1, q2, q3 = q[j], q[j + 1], q[j + 2], q[j + 3]
        r0, r1, r2, r3 = vec_t[j], vec_t[j + 1], vec_t[j + 2], vec_t[j + 3]
        for s in range(n):
            out[s] = (((out[s] + q0 * r0[s]) + q1 * r1[s]) + q2 * r2[s]) + q3 * r3[s]
    for j in range(m, d):
        qj = q[j]
        row = vec_t[j]
        for s in range(n):
            out[s] += qj * row[s]


@njit(cache=True)
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


@njit(cache=True)
def _ranks_before(s, sim, o, osim, slot_key, slot_adm):
    """Does slot ``s`` (similarity ``sim``) rank before slot ``o``?  (docs/model.md §1.2)"""
    if sim != osim:
        return sim > osim
    if slot_adm[s] != slot_adm[o]:
        return slot_adm[s] < slot_adm[o]
    return slot_key[s] < slot_key[o]


# A maximum is exact in any order and similarities are never NaN, so these flags (which let
# the reduction vectorise) change no result.
@njit(cache=True, fastmath={"nnan", "nsz", "reassoc"})
def _chunk_max(sims, lo, hi):
    m = np.float32(-np.inf)
    for s in range(lo, hi):
        m = max(m, sims[s])
    return m


@njit(cache=True)
def kth_lower_bound(sims, n, k):
    """A value that at least ``k`` of ``sims[:n]`` reach (so the k-th largest is >= it).

    The least of the maxima of ``k`` disjoint chunks: those maxima are ``k`` different
    entries.  ``-inf`` when ``n < k``.
    """
    if n < k:
        return np.float32(-np.inf)
    t = np.float32(np.inf)
    for c in range(k):
        t = min(t, _chunk_max(sims, c * n // k, (c + 1) * n // k))
    return t


@njit(cache=True)
def similarities4(qs, vec_t, n, out):
    """``out[b, s] = dot(qs[b], vec_t[:, s])`` for four queries ``qs[0..3]`` at once.

    The same sums as :func:`similarities`, term for term, so the results are bit-equal;
    each loaded coordinate row serves four queries, which halves the loads per product
    (the one-query scan is load-bound).  The fast engine retrieves four steps at a time
    this way (:func:`simulator.engine.fast._steps`).
    """
    d = vec_t.shape[0]
    oa, ob, oc, od = out[0], out[1], out[2], out[3]
    qa, qb, qc, qd = qs[0], qs[1], qs[2], qs[3]
    for s in range(n):
        oa[s] = ob[s] = oc[s] = od[s] = 0.0
    m = d - d % 4
    for j in range(0, m, 4):
        r0, r1, r2, r3 = vec_t[j], vec_t[j + 1], vec_t[j + 2], vec_t[j + 3]
        a0, a1, a2, a3 = qa[j], qa[j + 1], qa[j + 2], qa[j + 3]
        b0, b1, b2, b3 = qb[j], qb[j + 1], qb[j + 2], qb[j + 3]
        c0, c1, c2, c3 = qc[j], qc[j + 1], qc[j + 2], qc[j + 3]
        d0, d1, d2, d3 = qd[j], qd[j + 1], qd[j + 2], qd[j + 3]
        for s in range(n):
            v0, v1, v2, v3 = r0[s], r1[s], r2[s], r3[s]
            oa[s] = (((oa[s] + a0 * v0) + a1 * v1) + a2 * v2) + a3 * v3
            ob[s] = (((ob[s] + b0 * v0) + b1 * v1) + b2 * v2) + b3 * v3
            oc[s] = (((oc[s] + c0 * v0) + c1 * v1) + c2 * v2) + c3 * v3
            od[s] = (((od[s] + d0 * v0) + d1 * v1) + d2 * v2) + d3 * v3
    for j in range(m, d):
        row = vec_t[j]
        a0, b0, c0, d0 = qa[j], qb[j], qc[j], qd[j]
        for s in range(n):
            v0 = row[s]
            oa[s] += a0 * v0
            ob[s] += b0 * v0
            oc[s] += c0 * v0
            od[s] += d0 * v0


@njit(cache=True)
def block_start(queries, items, t, slot_vec, n, sims, cross):
    """Similarities of the queries of steps ``t .. t+3`` (a block), computed together.

    ``sims[b, s]`` is query t+b against slot s as the cache is now (slots below ``n``);
    ``cross[b, c]`` (c < b) is query t+b against item e_{t+c}, the vector that a slot
    holds if step t+c admitted it.  Each is the very sum that one-query retrieval
    computes, so blocks change no result; they load each cached coordinate once per four
    queries instead of once per query.
    """
    similarities4(queries[t:t + BLOCK], slot_vec, n, sims)
    # the six later-query/earlier-item pairs: dot(q, e) each, as six interleaved chains
    e0, e1, e2 = items[t], items[t + 1], items[t + 2]
    q1, q2, q3 = queries[t + 1], queries[t + 2], queries[t + 3]
    c10 = c20 = c21 = c30 = c31 = c32 = np.float32(0.0)
    for j in range(e0.shape[0]):
        c10 += q1[j] * e0[j]
        c20 += q2[j] * e0[j]
        c21 += q2[j] * e1[j]
        c30 += q3[j] * e0[j]
        c31 += q3[j] * e1[j]
        c32 += q3[j] * e2[j]
    cross[1, 0], cross[2, 0], cross[2, 1] = c10, c20, c21
    cross[3, 0], cross[3, 1], cross[3, 2] = c30, c31, c32


@njit(cache=True)
def block_row(b, tb, sims, cross, out_adm, key_slot):
    """Row b of the block that started at step ``tb``, patched for the slots that steps
    ``tb .. tb+b-1`` filled: a key they admitted that is still cached holds e_{its step}.

    A key admitted twice in the block holds its later vector, which is patched last.
    """
    row = sims[b]
    for c in range(b):
        key = out_adm[tb + c]
        if key >= 0 and key_slot[key] >= 0:
            row[key_slot[key]] = cross[b, c]
    return row


@njit(cache=True)
def retrieve(q, vec_t, slot_key, slot_adm, n_slots, k, sims, out_slot, out_sim, dense):
    """Top-k occupied slots by cosine to ``q``; ties: earlier admission, then smaller key.

    ``vec_t`` is [d, slots]; ``sims`` is float32 scratch of length >= ``n_slots``.  Writes
    the chosen slots (best first) into ``out_slot`` and their similarities into
    ``out_sim``; returns how many were found (``min(k, occupied)``).  ``dense``: every slot
    below ``n_slots`` is occupied (see :func:`top_k`).
    """
    similarities(q, vec_t, n_slots, sims)
    return top_k(sims, slot_key, slot_adm, n_slots, k, out_slot, out_sim, dense)


@njit(cache=True)
def top_k(sims, slot_key, slot_adm, n_slots, k, out_slot, out_sim, dense):
    """The selection half of :func:`retrieve`, given the similarities ``sims[:n_slots]``.

    ``dense``: every slot below ``n_slots`` is occupied, so the scan may start from
    :func:`kth_lower_bound` (it then skips, without a branch mispredicted per new leader,
    all that cannot make the top k; the result is the same).
    """
    n = 0
    # k-th best so far once k are found; with no holes, a bound that k entries reach
    threshold = kth_lower_bound(sims, n_slots, k) if dense else np.float32(-np.inf)
    for s in range(n_slots):
        sim = sims[s]
        if sim < threshold or (not dense and slot_key[s] < 0):
            continue  # the common case, kept to predictable tests
        sim64 = np.float64(sim)
        if n == k and not _ranks_before(s, sim64, out_slot[k - 1], out_sim[k - 1],
                                        slot_key, slot_adm):
            continue
        pos = n if n < k else k - 1  # insertion sort into the short list
        while pos > 0 and _ranks_before(s, sim64, out_slot[pos - 1], out_sim[pos - 1],
                                        slot_key, slot_adm):
            out_slot[pos] = out_slot[pos - 1]
            out_sim[pos] = out_sim[pos - 1]
            pos -= 1
        out_slot[pos] = s
        out_sim[pos] = sim64
        if n < k:
            n += 1
        if n == k:
            threshold = max(threshold, np.float32(out_sim[k - 1]))
    return n


@njit(cache=True)
def is_relevant(key, topic, a_t, has_ev, ev_indices, ev_lo, ev_hi):
    """Relevant iff the topic equals a_t >= 0, or the key is in the step's evidence
    (docs/model.md §1.3)."""
    if a_t >= 0 and topic == a_t:
        return True
    if has_ev:
        for j in range(ev_lo, ev_hi):
            if ev_indices[j] == key:
                return True
    return False


@njit(cache=True)
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
