"""For some instance: a witness makes the claim hold; without one, a search has found
nothing (``not found``: it cannot show that no instance exists), and only an enumerated
range, every instance decided, shows the claim violated over that range.

Nothing is shrunk (nothing broke).  The smallest witness is saved with its replay lines,
its cost and OPT in the evidence; a range without one saves its nearest miss (the
instance where the bound's ``score`` is largest) as the instance a violated verdict names.
"""

from __future__ import annotations

from theory.claims.verdicts import (HOLDS, INCONCLUSIVE, NOT_FOUND, SEARCH, SOME_INSTANCE,
                                    VIOLATED, WHOLE_RANGE, WITNESS, basis, verdict)
from theory.kit.bounds import UNDECIDED
from theory.kit.bounds import WITNESS as A_WITNESS
from theory.kit.conclude.judged import Judged, numbers_text

_DECIDE = ("exact OPT where its bounds straddle the limit: a larger time_limit, or smaller "
           "instances")


def conclude(j: Judged) -> dict:
    """The verdict of a "for some instance" bound over ``j``'s rows."""
    said = _part(j, j.rows, j.range_scope, j.save_as)
    measured = dict(instances=len(j.rows), witnesses=len(j.with_status(A_WITNESS)),
                    undecided=len(j.with_status(UNDECIDED)), rows=j.rows)
    if "numbers" in said:
        measured["witness" if said["verdict"] == HOLDS else "nearest"] = said.pop("numbers")
    parts = None
    if j.claim.subranges:
        parts = []
        for name, mine in j.parts():
            part = _part(j, mine, f"{j.range_scope}; part {name}", None)
            part.pop("numbers", None)
            parts.append(verdict(part.pop("verdict"), part.pop("basis"), part.pop("evidence"),
                                 form=SOME_INSTANCE, range=name, runs=len(mine), **part))
    return dict(said, form=SOME_INSTANCE, measured=measured, subranges=parts)


def _part(j: Judged, rows: list, scope: str, save_as: str | None) -> dict:
    """The verdict over ``rows`` (the whole family, or one sub-range: ``save_as`` None
    names each saved instance after its index)."""
    bound = j.claim.bound.describe()
    witnesses = [r for r in rows if r["status"] == A_WITNESS]
    undecided = [r for r in rows if r["status"] == UNDECIDED]

    def save(row):
        return j.save(j.instance(row), save_as or f"{j.save_as}_{row['index']}")

    if not rows:
        return dict(verdict=INCONCLUSIVE, basis=basis(j.range_kind, scope),
                    evidence="no run in this part of the range",
                    would_decide="runs in this part of the range")
    if witnesses:
        first = min(witnesses, key=lambda r: (r["steps"], r["index"]))
        return dict(verdict=HOLDS, instance=save(first), numbers=_own(first),
                    basis=basis(WITNESS, f"instance {first['index']} of {scope}: "
                                         f"{_where(first)}"),
                    evidence=f"{len(witnesses)} of {len(rows)} instances are witnesses; "
                             f"the smallest ({first['steps']} steps): "
                             + numbers_text(_own(first)))
    if j.range_kind in WHOLE_RANGE and not undecided:
        nearest = _nearest(j, rows)
        return dict(verdict=VIOLATED, instance=save(nearest), numbers=_own(nearest),
                    basis=basis(j.range_kind, f"{scope}; {bound} sought on each"),
                    evidence=f"none of the {len(rows)} instances of the range is a witness; "
                             f"the nearest ({nearest['steps']} steps): "
                             + numbers_text(_own(nearest)))
    straddle = f"; on {len(undecided)} OPT's bounds straddle the limit" if undecided else ""
    found = dict(basis=basis(SEARCH, f"{scope}; {bound} sought on each"),
                 evidence=f"no witness among {len(rows)} instances{straddle}")
    if j.range_kind in WHOLE_RANGE:  # the whole range, but not every instance decided
        return dict(found, verdict=INCONCLUSIVE, would_decide=_DECIDE)
    return dict(found, verdict=NOT_FOUND, **({"would_decide": _DECIDE} if undecided else {}))


def _nearest(j: Judged, rows: list) -> dict:
    """The row nearest to a witness: the largest ``score`` if the bound names one (the
    smallest instance on ties), else the smallest instance."""
    score = j.claim.bound.score
    if score and all(isinstance(r.get(score), (int, float)) for r in rows):
        return max(rows, key=lambda r: (r[score], -r["steps"], -r["index"]))
    return min(rows, key=lambda r: (r["steps"], r["index"]))


def _own(row: dict) -> dict:
    """The bound's numbers of ``row`` (without the row's own fields)."""
    from theory.kit.bounds import ROW_FIELDS

    return {k: v for k, v in row.items() if k not in ROW_FIELDS}


def _where(row: dict) -> str:
    from simulator.instance import OPTION_NAMES

    return ", ".join(f"{k} {row[k]}" for k in OPTION_NAMES if row.get(k) is not None)
