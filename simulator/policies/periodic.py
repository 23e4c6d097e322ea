"""Periodic deletion: evaluator-gated addition plus a sweep of stale records.

Every ``period`` (100) steps a sweep deletes, one a step, records admitted at least
``stale_after`` (500) steps ago and retrieved fewer than ``min_uses`` (1) times in the last
``stale_after`` steps; ``addition`` (``"strict"``; or ``"coarse"``, ``"all"``) decides
admission.  See :mod:`~simulator.policies.parts.memory_rules`.

With sizes (docs/model.md §2.5): a sweep still deletes one record a step, whatever its
size; an admission evicts least useful first until it fits.
"""

from simulator.policies.parts import memory_rules as mr
from simulator.policies.base import Policy

PARAMS = mr.params_for(addition=True, periodic=True)

POLICY = Policy(name="periodic", summary="gated addition + periodic sweep of unused records",
                init=lambda ctx: mr.new_state(ctx, ctx.params["addition"]), victim=mr.victim,
                on_hit=mr.on_hit, on_feedback=mr.on_feedback, admit=mr.admit,
                on_insert=mr.on_insert, delete=mr.delete, params=PARAMS,
                modes=("semantic",), check_params=mr.check, traits=mr.traits,
                state_bytes=mr.state_bytes)
