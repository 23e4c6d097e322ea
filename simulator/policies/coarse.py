"""Coarse evaluator-gated addition: add e_t iff a noisy judge passes step t's feedback.

The judge passes when quality_t ≥ ``threshold`` (0.5), then flips a pass to a fail with
probability ``false_negative`` (0) and a fail to a pass with probability
``false_positive`` (0.2), one seeded draw per step.  The paper's other coarse evaluator,
|ŷ − y| ≤ c with c > 1, belongs to the ``agent`` workload (``eval_tolerance``): run
``strict`` there.  See :mod:`~simulator.policies.parts.memory_rules`.

With sizes (docs/model.md §2.5): the judge ignores the size (one draw a step either way);
victims go least useful first until the arrival fits.
"""

from simulator.policies.parts import memory_rules as mr
from simulator.policies.base import Policy

PARAMS = {**mr.params_for(), **mr.JUDGE}

POLICY = Policy(name="coarse", summary="add iff a noisy judge (false-positive rate) passes "
                "the step's quality", init=lambda ctx: mr.new_state(ctx, "coarse"),
                victim=mr.victim, on_hit=mr.on_hit, on_feedback=mr.on_feedback,
                admit=mr.admit, on_insert=mr.on_insert, params=PARAMS, modes=("semantic",),
                check_params=mr.check,
                traits=lambda p: mr.traits(p, "coarse"))
