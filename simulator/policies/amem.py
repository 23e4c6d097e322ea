"""A-MEM (agentic memory): always append; each new note rewrites its nearest neighbours' notes.

Rule, per step t (docs/model.md §1.5, §1.6):

* **admit**: always (A-MEM's ``add_note`` stores every note).
* **evolution**: once e_t is cached, the other cached items are its candidate neighbours.
  If there are any and the note *evolves* (below), the notes of its
  n = min(``neighbours``, |S_{t+1}| − 1) nearest neighbours are rewritten in place: n
  rewrites, each costing λ (``note_rewrites``), none of them a modification.
* **evolve?** In A-MEM an LLM reads the new note and its neighbours and answers
  ``should_evolve``.  Our surrogate, not the LLM: the note evolves when the cosine of its
  nearest cached neighbour is at least ``evolve_similarity``; the default −1 means always
  (every pair of unit vectors passes), so every admission with a neighbour rewrites.
* **full cache** (ours; A-MEM has no capacity, its ``memories`` dict only grows): evict
  the oldest admission.  Nothing is deleted without an arrival, and a re-arrival (the
  same item again, ``item_keys``) adds and rewrites nothing.

Parameters: ``neighbours`` (5), the source's k; ``evolve_similarity`` (−1.0, in [−1, 1]).

Source, read at agiresearch/A-mem commit ceffb860f0712bbae97b184d440df62bc910ca8d,
``agentic_memory/memory_system.py``: ``add_note`` calls ``process_memory``, which asks
``find_related_memories(note.content, k=5)`` for the neighbours (none for the first note:
no evolution) and the LLM for ``should_evolve`` and its actions; ``update_neighbor``
assigns a new context and tags to each of the min(5, n) neighbours shown (the LLM is told
to return one per neighbour), ``strengthen`` changes only the new note (before it is
stored: part of its admission, no rewrite).  The paper's code (WujiangXu/A-mem commit
0c8039f28fdcc08189a23c07a3437d9d2482f9c2, ``memory_layer.py``) rewrites the neighbours
the retriever found; the packaged code indexes ``list(self.memories.values())`` with the
result *positions* 0 … n−1, so it rewrites the n oldest notes instead.  Which notes are
rewritten changes nothing here: both rewrite min(5, n) notes, and a rewrite changes a
note's context and tags, while the retriever embeds ``note.content`` only
(``retrievers.py``, ``add_document``), so no cached vector moves.  Every
``evo_threshold`` (100) evolutions the package re-indexes its store
(``consolidate_memories``): no content changes, no cost here.

Left out: the LLM's judgement (the surrogate above), the notes' text, keywords, tags and
links, and ``strengthen``.  Sizes (§1.8): an admission evicts the oldest until the
arrival fits; a rewrite costs λ whatever the note's size.

>>> from simulator.policies import REGISTRY
>>> REGISTRY["amem"].params
{'neighbours': 5, 'evolve_similarity': -1.0}
"""

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy, note_rewrites, slot_keys
from simulator.policies.parts.admission_order import oldest
from simulator.policies.parts.append_only import cosines, scratch

PARAMS = {"neighbours": 5, "evolve_similarity": -1.0}

# The fields of the state tuple, by position (base.py says why)
_CFG = 0  # neighbours, evolve_similarity, the step of the last insertion, its slot
_X = 1  # the vector of the item admit() was last asked about (float32, [dim])
_SIMS = 2  # scratch: the arrival's cosine to every slot (float32, [slots])
_NEIGHBOURS, _EVOLVE, _INSERTED_AT, _INSERTED_SLOT = 0, 1, 2, 3


def _check(p: dict) -> str | None:
    if p["neighbours"] < 0:
        return f"parameter 'neighbours' must be >= 0, got {p['neighbours']}"
    if not -1.0 <= p["evolve_similarity"] <= 1.0:
        return (f"parameter 'evolve_similarity' must be in [-1, 1] (-1: always evolve), "
                f"got {p['evolve_similarity']}")
    return None


def _init(ctx):
    p = ctx.params
    cfg = np.array([p["neighbours"], p["evolve_similarity"], -1.0, -1.0])
    return (cfg, *scratch(ctx))


@njit
def _admit(state, t, key, x, cache):
    state[_X][:] = x
    return True


@njit
def _victim(state, t, key, x, cache):
    return oldest(cache)


@njit
def _on_insert(state, slot, key, t):
    state[_CFG][_INSERTED_AT] = t
    state[_CFG][_INSERTED_SLOT] = slot


@njit
def _delete(state, t, cache):
    # Evolution runs here, once e_t is cached and its victims are gone, so the neighbours
    # are the items that stay.  It deletes nothing.
    cfg = state[_CFG]
    if cfg[_INSERTED_AT] != t:
        return -1
    cfg[_INSERTED_AT] = -1.0
    slot_key = slot_keys(cache)
    mine = int(cfg[_INSERTED_SLOT])
    others = 0
    for s in range(slot_key.shape[0]):
        if slot_key[s] >= 0 and s != mine:
            others += 1
    n = min(int(cfg[_NEIGHBOURS]), others)
    if n == 0:
        return -1
    if cfg[_EVOLVE] > -1.0:  # the surrogate of should_evolve: the nearest neighbour's cosine
        sims = cosines(state[_X], cache, state[_SIMS])
        best = -np.inf
        for s in range(slot_key.shape[0]):
            if slot_key[s] >= 0 and s != mine and sims[s] > best:
                best = sims[s]
        if not best >= cfg[_EVOLVE]:
            return -1
    note_rewrites(cache, n)
    return -1


POLICY = Policy(name="amem", summary="A-MEM: always append; rewrite the new note's nearest "
                "neighbours (a cost each); evict the oldest",
                init=_init, victim=_victim, admit=_admit, on_insert=_on_insert,
                delete=_delete, params=PARAMS, modes=("semantic",), check_params=_check)
