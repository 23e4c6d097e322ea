"""Module names that moved, still importable: ``import theory.opt_flow`` gives
:mod:`theory.opt.flow` itself (the same module object, so a patch of one is a patch of
the other), with a DeprecationWarning naming the new path.

``theory.bounds`` and ``theory.families`` are the documented names of the claim kit's
parts (``from theory import bounds, families``), so they load :mod:`theory.kit.bounds`
and :mod:`theory.kit.families` without a warning.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

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


class _Alias(importlib.abc.Loader):
    """Loads an old name as the module it moved to: the import system makes a placeholder
    module (``create_module`` of :class:`importlib.abc.Loader`), and ``exec_module`` puts
    the moved module in ``sys.modules`` in its place, which the import system hands on."""

    def __init__(self, new: str, warn: bool):
        self.new, self.warn = new, warn

    def exec_module(self, module):
        if self.warn:
            warnings.warn(f"{module.__name__} moved to {self.new}; import it from there",
                          DeprecationWarning, stacklevel=2)  # warnings skips importlib's frames
        sys.modules[module.__name__] = importlib.import_module(self.new)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the old names of :data:`MOVED` and :data:`KEPT`, and nothing else."""

    def find_spec(self, name, path=None, target=None):
        new = MOVED.get(name) or KEPT.get(name)
        if new is None:
            return None
        return importlib.util.spec_from_loader(name, _Alias(new, name in MOVED))


def install() -> None:
    """Put the finder first on ``sys.meta_path``, once: it answers its old names only, and
    before any other finder (a stale copy of an old module must not load instead)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
