"""The contract every registered policy meets: :func:`check_policy` runs it on one policy.

Like scikit-learn's ``check_estimator`` and ``parametrize_with_checks``: each check takes
a registered policy's name (and optionally its parameters) and raises AssertionError with
a readable message (also under ``python -O``: the checks do not use ``assert``);
:func:`semantic_checks` and :func:`paging_checks` list ``(name, check)`` pairs over the
whole registry, which the test suite runs.  The checks hold for any policy: capacity is
never exceeded, a seed fixes a run, no state leaks between runs, N counts every change of
the cache, arrivals and re-arrivals are honoured, paging runs behave, and a policy's own
paging loop (if any) equals its hooks.  Per-policy behaviour (a policy's exact rule) is
tested elsewhere.

The checks read what a policy declares about itself
(:class:`~simulator.policies.base.Traits`) and verify it: a randomized policy's decisions
change with the seed and any other policy's never do (:func:`check_randomized`), a
regret-gated policy's admissions follow the miss costs and any other policy's decisions
ignore them (:func:`check_feedback`), and an online policy is never handed the trace, so
one that reads it fails every check.

>>> check_policy("fifo")[:3]
['check_capacity', 'check_determinism', 'check_randomized']
"""

from __future__ import annotations

import numpy as np

from simulator import policies
from simulator.live_run import LiveRun
from simulator.policies.base import Context, always_admit
from simulator.runner import run
from simulator.trace import PagingTrace, Trace

ARRAYS = ("loss", "hit", "precision", "quality", "admitted", "evicted", "deleted", "size")
K = 4
SEEDS = range(4)


def declared(name, params=None):
    """The traits the registered policy ``name`` declares with ``params``."""
    return policies.get(name).traits_of(params)


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


def _require(condition, message) -> None:
    if not condition:
        raise AssertionError(message)


def replay(result, trace):
    """Cache content after every step, rebuilt from admitted/evicted/deleted only."""
    keys = trace.item_keys.tolist()
    s = set()
    before, after = [], []
    for t in range(trace.steps):
        before.append(frozenset(s))
        e, a, dl = (int(result.evicted[t]), int(result.admitted[t]), int(result.deleted[t]))
        if e >= 0:
            _require(e in s, f"step {t}: evicted key {e} is not cached ({sorted(s)})")
            _require(a >= 0, f"step {t}: evicted {e} without admitting")
            s.discard(e)
        if a >= 0:
            _require(a == keys[t], f"step {t}: admitted {a}, but the arriving key is {keys[t]}")
            _require(a not in s, f"step {t}: admitted {a}, which was already cached")
            s.add(a)
        if dl >= 0:
            _require(dl in s, f"step {t}: deleted key {dl} is not cached")
            s.discard(dl)
        after.append(frozenset(s))
    return before, after


# --------------------------------------------------------------------------- checks

def check_capacity(name, params=None):
    pol = policies.REGISTRY[name]
    for label, tr in semantic_traces().items():
        r = run(tr, name, capacity=K, top_k=3, seed=1, params=params)
        if pol.unbounded:
            _require((r.evicted < 0).all() and (r.deleted < 0).all(),
                     f"{label}: unlimited evicted")
            seen = np.array([len(set(tr.item_keys[:t + 1].tolist())) for t in range(tr.steps)])
            _require(np.array_equal(r.size, seen), f"{label}: size != distinct keys seen")
        else:
            _require(r.size.max() <= K, f"{label}: size {r.size.max()} > capacity {K}")
            _require((r.size >= 0).all(), f"{label}: a negative cache size")


def check_determinism(name, params=None):
    for label, tr in semantic_traces().items():
        a = run(tr, name, capacity=K, seed=7, params=params)
        b = run(tr, name, capacity=K, seed=7, params=params)
        _require(results_equal(a, b), f"{label}: same seed, different runs")


def check_randomized(name, params=None):
    """A policy declared randomized decides differently under some seed; any other policy
    decides the same under every seed."""
    randomized = declared(name, params).randomized
    for label, tr in {**semantic_traces(), "long": clustered_trace(2, T=400)}.items():
        runs = [run(tr, name, capacity=K, seed=s, params=params) for s in SEEDS]
        differ = any(not results_equal(runs[0], r) for r in runs[1:])
        if differ and not randomized:
            raise AssertionError(f"{label}: the seed changed a run of a policy not declared "
                                 "randomized (declare Traits(randomized=True))")
        if differ:
            return
    _require(not randomized, f"{len(SEEDS)} seeds, identical runs on every trace, but the "
             "policy is declared randomized")


def check_feedback(name, params=None):
    """Weights 0 vs 1: a policy declared regret-gated admits differently, and nothing at
    weight 0; any other decides the same."""
    zero = clustered_trace(3, weights=np.zeros)
    one = clustered_trace(3, weights=np.ones)
    a = run(zero, name, capacity=K, seed=0, params=params)
    b = run(one, name, capacity=K, seed=0, params=params)
    decisions = ("hit", "precision", "quality", "admitted", "evicted", "deleted", "size")
    if declared(name, params).regret_gated:
        _require(not np.array_equal(a.admitted, b.admitted), "declared regret-gated, but "
                 "the miss cost does not change what it admits")
        _require((a.admitted < 0).all(), "weight 0 (no regret ever) still admitted")
    else:
        _require(results_equal(a, b, decisions), "the miss cost changed the decisions of a "
                 "policy not declared regret-gated (declare Traits(regret_gated=True))")


def check_reset(name, params=None):
    """No state leaks between runs or between ``init`` calls."""
    traces = semantic_traces()
    first = run(traces["fresh"], name, capacity=K, seed=3, params=params)
    run(traces["restream"], name, capacity=K + 1, seed=4, params=params)
    again = run(traces["fresh"], name, capacity=K, seed=3, params=params)
    _require(results_equal(first, again), "a run depends on the runs before it")
    pol = policies.REGISTRY[name]
    tr = traces["fresh"]
    ctx = Context(K, tr.n_keys, tr.dim, pol.resolve_params(params), 3, 0.0,
                  tr if declared(name, params).offline else None)
    s1, s2 = pol.init(ctx), pol.init(ctx)
    a1, a2 = flatten(s1), flatten(s2)
    _require(len(a1) == len(a2), "two init calls give different numbers of arrays")
    for x, y in zip(a1, a2):
        _require(x.dtype == y.dtype and np.array_equal(x, y), "init is not deterministic")
        _require(not np.shares_memory(x, y), "two init calls share an array")


def check_modifications(name, params=None):
    """N = #steps where the cache content changes, from an independent replay."""
    for label, tr in semantic_traces().items():
        for lam in (0.0, 1.0):
            r = run(tr, name, capacity=K, switch_cost=lam, seed=5, params=params)
            before, after = replay(r, tr)
            changed = sum(b != a for b, a in zip(before, after))
            s = r.summary()
            _require(s["modifications"] == changed,
                     f"{label}: N={s['modifications']} != {changed}")
            _require([len(a) for a in after] == r.size.tolist(), f"{label}: size != replay")
            _require(s["admissions"] == int((r.admitted >= 0).sum()),
                     f"{label}: admissions != steps that admitted")
            _require(s["evictions"] == int((r.evicted >= 0).sum() + (r.deleted >= 0).sum()),
                     f"{label}: evictions != steps that evicted or deleted")
            _require(s["hits"] == int(r.hit.sum()) and isinstance(s["hits"], int),
                     f"{label}: hits is not the int count of hit steps")


def check_arrivals(name, params=None):
    """Admitted keys are the arriving keys; a cached arrival changes nothing."""
    for label, tr in semantic_traces().items():
        r = run(tr, name, capacity=K, seed=6, params=params)
        before, _ = replay(r, tr)
        keys = tr.item_keys
        for t in range(tr.steps):
            if int(keys[t]) in before[t]:
                _require(r.admitted[t] < 0 and r.evicted[t] < 0, f"{label}: step {t} re-arrival")
        # full before the arrival: K after it, unless the step also deleted one
        evicting = r.evicted >= 0
        full = r.size + (r.deleted >= 0) == K
        _require(full[evicting].all() or policies.REGISTRY[name].unbounded,
                 f"{label}: evicted although the cache had room")


def check_paging(name, params=None):
    tr = zipf_requests()
    a = run(tr, name, capacity=K, seed=1, params=params)
    b = run(tr, name, capacity=K, seed=1, params=params)
    _require(np.array_equal(a.hit, b.hit), "paging: same seed, different hits")
    req = tr.requests.tolist()
    first = [req.index(k) for k in set(req)]
    _require((a.hit[first] == 0).all(), "paging: a first request hit")
    # With room for every object nothing is evicted, so an object that hits once hits on
    # every later request; a policy that keeps base's always_admit misses only first
    # requests there (an admission filter may refuse some misses, and then miss again).
    big = run(tr, name, capacity=tr.n_keys, seed=1, params=params)
    _require(big.summary()["evictions"] == 0, "paging: evicted although every object fits")
    order = np.argsort(tr.requests, kind="stable")
    same = tr.requests[order[1:]] == tr.requests[order[:-1]]
    _require(not (same & (big.hit[order[1:]] < big.hit[order[:-1]])).any(),
             "paging: an object missed after a hit although every object fits")
    if policies.REGISTRY[name].admit is always_admit:
        _require(big.summary()["hits"] == tr.steps - tr.n_keys,
                 "paging: an always-admit policy missed a request after the first one "
                 "although every object fits")
    runs = [run(tr, name, capacity=K, seed=s, params=params).hit for s in SEEDS]
    differ = any(not np.array_equal(runs[0], h) for h in runs[1:])
    _require(differ or not declared(name, params).randomized,
             "paging: declared randomized, but no seed changed a hit")
    _require(not differ or declared(name, params).randomized,
             "paging: the seed changed a run of a policy not declared randomized")


def paging_loop_result(pol, trace, capacity, hooks, seed=0, params=None):
    """``(hit, [hits, admissions, evictions])`` of a paging run of policy ``pol`` through
    its own ``paging_loop`` or, with ``hooks``, through the engine's hook loop."""
    live = LiveRun(trace, pol, capacity=capacity, seed=seed, params=params)
    if hooks:
        live.step(0, trace.steps)
    else:
        live.run_all()
    return live.hit, [live.hits, live.admissions, live.evictions]


def check_paging_loop(name, params=None):
    """A policy's own ``paging_loop`` (if any) equals its hook loop, request for request."""
    pol = policies.REGISTRY[name]
    for seed, objects, alpha in ((0, 60, 0.9), (1, 12, 0.0), (2, 400, 1.2)):
        tr = zipf_requests(seed, 3000, objects, alpha)
        for capacity in (1, 2, K, 16):
            (own_hit, own), (hook_hit, hook) = (
                paging_loop_result(pol, tr, capacity, hooks, seed, params)
                for hooks in (False, True))
            label = f"paging_loop (Zipf({alpha}), {objects} objects, capacity {capacity})"
            differ = np.flatnonzero(own_hit != hook_hit)
            _require(differ.size == 0, f"{label}: request {differ[:1].tolist()} is a hit in "
                     "one of the policy's loop and its hook loop, a miss in the other")
            _require(own == hook, f"{label}: (hits, admissions, evictions) {own}, the hook "
                     f"loop's {hook}")


def flatten(state):
    out = []
    for x in state:
        out.extend(flatten(x) if isinstance(x, tuple) else [np.asarray(x)])
    return out


SEMANTIC_CHECKS = (check_capacity, check_determinism, check_randomized, check_feedback,
                   check_reset, check_modifications, check_arrivals)
PAGING_CHECKS = (check_paging,)


def _paging_checks_of(pol):
    if "paging" not in pol.modes:
        return ()
    return PAGING_CHECKS + ((check_paging_loop,) if pol.paging_loop is not None else ())


def semantic_checks():
    return [(name, c) for name, p in policies.REGISTRY.items() if "semantic" in p.modes
            for c in SEMANTIC_CHECKS]


def paging_checks():
    return [(name, c) for name, p in policies.REGISTRY.items() for c in _paging_checks_of(p)]


def check_policy(name: str, params: dict | None = None) -> list:
    """Run every check that applies to the registered policy ``name`` (by its modes), with
    its parameters ``params`` (defaults when None).

    Returns the names of the checks run; raises AssertionError naming the policy, the
    failed check and what failed (an error the engine raised counts as a failure too, such
    as a victim slot that is not occupied).  Register a policy first
    (``simulator.policies.REGISTRY[policy.name] = policy``).  The hooks run compiled, so a
    hook that writes out of its arrays' bounds can crash the process instead.
    """
    pol = policies.get(name)
    pol.resolve_params(params)  # a bad parameter is the caller's error, not a failed check
    checks = (SEMANTIC_CHECKS if "semantic" in pol.modes else ()) + _paging_checks_of(pol)
    for check in checks:
        try:
            check(name, params)
        except AssertionError as exc:
            raise AssertionError(f"policy '{name}' fails {check.__name__}: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - the engine's own objections
            raise AssertionError(f"policy '{name}' fails {check.__name__}: "
                                 f"{type(exc).__name__}: {exc}") from None
    return [check.__name__ for check in checks]
