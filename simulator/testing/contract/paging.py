"""Checks of a policy in paging mode, and of a policy's own paging loop."""

from __future__ import annotations

import numpy as np

from simulator import policies
from simulator.live_run import LiveRun
from simulator.policies.base import always_admit
from simulator.testing.contract.traces import K, SEEDS, declared, require, zipf_requests
from simulator.runner import run


def check_paging(name, params=None):
    tr = zipf_requests()
    a = run(tr, name, capacity=K, seed=1, params=params)
    b = run(tr, name, capacity=K, seed=1, params=params)
    require(np.array_equal(a.hit, b.hit), "paging: same seed, different hits")
    req = tr.requests.tolist()
    first = [req.index(k) for k in set(req)]
    require((a.hit[first] == 0).all(), "paging: a first request hit")
    # With room for every object nothing is evicted, so an object that hits once hits on
    # every later request; a policy that keeps base's always_admit misses only first
    # requests there (an admission filter may refuse some misses, and then miss again).
    big = run(tr, name, capacity=tr.n_keys, seed=1, params=params)
    require(big.summary()["evictions"] == 0, "paging: evicted although every object fits")
    order = np.argsort(tr.requests, kind="stable")
    same = tr.requests[order[1:]] == tr.requests[order[:-1]]
    require(not (same & (big.hit[order[1:]] < big.hit[order[:-1]])).any(),
             "paging: an object missed after a hit although every object fits")
    if policies.resolve(name).admit is always_admit:
        require(big.summary()["hits"] == tr.steps - tr.n_keys,
                 "paging: an always-admit policy missed a request after the first one "
                 "although every object fits")
    runs = [run(tr, name, capacity=K, seed=s, params=params).hit for s in SEEDS]
    differ = any(not np.array_equal(runs[0], h) for h in runs[1:])
    require(differ or not declared(name, params).randomized,
             "paging: declared randomized, but no seed changed a hit")
    require(not differ or declared(name, params).randomized,
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
    pol = policies.resolve(name)
    for seed, objects, alpha in ((0, 60, 0.9), (1, 12, 0.0), (2, 400, 1.2)):
        tr = zipf_requests(seed, 3000, objects, alpha)
        for capacity in (1, 2, K, 16):
            (own_hit, own), (hook_hit, hook) = (
                paging_loop_result(pol, tr, capacity, hooks, seed, params)
                for hooks in (False, True))
            label = f"paging_loop (Zipf({alpha}), {objects} objects, capacity {capacity})"
            differ = np.flatnonzero(own_hit != hook_hit)
            require(differ.size == 0, f"{label}: request {differ[:1].tolist()} is a hit in "
                     "one of the policy's loop and its hook loop, a miss in the other")
            require(own == hook, f"{label}: (hits, admissions, evictions) {own}, the hook "
                     f"loop's {hook}")
