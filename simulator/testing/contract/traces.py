"""The traces the contract runs on, and what its checks share."""

from __future__ import annotations

import numpy as np

from simulator import policies
from simulator.trace import PagingTrace, Trace

ARRAYS = ("loss", "hit", "precision", "quality", "admitted", "evicted", "deleted", "size")
K = 4
SEEDS = range(4)


def declared(name, params=None):
    """The traits the registered policy ``name`` declares with ``params``."""
    return policies.resolve(name).traits_of(params)


# --------------------------------------------------------------------------- traces

def clustered_trace(seed=0, T=300, d=8, topics=6, pool=None, weights=None):
    """Topic clusters; with ``pool`` the items re-stream from that many keys."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(topics, d))
    qt = rng.integers(0, topics, T)
    queries = centres[qt] + 0.3 * rng.normal(size=(T, d))
    if pool is None:
        it = rng.integers(0, topics, T)
        items = centres[it] + 0.3 * rng.normal(size=(T, d))
        keys = None
    else:
        key_topic = rng.integers(0, topics, pool)
        key_vec = centres[key_topic] + 0.3 * rng.normal(size=(pool, d))
        keys = rng.integers(0, pool, T)
        it, items = key_topic[keys], key_vec[keys]
    return Trace.from_arrays(queries=queries.astype(np.float32), items=items.astype(np.float32),
                             query_topics=qt, item_topics=it, item_keys=keys,
                             weights=weights(T) if weights else None)


def sized_trace(seed=4, T=300, largest=4):
    """:func:`clustered_trace` with items re-streamed from 40 keys, each of a size drawn
    from 1 .. ``largest`` (one size per key)."""
    base = clustered_trace(seed, T=T, pool=40)
    key_size = np.random.default_rng(seed).integers(1, largest + 1, base.n_keys)
    return Trace.from_arrays(queries=base.queries, items=base.items,
                             query_topics=base.query_topics, item_topics=base.item_topics,
                             item_keys=base.item_keys, item_sizes=key_size[base.item_keys])


def sized_requests(seed=5, T=3000, n=60, largest=8):
    """:func:`zipf_requests` whose requests state sizes 1 .. ``largest`` (varying between
    requests of one object, as in a CSV trace)."""
    ids = zipf_requests(seed, T, n).requests
    sizes = np.random.default_rng(seed).integers(1, largest + 1, T)
    return PagingTrace.from_requests(ids, sizes)


def semantic_traces():
    return {"fresh": clustered_trace(0), "restream": clustered_trace(1, pool=12)}


def zipf_requests(seed=0, T=3000, n=60, alpha=0.9):
    """``T`` requests over ``n`` objects, object i with probability ∝ 1/(i+1)^alpha
    (the independent-reference model of the ``zipf_paging`` workload)."""
    weights = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** alpha
    ids = np.random.default_rng(seed).choice(n, size=T, p=weights / weights.sum())
    return PagingTrace.from_requests(ids.astype(np.int64))


def results_equal(a, b, arrays=ARRAYS):
    return all(np.array_equal(getattr(a, n), getattr(b, n)) for n in arrays)


def require(condition, message) -> None:
    if not condition:
        raise AssertionError(message)


def _per_step(first, log, steps) -> list:
    """Each step's keys: the first one a step recorded (-1: none), or every one of the
    log's (step, key) rows when the run kept a log."""
    if log is None:
        return [[] if key < 0 else [key] for key in first.tolist()]
    out = [[] for _ in range(steps)]
    for t, key in log.tolist():
        out[t].append(key)
    return out


def deletions(result, steps) -> list:
    """Each step's deleted keys (every one of a policy with ``repeat_delete``)."""
    return _per_step(result.deleted, result.delete_log, steps)


def replay(result, trace):
    """Cache content after every step, rebuilt from admitted/evicted/deleted only (every
    eviction of a sized run from its ``evict_log``, every deletion of a repeating policy
    from its ``delete_log``)."""
    keys = trace.item_keys.tolist()
    evicted = _per_step(result.evicted, result.evict_log, trace.steps)
    deleted = deletions(result, trace.steps)
    s = set()
    before, after = [], []
    for t in range(trace.steps):
        before.append(frozenset(s))
        a = int(result.admitted[t])
        for e in evicted[t]:
            require(e in s, f"step {t}: evicted key {e} is not cached ({sorted(s)})")
            require(a >= 0, f"step {t}: evicted {e} without admitting")
            s.discard(e)
        if a >= 0:
            require(a == keys[t], f"step {t}: admitted {a}, but the arriving key is {keys[t]}")
            require(a not in s, f"step {t}: admitted {a}, which was already cached")
            s.add(a)
        for dl in deleted[t]:
            require(dl in s, f"step {t}: deleted key {dl} is not cached")
            s.discard(dl)
        after.append(frozenset(s))
    return before, after
