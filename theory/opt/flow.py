"""Exact OPT for binary topic hits at any K and any number of topics, as a min-cost flow.

Applies exactly when :func:`theory.opt.topics.applies` does (``hit`` quality, relevance by
topic, keys keep their topic, k >= K or topic-separated clusters).  Then ℓ_t = w_t·[no
cached item of topic a_t], more items never hurt, and one item per useful topic suffices.

Network (T steps; a *query* is a step q with w_q > 0 whose topic a_q has an arrival before
q; the others can never hit and are left out):

- timeline nodes τ = 0 … T, arcs τ → τ+1 of capacity K, cost 0 (a free or stale slot of
  S_τ); node 0 supplies K units, node T absorbs them;
- per query q a pair in_q → out_q, capacity 1, cost −w_q (S_q holds a topic-a_q copy);
- chain arcs out_q → in_q' for consecutive queries q < q' of one topic (hold the copy over
  S_{q+1} … S_q'), and exit arcs out_q → timeline q+1 (capacity 1, cost 0);
- entry arcs timeline s+1 → in_q, capacity 1, cost λ, for each arrival s of a topic with
  queries, q its first query at or after s+1 (admitting e_s into S_{s+1}).

OPT = Σ_t w_t + (min flow cost).  Node-arc incidence matrices are totally unimodular, so
the LP has an integral optimum; the default solver, successive shortest paths, only ever
moves whole units.

Proof sketch.  (flow <= OPT) In any schedule, each maximal stretch S_{s+1} … S_e holding a
topic-b item starts with the admission of e_s (topic b), a modification, and no two
stretches start at one step (only e_s enters).  Route one unit
per stretch with queries of b: in at s+1, through them, out after the last.  Stretches of
a topic are disjoint and at most |topics(S_τ)| <= K units are off the timeline at τ; the
flow has every hit and pays λ per stretch, so Σw + its cost <= the schedule's cost.
(OPT <= flow) From an integral flow build a schedule forward: at step s, exits at node
s+1 turn their topics *stale* (kept cached); then an entry of b_s revives a stale b copy
(free) or admits e_s, evicting a stale copy if the cache is full (a stale copy is a unit
on the timeline, so one exists).  e_s's key is not cached then (it would be a b copy: keys
keep their topic).  Changes occur only at entries and every flow hit is a real hit, so
the schedule costs at most Σw + the flow cost.  Hence OPT = Σw + min cost.

Size: T + 1 + 2Q nodes, at most 2T + 3Q arcs (Q <= T).  Successive shortest paths (K
Dijkstra passes with potentials, compiled) takes well under a second at T = 10⁴ (about
0.1 s for K <= 10 and 0.5 s for K = 50, once the loop is in numba's disk cache); HiGHS
(``solver="highs"``) solves the same LP but its simplex needs ~10 s at T = 10⁴ (Q ≈ T),
so it serves as a cross-check.  The potentials are an optimal dual: :mod:`theory.opt.bounds`
certifies the flow value from them.
"""

from __future__ import annotations

import heapq
import math

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from simulator.engine.cached_kernel import cached_kernel
from theory.opt.model import effective_weights

INTEGRAL_TOL = 1e-9
SOLVERS = ("ssp", "highs")


def build(trace, capacity: int, switch_cost: float) -> dict:
    """The network: arc arrays ``tail, head, cost, cap``, node ``supply`` and arc ids.

    A relaxation (the "flow <= OPT" half holds) for ``hit`` quality with relevance by
    topic, whatever k and whether or not keys keep their topic.
    """
    T, K, lam = trace.steps, int(capacity), float(switch_cost)
    w = effective_weights(trace)
    qt, it = trace.query_topics, trace.item_topics
    topical = np.flatnonzero(it >= 0)
    topics, at = np.unique(it[topical], return_index=True)  # each topic's first arrival
    first_of = np.full(T, T, np.int64)  # step of the first arrival of topic a_t (T: none)
    if topics.size:
        pos = np.minimum(np.searchsorted(topics, qt), topics.size - 1)
        found = topics[pos] == qt
        first_of[found] = topical[at][pos[found]]
    q_steps = np.flatnonzero((w > 0) & (qt >= 0) & (np.arange(T) > first_of))
    Q = q_steps.size
    node_in = T + 1 + 2 * np.arange(Q)
    node_out = node_in + 1
    order = np.argsort(qt[q_steps], kind="stable")  # by topic, in time order within a topic
    same = qt[q_steps][order][1:] == qt[q_steps][order][:-1]
    # entries: (topic rank, step) keys, so one sorted search finds each arrival's query
    _, rank = np.unique(np.r_[qt[q_steps][order], it[topical]], return_inverse=True)
    q_key = rank[:Q] * (T + 1) + q_steps[order]
    pos = np.searchsorted(q_key, rank[Q:] * (T + 1) + topical + 1)
    ok = pos < Q
    ok[ok] = rank[:Q][pos[ok]] == rank[Q:][ok]
    entry_step, entry_dst = topical[ok], node_in[order][pos[ok]]
    parts = [  # (tail, head, cost, cap): timeline, hits, chains, exits, entries
        (np.arange(T), np.arange(1, T + 1), 0.0, K),
        (node_in, node_out, -w[q_steps], 1.0),
        (node_out[order][:-1][same], node_in[order][1:][same], 0.0, 1.0),
        (node_out, q_steps + 1, 0.0, 1.0),
        (entry_step + 1, entry_dst, lam, 1.0)]
    sizes = np.cumsum([0] + [p[0].size for p in parts])
    supply = np.zeros(T + 1 + 2 * Q)
    supply[0], supply[T] = K, -K
    return dict(tail=np.concatenate([p[0] for p in parts]).astype(np.int64),
                head=np.concatenate([p[1] for p in parts]).astype(np.int64),
                cost=np.concatenate([np.broadcast_to(p[2], p[0].shape) for p in parts]
                                    ).astype(np.float64),
                cap=np.concatenate([np.broadcast_to(p[3], p[0].shape) for p in parts]
                                   ).astype(np.float64),
                supply=supply, constant=math.fsum(w.tolist()), q_steps=q_steps,
                exit_arcs=np.arange(sizes[3], sizes[4]), entry_arcs=np.arange(sizes[4], sizes[5]),
                entry_step=entry_step, steps=T, units=K)


def incidence(net: dict):
    """The node-arc incidence matrix (+1 at the tail, −1 at the head), CSR."""
    n, E = net["supply"].size, net["tail"].size
    cols = np.arange(E)
    return sp.csr_matrix((np.r_[np.ones(E), -np.ones(E)],
                          (np.r_[net["tail"], net["head"]], np.r_[cols, cols])), shape=(n, E))


@cached_kernel
def _ssp(n, tail, head, cost, cap, source, sink, units):
    """Successive shortest paths with Dijkstra on reduced costs; returns (flow, potentials).

    Node ids must be a topological order (``tail < head``): the first potentials are then
    one pass of DAG shortest paths, which handles the negative hit costs.
    """
    E = tail.size
    deg = np.zeros(n + 1, np.int64)
    for e in range(E):
        deg[tail[e] + 1] += 1
        deg[head[e] + 1] += 1
    start = np.cumsum(deg)
    fill = start[:-1].copy()
    adj = np.empty(2 * E, np.int64)  # residual arc r: 2e forward, 2e + 1 backward
    for e in range(E):
        adj[fill[tail[e]]] = 2 * e
        fill[tail[e]] += 1
        adj[fill[head[e]]] = 2 * e + 1
        fill[head[e]] += 1
    flow = np.zeros(E)
    pi = np.full(n, np.inf)
    pi[source] = 0.0
    for v in range(n):  # DAG shortest paths: node ids are a topological order
        if pi[v] < np.inf:
            for j in range(start[v], start[v + 1]):
                r = adj[j]
                if r % 2 == 0 and pi[v] + cost[r // 2] < pi[head[r // 2]]:
                    pi[head[r // 2]] = pi[v] + cost[r // 2]
    for v in range(n):
        if pi[v] == np.inf:
            pi[v] = 0.0  # unreachable from the source: never visited below
    sent = 0.0
    dist = np.empty(n)
    pred = np.empty(n, np.int64)
    done = np.empty(n, np.bool_)
    while sent < units:
        dist[:] = np.inf
        done[:] = False
        dist[source] = 0.0
        heap = [(0.0, source)]
        while heap:
            d, v = heapq.heappop(heap)
            if done[v]:
                continue
            done[v] = True
            for j in range(start[v], start[v + 1]):
                r = adj[j]
                e = r // 2
                if r % 2 == 0:
                    u, res, c = head[e], cap[e] - flow[e], cost[e]
                else:
                    u, res, c = tail[e], flow[e], -cost[e]
                if res <= 0.0:
                    continue
                nd = d + max(0.0, c + pi[v] - pi[u])
                if nd < dist[u]:
                    dist[u] = nd
                    pred[u] = r
                    heapq.heappush(heap, (nd, u))
        D = dist[sink]
        if D == np.inf:
            raise RuntimeError("flow network: the sink cannot be reached")
        for v in range(n):
            pi[v] += min(dist[v], D)
        push = units - sent
        v = sink
        while v != source:
            r = pred[v]
            e = r // 2
            push = min(push, cap[e] - flow[e] if r % 2 == 0 else flow[e])
            v = tail[e] if r % 2 == 0 else head[e]
        v = sink
        while v != source:
            r = pred[v]
            e = r // 2
            flow[e] += push if r % 2 == 0 else -push
            v = tail[e] if r % 2 == 0 else head[e]
        sent += push
    return flow, pi


def min_cost_flow(net: dict, solver: str = "ssp"):
    """``(flow, node potentials π)``: an optimal integral flow and, for SSP, an optimal dual
    (reduced costs c_e + π_tail − π_head >= 0 on every arc with room)."""
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
    if solver == "highs":
        res = linprog(net["cost"], A_eq=incidence(net), b_eq=net["supply"],
                      bounds=np.c_[np.zeros_like(net["cap"]), net["cap"]], method="highs-ds")
        if res.status != 0:
            raise RuntimeError(f"flow LP not solved: {res.message}")
        x = np.round(res.x)
        if np.abs(res.x - x).max(initial=0.0) > INTEGRAL_TOL:
            raise RuntimeError("flow LP returned a fractional vertex")
        return x, -res.eqlin.marginals
    T = net["steps"]
    n = net["supply"].size
    # relabel nodes into a topological order: timeline τ, then in_τ and out_τ of query τ
    q = net["q_steps"]
    when = np.r_[3 * np.arange(T + 1), 3 * np.repeat(q, 2) + np.tile([1, 2], q.size)]
    rank = np.empty(n, np.int64)
    rank[np.argsort(when, kind="stable")] = np.arange(n)
    flow, pi = _ssp(n, rank[net["tail"]], rank[net["head"]], net["cost"], net["cap"],
                    int(rank[0]), int(rank[T]), float(net["units"]))
    if not np.array_equal(flow, np.round(flow)):  # unit pushes: a failure is a bug
        raise RuntimeError("successive shortest paths returned a fractional flow")
    return flow, pi[rank]


def solve(trace, capacity: int, switch_cost: float, solver: str = "ssp"):
    """Exact OPT by min-cost flow: ``(cost, sets)``, ``sets[t]`` = S_t as arrival indices.

    Call only when :func:`theory.opt.topics.applies` returns None.
    """
    net = build(trace, capacity, switch_cost)
    x, _ = min_cost_flow(net, solver)
    cost = net["constant"] + math.fsum((net["cost"] * x).tolist())
    return cost, schedule_sets(trace, capacity, net, x)


def schedule_sets(trace, capacity: int, net: dict, x: np.ndarray) -> list:
    """The proof's schedule S_0 … S_T from an integral flow ``x`` (stale copies kept).

    When a key changes topic (outside :func:`~theory.opt.topics.applies`) an entry whose
    key is cached admits nothing; the schedule stays feasible, and only its cost can differ.
    """
    T, keys, qt, it = trace.steps, trace.item_keys, trace.query_topics, trace.item_topics
    exits = np.zeros(T, bool)
    exits[net["q_steps"][x[net["exit_arcs"]] > 0.5]] = True
    enters = np.zeros(T, bool)
    enters[net["entry_step"][x[net["entry_arcs"]] > 0.5]] = True
    active: dict = {}   # topic -> arrival held for an upcoming query
    stale: dict = {}    # topic -> arrival no unit needs any more (insertion order = age)
    sets = [frozenset()]
    for s in range(T):
        if exits[s] and int(qt[s]) in active:
            stale[int(qt[s])] = active.pop(int(qt[s]))
        if enters[s]:
            b = int(it[s])
            if b in active:
                raise RuntimeError(f"flow enters topic {b} at step {s} while it is held")
            if b in stale:
                active[b] = stale.pop(b)
            elif keys[s] not in {int(keys[i]) for i in (*active.values(), *stale.values())}:
                if len(active) + len(stale) >= capacity:
                    del stale[next(iter(stale))]  # the oldest stale copy
                active[b] = s
        sets.append(frozenset((*active.values(), *stale.values())))
    return sets
