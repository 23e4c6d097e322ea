"""Classical FIFO is exactly K-competitive in paging mode (Table 3's FIFO row, on paging).

Paging mode (docs/model.md §1) is classical demand paging, where FIFO, like LRU, has
competitive ratio exactly K (Sleator and Tarjan).  Two halves, against Belady's MIN (the
``belady`` policy, optimal among demand-paging policies; both start empty):

- *at least K*: the ``paging`` adversary of :mod:`workloads.adversaries.workload` built
  against FIFO (K + 1 pages, always the one FIFO lacks): FIFO misses every request, Belady
  about one in K, so FIFO/Belady rises with T towards K.  Each K's longest run is a
  witness; the check asks that the ratio rises and ends within 5 % of K.
- *at most K*: FIFO's misses never exceed K times Belady's, on every request sequence of a
  finite range (:func:`theory.families.exhaustive`, one sequence per relabelling of the
  pages, which changes neither FIFO's nor Belady's misses) and on seeded random sequences
  beyond it, each stated with the kit and judged by :func:`theory.check`, and on the
  worst cases :func:`theory.search.worst_case` finds (:mod:`theory.claims.paging_search`).

Basis.  The headline holds over the exhaustive range, with the ratio K reached on the
adversary's construction; the random sequences and the search's worst cases are ``not
refuted``.
"""

from __future__ import annotations


import theory
from simulator.instance import Instance
from simulator.trace_formats import load
from theory.claims.base import HOLDS, VIOLATED, save_policy_instance
from theory.claims.paging_search import searched, searched_part
from theory.claims.verdicts import CONSTRUCTION, NOT_REFUTED, basis, verdict
from theory.claims.lru_paging import misses, random_sequences, within_k_belady
from theory.kit import bounds, families
from theory.kit.claim import Claim

LONGEST = {True: {1: 8, 2: 7, 3: 6}, False: {1: 10, 2: 9, 3: 8}}  # K -> longest sequence
CYCLES = {True: (10, 100, 400), False: (10, 100, 1000)}  # adversary length, in cycles of K
GRID_K = {True: (1, 2, 4, 8), False: (1, 2, 4, 8, 16)}
RANDOM = {True: 200, False: 3000}


def every_sequence(quick: bool) -> families.Enumeration:
    """Every request sequence over at most K + 1 pages, up to relabelling, of length ≤
    :data:`LONGEST` ``[K]``, for each K (:func:`theory.families.exhaustive`)."""
    spaces = [families.exhaustive("paging", length=n, pages=K + 1, capacity=[K])
              for K, n in LONGEST[quick].items()]
    return sum(spaces[1:], spaces[0])


def _claim(name: str, instances) -> theory.Claim:
    return theory.Claim(id=f"fifo-paging-{name}", statement="FIFO misses at most K times "
                        "Belady's", policy="fifo", instances=instances,
                        bound=bounds.predicate(within_k_belady, "misses ≤ K·Belady's misses"))


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
    kit = theory.check(_claim("random", random_sequences(n, seed=11)), out_dir=out_dir)
    every = theory.check(_claim("exhaustive", every_sequence(quick)), out_dir=out_dir)
    searches = [theory.check(c, out_dir=out_dir) for c in searched(quick, ("fifo",))]
    worst = max(r["ratio_over_K"] for r in kit.measured["rows"])
    top = max(r["ratio_over_K"] for r in every.measured["rows"])
    measured = dict(adversarial=seen["rows"], random_sequences=n, max_ratio_over_K=worst,
                    exhaustive=dict(sequences=len(every.measured["rows"]),
                                    max_ratio_over_K=top))
    bad = seen["bad"]
    for found in (every, kit, *searches):
        if bad is None and found.verdict == VIOLATED:
            inst = found.instance
            bad = dict(problem=f"{found.id}: {found.evidence}",
                       instance=Instance(load(inst["trace"]),
                                         {"capacity": inst["model"]["capacity"]}))
    if bad is not None:
        first = next((f for f in (every, kit, *searches) if f.verdict == VIOLATED), kit)
        return dict(verdict=VIOLATED, basis=first.basis, measured=measured, evidence=bad["problem"],
                    instance=save_policy_instance(bad["instance"], "fifo", out_dir,
                                                  "fifo_paging", with_opt=False))
    grid = GRID_K[quick]
    construction = basis(CONSTRUCTION, "the paging adversary against FIFO (K + 1 pages, "
                                       "always the one FIFO lacks), K = " +
                         "/".join(map(str, grid)) + ", against Belady's exact misses")
    longest = {r["K"]: r for r in seen["rows"]}  # the last row of each K is its longest
    reached = ", ".join(f"{r['ratio']:.3f} (K={K})" for K, r in longest.items())
    count = len(every.measured["rows"])
    parts = [verdict(HOLDS, construction, f"FIFO/Belady rises to {reached}",
                     range="at least K (the adversary)", runs=len(seen["rows"])),
             verdict(every.verdict, every.basis, f"FIFO ≤ K·Belady on all {count} sequences "
                     f"(max ratio/K {top:.3f})", range="at most K, exhaustive", runs=count),
             verdict(NOT_REFUTED, kit.basis, f"FIFO ≤ K·Belady on all {n} (max ratio/K "
                     f"{worst:.3f})", range="at most K, random sequences", runs=n),
             searched_part(searches, quick, "FIFO")]
    return dict(verdict=every.verdict, measured=measured, subranges=parts,
                basis=basis(every.basis["kind"], every.basis["scope"] + "; the ratio K is "
                            "reached on the adversary's construction"),
                verdict_note=f"at most K: K ≤ {max(LONGEST[quick])}, exhaustive",
                evidence=f"adversarial FIFO/Belady reaches {reached}; FIFO stays ≤ K·Belady "
                         f"on all {count} sequences of the exhaustive range, on {n} "
                         "random ones and on the worst-case search's")


CLAIM = Claim(
    id="fifo-paging",
    title="FIFO is exactly K-competitive (paging)",
    statement="Classical FIFO has competitive ratio K in paging mode.",
    conditions="paging mode against Belady's MIN (demand paging, both start empty); paging "
               "adversary against FIFO with K ∈ {1,2,4,8,16}, T = 10…1000 cycles of K "
               "(quick: K ≤ 8, ≤ 400 cycles); every sequence over K + 1 pages up to "
               "relabelling, length ≤ 10/9/8 for K = 1/2/3 (quick: 8/7/6); 3000 seeded "
               "random sequences, K = 1…8, T = K+1…299, up to 3K+2 pages (quick: 200); the "
               "worst-case search at K = 2, 3, 4, 1000 evaluations each (quick: K = 2, 150)",
    evidence=_check)
