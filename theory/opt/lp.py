"""LP relaxations of OPT (docs/model.md §4) and lower bounds certified from any dual vector.

Certificate (weak duality).  For an LP  min cᵀx  s.t.  A_ub x <= b_ub,  A_eq x = b_eq,
l <= x <= u  (all bounds finite), every y_ub <= 0 and every y_eq give

    L(y) = b_ubᵀy_ub + b_eqᵀy_eq + Σ_j min(r_j l_j, r_j u_j),   r = c − A_ubᵀy_ub − A_eqᵀy_eq,

since for a feasible x, cᵀx = rᵀx + y_ubᵀA_ub x + y_eqᵀA_eq x with rᵀx >= Σ_j min(r_j l_j,
r_j u_j), y_ubᵀA_ub x >= y_ubᵀb_ub and A_eq x = b_eq.  Any y is valid, so a solver's
inaccurate duals only loosen the bound; its primal objective is never used.

Rounding.  With u = 2⁻⁵³ and γ_n = n·u / (1 − n·u) (Higham, Thm 3.1), the float64 value of
L(y) is within 4·γ_n·S of it, n exceeding the number of summed terms and every column's
nonzeros plus 2, S = Σ|b_i y_i| + Σ_j M_j·(|c_j| + (|A|ᵀ|y|)_j), M_j = max(|l_j|, |u_j|):
r_j is a sum of at most n products (error γ_n·a_j, a_j the bracket), min(r l_j, r u_j) is
M_j-Lipschitz in r, and one more product and the outer sum each add at most γ_n times
their absolute terms; the factor 4 > 3 covers second-order terms, the rounding of S, and
the LP data being float64 roundings of the model's numbers.  :func:`certify` subtracts it.

Arrival relaxation (:func:`arrival_lp`, any quality).  x_{i,t} ∈ [0, 1]: arrival i is in
S_t, for i < t <= L_i, L_i the last weighted step where i can lower the loss (dropping i
after L_i is free here, which only relaxes).  x_{i,t+1} <= x_{i,t} (only the arrival ever
enters); Σ_i x_{i,t} <= K; x_{j,j+1} + Σ_{i<j, same key} x_{i,j} <= 1 (a re-arrival of a
cached key admits nothing); z_t ∈ [0, 1] with z_t >= x_{t,t+1} and z_t >= x_{i,t} −
x_{i,t+1} (a step that admits or evicts is one modification); m_t ∈ [0, w_t] with
m_t >= w_t(1 − Σ_rel x_{i,t}) (``hit``: R_t ⊆ S_t), m_t >= w_t(1 − Σ_rel x_{i,t}/k)
(``precision``), and for ``similarity`` m_t >= w_t(1 − f_t v_t − Σ_i c_{t,i} u_{t,i}),
u_{t,i} <= x_{i,t}, v_t + Σ_i u_{t,i} <= 1, c_{t,i} the clipped cosine of the kept pairs
(the most similar arrivals) and f_t the largest one left out.  Objective Σ m_t + λ Σ z_t.
Validity for ``similarity``: quality_t = max_{i∈S_t} c_{t,i} (the most similar cached item
is retrieved); set u = 1 on that item if kept, else v_t = 1 (then quality_t <= f_t).  This
is the threshold family m_t >= w_t[(1 − θ) − Σ_{c_i > θ}(c_i − θ)x_i], θ >= f_t (true at
integral x: if quality_t <= θ the right side is <= 1 − θ <= 1 − quality_t, else the best
item alone gives quality_t − θ), because by LP duality max{f v + Σ c u : u <= x, v + Σ u
<= 1} = min_{θ >= f} θ + Σ_i x_i (c_i − θ)⁺, with O(pairs) nonzeros instead of
O(pairs · thresholds).

Budget (docs/model.md §1.8, :mod:`theory.opt.sized`).  With sizes s_i and a budget B the
arrival relaxation adds the knapsack rows Σ_i s_i x_{i,t} <= B (on the steps where the
variables' sizes could exceed B) and drops the arrivals with s_i > B, which are in no
feasible cache (their pairs go, and with them any quality they could give).  Both hold for
every feasible schedule, so the LP still relaxes OPT; the coefficients are the integer
sizes themselves (exact in float64 below 2⁵³), never rescaled, so no rounding can cut off
a feasible schedule.

Topic relaxation (:func:`topic_lp`, ``precision`` with relevance by topic).  y_{b,t} =
min(k, cached items of topic b) ∈ [0, min(k, K, keys of b arrived before t)];
y_{b,t+1} <= y_{b,t} + [b_t = b] (only e_t enters; min(k, ·) grows by at most 1);
Σ_b y_{b,t} <= K; z_t >= y_{b,t} − y_{b,t+1} and z_t >= y_{b_t,t+1} − y_{b_t,t} (any change
of a count is a change of S); m_t >= w_t(1 − y_{a_t,t}/k) (precision <= relevant cached / k).
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import OptimizeWarning, linprog

from theory.opt.model import effective_weights
from theory.opt.topics import useful_topics

UNIT_ROUNDOFF = 2.0**-53


@dataclasses.dataclass
class LinearProgram:
    """min cᵀx s.t. A_ub x <= b_ub, A_eq x = b_eq, lb <= x <= ub; A sparse or None."""

    c: np.ndarray
    lb: np.ndarray
    ub: np.ndarray
    A_ub: sp.csr_matrix | None = None
    b_ub: np.ndarray | None = None
    A_eq: sp.csr_matrix | None = None
    b_eq: np.ndarray | None = None

    def blocks(self):
        """``(A, b, y-sign)`` pairs: ``-1`` for rows whose multiplier must be <= 0."""
        out = []
        if self.A_ub is not None and self.A_ub.shape[0]:
            out.append((sp.csr_matrix(self.A_ub), np.asarray(self.b_ub, np.float64), -1))
        if self.A_eq is not None and self.A_eq.shape[0]:
            out.append((sp.csr_matrix(self.A_eq), np.asarray(self.b_eq, np.float64), 0))
        return out


def dual_value(lp: LinearProgram, y_ub=None, y_eq=None):
    """``(L(y), margin)``: the float64 value of L(y) and its rounding-error bound.

    ``y_ub`` is clipped to <= 0 and non-finite entries are replaced by 0 (any y is valid).
    """
    lb, ub = np.asarray(lp.lb, np.float64), np.asarray(lp.ub, np.float64)
    if not (np.isfinite(lb).all() and np.isfinite(ub).all()):
        raise ValueError("every variable needs finite bounds")
    r = np.asarray(lp.c, np.float64).copy()
    a = np.abs(r)
    n_terms, n_col = r.size, 0
    terms = []
    for (A, b, sign), y in zip(lp.blocks(), _duals(lp, y_ub, y_eq)):
        y = np.where(np.isfinite(y), y, 0.0)
        if sign < 0:
            y = np.minimum(y, 0.0)
        r -= A.T @ y
        a += abs(A).T @ np.abs(y)
        terms.append(b * y)
        n_terms += b.size
        n_col = max(n_col, int(np.diff(A.tocsc().indptr).max(initial=0)))
    phi = np.minimum(r * lb, r * ub)
    value = float(np.sum(np.concatenate(terms + [phi])))
    M = np.maximum(np.abs(lb), np.abs(ub))
    S = float(sum(np.abs(t).sum() for t in terms) + (M * a).sum())
    n = max(n_terms, n_col + 2) + 2
    gamma = n * UNIT_ROUNDOFF / (1.0 - n * UNIT_ROUNDOFF)
    return value, 4.0 * gamma * S


def _duals(lp, y_ub, y_eq):
    out = []
    for A, _, sign in lp.blocks():
        y = y_ub if sign < 0 else y_eq
        out.append(np.zeros(A.shape[0]) if y is None else np.asarray(y, np.float64))
    return out


def certify(lp: LinearProgram, y_ub=None, y_eq=None) -> float:
    """A lower bound on the LP's optimum that holds in exact arithmetic: L(y) − margin."""
    value, margin = dual_value(lp, y_ub, y_eq)
    return value - margin


def solve(lp: LinearProgram, time_limit: float | None = None, ipm: bool = False):
    """``(primal value or nan, certified lower bound)`` from HiGHS' duals.

    ``ipm`` runs the interior-point method without crossover: no vertex, but the duals are
    all the certificate needs, and it is several times faster on the degenerate arrival
    relaxation.  A failed or time-limited solve still gives a valid (weaker) bound.
    """
    if lp.c.size == 0:  # nothing to decide (HiGHS refuses an empty LP)
        feasible = all((b >= 0).all() if sign < 0 else (b == 0).all()
                       for _, b, sign in lp.blocks())
        return (0.0 if feasible else float("nan")), certify(lp)
    opts = {} if time_limit is None else {"time_limit": float(time_limit)}
    if ipm:
        opts["run_crossover"] = "off"  # passed to HiGHS verbatim, with a warning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OptimizeWarning)
        res = linprog(lp.c, A_ub=lp.A_ub, b_ub=lp.b_ub, A_eq=lp.A_eq, b_eq=lp.b_eq,
                      bounds=np.c_[lp.lb, lp.ub], method="highs-ipm" if ipm else "highs",
                      options=opts)
    y_ub = getattr(getattr(res, "ineqlin", None), "marginals", None)
    y_eq = getattr(getattr(res, "eqlin", None), "marginals", None)
    primal = float(res.fun) if res.status == 0 else float("nan")
    return primal, certify(lp, y_ub, y_eq)


class _Rows:
    """Sparse ≤-rows assembled block by block (local row ids, column ids, values, rhs)."""

    def __init__(self):
        self.parts, self.rhs, self.n = [], [], 0

    def add(self, n_rows, row, col, val, rhs):
        row = np.asarray(row, np.int64)
        self.parts.append((row + self.n, np.asarray(col, np.int64),
                           np.broadcast_to(np.asarray(val, np.float64), row.shape)))
        self.rhs.append(np.broadcast_to(np.asarray(rhs, np.float64), (n_rows,)))
        self.n += n_rows

    def matrix(self, n_cols):
        def cat(j):
            return np.concatenate([p[j] for p in self.parts]) if self.parts else np.zeros(0)

        A = sp.csr_matrix((cat(2), (cat(0).astype(np.int64), cat(1).astype(np.int64))),
                          shape=(self.n, n_cols))
        return A, (np.concatenate(self.rhs) if self.rhs else np.zeros(0))


def arrival_pairs(model, quality, per_step=None, cacheable=None):
    """``(t, i, value, floor)``: the pairs that can lower ℓ_t, and a per-step quality floor.

    ``hit``/``precision``: the relevant pairs, floor 0.  ``similarity``: the ``per_step``
    largest clipped cosines c_{t,i} > 0 of each step (all when None); the others are
    covered by floor_t, the largest cosine left out (the threshold cut at θ = floor_t).
    ``cacheable`` (bool per arrival): the others can never be cached and give no pairs.
    """
    T = model.w.shape[0]
    floor = np.zeros(T)
    if quality == "similarity":
        val = np.clip(model.sim.astype(np.float64), 0.0, 1.0)
    else:
        val = model.rel.astype(np.float64)
    val *= np.tri(T, T, -1, dtype=bool) & (model.w[:, None] > 0)
    if cacheable is not None:
        val *= np.asarray(cacheable, bool)[None, :]
    if quality == "similarity" and per_step is not None and per_step < T:
        floor = -np.sort(-val, axis=1)[:, int(per_step)]
        val[val <= floor[:, None]] = 0.0
    t, i = np.nonzero(val)
    return t, i, val[t, i], floor


def arrival_lp(model, capacity: int, switch_cost: float, quality: str, pairs=None,
               sizes=None, budget: int | None = None):
    """The arrival-level relaxation as ``(LinearProgram, constant)``; OPT >= constant + LP.

    With a ``budget`` (and ``sizes`` per arrival) it adds the knapsack rows of the module
    docstring; pass ``pairs`` from :func:`arrival_pairs` with ``cacheable`` = sizes <= B.
    """
    T, K, lam, w = model.w.shape[0], int(capacity), float(switch_cost), model.w
    pt, pi, pv, floor = arrival_pairs(model, quality) if pairs is None else pairs
    L = np.full(T, -1, np.int64)
    np.maximum.at(L, pi, pt)
    length = np.maximum(L - np.arange(T), 0)
    xo = np.r_[0, np.cumsum(length)]
    n_x = int(xo[-1])
    x_i = np.repeat(np.arange(T), length)
    x_t = np.arange(n_x) - xo[x_i] + x_i + 1
    steps = np.unique(pt)
    m_of = np.full(T, -1, np.int64)
    m_of[steps] = n_x + np.arange(steps.size)
    z0 = n_x + steps.size
    n_z = T if lam > 0 else 0
    u0 = z0 + n_z
    sim = quality == "similarity"
    n = u0 + (pt.size + steps.size if sim else 0)
    def xi(i, t):
        return xo[i] + t - i - 1

    rows = _Rows()
    j = np.flatnonzero(x_t < L[x_i])  # x_{i,t} with a successor x_{i,t+1}
    ar = np.arange(j.size)
    rows.add(j.size, np.r_[ar, ar], np.r_[j + 1, j], np.r_[np.ones(j.size), -np.ones(j.size)], 0)
    if lam > 0:
        rows.add(j.size, np.r_[ar, ar, ar], np.r_[j, j + 1, z0 + x_t[j]],
                 np.r_[np.ones(j.size), -np.ones(2 * j.size)], 0)
        first = np.flatnonzero(length > 0)
        a = np.arange(first.size)
        rows.add(first.size, np.r_[a, a], np.r_[xo[first], z0 + first],
                 np.r_[np.ones(first.size), -np.ones(first.size)], 0)
    per_t = np.bincount(x_t, minlength=T)
    full = np.flatnonzero(per_t > K)
    sel = np.flatnonzero(np.isin(x_t, full))
    rows.add(full.size, np.searchsorted(full, x_t[sel]), sel, 1.0, K)
    if budget is not None:  # Σ_i s_i x_{i,t} <= B where the sizes could exceed B
        s_x = np.asarray(sizes, np.float64)[x_i]
        over = np.flatnonzero(np.bincount(x_t, weights=s_x, minlength=T) > budget)
        sel = np.flatnonzero(np.isin(x_t, over))
        rows.add(over.size, np.searchsorted(over, x_t[sel]), sel, s_x[sel], float(budget))
    keys, last = model.keys, {}
    for s in range(T):
        same = last.setdefault(int(keys[s]), [])
        if length[s] > 0:
            held = [i for i in same if L[i] >= s]
            if held:
                rows.add(1, np.zeros(len(held) + 1), [xi(s, s + 1)] + [xi(i, s) for i in held],
                         1.0, 1.0)
        same.append(s)
    r_of = np.searchsorted(steps, pt)
    if sim:  # u_{t,i} per pair, then a floor u_t per step (coefficient floor_t)
        p, f = np.arange(pt.size), np.arange(steps.size)
        rows.add(pt.size, np.r_[p, p], np.r_[u0 + p, xi(pi, pt)],
                 np.r_[np.ones(pt.size), -np.ones(pt.size)], 0)
        rows.add(steps.size, np.r_[r_of, f], np.r_[u0 + p, u0 + pt.size + f], 1.0, 1.0)
        miss_col = np.r_[u0 + p, u0 + pt.size + f]
        miss_val = np.r_[-w[pt] * pv, -w[steps] * floor[steps]]
        r_of = np.r_[r_of, f]
    else:
        miss_col = xi(pi, pt)
        miss_val = -w[pt] * (1.0 if quality == "hit" else 1.0 / model.top_k)
    rows.add(steps.size, np.r_[np.arange(steps.size), r_of], np.r_[m_of[steps], miss_col],
             np.r_[-np.ones(steps.size), miss_val], -w[steps])
    c = np.zeros(n)
    c[n_x:z0] = 1.0
    c[z0:u0] = lam
    ub = np.ones(n)
    ub[n_x:z0] = w[steps]
    A, b = rows.matrix(n)
    # steps without pairs: quality <= floor_t (0 but for similarity)
    const = math.fsum(np.delete(w * (1.0 - floor), steps).tolist())
    return LinearProgram(c=c, lb=np.zeros(n), ub=ub, A_ub=A, b_ub=b), const


def topic_lp(trace, capacity: int, top_k: int, switch_cost: float, max_vars: int | None = None):
    """The topic-count relaxation for ``precision`` as ``(LinearProgram, constant)``;
    ``(None, 0)`` when it would have more than ``max_vars`` variables."""
    T, K, k, lam = trace.steps, int(capacity), int(top_k), float(switch_cost)
    w = effective_weights(trace)
    qt, it, keys = trace.query_topics, trace.item_topics, trace.item_keys
    blocks, n_y = {}, 0
    for b in useful_topics(trace).tolist():
        arr = np.flatnonzero(it == b)
        qs = np.flatnonzero((qt == b) & (w > 0) & (np.arange(T) > arr[0]))
        if qs.size:
            lo, hi = int(arr[0]) + 1, int(qs[-1])
            seen = np.zeros(T + 1, np.int64)  # distinct keys of topic b arrived before t
            _, first = np.unique(keys[arr], return_index=True)
            np.add.at(seen, arr[first] + 1, 1)
            blocks[b] = (lo, hi, n_y, np.minimum(np.cumsum(seen)[lo:hi + 1], min(k, K)), qs)
            n_y += hi - lo + 1
    if max_vars is not None and n_y > max_vars:
        return None, 0.0
    covered = np.concatenate([blk[4] for blk in blocks.values()] or [np.zeros(0, np.int64)])
    covered.sort()
    m0, z0 = n_y, n_y + covered.size
    n = z0 + (T if lam > 0 else 0)
    rows, ub = _Rows(), np.ones(n)
    cap_t, cap_c = [], []
    for b, (lo, hi, y0, cap, qs) in blocks.items():
        ub[y0:y0 + hi - lo + 1] = cap
        ts = np.arange(lo, hi)
        y, a = y0 + ts - lo, np.arange(ts.size)
        up = (it[ts] == b).astype(np.float64)
        rows.add(ts.size, np.r_[a, a], np.r_[y + 1, y], np.r_[np.ones(ts.size), -np.ones(ts.size)],
                 up)
        if lam > 0:
            rows.add(ts.size, np.r_[a, a, a], np.r_[y, y + 1, z0 + ts],
                     np.r_[np.ones(ts.size), -np.ones(ts.size), -np.ones(ts.size)], 0)
            ad = np.flatnonzero(up > 0)
            e = np.arange(ad.size)
            rows.add(ad.size, np.r_[e, e, e], np.r_[y[ad] + 1, y[ad], z0 + ts[ad]],
                     np.r_[np.ones(ad.size), -np.ones(2 * ad.size)], 0)
            rows.add(1, [0, 0], [y0, z0 + lo - 1], [1.0, -1.0], 0)
        cap_t.append(np.arange(lo, hi + 1))
        cap_c.append(y0 + np.arange(hi - lo + 1))
        a = np.arange(qs.size)
        rows.add(qs.size, np.r_[a, a], np.r_[m0 + np.searchsorted(covered, qs), y0 + qs - lo],
                 np.r_[-np.ones(qs.size), -w[qs] / k], -w[qs])
    if cap_t:
        ct, cc = np.concatenate(cap_t), np.concatenate(cap_c)
        full = np.flatnonzero(np.bincount(ct, weights=ub[cc], minlength=T) > K)
        sel = np.isin(ct, full)
        rows.add(full.size, np.searchsorted(full, ct[sel]), cc[sel], 1.0, K)
    c = np.zeros(n)
    c[m0:z0] = 1.0
    c[z0:] = lam
    ub[m0:z0] = w[covered]
    A, b_ub = rows.matrix(n)
    const = math.fsum(np.delete(w, covered).tolist())
    return LinearProgram(c=c, lb=np.zeros(n), ub=ub, A_ub=A, b_ub=b_ub), const
