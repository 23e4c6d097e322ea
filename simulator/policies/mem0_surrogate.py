"""A surrogate of mem0's add path: per arriving fact, ADD, UPDATE, DELETE or NOOP, chosen by
similarity thresholds and the log's contradictions instead of mem0's LLM call.

Not mem0 itself: mem0 asks an LLM; this rule answers by thresholds that are ours.  Source
read: mem0ai/mem0 at commit 57f944e18ad8ec3186297ea2caf7ff8e47ec3ec0 (the last before the
"v3 pipeline" of a488e19), ``mem0/memory/main.py``: ``_add_to_vector_store`` retrieves, for
each new fact, the ``top_k=5`` most similar memories (line 582), hands them to the LLM
with ``get_update_memory_messages`` and applies the events ADD, UPDATE, DELETE and NONE it
returns (lines 641–684); ``mem0/configs/prompts.py``, ``DEFAULT_UPDATE_MEMORY_PROMPT``
(line 175): ADD new information (line 188), UPDATE a memory that the fact says more about
(line 215), DELETE a memory the fact contradicts (line 263; its example deletes "Loves
cheese pizza" for the fact "Dislikes cheese pizza" and adds nothing), NONE when the fact
is already present (line 294).  At the repository's head (8d5b7865bd0521e75fe9ab1b260eeccc83f8a378)
the add path is additive: it retrieves ``top_k=10`` memories (main.py line 929) and only
ADDs, skipping a fact whose hash is already stored; this surrogate models the four-event
path that the mem0 paper describes.

The rule, for the arrival e_t (x_t), over the ``top_s`` (5) cached memories most similar
to x_t (ties as in retrieval, docs/model.md §1.2):

1. **DELETE**: ``ctx.supersedes`` names a cached memory j among those top_s (the LLM only
   sees what was retrieved): j is deleted, and e_t is not added (the prompt's example),
   unless ``add_contradicting`` (False) adds it too.
2. **NOOP**: the nearest memory m has cos(x_t, m) ≥ ``noop_threshold`` (0.95, ours): the
   fact is already present; e_t is not admitted.
3. **UPDATE**: cos(x_t, m) ≥ ``update_threshold`` (0.8, ours): e_t updates m (admitted, m
   removed in the same step; one modification, the arrival's key carries evidence).
4. **ADD** otherwise.

mem0 has no capacity: an ADD into a full cache evicts the oldest admission (ours).  Left
out of our model: the LLM's judgement (the thresholds and the log's contradictions stand
for it), the fact extraction (one arrival, one fact) and the updated text (the arrival's
vector stands for it).  Deterministic; no time.
"""

import numpy as np

from simulator.config import njit
from simulator.policies.parts import fact_updates as fu
from simulator.policies.base import Policy

PARAMS = {"top_s": 5, "update_threshold": 0.8, "noop_threshold": 0.95,
          "add_contradicting": False}
_TOP_S, _UPDATE, _NOOP, _ADD_CONTRA = 0, 1, 2, 3  # cfg fields


def _check(p):
    if p["top_s"] < 1:
        return f"parameter 'top_s' must be >= 1, got {p['top_s']}"
    for name in ("update_threshold", "noop_threshold"):
        if not -1.0 <= p[name] <= 1.0:
            return f"parameter '{name}' must be in [-1, 1], got {p[name]}"
    if p["update_threshold"] > p["noop_threshold"]:
        return (f"parameter 'update_threshold' ({p['update_threshold']}) must be at most "
                f"'noop_threshold' ({p['noop_threshold']}): a fact close enough to be already "
                "present is close enough to update")
    return None


def _init(ctx):
    p = ctx.params
    return fu.new_state(ctx, np.array([p["top_s"], p["update_threshold"],
                                       p["noop_threshold"], float(p["add_contradicting"])]))


@njit
def _admit(state, t, key, x, cache):
    cfg = state[fu.CFG]
    fu.score(state, x, cache)
    j = fu.superseded_slot(state, t, cache)
    if j >= 0 and fu.rank(state, j, cache) < cfg[_TOP_S]:
        fu.mark(state, j)  # DELETE
        return cfg[_ADD_CONTRA] == 1.0
    m = fu.nearest(state, cache, -1)
    if m >= 0 and state[fu.SIMS][m] >= cfg[_NOOP]:
        return False  # NOOP
    if m >= 0 and state[fu.SIMS][m] >= cfg[_UPDATE]:
        fu.mark(state, m)  # UPDATE
    return True  # UPDATE or ADD


POLICY = Policy(name="mem0_surrogate", summary="surrogate of mem0's ADD/UPDATE/DELETE/NOOP by "
                "similarity thresholds and logged contradictions", init=_init, admit=_admit,
                victim=fu.victim, on_insert=fu.on_insert, on_evict=fu.on_evict,
                delete=fu.delete, params=PARAMS, check_params=_check, modes=("semantic",),
                repeat_delete=True)
