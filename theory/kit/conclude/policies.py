"""Every policy of a class: the class's verdict from its members' verdicts.

The claim is stated for every member, so one member that fails refutes it: the class is
violated by the first member (in the class's order) whose own verdict is violated, with
that member's instance and basis.  Otherwise a member whose verdict is inconclusive, or
whose search found no witness (``not found``), leaves the class inconclusive.  Otherwise
no member failed, and the class:

- *holds* only for a "for every instance" bound, over an explicit list of policies (the
  class is exactly those), when every member holds (an enumerated range);
- is otherwise *not refuted*: a lower bound over a class (``some`` and rate bounds, the
  form :data:`~theory.claims.verdicts.LOWER_EVERY_POLICY`) is never confirmed by runs, and
  the policies a generator gives are a sample of their class (basis ``search``).
"""

from __future__ import annotations

from theory.claims.verdicts import (EVERY, HOLDS, INCONCLUSIVE, LOWER_EVERY_POLICY,
                                    NOT_FOUND, NOT_REFUTED, RATE, SEARCH, SOME,
                                    UPPER_ASYMPTOTIC, VIOLATED, basis, label, verdict,
                                    weakest_kind)


def class_verdict(claim, family, scope: str, names: list, found: list) -> dict:
    """The verdict record of ``claim``, about a class, from its members' records
    ``found`` (one per name of ``names``), its sub-ranges' too; ``scope`` names the
    range of instances."""
    forms = {f["form"] for f in found}
    # a lower bound over the class: "some" bounds, and rates whose verdicts name no upper
    # form (rate_at_least; rate_at_most and the additive form are asymptotic upper bounds)
    lower = (claim.bound.quantifier == SOME or LOWER_EVERY_POLICY in forms | {claim.form}
             or (claim.bound.quantifier == RATE and UPPER_ASYMPTOTIC not in forms))
    form = LOWER_EVERY_POLICY if lower else (claim.form or next(iter(forms - {None}), None))
    listed = isinstance(claim.policy, tuple)
    who = (f"every one of {', '.join(names)}" if listed else
           f"the {len(names)} policies policies() gave ({', '.join(names)}), a sample of "
           "the class")
    quantifier = claim.bound.quantifier
    head = combine(list(zip(names, found)), f"{who}; {scope}", quantifier, listed, form)
    parts = None
    if claim.subranges:
        parts = []
        for k, name in enumerate(claim.subranges):
            mine = [(n, f["subranges"][k]) for n, f in zip(names, found)]
            part = combine(mine, f"{who}; {scope}; part {name}", quantifier, listed, form)
            parts.append(dict(part, range=name, runs=sum(p.get("runs", 0) for _, p in mine)))
    members = [dict(policy=n, **{k: f[k] for k in ("verdict", "basis", "evidence", "instance",
                                                   "would_decide", "measured") if f.get(k)})
               for n, f in zip(names, found)]
    return dict(head, form=form, subranges=parts,
                measured=dict(instances=len(family), members=members))


def combine(members: list, scope: str, quantifier: str, explicit: bool,
            form: str | None) -> dict:
    """One class verdict from ``members``, pairs (policy name, verdict record); ``scope``
    names the class and its range; ``explicit`` is True for a listed class."""
    named = [(name, rec) for name, rec in members]
    failed = [(n, r) for n, r in named if r["verdict"] == VIOLATED]
    if failed:
        name, rec = failed[0]
        extra = {k: rec[k] for k in ("instance",) if rec.get(k)}
        return verdict(VIOLATED, rec["basis"], f"{name} fails it ({len(failed)} of "
                       f"{len(named)} members fail): {rec['evidence']}", form=form, **extra)
    kind = SEARCH if not explicit else weakest_kind([r["basis"] for _, r in named])
    here = basis(kind, scope)
    open_ = [(n, r) for n, r in named if r["verdict"] in (INCONCLUSIVE, NOT_FOUND)]
    if open_:
        return verdict(INCONCLUSIVE, here, "; ".join(f"{n}: {label(r)}, {r['evidence']}"
                                                    for n, r in open_), form=form,
                       would_decide="; ".join(f"{n}: {_decide(r)}" for n, r in open_))
    every_holds = all(r["verdict"] == HOLDS for _, r in named)
    said = HOLDS if (quantifier == EVERY and explicit and every_holds and form is None) \
        else NOT_REFUTED
    return verdict(said, here, f"all {len(named)} members meet it: "
                   + "; ".join(f"{n} {label(r)}" for n, r in named), form=form)


def _decide(record: dict) -> str:
    if record["verdict"] == NOT_FOUND:
        return "a witness (a larger search), or an enumerated range on which none exists"
    return record.get("would_decide") or "more runs"
