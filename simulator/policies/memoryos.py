"""MemoryOS as its paper states it: a short-term FIFO of pages, mid-term segments merged by
similarity, and the segment of lowest heat evicted.

Source: Kang et al., "Memory OS of AI Agent" (2025), the PDF in BAI-LAB/MemoryOS
(``Paper-MemoryOS.pdf``, commit 1d717060350931af33d1d0dc3d4e50a72c125a48): §3.2 (STM
FIFO, segments, F_score = cos + Jaccard ≥ θ), §3.3 (Heat = α·N_visit + β·L_interaction +
γ·R_recency, R_recency = exp(−Δt/μ) with Δt in seconds; the lowest-heat segments are
evicted; segments with heat above τ go to long-term memory and L_interaction resets to
0), §4.1 (STM of 7 pages, θ = 0.6, τ = 5, μ = 1e+7, α = β = γ = 1).  The rule and how it
maps onto a cache of K items: :mod:`~simulator.policies.parts.memoryos_segments`.

Time unit: seconds (the paper's Δt).  Without times in the trace one step stands for
``step_seconds`` = 1 s, the paper's unit.

Parameters: ``short_term_capacity`` 7, ``similarity_threshold`` 0.6 (θ), ``alpha``,
``beta``, ``gamma`` 1, ``tau_seconds`` 1e7 (μ), ``heat_threshold`` 5 (τ),
``step_seconds`` 1.  Left out: the keyword Jaccard term (our vectors have no keywords),
the LLM's summaries (a segment's vector is its founding page's) and the long-term persona
memory itself (a transfer only resets the segment's heat).  Deterministic.
"""

from simulator.policies.parts import memoryos_segments as mos
from simulator.policies.base import Policy

PARAMS = dict(mos.PARAMS, short_term_capacity=7, tau_seconds=1e7, step_seconds=1.0)

POLICY = Policy(name="memoryos", summary="MemoryOS (paper): STM FIFO, segments, evict the "
                "lowest-heat segment",
                init=lambda ctx: mos.new_state(ctx, lfu=False, reset_visits=False),
                victim=mos.victim, admit=mos.admit, on_hit=mos.on_hit,
                on_insert=mos.on_insert, on_evict=mos.on_evict, delete=mos.delete,
                params=PARAMS, check_params=mos.check, modes=("semantic",),
                repeat_delete=True)
