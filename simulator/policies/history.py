"""History-based deletion: evaluator-gated addition plus deletion by retrieval history.

After each decision, delete the record of lowest mean utility among those retrieved at
least ``min_retrievals`` (5) times whose mean utility is below ``beta`` (0.4); utility of a
retrieval = was the record relevant to that step (on ``agent``: did the evaluator accept
the execution that followed it).  See :mod:`~simulator.policies.parts.memory_rules`.

With sizes (docs/model.md §2.5): one deletion a step, whatever the record's size; an
admission evicts least useful first until it fits.
"""

from simulator.policies.parts import memory_rules as mr
from simulator.policies.base import Policy

PARAMS = mr.params_for(addition=True, history=True)

POLICY = Policy(name="history", summary="gated addition + delete records of low mean utility",
                init=lambda ctx: mr.new_state(ctx, ctx.params["addition"]), victim=mr.victim,
                on_hit=mr.on_hit, on_feedback=mr.on_feedback, admit=mr.admit,
                on_insert=mr.on_insert, delete=mr.delete, params=PARAMS,
                modes=("semantic",), check_params=mr.check, traits=mr.traits,
                state_bytes=mr.state_bytes)
