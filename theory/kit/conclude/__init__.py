"""From one policy's judged instances to a verdict, by the statement's quantifier.

:func:`theory.check` runs the policy on every instance of the family and judges each with
the bound (:mod:`theory.kit.bounds`); what the rows allow depends on what the statement
says of its instances (docs/claims.md, "What a run may conclude"):

- :mod:`~theory.kit.conclude.every`: for every instance (an upper bound);
- :mod:`~theory.kit.conclude.some`: for some instance (a witness);
- :mod:`~theory.kit.conclude.rate`: a rate or an additive form, which the bound's own
  ``conclude`` judges over the whole family;
- :mod:`~theory.kit.conclude.policies`: a claim about every policy of a class, from the
  verdicts of its members;

each from the rows of one policy, a :class:`~theory.kit.conclude.judged.Judged`.
"""

from __future__ import annotations

from theory.kit.conclude.judged import Judged


def conclude(judged: Judged) -> dict:
    """The verdict record of one policy (a :class:`~theory.claims.base.ClaimResult`'s
    fields other than the claim's identity): by the bound's quantifier."""
    from theory.kit.conclude import every, rate, some

    by = {"every": every.conclude, "some": some.conclude, "growth": rate.conclude}
    return by[judged.claim.bound.quantifier](judged)
