"""Claim checks: one module per claim of the SOLAR paper, one registry (``semcache claims``).

Each module defines ``CLAIM``, a :class:`theory.Claim` (the claim kit's one class) whose
``evidence`` hook runs the claim's experiment; :func:`check_all` runs them and returns
:class:`~theory.claims.base.ClaimResult` records whose verdicts come from the runs.
``quick`` runs a reduced grid (the CI budget); the full grid is the default.

The claim modules load when the registry is first asked for (``REGISTRY``, :func:`select`,
:func:`register`, :func:`check_all`), not when ``theory.claims`` is imported: the kit they
are written with imports this package's verdict rules, so loading them eagerly would be a
cycle, and ``import theory`` stays light.

>>> select(["thm5.4"])[0].title
'SOLAR is 3-competitive'
"""

from __future__ import annotations

import importlib

from simulator import registration
from simulator.errors import InputError

# the shipped claims, in the order `semcache claims` checks and prints them
MODULES = ("fifo_cycling", "modification_bound", "solar_cr3", "fifo_regret", "thompson_regret",
           "regret_lower", "ema_threshold", "drift_ratio", "modification_rate", "lru_paging",
           "fifo_paging", "tau_floor", "tau_convergence", "rate_over_tau",
           "solar_e_bounds", "heuristics_regret",
           "optimal_threshold")

ORIGINS: dict = {}  # id -> the plugin that registered it


def __getattr__(name: str):
    if name in ("REGISTRY", "_SHIPPED"):
        _load()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _load() -> dict:
    """The registry (``REGISTRY``: id -> claim), with the shipped claims' modules imported
    the first time."""
    if "REGISTRY" not in globals():
        found = {}
        for name in MODULES:
            claim = importlib.import_module(f"{__name__}.{name}").CLAIM
            found[claim.id] = claim
        globals()["_SHIPPED"] = dict(found)
        globals()["REGISTRY"] = found
    return globals()["REGISTRY"]


def register(claim, origin: str | None = None) -> None:
    """Add a claim (a :class:`theory.Claim` of the claim kit, or any object with ``id``,
    ``title`` and ``run(quick, out_dir)``) under its id; an id taken by another claim is
    refused.  ``origin`` is the plugin that defines it."""
    registry = _load()
    registration.add(registry, globals()["_SHIPPED"], ORIGINS, "claim", claim.id, claim,
                     origin)


def select(ids: list | None) -> list:
    """The claims named in ``ids`` (all, in registry order, when None)."""
    registry = _load()
    if not ids:
        return list(registry.values())
    unknown = [i for i in ids if i not in registry]
    if unknown:
        raise InputError(f"ids: unknown claim '{unknown[0]}'; valid ids: "
                         + ", ".join(registry), "ids")
    return [registry[i] for i in ids]


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
