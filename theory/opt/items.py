"""Exact OPT by dynamic programming over item subsets (docs/model.md §4).

A state is the cache S_t, a set of at most K arrival indices (see :mod:`theory.opt.model`).
With g_t(S) = f_t(S) + ℓ_t(S), the cost of reaching S and answering query t with it,

    f_{t+1}(S') = min( g_t(S'),  λ + min_{S ⊇ S' \\ {e_t}} g_t(S) ),

because S' is reachable from S iff S' ⊆ S ∪ {e_t}, and any change costs the same λ however
many items move.  (Including S = S' in the second term is harmless: it costs g_t(S') + λ.)
Deletions are therefore always available, which top-k quality needs: it is not monotone in
the cache (a similar but irrelevant item can push a relevant one out of the top k).  The
inner minimum is a superset-minimum H_t(A) = min_{S ⊇ A} g_t(S), computed by pushing each
g_t(S) into all 2^|S| subsets of S.  When e_t's key is already cached (a re-streamed key)
nothing may be admitted (docs/model.md §6), so admissions read a second superset-minimum over the
states that do not hold that key.

Budget (docs/model.md §1.8).  With item sizes s_i and a budget B, a cache is feasible only
if Σ_{i∈S} s_i <= B as well as |S| <= K.  The recursion is unchanged: an infeasible S gets
g_t(S) = ∞, so it is never pushed into the superset minima (no feasible S' reads it as a
predecessor) and never ends the schedule.  Reachability needs no further care, since
S' ⊆ S ∪ {e_t} allows any number of evictions in one step (still one change, one λ), and
an arrival larger than B is in no feasible set, so it is never cached.  The DP is then
exact for the budgeted problem; its enumeration is the same (every set of at most K
arrivals), so the caller passes the most items the budget can hold as K.

Sets are indexed by their colex rank Σ_i C(c_i, i + 1) within their size block.  A set's
colex rank does not depend on the size of the universe, so the arrays are allocated once
and step t simply uses the prefix of ranks over arrivals {0 … t-1}.

Size: step t has Σ_{j<=K} C(t, j) states; the work is about 2^K times the sum over t and
the back-pointers (int32) take 4 bytes per state-step.  :func:`state_steps` gives the sum;
:mod:`theory.opt` refuses instances above its limit.
"""

from __future__ import annotations

from math import comb

import numpy as np

from simulator.config import njit
from simulator.engine.cached_kernel import cached_kernel
from theory.opt.model import MissModel, set_loss


def state_steps(T: int, K: int) -> int:
    """Σ_t Σ_{j<=K} C(t + 1, j): the back-pointer entries of a T-step, capacity-K run."""
    return sum(comb(t + 1, j) for t in range(T) for j in range(min(K, t + 1) + 1))


def _tables(T, K):
    C = np.zeros((T + 2, K + 2), np.int64)
    for a in range(T + 2):
        for b in range(K + 2):
            C[a, b] = comb(a, b)
    off = np.zeros(K + 2, np.int64)
    for j in range(1, K + 2):
        off[j] = off[j - 1] + C[T, j - 1]
    return C, off


@njit
def _subset_rank(c, mask, C, off):
    r = 0
    m = 0
    for i in range(c.shape[0]):
        if mask >> i & 1:
            m += 1
            r += C[c[i], m]
    return off[m] + r


@njit
def _next_colex(c, j):
    """Advance combination ``c[:j]`` to its colex successor (caller bounds the count)."""
    i = 0
    while i < j - 1 and c[i] + 1 == c[i + 1]:
        i += 1
    c[i] += 1
    for m in range(i):
        c[m] = m


@cached_kernel
def _dp(T, K, lam, sim, rel, w, k, qcode, keys, restream, C, off, back, back_off, sizes,
        budget, budgeted):
    """Forward DP; returns (optimal cost, global rank of the best S_{T-1}).

    ``budgeted``: sets whose ``sizes`` total more than ``budget`` are infeasible."""
    N = off[K + 1]
    f = np.full(N, np.inf)
    g = np.full(N, np.inf)
    H = np.full(N, np.inf)
    Ha = np.full(N, -1, np.int64)
    Hn = np.full(N, np.inf)
    Hna = np.full(N, -1, np.int64)
    f[0] = 0.0  # the empty cache
    c = np.zeros(K, np.int64)
    for t in range(T):
        kmax = min(K, t)
        two = restream[t]
        # g_t and a reset of the superset minima over the states of step t
        for j in range(kmax + 1):
            for m in range(j):
                c[m] = m
            for idx in range(C[t, j]):
                r = off[j] + idx
                H[r] = np.inf
                Hn[r] = np.inf
                fits = True
                if budgeted and f[r] < np.inf:
                    used = 0
                    for m in range(j):
                        used += sizes[c[m]]
                    fits = used <= budget
                if f[r] < np.inf and fits:
                    g[r] = f[r] + set_loss(t, c, j, sim, rel, w, k, qcode)
                else:
                    g[r] = np.inf
                if j > 0 and idx + 1 < C[t, j]:
                    _next_colex(c, j)
        if t == T - 1:
            break
        # push every finite g_t(S) into all subsets of S
        for j in range(kmax + 1):
            for m in range(j):
                c[m] = m
            for idx in range(C[t, j]):
                r = off[j] + idx
                v = g[r]
                if v < np.inf:
                    holds_key = False
                    if two:
                        for m in range(j):
                            holds_key |= keys[c[m]] == keys[t]
                    cj = c[:j]
                    for mask in range(1 << j):
                        a = _subset_rank(cj, mask, C, off)
                        if v < H[a]:
                            H[a] = v
                            Ha[a] = r
                        if two and not holds_key and v < Hn[a]:
                            Hn[a] = v
                            Hna[a] = r
                if j > 0 and idx + 1 < C[t, j]:
                    _next_colex(c, j)
        Hx, Hxa = (Hn, Hna) if two else (H, Ha)
        # f_{t+1}: states over arrivals {0 … t}; local layout per size block
        base = back_off[t]
        loc = 0
        for j in range(min(K, t + 1) + 1):
            for idx in range(C[t, j]):  # S' without e_t: same rank as at step t
                r = off[j] + idx
                alt = lam + H[r]
                if g[r] <= alt:
                    f[r] = g[r]
                    back[base + loc + idx] = r
                else:
                    f[r] = alt
                    back[base + loc + idx] = Ha[r]
            if j > 0:  # S' = A ∪ {t}: colex rank of A plus C(t, j)
                for idx in range(C[t, j - 1]):
                    ra = off[j - 1] + idx
                    r = off[j] + C[t, j] + idx
                    f[r] = lam + Hx[ra]
                    back[base + loc + C[t, j] + idx] = Hxa[ra]
            loc += C[t + 1, j]
    best = np.argmin(g)  # ranks not of step T-1 still hold inf in g  # the first minimum, as before
    return g[best], best


def _unrank(r, C, off, K):
    j = 0
    while j < K and r >= off[j + 1]:
        j += 1
    rem = int(r - off[j])
    out = []
    for i in range(j, 0, -1):
        x = i - 1
        while C[x + 1, i] <= rem:
            x += 1
        out.append(x)
        rem -= int(C[x, i])
    return frozenset(out)


def _local(r, C, off, t, K):
    """Position of global rank ``r`` in step t's back-pointer block (universe {0 … t})."""
    j = 0
    while j < K and r >= off[j + 1]:
        j += 1
    return int(sum(C[t + 1, i] for i in range(j)) + r - off[j])


def solve(model: MissModel, capacity: int, switch_cost: float, sizes=None,
          budget: int | None = None):
    """Exact OPT over item subsets: ``(cost, sets)`` with ``sets[t]`` = S_t, t = 0 … T.

    Parameters
    ----------
    model : MissModel
        From :func:`theory.opt.model.build_model`.
    capacity : int
        K >= 1.
    switch_cost : float
        λ >= 0.
    sizes : array of int, optional
        s_i per arrival (the trace's ``item_sizes``); needed with ``budget``.
    budget : int, optional
        B: only caches with Σ s_i <= B are feasible (module docstring).  None: no budget.

    Returns
    -------
    cost : float
        Σ ℓ_t + λ·N of an optimal schedule.
    sets : list of frozenset
        The optimal caches as arrival indices; S_T = S_{T-1} (a last change gains nothing).
    """
    T = model.w.shape[0]
    K = max(1, min(int(capacity), T))
    C, off = _tables(T, K)
    block = np.array([sum(comb(t + 1, j) for j in range(min(K, t + 1) + 1))
                      for t in range(T)], np.int64)
    back_off = np.zeros(T + 1, np.int64)
    back_off[1:] = np.cumsum(block)
    back = np.full(max(1, int(back_off[-1])), -1, np.int32 if off[K + 1] < 2**31 else np.int64)
    keys = model.keys
    seen: set = set()
    restream = np.zeros(T, np.bool_)
    for t in range(T):
        restream[t] = keys[t] in seen
        seen.add(int(keys[t]))
    budgeted = budget is not None
    sizes = np.ones(T, np.int64) if sizes is None else np.asarray(sizes, np.int64)
    cost, best = _dp(T, K, float(switch_cost), model.sim, model.rel, model.w, model.top_k,
                     model.qcode, keys, restream, C, off, back, back_off, sizes,
                     np.int64(budget if budgeted else 0), budgeted)
    sets = [None] * (T + 1)
    r = int(best)
    sets[T - 1] = sets[T] = _unrank(r, C, off, K)
    for t in range(T - 2, -1, -1):
        r = int(back[back_off[t] + _local(r, C, off, t, K)])
        sets[t] = _unrank(r, C, off, K)
    return float(cost), sets
