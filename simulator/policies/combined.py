"""Combined deletion: history-based deletion first, else the periodic sweep.

Parameters are those of ``history`` and ``periodic``.  Run with a capacity K it is the
study's "combined under a capacity limit": an addition into a full memory evicts the least
useful record.  See :mod:`~simulator.policies.parts.memory_rules`.

With sizes (docs/model.md §2.5): one deletion a step, whatever the record's size; an
admission evicts least useful first until it fits.
"""

from simulator.policies.parts import memory_rules as mr
from simulator.policies.base import Policy

PARAMS = mr.params_for(addition=True, history=True, periodic=True)

POLICY = Policy(name="combined", summary="gated addition + history and periodic deletion",
                init=lambda ctx: mr.new_state(ctx, ctx.params["addition"]), victim=mr.victim,
                on_hit=mr.on_hit, on_feedback=mr.on_feedback, admit=mr.admit,
                on_insert=mr.on_insert, delete=mr.delete, params=PARAMS,
                modes=("semantic",), check_params=mr.check, traits=mr.traits,
                state_bytes=mr.state_bytes)
