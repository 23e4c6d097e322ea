"""Offline optimum, competitive ratios, regret and claim checks (docs/model.md §4).

- The offline optimum, :func:`theory.opt.opt`: exact by a min-cost flow
  (:mod:`theory.opt_flow`) or one of three dynamic programs, over topic sets
  (:mod:`theory.opt_topics`), count vectors of interchangeable items
  (:mod:`theory.opt_counts`) and item subsets (:mod:`theory.opt_dp`), whichever applies and
  fits; otherwise certified bounds (:mod:`theory.opt_bounds`: LP lower bounds,
  :mod:`theory.opt_lp`, and real schedules, :mod:`theory.opt_beam`), with a budget
  :mod:`theory.opt_sized`, under a time limit :mod:`theory.opt_clock`; all with the
  engine's miss function (:mod:`theory.opt_model`).
- Ratios and regret: :mod:`theory.ratio` (cost over OPT, seed by seed),
  :mod:`theory.adversary_ratio` (against the adaptive adversaries), :mod:`theory.regret`
  and :mod:`theory.regret_fit` (eviction regret and its growth), the stylized bandit model
  of the regret proofs (:mod:`theory.eviction_bandit`) and the threshold path of
  regret-gated admission (:mod:`theory.gate_replay`).
- The paper's claims, one module each, and their verdicts: :mod:`theory.claims`.
- Your claims: :class:`Claim` and :func:`check` (:mod:`theory.kit`), with the bounds of
  :mod:`theory.bounds`, the instance families of :mod:`theory.families` and the shrinker
  of :mod:`theory.shrink`; verdicts by the same rules as the paper's (docs/claims.md).

The simulator never imports this package; it imports the simulator.
"""

from theory import bounds, families
from theory.kit import Claim, check

__all__ = ["Claim", "bounds", "check", "families"]
