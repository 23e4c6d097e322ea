"""A rate or an additive form: the bound's ``conclude(rows, scope)`` judges the whole
family at once (a growth fit), and its answer is checked here before it becomes a verdict.

Nothing is shrunk (a growth is a property of the family, not of one instance): a violated
verdict saves the instance of the row ``conclude`` names as its ``witness`` (the largest
instance when it names none).
"""

from __future__ import annotations

from simulator.errors import InputError
from theory.claims.verdicts import RATE, VIOLATED, check
from theory.kit.conclude.judged import Judged
from theory.kit.user_code import call, shown

_KEYS = ("verdict", "basis", "evidence", "would_decide", "form", "measured", "witness")


def conclude(j: Judged) -> dict:
    """The verdict of a growth bound over ``j``'s rows."""
    said = _concluded(j, j.rows, j.range_scope, j.save_as)
    parts = None
    if j.claim.subranges:
        parts = []
        for name, mine in j.parts():
            part = _concluded(j, mine, f"{j.range_scope}; part {name}", None)
            part.pop("measured", None)
            parts.append(dict(part, range=name, runs=len(mine)))
    measured = dict(instances=len(j.rows), rows=j.rows, **said.pop("measured", {}))
    return dict(said, form=said.get("form", j.claim.form), measured=measured,
                subranges=parts)


def _concluded(j: Judged, rows: list, scope: str, save_as: str | None) -> dict:
    """``conclude(rows, scope)``'s answer, checked; a violated one with its instance."""
    where = f"claim '{j.claim.id}', bound '{j.claim.bound.describe()}': conclude(rows, scope)"
    if not rows:
        raise InputError(f"{where}: no instance in {scope}")
    said = call(j.claim.bound.conclude, where, [dict(r) for r in rows], scope)
    if not (isinstance(said, dict) and {"verdict", "basis", "evidence"} <= set(said)
            and set(said) <= set(_KEYS)):
        raise InputError(f"{where} returned {shown(said)}; it must return a dict with "
                         f"verdict, basis and evidence (and optionally {', '.join(_KEYS[3:])})")
    if not isinstance(said.get("measured", {}), dict):
        raise InputError(f"{where} returned measured={shown(said['measured'])}; it must be "
                         "a dict")
    try:
        check(said["verdict"], said["basis"], said.get("form"), said.get("would_decide"),
              RATE)
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None
    said = {k: v for k, v in said.items() if v is not None}
    witness = said.pop("witness", None)
    if said["verdict"] == VIOLATED:
        if witness is None:
            witness = max(rows, key=lambda r: (r["steps"], r["index"]))["index"]
        if witness not in {r["index"] for r in rows}:
            raise InputError(f"{where} returned witness={shown(witness)}; it must be the "
                             "index of one of the rows")
        instance = j.family.instances[witness]
        said["instance"] = j.save(instance, save_as or f"{j.save_as}_{witness}")
    return said
