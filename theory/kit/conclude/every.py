"""For every instance: one broken instance violates the claim, shrunk to where every step
matters; nothing broken holds only over an enumerated range (or, on its author's word, a
declared one) and is not refuted after a search; an instance whose OPT's bounds straddle
the limit leaves it inconclusive."""

from __future__ import annotations

from theory.claims.base import by_subrange
from theory.claims.verdicts import (DECIDING, HOLDS, INCONCLUSIVE, NOT_REFUTED, SEARCH,
                                    VIOLATED, basis)
from theory.kit.bounds import BROKEN, UNDECIDED
from theory.kit.conclude.judged import Judged, numbers_text


def conclude(j: Judged) -> dict:
    """The verdict of a "for every instance" bound over ``j``'s rows."""
    from theory.kit.shrink import shrink

    claim, rows = j.claim, j.rows
    broken, undecided = j.with_status(BROKEN), j.with_status(UNDECIDED)
    kind = j.range_kind if not undecided else SEARCH
    based = basis(kind, f"{j.range_scope}; {claim.bound.describe()} on each")
    if broken:  # every judgement before any file is saved
        first = min(broken, key=lambda r: r["steps"])
        small = shrink(j.instance(first),
                       lambda c: j.rejudge(c, first["index"])[0] == BROKEN)
        shrunk = j.rejudge(small, first["index"])[1]
    parts = None
    if claim.subranges:
        named = {k: (lambda r, m=m: m[r["index"]]) for k, m in j.inside.items()}
        parts = by_subrange(rows, named, lambda r: r["status"] != BROKEN,
                            lambda r: j.save(j.instance(r), f"{j.save_as}_{r['index']}"),
                            based, claim.form)
    found = dict(form=claim.form, subranges=parts,
                 measured=dict(instances=len(rows), broken=len(broken),
                               undecided=len(undecided), rows=rows))
    if broken:
        found["measured"]["shrunk"] = shrunk
        return dict(found, verdict=VIOLATED, basis=based, instance=j.save(small, j.save_as),
                    evidence=f"{len(broken)} of {len(rows)} instances break "
                             f"{claim.bound.describe()}; shrunk to {small.steps} steps: "
                             + numbers_text(shrunk))
    if undecided:
        return dict(found, verdict=INCONCLUSIVE, basis=based,
                    evidence=f"none of {len(rows)} breaks it, but on {len(undecided)} OPT "
                             "is known only within bounds that straddle the limit",
                    would_decide="exact OPT on those instances: a larger time_limit, or "
                                 "smaller instances")
    said = HOLDS if kind in DECIDING else NOT_REFUTED
    return dict(found, verdict=said, basis=based,
                evidence=f"all {len(rows)} instances meet {claim.bound.describe()}")
