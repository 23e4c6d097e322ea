"""LangMem's memory manager: inserts and updates, deletions off by default.

Source: langchain-ai/langmem ``src/langmem/knowledge/extraction.py`` at commit
b5dbe4aa34055face022cb4a6db153edd5826377: ``create_memory_manager`` (line 536) defaults to
``enable_inserts=True``, ``enable_updates=True``, ``enable_deletes=False`` (lines
542–544), and its prompt (``_prepare_messages``, lines 457–477) tells the LLM to "update"
an existing memory that is "incorrect or outdated" and to "avoid duplicate extractions".
The LLM decides which; our surrogate (named so: no LLM is called) decides by similarity
and by the log's ``supersedes``.

The rule, for the arrival e_t (x_t):

1. **Contradiction** (``ctx.supersedes`` names a cached memory j): with ``deletes`` off
   (the default, as the source), the prompt's "incorrect or outdated, update it": e_t
   updates j (admitted, j removed in the same step).  With ``deletes`` on, j is deleted
   (``RemoveDoc``) and e_t goes on to step 2 among the others.
2. **Update** (surrogate): if the nearest cached memory m (cosine, ties as in retrieval)
   has cos(x_t, m) ≥ ``update_threshold`` (0.8, ours: the source has no threshold), e_t
   updates m, a near-duplicate extraction merged into the memory it repeats.
3. **Insert** otherwise.

An update is an admission with the updated memory removed (one modification, the
arrival's key carries evidence after it: :mod:`~simulator.policies.parts.fact_updates`).
LangMem has no capacity: an insertion into a full cache evicts the oldest admission
(ours).  Left out of our model: the LLM's judgement (replaced by the threshold and the
log's contradictions), the rewritten memory's content (the arrival's vector stands for
it) and the extraction of several memories from one conversation (one arrival, one
memory).  Deterministic; no time.
"""

import numpy as np

from simulator.config import njit
from simulator.policies.parts import fact_updates as fu
from simulator.policies.base import Policy

PARAMS = {"update_threshold": 0.8, "deletes": False}
_THRESHOLD, _DELETES = 0, 1  # cfg fields


def _check(p):
    if not -1.0 <= p["update_threshold"] <= 1.0:
        return f"parameter 'update_threshold' must be in [-1, 1], got {p['update_threshold']}"
    return None


def _init(ctx):
    p = ctx.params
    return fu.new_state(ctx, np.array([p["update_threshold"], float(p["deletes"])]))


@njit
def _admit(state, t, key, x, cache):
    cfg = state[fu.CFG]
    j = fu.superseded_slot(state, t, cache)
    if j >= 0:
        fu.mark(state, j)
        if cfg[_DELETES] == 0.0:
            return True  # an update of j
    fu.score(state, x, cache)
    m = fu.nearest(state, cache, j)
    if m >= 0 and state[fu.SIMS][m] >= cfg[_THRESHOLD]:
        fu.mark(state, m)
    return True


POLICY = Policy(name="langmem", summary="LangMem surrogate: insert, or update a near-duplicate "
                "or superseded memory", init=_init, admit=_admit, victim=fu.victim,
                on_insert=fu.on_insert, on_evict=fu.on_evict, delete=fu.delete,
                params=PARAMS, check_params=_check, modes=("semantic",),
                repeat_delete=True)
