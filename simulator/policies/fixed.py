"""Fixed memory: keep the initial memory and never add (memory-management study).

Admits every arrival of the warm-up prefix (``warmup`` steps: the initial memory, see
:mod:`~simulator.policies.parts.memory_rules`) and nothing after it; deletes nothing.  A
capacity below the initial memory evicts the least useful record.

With sizes (docs/model.md §2.5) the rules of ``memory_rules`` apply: warm-up arrivals that fit
the budget are admitted, and victims go least useful first until the arrival fits.
"""

from simulator.policies.parts import memory_rules as mr
from simulator.policies.base import Policy

PARAMS = mr.params_for()

POLICY = Policy(name="fixed", summary="keep the initial (warm-up) memory; never add",
                init=lambda ctx: mr.new_state(ctx, "none"), victim=mr.victim,
                on_hit=mr.on_hit, on_feedback=mr.on_feedback, admit=mr.admit,
                on_insert=mr.on_insert, params=PARAMS, modes=("semantic",),
                check_params=mr.check)
