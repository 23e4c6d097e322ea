"""Claim checks: one module per claim of the SOLAR paper, one registry (``semcache claims``).

Each module defines ``CLAIM``, a :class:`theory.claims.base.Claim`; :func:`check_all`
runs them and returns :class:`~theory.claims.base.ClaimResult` records whose verdicts come
from the runs.  ``quick`` runs a reduced grid (the CI budget); the full grid is the
default.

>>> REGISTRY["thm5.4"].title
'SOLAR is 3-competitive'
"""

from __future__ import annotations

from simulator import registration
from simulator.errors import InputError
from theory.claims import (drift_ratio, ema_threshold, fifo_cycling, fifo_regret, lru_paging,
                           modification_bound, modification_rate, regret_lower, solar_cr3,
                           thompson_regret)

REGISTRY = {m.CLAIM.id: m.CLAIM for m in (fifo_cycling, modification_bound, solar_cr3,
                                          fifo_regret, thompson_regret, regret_lower,
                                          ema_threshold, drift_ratio, modification_rate,
                                          lru_paging)}


_SHIPPED = dict(REGISTRY)
ORIGINS: dict = {}  # id -> the plugin that registered it


def register(claim, origin: str | None = None) -> None:
    """Add a claim (a :class:`theory.Claim` of the claim kit, or any object with ``id``,
    ``title`` and ``run(quick, out_dir)``) under its id; an id taken by another claim is
    refused.  ``origin`` is the plugin that defines it."""
    registration.add(REGISTRY, _SHIPPED, ORIGINS, "claim", claim.id, claim, origin)


def select(ids: list | None) -> list:
    """The claims named in ``ids`` (all, in registry order, when None)."""
    if not ids:
        return list(REGISTRY.values())
    unknown = [i for i in ids if i not in REGISTRY]
    if unknown:
        raise InputError(f"ids: unknown claim '{unknown[0]}'; valid ids: "
                         + ", ".join(REGISTRY), "ids")
    return [REGISTRY[i] for i in ids]


def check_all(ids: list | None = None, quick: bool = False, out_dir: str = "claims-out",
              progress=None) -> list:
    """Run the selected claim checks (``ids``: claim ids, or the claim objects themselves);
    ``progress(claim)`` is called before each."""
    results = []
    chosen = ids if ids and not isinstance(ids[0], str) else select(ids)
    for claim in chosen:
        if progress is not None:
            progress(claim)
        results.append(claim.run(quick, out_dir))
    return results
