"""Exact OPT when items of one type are interchangeable: DP over count vectors.

A *type* is a class of arrivals with bit-identical vectors and the same topic.  A state is
the count vector c_t (c_t[i] = cached items of type i), Σ_i c_t[i] <= K.

Conditions (checked by :func:`applies`):

1. no evidence arrays (evidence names keys, which would tell items of one type apart);
2. no re-streamed keys (every arrival is a new item, so any arrival may be admitted);
3. at every weighted step, two types with equal similarity to q_t are both relevant or
   both irrelevant to it.

Lemma: under 1–3, ℓ_t(S) depends on S only through its count vector.  Items of one type
have equal similarity (the same float32 sum of the same numbers) and equal relevance.
R_t takes items by similarity, ties by admission step and key; whichever items a tie
picks, the multiset of (similarity, relevance) pairs in R_t is the same, because tied items
are of one type or of types with equal relevance (3).  hit, precision and the top
similarity are functions of that multiset.

Proof sketch of exactness.  (≥) An item schedule maps to counts with c_{t+1} <= c_t + e_{b_t}
componentwise (only e_t, of type b_t, may enter), Σ c <= K, equal ℓ_t by the lemma, and
c_{t+1} ≠ c_t only if S_{t+1} ≠ S_t.  (≤) A count schedule is realised by dropping
c_t[i] − c_{t+1}[i] arbitrary items of each type and admitting e_t when c_{t+1}[b_t] =
c_t[b_t] + 1 (allowed by 2); the set changes exactly when the counts change.

Recursion: f_{t+1}(c') = min(g_t(c'), λ + min_{c >= c' − [c'_b >= 1]·e_b} g_t(c)); the
dominance minimum is a suffix minimum along each coordinate, taken over the states in order
of decreasing Σ c so that c + e_i is final before c.  States: C(K + τ, τ) for τ types.
"""

from __future__ import annotations

from math import comb

import numpy as np

from simulator.config import njit
from simulator.engine.cached_kernel import cached_kernel
from simulator.engine.kernels import QUALITY_CODES, dot, quality_of
from theory.opt.model import effective_weights, relevance_matrix


def types_of(trace):
    """``(type_of_arrival, representative arrival of each type)`` by (vector bytes, topic)."""
    index: dict = {}
    reps = []
    out = np.empty(trace.steps, np.int64)
    for t in range(trace.steps):
        key = (trace.items[t].tobytes(), int(trace.item_topics[t]))
        if key not in index:
            index[key] = len(reps)
            reps.append(t)
        out[t] = index[key]
    return out, np.asarray(reps, np.int64)


@cached_kernel
def _type_sims(queries, items, reps, out):
    for t in range(queries.shape[0]):
        for j in range(reps.shape[0]):
            out[t, j] = dot(queries[t], items[reps[j]])


def _model(trace):
    typ, reps = types_of(trace)
    sim = np.empty((trace.steps, reps.size), np.float32)
    _type_sims(trace.queries, trace.items, reps, sim)
    rel = relevance_matrix(trace)[:, reps]
    return typ, reps, sim, rel


def applies(trace) -> str | None:
    """None when the count DP is exact for this instance, else the condition that fails."""
    if trace.has_evidence:
        return "the trace has evidence (relevance by key)"
    if trace.n_keys != trace.steps:
        return "the trace re-streams keys"
    _, _, sim, rel = _model(trace)
    w = effective_weights(trace)
    for t in np.flatnonzero(w > 0):
        s, r = sim[t], rel[t]
        order = np.argsort(s, kind="stable")
        same = s[order][1:] == s[order][:-1]
        if (same & (r[order][1:] != r[order][:-1])).any():
            return f"two types tie in similarity at step {t} but differ in relevance"
    return None


def count_states(n_types: int, K: int) -> int:
    """C(K + τ, τ): count vectors of τ types with sum <= K."""
    return comb(K + n_types, n_types)


def _states(n_types, K):
    vecs = []

    def rec(prefix, left):
        if len(prefix) == n_types:
            vecs.append(tuple(prefix))
            return
        for v in range(left + 1):
            rec(prefix + [v], left - v)

    rec([], K)
    vecs.sort(key=lambda v: -sum(v))  # decreasing sum: c + e_i comes before c
    pos = {v: s for s, v in enumerate(vecs)}
    up = np.full((len(vecs), max(n_types, 1)), -1, np.int64)
    down = np.full((len(vecs), max(n_types, 1)), -1, np.int64)
    for s, v in enumerate(vecs):
        for i in range(n_types):
            u = v[:i] + (v[i] + 1,) + v[i + 1:]
            up[s, i] = pos.get(u, -1)
            if v[i] > 0:
                down[s, i] = pos[v[:i] + (v[i] - 1,) + v[i + 1:]]
    return np.asarray(vecs, np.int64).reshape(len(vecs), n_types), up, down, pos[(0,) * n_types]


@njit
def _loss(t, c, order, sim, rel, w, k, qcode):
    if w[t] == 0.0:
        return 0.0
    left = k
    n_rel = 0
    n_ret = 0
    top = 0.0
    for j in range(order.shape[1]):
        i = order[t, j]
        take = min(c[i], left)
        if take > 0:
            if n_ret == 0:
                top = np.float64(sim[t, i])
            n_ret += take
            left -= take
            if rel[t, i]:
                n_rel += take
    _, _, q = quality_of(n_rel, n_ret, k, top, qcode)
    return w[t] * (1.0 - q)


@cached_kernel
def _dp(vecs, up, down, empty, order, sim, rel, w, typ, k, qcode, lam, back):
    T = w.shape[0]
    S = vecs.shape[0]
    n_types = vecs.shape[1]
    f = np.full(S, np.inf)
    f[empty] = 0.0
    g = np.empty(S)
    H = np.empty(S)
    Ha = np.empty(S, np.int64)
    for t in range(T):
        for s in range(S):
            g[s] = f[s] + _loss(t, vecs[s], order, sim, rel, w, k, qcode) if f[s] < np.inf \
                else np.inf
            H[s] = g[s]
            Ha[s] = s
        if t == T - 1:
            break
        for i in range(n_types):
            for s in range(S):  # decreasing sum: H[up] is already final for this pass
                u = up[s, i]
                if u >= 0 and H[u] < H[s]:
                    H[s] = H[u]
                    Ha[s] = Ha[u]
        b = typ[t]
        for s in range(S):
            a = down[s, b] if vecs[s, b] > 0 else s
            if g[s] <= lam + H[a]:
                f[s] = g[s]
                back[t, s] = s
            else:
                f[s] = lam + H[a]
                back[t, s] = Ha[a]
    best = np.argmin(g)  # the first minimum, as before
    return g[best], best


def solve(trace, capacity: int, top_k: int, switch_cost: float, quality: str):
    """Exact OPT by count vectors: ``(cost, sets)``, ``sets[t]`` = S_t as arrival indices.

    Call only when :func:`applies` returns None.
    """
    T = trace.steps
    typ, reps, sim, rel = _model(trace)
    K = min(int(capacity), T)
    vecs, up, down, empty = _states(reps.size, K)
    # types best first at each step (ties in any order: condition 3 makes them equivalent)
    order = np.argsort(-sim.astype(np.float64), axis=1, kind="stable").astype(np.int64)
    back = np.zeros((max(T - 1, 1), vecs.shape[0]), np.int32)
    cost, best = _dp(vecs, up, down, empty, order, sim, rel, effective_weights(trace), typ,
                     int(top_k), QUALITY_CODES[quality], float(switch_cost), back)
    states = [0] * (T + 1)
    states[T - 1] = states[T] = int(best)
    for t in range(T - 2, -1, -1):
        states[t] = int(back[t, states[t + 1]])
    held = [[] for _ in range(reps.size)]  # cached arrivals per type
    sets = [frozenset()]
    for t in range(T):
        nxt = vecs[states[t + 1]]
        for i in range(reps.size):
            if i == typ[t] and nxt[i] == len(held[i]) + 1:
                held[i].append(t)
            while len(held[i]) > nxt[i]:
                held[i].pop(0)  # any item of the type will do (the lemma)
        sets.append(frozenset(x for h in held for x in h))
    return float(cost), sets
