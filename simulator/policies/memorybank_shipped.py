"""MemoryBank as its code runs: ``math.exp(-t / 5*S)``, so recall speeds forgetting up.

zhongwanjun/MemoryBank-SiliconFriend, ``memory_bank/memory_retrieval/forget_memory.py``
at commit cf61c4196e4cfdb0f2b7a0316249fa40312dc3a9 (the repository's head),
``forgetting_curve(t, S)`` returns ``math.exp(-t / 5*S)``.  Python reads it as
``((-t) / 5) * S``: R = e^{-tS/5}, so each recall (S + 1) makes the memory fade
*faster*, the opposite of the paper's e^{-t/S} (:mod:`~simulator.policies.memorybank`).
Everything else is the same rule (:mod:`~simulator.policies.parts.ebbinghaus`): the
strength starts at 1 (``dialog.get('memory_strength', 1)``), every memory the search
returns gets + 1 and its recall date reset; the pass runs when the memory is loaded,
drawing ``random.random() > retention_probability`` per memory.  The app runs this
module only with ``enable_forget_mechanism`` (``utils/sys_args.py``: off by default).

History of the file (``git log -p``): the first commit, 0cc7111a267464964a008255d509c96ffdb636e4,
had three levels, S in {1, 2, 3} with R = e^{-t/S} (a recall moved a memory one level up
and reset its date) and dropped every memory 30 days or more past its level date
(``total_date = 30``); commit 3869efcc2c5847e78353b4c53056903f5d1730a6 ("update memory
forgetting mechanism") replaced the levels by the strength counter and ``-t / S`` by
``-t / 5*S``.  At the head ``memory_level = 3`` and ``total_date = 30`` are still set but
read nowhere.  Left out: the daily summaries (also loaded as memories, never forgotten;
the trace has no such items) and the search's merging of neighbouring chunks.

Time unit: days.  Parameters: those of ``memorybank`` and ``divisor`` (5, the literal
of the expression).  Randomized.
"""

from simulator.policies.base import Policy
from simulator.policies.parts import ebbinghaus as eb

POLICY = Policy(name="memorybank_shipped",
                summary="MemoryBank's code: forgetting e^(-t/5*S) read as e^(-tS/5)",
                init=eb.new_state, victim=eb.victim, on_hit=eb.on_hit,
                on_feedback=eb.on_feedback, on_insert=eb.on_insert, on_evict=eb.on_evict,
                delete=eb.delete, params=eb.params_for(shipped=True), modes=("semantic",),
                check_params=eb.check, traits=eb.TRAITS, repeat_delete=True)
