"""What a claim's search may spend: the budget :func:`theory.check` gives
:func:`theory.search.worst_case` beside the claim's families (docs/search.md, a claim's
search).

>>> Budget(evaluations=200, seed=3).describe()
'anneal, 200 evaluations, seed 3'
>>> Budget(evaluations=0)
Traceback (most recent call last):
...
simulator.errors.InputError: Budget: evaluations must be an integer >= 1, got 0
"""

from __future__ import annotations

import dataclasses

import numpy as np

from simulator.errors import InputError
from simulator.rng import check_seed
from theory.kit.user_code import shown
from theory.search.engines import ENGINES


@dataclasses.dataclass(frozen=True)
class Budget:
    """One search per run options of the claim's family (capacity, top-k, λ), each of
    ``evaluations`` candidates by ``engine`` from ``seed``, restarted from the family's
    instances of those options; ``max_steps``, ``pages``, ``topics`` and ``grow_steps``
    size the space as :func:`theory.search.worst_case` reads them (None: its defaults).
    """

    evaluations: int = 200
    seed: int = 0
    engine: str = "anneal"
    max_steps: int | None = None
    pages: int | None = None
    topics: int | None = None
    grow_steps: int | None = None

    def __post_init__(self):
        for name, least, optional in (("evaluations", 1, False), ("max_steps", 1, True),
                                      ("pages", 1, True), ("topics", 1, True),
                                      ("grow_steps", 1, True)):
            value = getattr(self, name)
            if optional and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
                    or value < least:
                raise InputError(f"Budget: {name} must be an integer >= {least}"
                                 f"{' or None' if optional else ''}, got {shown(value)}",
                                 name)
        check_seed(self.seed, "seed")
        if self.engine not in ENGINES:
            raise InputError(f"Budget: engine must be one of {', '.join(ENGINES)}, got "
                             f"{shown(self.engine)}", "engine")

    def describe(self) -> str:
        return f"{self.engine}, {self.evaluations} evaluations, seed {self.seed}"

    def sizes(self) -> dict:
        """The space's sizes given (for :func:`theory.search.worst_case`)."""
        return {k: getattr(self, k) for k in ("max_steps", "pages", "topics", "grow_steps")
                if getattr(self, k) is not None}
