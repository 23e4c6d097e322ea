"""The worst-case search beyond the paging claims' exhaustive range: "cost ≤ K·Belady"
stated with the kit at a few K, with :func:`theory.search.worst_case` beside a tiny
enumerated family (``theory.Claim(search=...)``, :mod:`theory.kit.searched`), the
companion of the random sequences in :mod:`theory.claims.lru_paging` and
:mod:`theory.claims.fifo_paging`."""

from __future__ import annotations

import theory
from theory.claims.verdicts import NOT_REFUTED, SEARCH, VIOLATED, basis, verdict

# the capacities searched and the evaluations of each search (quick: fewer)
SEARCH_K = {True: (2,), False: (2, 3, 4)}
SEARCH_BUDGET = {True: 150, False: 1000}
PART = "at most K, worst-case search"


def searched(quick: bool, policies: tuple) -> list:
    """"cost ≤ K·Belady" for each of ``policies`` at each K of :data:`SEARCH_K`, with
    the search (sequences up to 6(K + 1) requests over K + 1 pages, seed 0) beside every
    sequence of up to 3 requests."""
    from theory.search import Budget

    out = []
    for K in SEARCH_K[quick]:
        tiny = theory.families.exhaustive("paging", length=3, pages=K + 1, capacity=[K])
        out += [theory.Claim(id=f"paging-search-{p}-K{K}", policy=p, instances=tiny,
                             statement=f"{p} misses at most {K} times Belady's",
                             bound=theory.bounds.ratio_at_most(K),
                             search=Budget(evaluations=SEARCH_BUDGET[quick], seed=0))
                for p in policies]
    return out


def searched_part(found: list, quick: bool, who: str) -> dict:
    """The sub-range :data:`PART` from the results of :func:`searched`'s claims; ``who``
    names the policies in the evidence."""
    broken = next((r for r in found if r.verdict == VIOLATED), None)
    if broken is not None:
        return verdict(VIOLATED, broken.basis, f"{broken.id}: {broken.evidence}",
                       instance=broken.instance, range=PART, runs=len(found))
    rows = [row for r in found for row in r.measured["search"]["measured"]["rows"]]
    worst = max(row["ratio_lower"] / row["capacity"] for row in rows)
    ks = ", ".join(map(str, SEARCH_K[quick]))
    return verdict(NOT_REFUTED, basis(SEARCH, f"the worst case theory.search.worst_case "
                                              f"found for {who} at K = {ks} (anneal, "
                                              f"{SEARCH_BUDGET[quick]} evaluations each, "
                                              "seed 0, ≤ 6(K + 1) requests over K + 1 "
                                              "pages), shrunk, against Belady"),
                   f"{who} ≤ K·Belady on each (max ratio/K {worst:.3f})", range=PART,
                   runs=len(rows))
