"""Offline optimum, competitive ratios, regret and claim checks (docs/model.md §4).

- The offline optimum, :func:`theory.opt.opt`, in its own package (:mod:`theory.opt`):
  one record per method (:mod:`theory.opt.methods`), exact by a min-cost flow
  (:mod:`theory.opt.flow`) or one of three dynamic programs, over topic sets
  (:mod:`theory.opt.topics`), count vectors of interchangeable items
  (:mod:`theory.opt.counts`) and item subsets (:mod:`theory.opt.items`), whichever applies
  and fits; otherwise certified bounds (:mod:`theory.opt.bounds`: LP lower bounds,
  :mod:`theory.opt.lp`, and real schedules, :mod:`theory.opt.beam` and
  :mod:`theory.opt.upper`), with a budget :mod:`theory.opt.sized`, under a time limit
  :mod:`theory.opt.clock`; all with the engine's miss function (:mod:`theory.opt.model`).
- Ratios and regret: :mod:`theory.ratio` (cost over OPT, seed by seed),
  :mod:`theory.adversary_ratio` (against the adaptive adversaries), :mod:`theory.regret`
  and :mod:`theory.regret_fit` (eviction regret and its growth), the stylized bandit model
  of the regret proofs (:mod:`theory.eviction_bandit`) and the threshold path of
  regret-gated admission (:mod:`theory.gate_replay`).
- The paper's claims, one module each, and their verdicts: :mod:`theory.claims`.
- Your claims, the claim kit (:mod:`theory.kit`): :class:`Claim` and :func:`check`, with
  the bounds of :mod:`theory.bounds`, the instance families of :mod:`theory.families` and
  the shrinker of :mod:`theory.kit.shrink`; verdicts by the same rules as the paper's
  (docs/claims.md).
- The worst-case search, :func:`theory.search.worst_case` (:mod:`theory.search`): a
  policy's worst instance against the exact optimum, shrunk and grown (docs/search.md).

The old flat module names (``theory.opt_flow``, ``theory.shrink``, …) still import, with a
DeprecationWarning naming the new path (:mod:`theory.moved`).  The simulator never imports
this package; it imports the simulator.
"""

from theory import moved
from theory.kit import Claim, bounds, check, families

moved.install()


def __getattr__(name: str):
    # the worst-case search (and the solvers it scores with) loads on first use, not with
    # every ``import theory``
    if name == "search":
        import importlib

        return importlib.import_module("theory.search")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["Claim", "bounds", "check", "families", "search"]
