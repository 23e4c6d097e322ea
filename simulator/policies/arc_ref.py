"""ARC as the SOLAR authors' synthetic runner implements it (``ARCRunner``): always admit.

The cache is T1 and T2 in LRU order, with ghost lists B1 and B2 and a float target p for T1,
as in :mod:`~simulator.policies.arc`, but with the runner's simplifications:

* a retrieval into R_t, or a re-arrival of a cached item, moves the item from T1 to the MRU
  end of T2, or to T2's MRU end; the runner walks R_t best match first, so within one step
  the *worst* match ends most recent (``arc``: the best);
* an arriving key in B1 (a ghost hit, possible only when items re-stream) sets
  p ← min(p + max(1, |B2| / |B1|), K), leaves B1 and enters T2; in B2,
  p ← max(p − max(1, |B1| / |B2|), 0), likewise; any other arrival enters T1;
* a full cache evicts by REPLACE: the LRU of T1 goes to B1 if T1 is non-empty and
  (|T1| > p, or the arrival was a B2 ghost hit and |T1| = ⌊p⌋); else the LRU of T2 goes to
  B2, or, when T2 is empty, the LRU of T1 to B1;
* each ghost list is a FIFO capped at K on its own (its oldest key is forgotten when a
  victim pushes it past K): there is none of classic ARC's case IV trimming, so up to 2K
  ghosts coexist and no eviction is ever ghost-less.

The agent (``src/agent/arc.py``) cannot have a ghost hit at all (every stored turn is a
new entry, and only live entries are retrieved), so p stays 0 there.

A removal the policy did not choose (a deletion) leaves no ghost.  O(K) per hook; list order
is kept as step stamps, so no hook depends on slot numbers.  Paging mode works the same way
(one request per step).
"""

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy, slot_keys

_SPAN = 1 << 21  # stamps per step: retrievals below half of it, an arrival at the top
# meta (int64): |T1|, |T2|, |B1|, |B2|, ghost list of the arrival, victim's ghost list,
# step of the last retrieval, retrievals counted in that step, ghost clock, K
_N1, _N2, _NB1, _NB2, _GHOST_HIT, _TO_GHOST, _HIT_STEP, _HITS_IN_STEP, _CLOCK, _K = range(10)


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
_BY_SLOT = 0  # per slot: (list, stamp), the columns below
_BY_KEY = 1  # per key: (ghost list, ghost stamp), the columns below
_GHOSTS = 2  # per ghost list: its keys (at most K each, never more than there are keys)
_META = 3  # the counters above
_TARGET = 4  # [p], T1's target size
_LIST, _STAMP = 0, 1  # columns of _BY_SLOT and _BY_KEY: the list (0: none), its order


def _init(ctx):
    k = ctx.capacity
    meta = np.zeros(10, np.int64)
    meta[_HIT_STEP] = -1
    meta[_K] = k
    return (np.zeros((ctx.slots, 2), np.int64), np.zeros((ctx.n_keys, 2), np.int64),
            np.full((2, min(k, ctx.n_keys) + 1), -1, np.int64), meta, np.zeros(1))


@njit
def _to_t2(state, slot, stamp):
    table, meta = state[_BY_SLOT], state[_META]
    if table[slot, _LIST] == 1:
        meta[_N1] -= 1
        meta[_N2] += 1
    table[slot, _LIST] = 2
    table[slot, _STAMP] = stamp


@njit
def _on_hit(state, slot, t, relevant):
    meta = state[_META]
    if meta[_HIT_STEP] != t:
        meta[_HIT_STEP] = t
        meta[_HITS_IN_STEP] = 0
    # hits come worst match first: each one lands just below the ones before it
    _to_t2(state, slot, t * _SPAN + _SPAN // 2 - meta[_HITS_IN_STEP])
    meta[_HITS_IN_STEP] += 1


@njit
def _on_rearrival(state, slot, t):
    _to_t2(state, slot, t * _SPAN + _SPAN - 1)


@njit
def _forget(state, lst, key):
    """Take ``key`` out of ghost list ``lst`` (1 or 2)."""
    ghosts, meta = state[_GHOSTS][lst - 1], state[_META]
    n = meta[_NB1 + lst - 1] - 1
    i = 0
    while ghosts[i] != key:
        i += 1
    ghosts[i] = ghosts[n]
    ghosts[n] = -1
    meta[_NB1 + lst - 1] = n
    state[_BY_KEY][key, _LIST] = 0


@njit
def _admit(state, t, key, x, cache):
    meta, p = state[_META], state[_TARGET]
    g = state[_BY_KEY][key, _LIST]
    nb1, nb2 = meta[_NB1], meta[_NB2]
    if g == 1:
        p[0] = min(p[0] + max(1.0, nb2 / max(nb1, 1)), float(meta[_K]))
        _forget(state, 1, key)
    elif g == 2:
        p[0] = max(p[0] - max(1.0, nb1 / max(nb2, 1)), 0.0)
        _forget(state, 2, key)
    meta[_GHOST_HIT] = g
    return True


@njit
def _lru(table, lst, cache):
    slot_key = slot_keys(cache)
    best = -1
    for s in range(table.shape[0]):
        if slot_key[s] >= 0 and table[s, _LIST] == lst and (
                best < 0 or table[s, _STAMP] < table[best, _STAMP]):
            best = s
    return best


@njit
def _victim(state, t, key, x, cache):
    table, meta, p = state[_BY_SLOT], state[_META], state[_TARGET][0]
    n1 = meta[_N1]
    if n1 > 0 and (n1 > p or (meta[_GHOST_HIT] == 2 and n1 == np.floor(p))):
        lst = 1
    elif meta[_N2] > 0:
        lst = 2
    else:
        lst = 1
    meta[_TO_GHOST] = lst
    return _lru(table, lst, cache)


@njit
def _on_evict(state, slot, key, t):
    table, keys, meta = state[_BY_SLOT], state[_BY_KEY], state[_META]
    meta[_N1 if table[slot, _LIST] == 1 else _N2] -= 1
    table[slot, _LIST] = 0
    lst = meta[_TO_GHOST]
    meta[_TO_GHOST] = 0  # a deletion not chosen by victim() leaves no ghost
    if lst == 0:
        return
    ghosts = state[_GHOSTS][lst - 1]
    n = meta[_NB1 + lst - 1]
    ghosts[n] = key
    keys[key, _LIST] = lst
    keys[key, _STAMP] = meta[_CLOCK]
    meta[_CLOCK] += 1
    n += 1
    if n > meta[_K]:  # over K: forget this list's oldest ghost
        old = 0
        for i in range(1, n):
            if keys[ghosts[i], _STAMP] < keys[ghosts[old], _STAMP]:
                old = i
        keys[ghosts[old], _LIST] = 0
        n -= 1
        ghosts[old] = ghosts[n]
        ghosts[n] = -1
    meta[_NB1 + lst - 1] = n


@njit
def _on_insert(state, slot, key, t):
    table, meta = state[_BY_SLOT], state[_META]
    lst = 2 if meta[_GHOST_HIT] != 0 else 1  # a ghost hit enters T2
    meta[_GHOST_HIT] = 0
    meta[_N1 if lst == 1 else _N2] += 1
    table[slot, _LIST] = lst
    table[slot, _STAMP] = t * _SPAN + _SPAN - 1


POLICY = Policy(name="arc_ref", summary="always admit; ARC as the authors' runner has it "
                "(ghost FIFOs capped at K each, R_t walked best first)",
                init=_init, victim=_victim, on_hit=_on_hit, on_rearrival=_on_rearrival,
                admit=_admit, on_insert=_on_insert, on_evict=_on_evict,
                modes=("semantic", "paging"))
