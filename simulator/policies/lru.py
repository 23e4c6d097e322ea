"""Least recently used: always admit; evict the item least recently retrieved.

An item never retrieved counts as used at its admission.  Retrieval reports R_t worst
match first, so among items retrieved in one step the best match is the most recent.

State is a circular doubly linked list over slots with no sentinel: ``head`` is the most
recent slot and ``prev[head]`` the least recent (O(1) per hook).  The ring makes the
commonest move, evicting the LRU slot and refilling it with the arriving item, a
rotation: ``on_evict`` of the slot ``victim`` chose (the tail) only marks it *pending*
(it stays linked), and ``on_insert`` into that slot just moves ``head`` onto it.  The hook
contract makes the pair certain (after ``victim`` the caller evicts that slot and, unless
it asks for another victim first, inserts the arriving item); an insert into another slot
or a second ``victim`` unlinks the pending one first, and an eviction ``victim`` did not
choose (a deletion) unlinks its slot at once.
"""

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy

# The fields of the state tuple, by position (hooks read state[_PREV][s]; base.py says why)
_PREV = 0  # per slot: the next less recent slot (prev[head] is the least recent)
_NEXT = 1  # per slot: the next more recent slot
_META = 2  # the most recent slot, the evicted tail, the slot victim() chose (-1: none)
_HEAD, _PENDING, _VICTIM = 0, 1, 2


def _init(ctx):
    prev = np.zeros(ctx.slots, np.int32)
    nxt = np.zeros(ctx.slots, np.int32)
    return (prev, nxt, np.full(3, -1, np.int32))


# Hooks index ``state[_PREV]`` in place: holding an array in a local across calls costs
# reference counting on every request (see fifo.py).
@njit
def _unlink(state, s):
    if state[_NEXT][s] == s:  # the only slot
        state[_META][_HEAD] = -1
        return
    a, b = state[_PREV][s], state[_NEXT][s]
    state[_NEXT][a] = b
    state[_PREV][b] = a
    if state[_META][_HEAD] == s:
        state[_META][_HEAD] = b


@njit
def _push_mru(state, s):
    head = state[_META][_HEAD]
    if head < 0:
        state[_PREV][s] = s
        state[_NEXT][s] = s
    else:  # between the tail and the head of the ring
        tail = state[_PREV][head]
        state[_PREV][s] = tail
        state[_NEXT][s] = head
        state[_NEXT][tail] = s
        state[_PREV][head] = s
    state[_META][_HEAD] = s


@njit
def _on_hit(state, slot, t, relevant):
    head = state[_META][_HEAD]
    if slot == head:
        return  # already the most recent
    if slot != state[_PREV][head]:  # the tail needs no relinking: the head moves onto it
        # _unlink then _push_mru, without their branches for a lone or a head slot (which
        # cannot occur here): calling them cost 0.8 ns of a 8 ns paging request
        a, b = state[_PREV][slot], state[_NEXT][slot]
        state[_NEXT][a] = b
        state[_PREV][b] = a
        tail = state[_PREV][head]
        state[_PREV][slot] = tail
        state[_NEXT][slot] = head
        state[_NEXT][tail] = slot
        state[_PREV][head] = slot
    state[_META][_HEAD] = slot


@njit
def _on_insert(state, slot, key, t):
    v = state[_META][_PENDING]
    if v == slot:  # the evicted tail refilled: rotate the ring
        state[_META][_PENDING] = -1
        state[_META][_HEAD] = slot
        return
    if v >= 0:  # refilled elsewhere: the evicted tail leaves the ring
        state[_META][_PENDING] = -1
        _unlink(state, v)
    _push_mru(state, slot)


@njit
def _on_evict(state, slot, key, t):
    if slot == state[_META][_VICTIM]:  # the tail: stays linked until on_insert
        state[_META][_PENDING] = slot
        state[_META][_VICTIM] = -1
    else:  # a deletion
        _unlink(state, slot)


@njit
def _victim(state, t, key, x, cache):
    p = state[_META][_PENDING]
    if p >= 0:  # an earlier victim of this arrival (a sized one evicts until it fits)
        state[_META][_PENDING] = -1
        _unlink(state, p)
    v = state[_PREV][state[_META][_HEAD]]
    state[_META][_VICTIM] = v
    return v


POLICY = Policy(name="lru", summary="always admit; evict the least recently retrieved item",
                init=_init, victim=_victim, on_hit=_on_hit, on_insert=_on_insert,
                on_evict=_on_evict, modes=("semantic", "paging"))
