"""Add-all: store every execution (the memory study's naive growth).

Always admits; a full memory evicts the least useful record (lowest mean utility of the
steps that retrieved it, see :mod:`~simulator.policies.parts.memory_rules`); deletes nothing.

With sizes (docs/model.md §2.5): every arrival that fits the budget is admitted, and the
least useful records go, one after another, until it fits.
"""

from simulator.policies.parts import memory_rules as mr
from simulator.policies.base import Policy

PARAMS = mr.params_for()

POLICY = Policy(name="add_all", summary="add every execution; evict the least useful",
                init=lambda ctx: mr.new_state(ctx, "all"), victim=mr.victim,
                on_hit=mr.on_hit, on_feedback=mr.on_feedback, admit=mr.admit,
                on_insert=mr.on_insert, params=PARAMS, modes=("semantic",),
                check_params=mr.check)
