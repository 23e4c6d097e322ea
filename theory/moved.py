"""Module names that moved, still importable: ``import theory.opt_flow`` gives
:mod:`theory.opt.flow` itself (the same module object, so a patch of one is a patch of
the other), with a DeprecationWarning naming the new path.

``theory.bounds`` and ``theory.families`` are the documented names of the claim kit's
parts (``from theory import bounds, families``), so they load :mod:`theory.kit.bounds`
and :mod:`theory.kit.families` without a warning.
"""

from __future__ import annotations

from simulator.moved import install as install_aliases

MOVED = {
    "theory.opt_beam": "theory.opt.beam",
    "theory.opt_bounds": "theory.opt.bounds",
    "theory.opt_clock": "theory.opt.clock",
    "theory.opt_counts": "theory.opt.counts",
    "theory.opt_dp": "theory.opt.items",
    "theory.opt_fits": "theory.opt.methods",
    "theory.opt_flow": "theory.opt.flow",
    "theory.opt_lp": "theory.opt.lp",
    "theory.opt_model": "theory.opt.model",
    "theory.opt_sized": "theory.opt.sized",
    "theory.opt_topics": "theory.opt.topics",
    "theory.opt_upper": "theory.opt.upper",
    "theory.shrink": "theory.kit.shrink",
    "theory.user_code": "theory.kit.user_code",
}
KEPT = {"theory.bounds": "theory.kit.bounds", "theory.families": "theory.kit.families"}


def install() -> None:
    """Let the old names import (:class:`simulator.moved.Aliases`, once per process)."""
    install_aliases(MOVED, KEPT)
