"""MemoryBank, the paper's rule: Ebbinghaus forgetting R = e^{-t/S}.

Zhong et al., "MemoryBank: Enhancing Large Language Models with Long-Term Memory"
(AAAI 2024, arXiv:2305.10250), the memory updating mechanism: a memory's retention is
R = e^{-t/S}, t the time in days since it was learned or last recalled, S its strength,
1 when first mentioned and raised by 1 each time it is recalled (which also resets t).
The shipped code evaluates another curve: :mod:`~simulator.policies.memorybank_shipped`.

When and how the rule runs (the forgetting pass at each new day, one uniform draw per
memory, u > R forgets, recall = retrieval into R_t) follows the code,
zhongwanjun/MemoryBank-SiliconFriend, ``memory_bank/memory_retrieval/forget_memory.py``
at commit cf61c4196e4cfdb0f2b7a0316249fa40312dc3a9 (``initial_load_forget_and_save``,
``update_memory_when_searched``); :mod:`~simulator.policies.parts.ebbinghaus` gives every
step, and the capacity rule, which is ours (the source keeps every memory it does not
forget).

Time unit: days (whole calendar days, floor(seconds / 86400)).  Parameters:
``strength_init`` (1, the paper's S at first mention), ``strength_step`` (1, per recall),
``step_seconds`` (86400: without times in the trace, one step is one day).  Randomized:
the draws come from the run's seed.
"""

from simulator.policies.base import Policy
from simulator.policies.parts import ebbinghaus as eb

POLICY = Policy(name="memorybank",
                summary="Ebbinghaus forgetting e^(-t/S) each new day; full: lowest retention",
                init=eb.new_state, victim=eb.victim, on_hit=eb.on_hit,
                on_feedback=eb.on_feedback, on_insert=eb.on_insert, on_evict=eb.on_evict,
                delete=eb.delete, params=eb.params_for(shipped=False), modes=("semantic",),
                check_params=eb.check, traits=eb.TRAITS, repeat_delete=True)
