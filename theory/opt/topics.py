"""Exact OPT for binary topic hits by DP over topic sets (docs/model.md §4).

A state is P_t, the set of *useful* topics present in the cache, with useful topics
U = {item topics that some weighted step asks for}.  The miss is ℓ_t = w_t·[a_t ∉ P_t].

Conditions (checked by :func:`applies`; all must hold):

1. quality ``hit`` and no evidence arrays (relevance is by topic only);
2. each key keeps one topic over its re-arrivals (``item_keys`` may re-stream);
3. for every step t with w_t > 0 and a_t >= 0, hit_t = 1 iff the cache holds an item of
   topic a_t, which holds when either
   (a) k >= K, so R_t is the whole cache, or
   (b) the clusters are topic-separated at t: every arrival i < t of topic a_t is strictly
       more similar to q_t than every other arrival i < t, so a relevant item, when cached,
       ranks first (strictly, so the admission tie-break never matters).
   (b) is certified with float64 similarities and a margin of twice the float32
   summation error bound γ_d = d·2⁻²⁴/(1 − d·2⁻²⁴) (unit vectors); a step inside the
   margin is checked with the engine's own float32 similarities.

Proof sketch (exactness under 1–3).  (≥) Any feasible item schedule S_t gives P_t =
topics(S_t) ∩ U with P_{t+1} ⊆ P_t ∪ {b_t}, |P_t| <= |S_t| <= K, the same ℓ_t by 3, and
P_{t+1} ≠ P_t only if S_{t+1} ≠ S_t; so the topic DP's value is at most its cost.
(≤) Any topic schedule is realised by one representative item per topic: keep a topic's
representative while the topic stays, drop it when the topic leaves, admit e_t when b_t
enters.  e_t is never already cached then, since by 2 its key's topic is b_t ∉ P_t.  The
item set changes exactly when P changes, |S_t| = |P_t| <= K, and ℓ_t is equal by 3.
Items of topics outside U never affect ℓ_t (by 3 they are never relevant and, under (b),
never rank above a relevant one), so leaving them out loses nothing.

The recursion is that of :mod:`theory.opt.items` on bitmasks: f_{t+1}(P') = min(g_t(P'),
λ + min_{P ⊇ P' \\ {b_t}} g_t(P)), the superset minimum by the standard m·2^m sweep.
Work m·2^m per step, memory T·2^m back-pointers; :mod:`theory.opt` bounds both.
"""

from __future__ import annotations

import numpy as np

from simulator.engine.cached_kernel import cached_kernel
from simulator.engine.kernels import dot
from theory.opt.model import effective_weights

SEPARATION_BLOCK = 512  # query rows per similarity block: bounds memory at 8·512·T bytes


def useful_topics(trace) -> np.ndarray:
    """Sorted topics that some arrival has and some weighted step asks for."""
    w = effective_weights(trace)
    asked = np.unique(trace.query_topics[(w > 0) & (trace.query_topics >= 0)])
    return np.intersect1d(asked, trace.item_topics[trace.item_topics >= 0])


@cached_kernel
def _exact_separated(t, queries, items, topics, a):
    lo, hi = np.inf, -np.inf
    for i in range(t):
        s = np.float64(dot(queries[t], items[i]))
        if topics[i] == a:
            lo = min(lo, s)
        else:
            hi = max(hi, s)
    return lo > hi


def separated(trace) -> bool:
    """Condition 3(b): relevant arrivals strictly outrank all others at every weighted step."""
    T, d = trace.steps, trace.dim
    w = effective_weights(trace)
    qt, it = trace.query_topics, trace.item_topics
    gamma = d * 2.0**-24 / (1 - d * 2.0**-24)
    margin = 2 * gamma + 1e-12
    X = trace.items.astype(np.float64)
    idx = np.arange(T)
    for start in range(0, T, SEPARATION_BLOCK):
        rows = np.arange(start, min(T, start + SEPARATION_BLOCK))
        S = trace.queries[rows].astype(np.float64) @ X.T
        earlier = idx[None, :] < rows[:, None]
        rel = it[None, :] == qt[rows][:, None]
        lo = np.where(earlier & rel, S, np.inf).min(axis=1)
        hi = np.where(earlier & ~rel, S, -np.inf).max(axis=1)
        need = (w[rows] > 0) & (qt[rows] >= 0) & np.isfinite(lo) & np.isfinite(hi)
        for r in np.flatnonzero(need & (lo - hi <= margin)):
            t = int(rows[r])
            if not _exact_separated(t, trace.queries, trace.items, it, qt[t]):
                return False
    return True


def applies(trace, capacity: int, top_k: int, quality: str,
            separation: bool = True) -> str | None:
    """None when the topic DP is exact for this instance, else the condition that fails;
    ``separation=False`` leaves out the O(T²·d) check that k < K needs (:func:`separated`)."""
    if quality != "hit":
        return "quality is not 'hit'"
    if trace.has_evidence:
        return "the trace has evidence (relevance is not by topic only)"
    keys, topics = trace.item_keys, trace.item_topics
    first = np.full(trace.n_keys, -2, np.int64)
    first[keys[::-1]] = topics[::-1]
    if (first[keys] != topics).any():
        return "a re-streamed key changes topic"
    if separation and top_k < capacity and not separated(trace):
        return "k < K and the topics are not separated"
    return None


@cached_kernel
def _dp(bits_a, bits_b, w, K, lam, back):
    T = w.shape[0]
    M = back.shape[1]
    m = 0
    while (1 << m) < M:
        m += 1
    pop = np.zeros(M, np.int64)
    for P in range(1, M):
        pop[P] = pop[P >> 1] + (P & 1)
    f = np.full(M, np.inf)
    f[0] = 0.0
    g = np.empty(M)
    H = np.empty(M)
    Ha = np.empty(M, np.int64)
    for t in range(T):
        for P in range(M):
            g[P] = f[P] + (w[t] if bits_a[t] == 0 or (P & bits_a[t]) == 0 else 0.0)
            H[P] = g[P]
            Ha[P] = P
        if t == T - 1:
            break
        for i in range(m):  # superset minimum, one bit at a time
            bit = 1 << i
            for P in range(M):
                if (P & bit) == 0 and H[P | bit] < H[P]:
                    H[P] = H[P | bit]
                    Ha[P] = Ha[P | bit]
        b = bits_b[t]
        for P in range(M):
            if pop[P] > K:
                f[P] = np.inf
                back[t, P] = P
                continue
            A = P & ~b
            if g[P] <= lam + H[A]:
                f[P] = g[P]
                back[t, P] = P
            else:
                f[P] = lam + H[A]
                back[t, P] = Ha[A]
    best = np.argmin(g)  # the first minimum, as before
    return g[best], best


def solve(trace, capacity: int, switch_cost: float):
    """Exact OPT by topic sets: ``(cost, sets)``, ``sets[t]`` = S_t as arrival indices.

    Call only when :func:`applies` returns None.
    """
    T = trace.steps
    U = useful_topics(trace)
    m = U.size
    bit_of = {int(u): 1 << j for j, u in enumerate(U.tolist())}
    bits_a = np.array([bit_of.get(int(a), 0) for a in trace.query_topics], np.int64)
    bits_b = np.array([bit_of.get(int(b), 0) for b in trace.item_topics], np.int64)
    M = 1 << m
    back = np.zeros((max(T - 1, 1), M), np.uint16 if m <= 16 else np.int32)
    cost, best = _dp(bits_a, bits_b, effective_weights(trace), int(capacity),
                     float(switch_cost), back)
    masks = [0] * (T + 1)
    masks[T - 1] = masks[T] = int(best)
    for t in range(T - 2, -1, -1):
        masks[t] = int(back[t, masks[t + 1]])
    # one representative item per topic (the proof's construction)
    sets = [frozenset()]
    rep: dict = {}
    for t in range(T):
        gone, new = masks[t] & ~masks[t + 1], masks[t + 1] & ~masks[t]
        for j in range(m):
            if gone >> j & 1:
                del rep[j]
        if new:
            rep[new.bit_length() - 1] = t  # only b_t can enter
        sets.append(frozenset(rep.values()))
    return float(cost), sets
