"""Checks of a policy in semantic mode: capacity, seeds, feedback, reset, N, arrivals."""

from __future__ import annotations

import numpy as np

from simulator import policies
from simulator.policies.context import Context
from simulator.testing.contract.traces import (K, SEEDS, clustered_trace, declared,
                                               deletions, replay, require, results_equal,
                                               semantic_traces)
from simulator.runner import run


def check_capacity(name, params=None):
    pol = policies.resolve(name)
    for label, tr in semantic_traces().items():
        r = run(tr, name, capacity=K, top_k=3, seed=1, params=params)
        if pol.unbounded:
            require((r.evicted < 0).all() and (r.deleted < 0).all(),
                     f"{label}: unlimited evicted")
            seen = np.array([len(set(tr.item_keys[:t + 1].tolist())) for t in range(tr.steps)])
            require(np.array_equal(r.size, seen), f"{label}: size != distinct keys seen")
        else:
            require(r.size.max() <= K, f"{label}: size {r.size.max()} > capacity {K}")
            require((r.size >= 0).all(), f"{label}: a negative cache size")


def check_determinism(name, params=None):
    for label, tr in semantic_traces().items():
        a = run(tr, name, capacity=K, seed=7, params=params)
        b = run(tr, name, capacity=K, seed=7, params=params)
        require(results_equal(a, b), f"{label}: same seed, different runs")


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
    require(not randomized, f"{len(SEEDS)} seeds, identical runs on every trace, but the "
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
        require(not np.array_equal(a.admitted, b.admitted), "declared regret-gated, but "
                 "the miss cost does not change what it admits")
        require((a.admitted < 0).all(), "weight 0 (no regret ever) still admitted")
    else:
        require(results_equal(a, b, decisions), "the miss cost changed the decisions of a "
                 "policy not declared regret-gated (declare Traits(regret_gated=True))")


def check_reset(name, params=None):
    """No state leaks between runs or between ``init`` calls."""
    traces = semantic_traces()
    first = run(traces["fresh"], name, capacity=K, seed=3, params=params)
    run(traces["restream"], name, capacity=K + 1, seed=4, params=params)
    again = run(traces["fresh"], name, capacity=K, seed=3, params=params)
    require(results_equal(first, again), "a run depends on the runs before it")
    pol = policies.resolve(name)
    tr = traces["fresh"]
    ctx = Context(capacity=K, n_keys=tr.n_keys, dim=tr.dim,
                  params=pol.resolve_params(params), seed=3,
                  trace=tr if declared(name, params).offline else None)
    s1, s2 = pol.init(ctx), pol.init(ctx)
    a1, a2 = flatten(s1), flatten(s2)
    require(len(a1) == len(a2), "two init calls give different numbers of arrays")
    for x, y in zip(a1, a2):
        require(x.dtype == y.dtype and np.array_equal(x, y), "init is not deterministic")
        require(not np.shares_memory(x, y), "two init calls share an array")


def check_modifications(name, params=None):
    """N = #steps where the cache content changes, from an independent replay."""
    for label, tr in semantic_traces().items():
        for lam in (0.0, 1.0):
            r = run(tr, name, capacity=K, switch_cost=lam, seed=5, params=params)
            before, after = replay(r, tr)
            changed = sum(b != a for b, a in zip(before, after))
            s = r.summary()
            require(s["modifications"] == changed,
                     f"{label}: N={s['modifications']} != {changed}")
            require([len(a) for a in after] == r.size.tolist(), f"{label}: size != replay")
            require(s["admissions"] == int((r.admitted >= 0).sum()),
                     f"{label}: admissions != steps that admitted")
            deleted = sum(map(len, deletions(r, tr.steps)))
            require(s["evictions"] == int((r.evicted >= 0).sum()) + deleted,
                     f"{label}: evictions != steps that evicted + items deleted")
            require(s["hits"] == int(r.hit.sum()) and isinstance(s["hits"], int),
                     f"{label}: hits is not the int count of hit steps")


def check_arrivals(name, params=None):
    """Admitted keys are the arriving keys; a cached arrival changes nothing."""
    for label, tr in semantic_traces().items():
        r = run(tr, name, capacity=K, seed=6, params=params)
        before, _ = replay(r, tr)
        keys = tr.item_keys
        for t in range(tr.steps):
            if int(keys[t]) in before[t]:
                require(r.admitted[t] < 0 and r.evicted[t] < 0, f"{label}: step {t} re-arrival")
        # full before the arrival: K after it, unless the step also deleted some
        evicting = r.evicted >= 0
        full = r.size + np.array([len(d) for d in deletions(r, tr.steps)]) == K
        require(full[evicting].all() or policies.resolve(name).unbounded,
                 f"{label}: evicted although the cache had room")


def flatten(state):
    out = []
    for x in state:
        out.extend(flatten(x) if isinstance(x, tuple) else [np.asarray(x)])
    return out
