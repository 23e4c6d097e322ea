"""The claim kit: a claim (:mod:`theory.kit.claim`), the policies it speaks of
(:mod:`theory.kit.members`), the bounds it states, each with its quantifier
(:mod:`theory.kit.bounds`), the instances it quantifies over (:mod:`theory.kit.families`),
what a run may conclude by quantifier (:mod:`theory.kit.conclude`), the shrinker of a
breaking instance (:mod:`theory.kit.shrink`) and the guard around your functions
(:mod:`theory.kit.user_code`).

``import theory`` hands on the names a claim file needs: ``theory.Claim``,
``theory.check``, ``theory.bounds`` and ``theory.families``.
"""

from theory.kit import bounds, families
from theory.kit.claim import Claim, check, judge

__all__ = ["Claim", "bounds", "check", "families", "judge"]
