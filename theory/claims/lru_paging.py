"""Classical LRU is K-competitive in paging mode, and no better (the paper's §2 baseline).

Paging mode (docs/model.md §1) is classical demand paging, where Sleator and Tarjan showed LRU's
competitive ratio is exactly K.  Two halves, both measured against Belady's MIN (the
``belady`` policy, optimal among demand-paging policies):

- *at least K*: the ``paging`` adversary of :mod:`workloads.adversarial` (K + 1 pages,
  always the one LRU lacks) drives LRU's miss ratio to Belady's towards K; we check it
  rises with T and ends within 5 % of K;
- *at most K*: on seeded random request sequences (and on the adversarial ones), LRU's
  misses never exceed K times Belady's (both start empty).  A violation is saved.

FIFO is measured beside LRU (also K-competitive).  In the model's own OPT, which may skip
an admission, the adversarial ratio tends to K + 1 instead; see :mod:`theory.adversary_ratio`.
"""

from __future__ import annotations

import numpy as np

from simulator.runner import run
from simulator.trace import PagingTrace
from theory.claims.base import HOLDS, VIOLATED, Claim, save_instance


def _misses(trace, policy, K):
    s = run(trace, policy, capacity=K).summary()
    return s["steps"] - s["hits"]


def _check(quick: bool, out_dir: str) -> dict:
    from workloads.adversarial import build

    grid_K = (1, 2, 4, 8) if quick else (1, 2, 4, 8, 16)  # K = 1: LRU = Belady
    rows, bad = [], None
    for K in grid_K:
        for policy in ("lru", "fifo"):
            ratios = []
            # LRU misses all T requests, Belady about T/K + K, so the ratio is near
            # K / (1 + K/cycles): within 5 % of K needs cycles >= 19 K (400 for K = 8)
            for cycles in ((10, 100, 400) if quick else (10, 100, 1000)):
                T = cycles * K
                trace = build("paging", policy, K, T)
                ratio = _misses(trace, policy, K) / _misses(trace, "belady", K)
                ratios.append(ratio)
                rows.append(dict(K=K, policy=policy, steps=T, ratio=round(ratio, 4)))
            if bad is None and (ratios[-1] < 0.95 * K or ratios != sorted(ratios)):
                bad = (f"{policy}: adversarial ratio {ratios} does not rise to K = {K}",
                       trace, K, policy)
    rng = np.random.default_rng(7)
    worst = 0.0
    n = 200 if quick else 3000
    for _ in range(n):
        K = int(rng.integers(1, 9))
        pages = int(rng.integers(K + 1, 3 * K + 3))
        T = int(rng.integers(K + 1, 300))
        trace = PagingTrace.from_requests(rng.integers(0, pages, T))
        opt = _misses(trace, "belady", K)
        for policy in ("lru", "fifo"):
            ratio = _misses(trace, policy, K) / opt
            worst = max(worst, ratio / K)
            if ratio > K + 1e-12 and bad is None:
                bad = (f"{policy} misses {ratio:.3f}·Belady > K = {K}", trace, K, policy)
    measured = dict(adversarial=rows, random_sequences=n, max_ratio_over_K=worst)
    if bad is not None:
        problem, trace, K, policy = bad
        inst = save_instance(trace, out_dir, "lru_paging",
                             dict(capacity=K, policy=policy), with_opt=False)
        return dict(verdict=VIOLATED, measured=measured, instance=inst, evidence=problem)
    last = [r for r in rows if r["steps"] == max(x["steps"] for x in rows if x["K"] == r["K"])]
    return dict(verdict=HOLDS, measured=measured,
                evidence="adversarial LRU/Belady reaches " + ", ".join(
                    f"{r['ratio']:.3f} (K={r['K']})" for r in last if r["policy"] == "lru") +
                f"; on {n} random sequences LRU and FIFO stay ≤ K·Belady (max ratio/K "
                f"{worst:.3f})")


CLAIM = Claim(
    id="lru-paging",
    title="LRU is exactly K-competitive (paging)",
    statement="Classical LRU has competitive ratio K in paging mode.",
    conditions="paging mode against Belady's MIN (demand paging); paging adversary with "
               "K ∈ {1,2,4,8,16}, T = 10…1000 cycles of K (quick: K ≤ 8, ≤ 400 cycles); "
               "3000 seeded random sequences, K = 1…8, T = K+1…299, up to 3K+2 pages "
               "(quick: 200)",
    check=_check)
