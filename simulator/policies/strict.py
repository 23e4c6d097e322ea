"""Strict evaluator-gated addition: add e_t iff step t's feedback says quality_t = 1.

On the ``agent`` workload quality_t is the evaluator's verdict on execution t (with the
default exact evaluator: |ŷ − y| ≤ 1); on topic workloads at ``quality=hit``, a hit.  A full
memory evicts the least useful record; nothing is deleted.  See
:mod:`~simulator.policies.parts.memory_rules` (``warmup``, feedback timing).

With sizes (docs/model.md §2.5): the verdict ignores the size; victims go least useful
first until the arrival fits.
"""

from simulator.policies.parts import memory_rules as mr
from simulator.policies.base import Policy

PARAMS = mr.params_for()

POLICY = Policy(name="strict", summary="add iff the step's feedback quality is 1",
                init=lambda ctx: mr.new_state(ctx, "strict"), victim=mr.victim,
                on_hit=mr.on_hit, on_feedback=mr.on_feedback, admit=mr.admit,
                on_insert=mr.on_insert, params=PARAMS, modes=("semantic",),
                check_params=mr.check)
