"""Classical FIFO is exactly K-competitive in paging mode (Table 3's FIFO row, on paging).

Paging mode (docs/model.md §1) is classical demand paging, where FIFO, like LRU, has
competitive ratio exactly K (Sleator and Tarjan).  Two halves, against Belady's MIN (the
``belady`` policy, optimal among demand-paging policies; both start empty):

- *at least K*: the ``paging`` adversary of :mod:`workloads.adversaries.workload` built
  against FIFO (K + 1 pages, always the one FIFO lacks): FIFO misses every request, Belady
  about one in K, so FIFO/Belady rises with T towards K.  Each K's longest run is a
  witness; the check asks that the ratio rises and ends within 5 % of K.
- *at most K*: FIFO's misses never exceed K times Belady's, on every request sequence of a
  finite range (:func:`sequences`, one per relabelling of the pages, which changes neither
  FIFO's nor Belady's misses) and on seeded random sequences beyond it (the kit's
  :func:`theory.check`, a search).

Basis.  The headline holds over the exhaustive range, with the ratio K reached on the
adversary's construction; the random sequences are ``not refuted``.
"""

from __future__ import annotations

import numpy as np

import theory
from simulator.instance import Instance
from simulator.runner import run
from simulator.trace import PagingTrace
from simulator.trace_formats import load
from theory.claims.base import HOLDS, VIOLATED, save_policy_instance
from theory.claims.verdicts import CONSTRUCTION, EXHAUSTIVE, NOT_REFUTED, basis, verdict
from theory.kit import bounds, families
from theory.kit.claim import Claim

LONGEST = {True: {1: 8, 2: 7, 3: 6}, False: {1: 10, 2: 9, 3: 8}}  # K -> longest sequence
CYCLES = {True: (10, 100, 400), False: (10, 100, 1000)}  # adversary length, in cycles of K
GRID_K = {True: (1, 2, 4, 8), False: (1, 2, 4, 8, 16)}
RANDOM = {True: 200, False: 3000}


def sequences(pages: int, length: int):
    """Every sequence of ``length`` requests over at most ``pages`` pages in which each new
    page is the next unused label: one sequence per relabelling of the pages.

    >>> [s for s in sequences(2, 3)]
    [[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1]]
    """
    def grow(prefix, top):
        if len(prefix) == length:
            yield prefix
            return
        for p in range(min(top + 2, pages)):
            yield from grow(prefix + [p], max(top, p))
    yield from grow([], -1)


def misses(trace, policy: str, K: int) -> int:
    """Demand-paging misses of ``policy`` with capacity ``K`` (the cache starts empty)."""
    s = run(trace, policy, capacity=K).summary()
    return s["steps"] - s["hits"]


def _within_k_belady(result, opt, instance) -> tuple:
    K = instance.options["capacity"]
    fifo = result.summary()["steps"] - result.summary()["hits"]
    belady = misses(instance.trace, "belady", K)
    return fifo <= K * belady, {"ratio_over_K": fifo / (K * belady)}


def random_sequences(n: int) -> families.Family:
    """``n`` seeded random request sequences: K = 1…8, K + 1 … 3K + 2 pages, T ≤ 299."""
    rng = np.random.default_rng(11)
    out = []
    for _ in range(n):
        K = int(rng.integers(1, 9))
        pages = int(rng.integers(K + 1, 3 * K + 3))
        T = int(rng.integers(K + 1, 300))
        out.append(Instance(PagingTrace.from_requests(rng.integers(0, pages, T)),
                            {"capacity": K}, {"pages": pages}))
    return families.Family(tuple(out), f"{n} seeded random sequences, K = 1…8, T ≤ 299, up "
                                        "to 3K + 2 pages")


def exhaustive(quick: bool) -> dict:
    """FIFO against Belady on every relabelled sequence over K + 1 pages of :data:`LONGEST`:
    ``sequences`` checked, the largest ``max_ratio_over_K``, the first breaking one
    (``bad``, or None) and the ``scope``."""
    checked, worst, bad = 0, 0.0, None
    for K, longest in LONGEST[quick].items():
        for length in range(1, longest + 1):
            for seq in sequences(K + 1, length):
                trace = PagingTrace.from_requests(np.array(seq))
                ratio = misses(trace, "fifo", K) / misses(trace, "belady", K)
                worst = max(worst, ratio / K)
                if ratio > K + 1e-12 and bad is None:
                    bad = dict(problem=f"fifo misses {ratio:.3f}·Belady > K = {K} on {seq}",
                               instance=Instance(trace, {"capacity": K}))
                checked += 1
    scope = ("every request sequence over K + 1 pages, up to relabelling, of length ≤ " +
             ", ".join(f"{n} (K = {K})" for K, n in LONGEST[quick].items()) +
             ", FIFO against Belady")
    return dict(sequences=checked, max_ratio_over_K=worst, bad=bad, scope=scope)


def adversary(quick: bool) -> dict:
    """FIFO/Belady on the paging adversary built against FIFO, per K and length: ``rows``
    and the first K whose ratio does not rise to within 5 % of K (``bad``, or None)."""
    from workloads.adversaries.workload import build

    rows, bad = [], None
    for K in GRID_K[quick]:
        ratios = []
        # FIFO misses all T requests, Belady about T/K + K: the ratio is near
        # K / (1 + K/cycles), within 5 % of K from 19 K cycles on
        for cycles in CYCLES[quick]:
            trace = build("paging", "fifo", K, cycles * K)
            fifo, belady = misses(trace, "fifo", K), misses(trace, "belady", K)
            ratios.append(fifo / belady)
            rows.append(dict(K=K, steps=trace.steps, fifo_misses=fifo, belady_misses=belady,
                             ratio=round(fifo / belady, 4)))
        if bad is None and (ratios[-1] < 0.95 * K or ratios != sorted(ratios)):
            bad = dict(problem=f"fifo: adversarial ratio {ratios} does not rise to K = {K}",
                       instance=Instance(trace, {"capacity": K}))
    return dict(rows=rows, bad=bad)


def _check(quick: bool, out_dir: str) -> dict:
    seen = adversary(quick)
    n = RANDOM[quick]
    claim = theory.Claim(id="fifo-paging-random", statement="FIFO misses at most K times "
                         "Belady's", policy="fifo", instances=random_sequences(n),
                         bound=bounds.predicate(_within_k_belady, "misses ≤ K·Belady's "
                                                                  "misses"))
    kit = theory.check(claim, out_dir=out_dir)
    worst = max(r["ratio_over_K"] for r in kit.measured["rows"])
    every = exhaustive(quick)
    measured = dict(adversarial=seen["rows"], random_sequences=n, max_ratio_over_K=worst,
                    exhaustive=dict(sequences=every["sequences"],
                                    max_ratio_over_K=every["max_ratio_over_K"]))
    bad = seen["bad"] or every["bad"]
    if kit.verdict == VIOLATED and bad is None:
        inst = kit.instance
        bad = dict(problem=f"{kit.id}: {kit.evidence}",
                   instance=Instance(load(inst["trace"]),
                                     {"capacity": inst["model"]["capacity"]}))
    if bad is not None:
        return dict(verdict=VIOLATED, basis=kit.basis, measured=measured,
                    evidence=bad["problem"],
                    instance=save_policy_instance(bad["instance"], "fifo", out_dir,
                                                  "fifo_paging", with_opt=False))
    grid = GRID_K[quick]
    construction = basis(CONSTRUCTION, "the paging adversary against FIFO (K + 1 pages, "
                                       "always the one FIFO lacks), K = " +
                         "/".join(map(str, grid)) + ", against Belady's exact misses")
    longest = {r["K"]: r for r in seen["rows"]}  # the last row of each K is its longest
    reached = ", ".join(f"{r['ratio']:.3f} (K={K})" for K, r in longest.items())
    parts = [verdict(HOLDS, construction, f"FIFO/Belady rises to {reached}",
                     range="at least K (the adversary)", runs=len(seen["rows"])),
             verdict(HOLDS, basis(EXHAUSTIVE, every["scope"]),
                     f"FIFO ≤ K·Belady on all {every['sequences']} sequences (max ratio/K "
                     f"{every['max_ratio_over_K']:.3f})", range="at most K, exhaustive",
                     runs=every["sequences"]),
             verdict(NOT_REFUTED, kit.basis, f"FIFO ≤ K·Belady on all {n} (max ratio/K "
                     f"{worst:.3f})", range="at most K, random sequences", runs=n)]
    top = max(LONGEST[quick])
    return dict(verdict=HOLDS, measured=measured, subranges=parts,
                basis=basis(EXHAUSTIVE, every["scope"] + "; the ratio K is reached on the "
                                                         "adversary's construction"),
                verdict_note=f"at most K: K ≤ {top}, exhaustive",
                evidence=f"adversarial FIFO/Belady reaches {reached}; FIFO stays ≤ K·Belady "
                         f"on all {every['sequences']} sequences of the exhaustive range and "
                         f"on {n} random ones")


CLAIM = Claim(
    id="fifo-paging",
    title="FIFO is exactly K-competitive (paging)",
    statement="Classical FIFO has competitive ratio K in paging mode.",
    conditions="paging mode against Belady's MIN (demand paging, both start empty); paging "
               "adversary against FIFO with K ∈ {1,2,4,8,16}, T = 10…1000 cycles of K "
               "(quick: K ≤ 8, ≤ 400 cycles); every sequence over K + 1 pages up to "
               "relabelling, length ≤ 10/9/8 for K = 1/2/3 (quick: 8/7/6); 3000 seeded "
               "random sequences, K = 1…8, T = K+1…299, up to 3K+2 pages (quick: 200)",
    evidence=_check)
