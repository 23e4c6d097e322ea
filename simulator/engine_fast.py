"""The fast engine: one compiled loop over the whole trace, specialised per policy.

The loop below is written once.  For each policy, :func:`kernel_for` makes a copy of it
whose global hook names (``_on_hit``, ``_victim`` …) are bound to that policy's compiled
hooks, so numba inlines them and no Python runs per step.  Each copy gets its own
qualified name, salted with a hash of the package sources, so numba's on-disk cache keeps
one entry per policy and never reloads code compiled against an older hook.
"""

from __future__ import annotations

import hashlib
import pathlib
import types

import numpy as np

from simulator.config import njit
from simulator.kernels import is_relevant, quality_of, retrieve

_HERE = pathlib.Path(__file__).parent
# Everything a compiled loop can contain: the loop, its kernels, the flags, the random
# stream and the policies.  Editing the CLI or the runner keeps the cache.
_COMPILED_SOURCES = [_HERE / "engine_fast.py", _HERE / "kernels.py", _HERE / "config.py",
                     _HERE / "rng.py", *sorted((_HERE / "policies").glob("*.py"))]
_SOURCE_HASH = hashlib.sha1(b"".join(p.read_bytes() for p in _COMPILED_SOURCES)).hexdigest()[:10]
_KERNELS: dict = {}
_HOOKS = ("on_hit", "on_feedback", "admit", "victim", "on_insert", "on_evict", "on_rearrival",
          "delete")


def _remove(s, t, state, slot_key, key_slot, counts):
    """Shared by eviction and deletion: empty slot ``s`` and tell the policy.

    The caller either refills the slot at once (an eviction for an admission: the same
    slot a LIFO free stack would hand out next) or pushes it on the free stack.
    """
    key = slot_key[s]
    _on_evict(state, s, key, t)  # noqa: F821  (bound per policy by kernel_for)
    key_slot[key] = -1
    slot_key[s] = -1
    counts[0] -= 1
    return key


def _semantic(queries, items, qtopic, itopic, weights, keys, ev_ptr, ev_idx, has_ev,
              n_slots, n_keys, capacity, k, qcode, state,
              out_loss, out_hit, out_prec, out_qual, out_adm, out_evi, out_del, out_size):
    T, d = queries.shape
    slot_key = np.full(n_slots, -1, np.int64)
    slot_vec = np.zeros((d, n_slots), np.float32)  # transposed: column s is slot s
    sims = np.empty(n_slots, np.float32)
    slot_adm = np.zeros(n_slots, np.int64)
    slot_topic = np.full(n_slots, -1, np.int64)
    key_slot = np.full(n_keys, -1, np.int64)
    free = np.arange(n_slots - 1, -1, -1).astype(np.int64)  # stack; pops slot 0 first
    counts = np.zeros(3, np.int64)  # size, capacity, free-stack height
    counts[1] = capacity
    counts[2] = n_slots
    cache = (slot_key, slot_vec, slot_adm, counts)
    r_slot = np.empty(k, np.int64)
    r_sim = np.empty(k, np.float64)
    hwm = 0  # slots at or above this index have never been used
    for t in range(T):
        n_ret = retrieve(queries[t], slot_vec, slot_key, slot_adm, hwm, k, sims, r_slot, r_sim)
        n_rel = 0
        for j in range(n_ret - 1, -1, -1):  # worst match first (see policies.base)
            s = r_slot[j]
            rel = is_relevant(slot_key[s], slot_topic[s], qtopic[t], has_ev, ev_idx,
                              ev_ptr[t], ev_ptr[t + 1])
            n_rel += rel
            _on_hit(state, s, t, rel)  # noqa: F821
        hit, prec, qual = quality_of(n_rel, n_ret, k, r_sim[0] if n_ret > 0 else 0.0, qcode)
        loss = weights[t] * (1.0 - qual)
        out_loss[t] = loss
        out_hit[t] = hit
        out_prec[t] = prec
        out_qual[t] = qual
        _on_feedback(state, t, loss, qual)  # noqa: F821

        key = keys[t]
        out_adm[t] = -1
        out_evi[t] = -1
        out_del[t] = -1
        if key_slot[key] >= 0:
            _on_rearrival(state, key_slot[key], t)  # noqa: F821
        elif _admit(state, t, key, items[t], cache):  # noqa: F821
            if counts[0] >= capacity:
                v = _victim(state, t, key, items[t], cache)  # noqa: F821
                if v < 0 or v >= n_slots or slot_key[v] < 0:
                    raise RuntimeError("policy chose a victim slot that is not occupied")
                out_evi[t] = _remove(v, t, state, slot_key, key_slot, counts)
                s = v
            else:
                counts[2] -= 1
                s = free[counts[2]]
            if s >= hwm:
                hwm = s + 1
            slot_key[s] = key
            slot_vec[:, s] = items[t]
            slot_adm[s] = t
            slot_topic[s] = itopic[t]
            key_slot[key] = s
            counts[0] += 1
            out_adm[t] = key
            _on_insert(state, s, key, t)  # noqa: F821
        dl = _delete(state, t, cache)  # noqa: F821
        if dl >= 0:
            if dl >= n_slots or slot_key[dl] < 0:
                raise RuntimeError("policy chose to delete a slot that is not occupied")
            out_del[t] = _remove(dl, t, state, slot_key, key_slot, counts)
            free[counts[2]] = dl
            counts[2] += 1
        out_size[t] = counts[0]


def _paging(requests, n_keys, capacity, state, out_hit):
    T = requests.shape[0]
    slot_key = np.full(capacity, -1, np.int64)
    slot_vec = np.zeros((0, capacity), np.float32)
    slot_adm = np.zeros(capacity, np.int64)
    key_slot = np.full(n_keys, -1, np.int32)  # half the bytes: more of it stays in cache
    free = np.arange(capacity - 1, -1, -1).astype(np.int64)
    counts = np.zeros(3, np.int64)
    counts[1] = capacity
    counts[2] = capacity
    cache = (slot_key, slot_vec, slot_adm, counts)
    x = np.zeros(0, np.float32)
    hits = 0
    admissions = 0
    evictions = 0
    for t in range(T):
        key = requests[t]
        s = key_slot[key]
        if s >= 0:
            hits += 1
            out_hit[t] = 1
            _on_hit(state, s, t, True)  # noqa: F821
            _on_feedback(state, t, 0.0, 1.0)  # noqa: F821
            continue
        out_hit[t] = 0
        _on_feedback(state, t, 1.0, 0.0)  # noqa: F821
        if not _admit(state, t, key, x, cache):  # noqa: F821
            continue
        if counts[0] >= capacity:
            v = _victim(state, t, key, x, cache)  # noqa: F821
            if v < 0 or v >= capacity or slot_key[v] < 0:
                raise RuntimeError("policy chose a victim slot that is not occupied")
            _remove(v, t, state, slot_key, key_slot, counts)
            evictions += 1
            s = v
        else:
            counts[2] -= 1
            s = free[counts[2]]
        slot_key[s] = key
        slot_adm[s] = t
        key_slot[key] = s
        counts[0] += 1
        admissions += 1
        _on_insert(state, s, key, t)  # noqa: F821
    return hits, admissions, evictions


def kernel_for(policy, mode: str):
    """The compiled loop (``"semantic"`` or ``"paging"``) with ``policy``'s hooks inlined."""
    cache_key = (policy.name, mode)
    if cache_key not in _KERNELS:
        env = dict(globals())
        for hook in _HOOKS:
            env["_" + hook] = getattr(policy, hook)
        suffix = f"{policy.name}_{_SOURCE_HASH}"
        remove = types.FunctionType(_remove.__code__, env, f"_remove_{suffix}")
        remove.__qualname__ = remove.__name__
        env["_remove"] = njit(remove)
        body = _semantic if mode == "semantic" else _paging
        fn = types.FunctionType(body.__code__, env, f"{body.__name__}_{suffix}")
        fn.__qualname__ = fn.__name__
        # the only disk-cached functions that call into other files: the salt covers them
        _KERNELS[cache_key] = njit(fn, cache=True)
    return _KERNELS[cache_key]
