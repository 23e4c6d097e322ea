"""What one policy's run over a claim's family gives the conclusions
(:mod:`theory.kit.conclude`): its judged rows and how to save or re-judge an instance."""

from __future__ import annotations

import dataclasses
from typing import Callable

from theory.kit.families import Family


@dataclasses.dataclass(frozen=True)
class Judged:
    """One policy's run over a claim's family, as the conclusions read it.

    ``rows`` are :func:`theory.check`'s per-instance rows (index, status, steps, labels,
    the run options and the bound's numbers); ``range_kind`` and ``range_scope`` the basis
    the family supports (kind ``search``, or ``exhaustive`` for an enumerated range) and
    the range it names; ``inside`` each
    sub-range's membership of every instance; ``save(instance, name)`` writes an instance
    with its replay lines; ``rejudge(instance, index)`` judges a changed instance with the
    run options of instance ``index`` (for shrinking); ``save_as`` names the saved files.
    """

    claim: object
    policy: str
    family: Family
    rows: list
    range_kind: str
    range_scope: str
    inside: dict
    save: Callable
    rejudge: Callable
    save_as: str

    def instance(self, row: dict):
        """The family's instance of ``row``."""
        return self.family.instances[row["index"]]

    def with_status(self, status: str) -> list:
        return [r for r in self.rows if r["status"] == status]

    def parts(self) -> list:
        """``(name, rows)`` of each sub-range: its name and the rows inside it."""
        return [(name, [r for r in self.rows if inside[r["index"]]])
                for name, inside in self.inside.items()]


def numbers_text(numbers: dict) -> str:
    """``name value, ...`` for evidence (floats to 4 significant digits)."""
    return ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
                     for k, v in numbers.items())
