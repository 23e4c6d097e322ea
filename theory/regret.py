"""Eviction regret (SOLAR paper, Definition 2.3) on traces with latent item utilities.

Setting.  Quality ``hit`` with ``top_k >= capacity``, so R_t is the whole cache, and
relevance given as evidence only (no topics), each item i relevant to each step
independently with probability p_i (:mod:`workloads.stationary`, ``meta["utilities"]``).
S_t is the cache *before* step t's arrival (S_0 = ∅).  Given S_t, step t's expected miss is

    m_t(S) = w_t · Π_{i∈S} (1 − p_i)        (w_t = 0 on unscored steps),

because S_t depends on steps < t only and step t's relevance draws are independent of them.

Comparator (Def. 2.3: the best eviction policy on the policy's own admission sequence).
At every step at which the policy admitted key e, the comparator admits e too: nothing
happens if e is already in its cache, e is added if there is room, and otherwise one victim
of its choosing, from its current cache, leaves.  It never deletes otherwise (more items
never raise m_t).  Regret is in miss cost only (λ = 0).

``greedy`` evicts the item of lowest p (ties: smaller key).  *It is optimal, step by step,
when no admission is of a key the comparator holds* (e.g. all admitted keys distinct).
Argument: let N_S(θ) = #{i ∈ S : p_i ≥ θ}; for any comparator C, N_G(θ) ≥ N_C(θ) for all
θ at every step, by induction.  An admission adds the same e to both.  A G with room
evicts nothing.  A full G drops its minimum g, which lowers N_G only for θ ≤ g, where
N_G was K: then either C had room (N_C ≤ K − 1 before adding e) or C was full, and
N_C(θ) = K would mean C's victim is ≥ θ too, so N_C drops with N_G.  θ = 0 gives
|G| ≥ |C|, and domination at every θ makes G's j-th largest p at least C's, so
Π_G (1 − p) ≤ Π_C (1 − p) at every step.  **Re-admissions break this**: if the policy
re-admits a key that G holds and C evicted earlier, C gets it back for free and with its
own choice of victim.  Then ``greedy`` is only a feasible comparator, its cost an upper
bound on the best one's, and the pseudo-regret against it a *lower bound* on Def. 2.3
regret (tests pin a counterexample; always-admit policies re-admit constantly on
``stationary``, where ``exact`` on 8–12 items, K = 2–3, put it at 2–14% of R(T)).
``exact`` solves the comparator problem by a DP over cache sets, for small instances.

Examples
--------
>>> from workloads import get
>>> from simulator.runner import run
>>> tr = get("stationary").generate({"items": 6, "steps": 60, "dim": 4}, seed=1)
>>> r = eviction_regret(tr, run(tr, "fifo", capacity=2, top_k=2, seed=1))
>>> r.pseudo(60) > 0, r.comparator
(True, 'greedy')
>>> r_exact = eviction_regret(tr, run(tr, "fifo", capacity=2, top_k=2, seed=1), "exact")
>>> bool(r_exact.pseudo(60) >= r.pseudo(60) - 1e-12)  # the best comparator is no worse
True
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from simulator.errors import InputError
from theory.opt.model import effective_weights

COMPARATORS = ("greedy", "exact")
EXACT_MAX_WORK = 2 * 10**7  # cache sets × admissions that the exact DP may visit


def utilities_of(trace, utilities=None) -> np.ndarray:
    """The p_i of every item key: ``utilities`` if given, else ``trace.meta["utilities"]``."""
    p = trace.meta.get("utilities") if utilities is None else utilities
    if p is None:
        raise InputError("trace has no meta['utilities']; pass utilities= (one p per item key)")
    p = np.asarray(p, np.float64)
    if p.ndim != 1 or p.size < trace.n_keys or not ((p >= 0) & (p <= 1)).all():
        raise InputError(f"utilities must be {trace.n_keys} probabilities in [0, 1], one per "
                         f"item key; got shape {p.shape}")
    return p


def check_trace(trace) -> None:
    """Refuse traces outside the latent-utility model (topics would add relevance)."""
    if not trace.has_evidence or (trace.query_topics >= 0).any():
        raise InputError("regret needs relevance given by evidence only (query_topics all -1),"
                         " as in the 'stationary' workload")


def intervals(admitted, evicted, deleted):
    """(key, first step, end step) of every stay in the cache: key ∈ S_t for first <= t < end.

    Within a step the victim leaves before the new item enters, and a deletion comes last
    (the engine's order).  A stay still open at the end runs to T.
    """
    T = admitted.shape[0]
    since: dict = {}
    keys, starts, ends = [], [], []

    def leave(key, t):
        keys.append(key)
        starts.append(since.pop(key))
        ends.append(t + 1)

    for t in np.flatnonzero((admitted >= 0) | (evicted >= 0) | (deleted >= 0)).tolist():
        if evicted[t] >= 0:
            leave(int(evicted[t]), t)
        if admitted[t] >= 0:
            since[int(admitted[t])] = t + 1
        if deleted[t] >= 0:
            leave(int(deleted[t]), t)
    for key, start in since.items():
        keys.append(key)
        starts.append(start)
        ends.append(T)
    return (np.array(keys, np.int64), np.array(starts, np.int64), np.array(ends, np.int64))


def expected_miss(trace, p, admitted, evicted, deleted) -> np.ndarray:
    """m_t(S_t) for every step, S_t rebuilt from the per-step admitted/evicted/deleted keys."""
    T = trace.steps
    key, start, end = intervals(admitted, evicted, deleted)
    certain = p >= 1.0  # log(1 - 1) = -inf: count such items instead of summing logs
    logq = np.log1p(-np.where(certain, 0.0, p))
    dlog, dcert = np.zeros(T + 1), np.zeros(T + 1, np.int64)
    np.add.at(dlog, start, logq[key])
    np.add.at(dlog, end, -logq[key])
    np.add.at(dcert, start, certain[key])
    np.add.at(dcert, end, -certain[key].astype(np.int64))
    log_prod, n_certain = np.cumsum(dlog)[:T], np.cumsum(dcert)[:T]
    return effective_weights(trace) * np.where(n_certain > 0, 0.0, np.exp(log_prod))


def realised_miss(trace, admitted, evicted, deleted) -> np.ndarray:
    """w_t · [no item of S_t is in step t's evidence]: the miss cost S_t actually paid."""
    T = trace.steps
    key, start, end = intervals(admitted, evicted, deleted)
    order = np.lexsort((start, key))
    key, start, end = key[order], start[order], end[order]
    rows = np.repeat(np.arange(T), np.diff(trace.evidence_indptr))
    cols = trace.evidence_indices
    # One key's stays are disjoint: the last stay starting at or before t is the only candidate.
    pos = np.searchsorted(key * (T + 1) + start, cols * (T + 1) + rows, side="right") - 1
    ok = pos >= 0
    ok[ok] = (key[pos[ok]] == cols[ok]) & (end[pos[ok]] > rows[ok])
    hit = np.zeros(T, bool)
    hit[rows[ok]] = True
    return effective_weights(trace) * (~hit)


def greedy_comparator(admitted, p, capacity):
    """Def. 2.3 comparator that evicts the lowest-p item; returns (admitted, evicted) per step."""
    T = admitted.shape[0]
    adm, evi = np.full(T, -1, np.int64), np.full(T, -1, np.int64)
    cache: set = set()
    for t in np.flatnonzero(admitted >= 0).tolist():
        e = int(admitted[t])
        if e in cache:
            continue
        if len(cache) >= capacity:
            v = min(cache, key=lambda i: (p[i], i))
            cache.remove(v)
            evi[t] = v
        cache.add(e)
        adm[t] = e
    return adm, evi


def exact_comparator(admitted, p, w, capacity):
    """The best Def. 2.3 comparator by a DP over cache sets; returns (admitted, evicted).

    States are the subsets of at most K admitted keys; a set chosen at admission j is held
    over steps t_j + 1 … t_{j+1} and costs Π(1 − p)·Σ w there.  Refuses instances with more
    than ``EXACT_MAX_WORK`` (sets × admissions).
    """
    T = admitted.shape[0]
    steps = np.flatnonzero(admitted >= 0)
    keys = np.unique(admitted[steps])
    n, K = keys.size, min(int(capacity), keys.size)
    n_sets = sum(math.comb(n, j) for j in range(K + 1))
    if n_sets * max(steps.size, 1) > EXACT_MAX_WORK:
        raise InputError(f"comparator 'exact': {n_sets} cache sets x {steps.size} admissions "
                         f"exceeds {EXACT_MAX_WORK:.0e}; use comparator='greedy'")
    masks = [sum(1 << b for b in c) for j in range(K + 1)
             for c in itertools.combinations(range(n), j)]
    index = {m: s for s, m in enumerate(masks)}
    bits = np.array([[(m >> b) & 1 for b in range(n)] for m in masks], bool)
    miss = np.where(bits, 1.0 - p[keys], 1.0).prod(axis=1)
    succ = np.full((n, len(masks), max(K, 1)), -1, np.int64)  # choices when admitting key b
    for s, m in enumerate(masks):
        for b in range(n):
            if m >> b & 1:
                succ[b, s, 0] = s
            elif bits[s].sum() < K:
                succ[b, s, 0] = index[m | 1 << b]
            else:
                members = [v for v in range(n) if m >> v & 1]
                succ[b, s, :len(members)] = [index[m & ~(1 << v) | 1 << b] for v in members]
    local = np.searchsorted(keys, admitted[steps])
    held = np.diff(np.r_[np.cumsum(np.r_[0.0, w])[steps + 1], np.sum(w)])  # Σ w after each
    value = np.zeros(len(masks))
    choice = np.zeros((steps.size, len(masks)), np.int64)
    for j in range(steps.size - 1, -1, -1):  # backward: value before admission j
        nxt = succ[local[j]]
        cand = np.where(nxt >= 0, held[j] * miss[nxt] + value[nxt], np.inf)
        choice[j] = nxt[np.arange(len(masks)), cand.argmin(axis=1)]
        value = cand.min(axis=1)
    adm, evi = np.full(T, -1, np.int64), np.full(T, -1, np.int64)
    s = 0
    for j, t in enumerate(steps.tolist()):
        new = choice[j, s]
        gone, came = masks[s] & ~masks[new], masks[new] & ~masks[s]
        if came:
            adm[t] = keys[came.bit_length() - 1]
        if gone:
            evi[t] = keys[gone.bit_length() - 1]
        s = new
    return adm, evi


@dataclasses.dataclass
class EvictionRegret:
    """Per-step expected (m_t) and realised misses of the policy and of the comparator.

    ``pseudo(T)`` = Σ_{t<T} [m_t(S_t^policy) − m_t(S_t^comparator)] (no Bernoulli noise);
    ``realised(T)`` the same with the misses actually paid on the trace's evidence;
    ``fixed_set(T)`` is against the best fixed set S*_T instead (see :meth:`fixed_set`).
    """

    policy_expected: np.ndarray
    comparator_expected: np.ndarray
    policy_realised: np.ndarray
    comparator_realised: np.ndarray
    fixed_product: np.ndarray
    weights: np.ndarray
    comparator: str

    def _check(self, T):
        if not 1 <= T <= self.policy_expected.shape[0]:
            raise InputError(f"horizon T must be in [1, {self.policy_expected.shape[0]}], "
                             f"got {T}")

    def pseudo(self, T: int) -> float:
        self._check(T)
        return float(np.sum(self.policy_expected[:T] - self.comparator_expected[:T]))

    def realised(self, T: int) -> float:
        self._check(T)
        return float(np.sum(self.policy_realised[:T] - self.comparator_realised[:T]))

    def fixed_set(self, T: int) -> float:
        """Regret against S*_T, the K items of highest p among those arriving before T.

        The classical bandit comparator: S*_T is held at every step, even before its items
        arrive, and never has to hold a newcomer.  An always-admit policy must keep each
        admitted arrival for at least one step, so while new items keep arriving its regret
        against S*_T grows linearly whatever its eviction rule; Def. 2.3 regret charges
        the comparator the same admissions and so isolates the eviction decisions.
        """
        self._check(T)
        best = self.weights[:T] * self.fixed_product[T - 1]
        return float(np.sum(self.policy_expected[:T] - best))


def eviction_regret(trace, run, comparator: str = "greedy", utilities=None,
                    capacity: int | None = None) -> EvictionRegret:
    """Regret of one run (a :class:`simulator.runner.RunResult` on ``trace``).

    Parameters
    ----------
    trace : Trace
        The trace the run used; relevance by evidence only.
    run : RunResult
        A semantic run with quality ``hit`` and ``top_k >= capacity``.
    comparator : {"greedy", "exact"}
        The Def. 2.3 comparator (module docstring): ``greedy`` always, ``exact`` on small
        instances (the DP's limit is ``EXACT_MAX_WORK``).
    utilities : array, optional
        p per item key; default ``trace.meta["utilities"]``.
    capacity : int, optional
        The comparator's K; default the run's (required for unbounded policies).
    """
    if comparator not in COMPARATORS:
        raise InputError(f"comparator must be one of {', '.join(COMPARATORS)}, got "
                         f"{comparator!r}")
    check_trace(trace)
    cfg = run.config
    K = cfg["capacity"] if capacity is None else capacity
    if run.loss is None or run.loss.shape[0] != trace.steps:
        raise InputError("run must be a semantic run over this trace (same number of steps)")
    if K is None or int(K) < 1:
        raise InputError("capacity must be given (>= 1) for a run without a capacity")
    if cfg["quality"] != "hit" or cfg["top_k"] < int(K):
        raise InputError(f"regret needs quality 'hit' and top_k >= capacity (R_t = S_t); got "
                         f"quality {cfg['quality']!r}, top_k {cfg['top_k']}, capacity {K}")
    if run.size.max(initial=0) > cfg["top_k"]:
        raise InputError(f"the policy's cache grew past top_k = {cfg['top_k']}, so R_t is not "
                         "the whole cache; give top_k >= its largest size")
    p = utilities_of(trace, utilities)
    w = effective_weights(trace)
    if comparator == "greedy":
        c_adm, c_evi = greedy_comparator(run.admitted, p, int(K))
    else:
        c_adm, c_evi = exact_comparator(run.admitted, p, w, int(K))
    none = np.full(trace.steps, -1, np.int64)
    return EvictionRegret(
        policy_expected=expected_miss(trace, p, run.admitted, run.evicted, run.deleted),
        comparator_expected=expected_miss(trace, p, c_adm, c_evi, none),
        policy_realised=realised_miss(trace, run.admitted, run.evicted, run.deleted),
        comparator_realised=realised_miss(trace, c_adm, c_evi, none),
        fixed_product=_fixed_set_miss(trace.item_keys, p, int(K)), weights=w,
        comparator=comparator)


def _fixed_set_miss(item_keys, p, K):
    """Π_{S*_T}(1 − p) for T = 1 … len(item_keys); S*_T = top-K p among keys seen before T."""
    out = np.empty(item_keys.shape[0])
    seen: set = set()
    best: list = []
    product = 1.0
    for t, key in enumerate(item_keys.tolist()):
        if key not in seen:
            seen.add(key)
            best = sorted(best + [float(p[key])], reverse=True)[:K]
            product = float(np.prod(1.0 - np.array(best)))
        out[t] = product
    return out
