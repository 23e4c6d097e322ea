"""Updates, deletions and a capacity for fact stores, shared by ``langmem`` and
``mem0_surrogate``.

Not a policy by itself.  Both rules decide, when e_t arrives, to insert it, to skip it, to
*update* a cached memory m with it, or to *delete* a cached memory; our model has no
action for an update, so (docs/model.md) an update admits e_t and removes m in the same
step, one modification: the key that carries evidence afterwards is the arrival's.  A
memory to remove is marked; it is the victim if the admission needs one (so an update of
a full cache replaces m in place), and otherwise ``delete`` removes it in the same step.

Neither framework has a capacity: an insertion into a full cache evicts the oldest
admission (ours), marked memories first (several marked: the one admitted first).

``supersedes`` (docs/model.md): the item key that e_t's arrival supersedes, a
contradiction the log records, read at step t only; a key that is not cached supersedes
nothing.
"""

import numpy as np

from simulator.config import njit
from simulator.engine.kernels import similarities
from simulator.policies.base import admission_steps, slot_keys, slot_vectors
from simulator.policies.parts.admission_order import oldest

# The state tuple's fields by position (base.py: named state); a rule adds its own after
CFG = 0  # float64 settings of the rule
_SUPERSEDES = 1  # int64 [T]: the key step t's arrival supersedes, -1 none; or empty
_MARKED = 2  # int64 per slot: 1 when the memory is to leave this step
SIMS = 3  # float32 per slot: cosine of the arrival with each slot (scratch)


def new_state(ctx, cfg):
    """The shared state with the rule's settings ``cfg`` (a float64 array)."""
    sup = ctx.supersedes
    sup = np.zeros(0, np.int64) if sup is None else np.asarray(sup, np.int64)
    return (np.asarray(cfg, np.float64), sup, np.zeros(ctx.slots, np.int64),
            np.zeros(ctx.slots, np.float32))


@njit
def superseded_slot(state, t, cache):
    """The slot of the memory e_t supersedes, or -1."""
    sup = state[_SUPERSEDES]
    if sup.shape[0] == 0 or sup[t] < 0:
        return -1
    keys = slot_keys(cache)
    for s in range(keys.shape[0]):
        if keys[s] == sup[t]:
            return s
    return -1


@njit
def score(state, x, cache):
    """Fill the scratch with the arrival's cosine to every slot (docs/model.md §1.2)."""
    keys = slot_keys(cache)
    similarities(x, slot_vectors(cache), keys.shape[0], state[SIMS])


@njit
def beats(state, a, b, cache):
    """Whether slot ``a`` ranks before slot ``b`` for the arrival: higher cosine, then the
    earlier admission, then the smaller key (the retrieval order of docs/model.md §1.2)."""
    sims, adm, keys = state[SIMS], admission_steps(cache), slot_keys(cache)
    if sims[a] != sims[b]:
        return sims[a] > sims[b]
    if adm[a] != adm[b]:
        return adm[a] < adm[b]
    return keys[a] < keys[b]


@njit
def nearest(state, cache, skip):
    """The cached slot most similar to the arrival (after :func:`score`), ``skip`` and
    marked slots left out; -1 for none."""
    keys, marked = slot_keys(cache), state[_MARKED]
    best = -1
    for s in range(keys.shape[0]):
        if keys[s] >= 0 and s != skip and marked[s] == 0:
            if best < 0 or beats(state, s, best, cache):
                best = s
    return best


@njit
def rank(state, slot, cache):
    """How many cached slots rank before ``slot`` for the arrival (0: the nearest)."""
    keys = slot_keys(cache)
    n = 0
    for s in range(keys.shape[0]):
        if keys[s] >= 0 and s != slot and beats(state, s, slot, cache):
            n += 1
    return n


@njit
def mark(state, slot):
    state[_MARKED][slot] = 1


@njit
def _marked_slot(state, cache):
    """The marked memory admitted first, or -1."""
    keys, marked, adm = slot_keys(cache), state[_MARKED], admission_steps(cache)
    pick = -1
    for s in range(keys.shape[0]):
        if keys[s] >= 0 and marked[s] == 1 and (pick < 0 or adm[s] < adm[pick]):
            pick = s
    return pick


@njit
def victim(state, t, key, x, cache):
    """A marked memory, else the oldest admission."""
    s = _marked_slot(state, cache)
    return s if s >= 0 else oldest(cache)


@njit
def on_evict(state, slot, key, t):
    state[_MARKED][slot] = 0


@njit
def on_insert(state, slot, key, t):
    state[_MARKED][slot] = 0


@njit
def delete(state, t, cache):
    """A marked memory still cached (an update of a cache that was not full, a
    deletion), or -1."""
    return _marked_slot(state, cache)
