"""The stylized eviction model of the SOLAR paper's regret proofs (Theorems 5.6 and 5.7).

Model (docs/claims.md, Theorem 5.6). A fixed pool of N items, item i with a latent utility
μ_i. The cache holds K of them (at the start, items 0 … K−1). Each step: every cached item
gives one Bernoulli(μ_i) observation (retrieval feedback); then one pool item that is not
cached arrives, drawn uniformly, and one of the K + 1 candidates leaves. A step's reward is
Σ_{i cached} μ_i; the comparator keeps the K items of highest utility (the best eviction
policy when an arrival may be the one that leaves), so the pseudo-regret is

    R_T = Σ_{t<T} ( Σ_{top K} μ − Σ_{i ∈ S_t} μ_i ).

Policies (``POLICIES``):

``ts``
    the paper's stylized Thompson sampling: one Beta(1, 1) posterior per *pool item*, kept
    across evictions; the candidate of lowest posterior sample leaves (the arrival too).
``ts_restart``
    Algorithm 2 as specified: the posterior restarts at Beta(1, 1) on admission and the
    arrival is always admitted (forced), one of the K cached items leaving.
``greedy``
    the lowest empirical mean leaves (unobserved items count as 1/2), posteriors kept.
``fifo``
    forced admission, the oldest cached item leaves.
``uniform``
    forced admission, a uniformly drawn cached item leaves.

Everything is drawn from ``numpy.random.default_rng(seed)``, so a run is a pure function of
(utilities, K, T, policy, seed), and R_T for a shorter horizon is a prefix of the curve.

Examples
--------
>>> mu = [0.5, 0.5, 0.5, 0.2]
>>> r = regret_curve(mu, capacity=3, steps=200, policy="fifo", seed=0)
>>> r.shape, bool(r[-1] > 0)
((200,), True)
"""

from __future__ import annotations

import numpy as np

POLICIES = ("ts", "ts_restart", "greedy", "fifo", "uniform")
FORCED = {"ts_restart", "fifo", "uniform"}


def regret_curve(utilities, capacity: int, steps: int, policy: str, seed: int) -> np.ndarray:
    """Cumulative pseudo-regret R_1 … R_T of one run of the stylized model."""
    mu = np.asarray(utilities, np.float64)
    N, K = mu.size, int(capacity)
    if not 1 <= K < N:
        raise ValueError(f"capacity must be in 1 … {N - 1} (the pool has {N} items)")
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    rng = np.random.default_rng(seed)
    best = np.sort(mu)[-K:].sum()
    cached = list(range(K))
    since = {i: 0 for i in cached}  # admission step (fifo)
    a, b = np.ones(N), np.ones(N)  # Beta posteriors (ts, ts_restart) or success/failure counts
    regret = np.empty(steps)
    total = 0.0
    for t in range(steps):
        total += best - mu[cached].sum()
        regret[t] = total
        seen = rng.random(K) < mu[cached]
        a[cached] += seen
        b[cached] += ~seen
        outside = np.setdiff1d(np.arange(N), cached)
        arrival = int(outside[rng.integers(outside.size)])
        candidates = cached if policy in FORCED else cached + [arrival]
        if policy in ("ts", "ts_restart"):
            score = rng.beta(a[candidates], b[candidates])
        elif policy == "greedy":
            score = (a[candidates] - 1 + 0.5) / (a[candidates] + b[candidates] - 1)
        elif policy == "fifo":
            score = np.array([since[i] for i in candidates], np.float64)
        else:
            score = rng.random(len(candidates))
        victim = candidates[int(np.argmin(score))]
        if victim != arrival:
            cached = [i for i in cached if i != victim] + [arrival]
            since.pop(victim)
            since[arrival] = t
            if policy == "ts_restart":
                a[arrival] = b[arrival] = 1.0
    return regret
