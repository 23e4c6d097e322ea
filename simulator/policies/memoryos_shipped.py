"""MemoryOS as its code runs: a short-term FIFO of pages, mid-term segments merged by
similarity, and the least frequently visited segment evicted.

Source: BAI-LAB/MemoryOS ``memoryos-pypi/`` at commit
1d717060350931af33d1d0dc3d4e50a72c125a48: ``memoryos.py`` (``short_term_capacity=10``
line 35, ``mid_term_similarity_threshold=0.6`` line 40, ``H_PROFILE_UPDATE_THRESHOLD =
5.0`` line 26; after analysis ``N_visit`` and ``L_interaction`` reset to 0, lines
211–212), ``mid_term.py`` (``HEAT_ALPHA = HEAT_BETA = HEAT_GAMMA = 1`` and
``RECENCY_TAU_HOURS = 24``, lines 21–24; ``evict_lfu``, lines 71–101, the only eviction
``add_session`` calls, line 177), ``updater.py`` (the STM's oldest page moves on
overflow, lines 100–104) and ``utils.py`` (``compute_time_decay`` = exp(−Δhours/τ)).
Where the code differs from the paper (:mod:`~simulator.policies.memoryos`): it evicts by
visit count, not heat (heat only picks the segment analysed for long-term memory), its
STM holds 10 pages, not 7, its τ is 24 hours, not 1e7 seconds, and a transfer resets the
visits as well.  The rule and how it maps onto a cache of K items:
:mod:`~simulator.policies.parts.memoryos_segments`.

Time unit: the code's hours, given here in seconds (``tau_seconds`` = 24 · 3600).
Without times in the trace one step stands for ``step_seconds`` = 3600 s, one hour.

Parameters: ``short_term_capacity`` 10, ``similarity_threshold`` 0.6, ``alpha``,
``beta``, ``gamma`` 1, ``tau_seconds`` 86400, ``heat_threshold`` 5, ``step_seconds``
3600.  Left out: as for ``memoryos`` (keywords, summaries, the long-term memory), and
the meta information the code rewrites along a chain of pages an LLM finds continuous
(``updater.py``, ``_update_linked_pages_meta_info``): no rewrite is counted.
Deterministic.
"""

from simulator.policies.parts import memoryos_segments as mos
from simulator.policies.base import Policy

PARAMS = dict(mos.PARAMS, short_term_capacity=10, tau_seconds=86400.0, step_seconds=3600.0)

POLICY = Policy(name="memoryos_shipped", summary="MemoryOS (code): STM FIFO, segments, evict "
                "the least visited segment",
                init=lambda ctx: mos.new_state(ctx, lfu=True, reset_visits=True),
                victim=mos.victim, admit=mos.admit, on_hit=mos.on_hit,
                on_insert=mos.on_insert, on_evict=mos.on_evict, delete=mos.delete,
                params=PARAMS, check_params=mos.check, modes=("semantic",),
                repeat_delete=True)
