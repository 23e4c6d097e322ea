"""Feasible schedules for OPT's upper bound: a beam search and the registry's policies.

Every schedule here is a real one (S_{t+1} ⊆ S_t ∪ {e_t}, |S_{t+1}| <= K, within the
budget when there is one, a cached key is never re-admitted), so its replayed cost
(:func:`theory.opt.model.replay`) bounds OPT from above.

Beam search.  States are caches as sets of arrival indices (:mod:`theory.opt.model`).
From each state the moves are keep, add e_t, swap one member for e_t, and delete one
member (deletions matter in soft top-k, docs/model.md §4); a move that changes the set costs λ.
Children that are the same set keep the cheaper one, and the ``width`` children of lowest
*priority* survive: cost so far plus the loss of keeping the child unchanged over the next
``horizon`` weighted steps (a real continuation, so admissions that pay off soon are not
pruned for their λ; unweighted steps, e.g. a warm-up, are skipped).  With a width above
the number of states it is the exact item DP.  :mod:`theory.opt.bounds` runs horizons 16
and 64 (neither wins everywhere) and keeps the better.  The width defaults to a work
budget: K = 5, T = 500 gets 64 states; long traces get a narrower beam.

With a budget B (docs/model.md §1.8) a move that admits e_t is kept only if the cache
then fits (Σ sizes <= B), and one more move admits e_t evicting the oldest members until
it fits, for an arrival that needs two or more victims; the beam is then a heuristic even
at full width.  Policies run with the same budget and log every victim.
"""

from __future__ import annotations

import numpy as np

from simulator.engine import compile_marks
from simulator.config import njit
from simulator.engine.cached_kernel import cached_kernel
from simulator.policies import REGISTRY
from simulator.runner import run
from theory.opt.model import MissModel, set_loss

DEFAULT_WIDTH = 64
DEFAULT_HORIZON = 16
HORIZONS = (16, 64)
WORK_BUDGET = 3 * 10**7  # set_loss calls per beam search when the width is not given
MIN_WIDTH = 4


def default_width(steps: int, capacity: int, horizon: int = DEFAULT_HORIZON) -> int:
    """The width that keeps about ``WORK_BUDGET`` loss evaluations (at most 64, at least 4)."""
    per_state = max(1, steps) * (2 * capacity + 2) * (horizon + 1)
    return int(min(DEFAULT_WIDTH, max(MIN_WIDTH, WORK_BUDGET // per_state)))


@njit
def _set_hash(members, n):
    h = np.uint64(1469598103934665603)
    for j in range(n):
        h = (h ^ np.uint64(members[j] + 1)) * np.uint64(1099511628211)
    return h


@cached_kernel
def _beam(sim, rel, w, keys, k, qcode, K, lam, W, H, par, rem, add, sizes, budget, budgeted):
    T = w.shape[0]
    wsteps = np.flatnonzero(w > 0)  # the lookahead skips steps that cost nothing
    nxt = np.searchsorted(wsteps, np.arange(T + 1))
    C = W * (2 * K + 3) if budgeted else W * (2 * K + 2)
    mem = np.zeros((W, K), np.int64)
    cnt = np.zeros(W, np.int64)
    f = np.zeros(W)
    g = np.zeros(W)
    n = 1
    cmem = np.zeros((C, K), np.int64)
    ccnt = np.zeros(C, np.int64)
    ccost = np.zeros(C)
    cpri = np.zeros(C)
    cpar = np.zeros(C, np.int64)
    crem = np.zeros(C, np.int64)
    cadd = np.zeros(C, np.bool_)
    chash = np.zeros(C, np.uint64)
    table = np.zeros(4 * C, np.uint64)  # open addressing; 0 marks an empty slot
    for t in range(T):
        for s in range(n):
            g[s] = f[s] + set_loss(t, mem[s], cnt[s], sim, rel, w, k, qcode)
        if t == T - 1:
            break
        nc = 0
        for s in range(n):
            c = cnt[s]
            cached = False
            used = 0
            for j in range(c):
                cached |= keys[mem[s, j]] == keys[t]
                used += sizes[mem[s, j]]
            # the oldest members to drop so that e_t fits (the extra move of a budget)
            oldest = 0
            room = used + sizes[t]
            while budgeted and oldest < c and (room > budget or c - oldest >= K):
                room -= sizes[mem[s, oldest]]
                oldest += 1
            # moves: -1 = none removed; members stay sorted (t exceeds every member)
            for move in range(2 * c + (3 if budgeted else 2)):
                first = 0  # members [0, first) leave too (the oldest-first move)
                if move == 0:
                    drop, put = -1, False
                elif move == 1:
                    drop, put = -1, True
                elif move < c + 2:
                    drop, put = move - 2, True
                elif move < 2 * c + 2:
                    drop, put = move - c - 2, False
                else:
                    drop, put, first = -1, True, oldest
                    if oldest < 2 or sizes[t] > budget:
                        continue  # one victim is a swap move; a too-large e_t never fits
                if put and (cached or (drop < 0 and c - first == K)):
                    continue
                if budgeted and put:
                    after = room if first else \
                        used - (sizes[mem[s, drop]] if drop >= 0 else 0) + sizes[t]
                    if after > budget:
                        continue
                m = 0
                for j in range(first, c):
                    if j != drop:
                        cmem[nc, m] = mem[s, j]
                        m += 1
                if put:
                    cmem[nc, m] = t
                    m += 1
                ccnt[nc] = m
                ccost[nc] = g[s] + (lam if move > 0 else 0.0)
                ahead = 0.0
                for r in range(nxt[t + 1], min(wsteps.size, nxt[t + 1] + H)):
                    ahead += set_loss(wsteps[r], cmem[nc], m, sim, rel, w, k, qcode)
                cpri[nc] = ccost[nc] + ahead
                cpar[nc] = s
                # a removed arrival, -1 for none, or -2 - n for the n oldest members
                crem[nc] = mem[s, drop] if drop >= 0 else (-1 if first == 0 else -2 - first)
                cadd[nc] = put
                chash[nc] = _set_hash(cmem[nc], m) | np.uint64(1)
                nc += 1
        order = np.argsort(cpri[:nc], kind="mergesort")
        table[:] = 0
        size = table.shape[0]
        n = 0
        for r in range(nc):
            if n == W:
                break
            c_ = order[r]
            h = chash[c_]
            slot = np.int64(h % np.uint64(size))
            dup = False
            while table[slot] != 0:
                if table[slot] == h:
                    dup = True  # same set (up to a hash collision): a cheaper copy survived
                    break
                slot = (slot + 1) % size
            if dup:
                continue
            table[slot] = h
            mem[n, :] = cmem[c_]
            cnt[n] = ccnt[c_]
            f[n] = ccost[c_]
            par[t, n] = cpar[c_]
            rem[t, n] = crem[c_]
            add[t, n] = cadd[c_]
            n += 1
    best = np.argmin(g[:n])
    return g[best], best


def beam(model: MissModel, capacity: int, switch_cost: float, width: int | None = None,
         horizon: int = DEFAULT_HORIZON, sizes=None, budget: int | None = None):
    """Beam search over item sets: ``(cost, sets)`` of the best schedule found, S_0 … S_T.

    ``cost`` is the schedule's Σ ℓ_t + λ·N computed with the model's losses.  With a
    ``budget``, ``sizes`` (per arrival) must be given and every cache fits the budget.
    """
    T = model.w.shape[0]
    K = max(1, min(int(capacity), T))
    W = default_width(T, K, horizon) if width is None else int(width)
    if W < 1 or horizon < 0:
        raise ValueError("beam width must be >= 1 and horizon >= 0")
    par = np.zeros((max(T - 1, 1), W), np.int64)
    rem = np.full((max(T - 1, 1), W), -1, np.int64)
    add = np.zeros((max(T - 1, 1), W), np.bool_)
    budgeted = budget is not None
    sizes = np.ones(T, np.int64) if sizes is None else np.asarray(sizes, np.int64)
    cost, best = _beam(model.sim, model.rel, model.w, model.keys, model.top_k, model.qcode,
                       K, float(switch_cost), W, int(horizon), par, rem, add, sizes,
                       np.int64(budget if budgeted else 0), budgeted)
    moves = []
    s = int(best)
    for t in range(T - 2, -1, -1):
        moves.append((int(rem[t, s]), bool(add[t, s])))
        s = int(par[t, s])
    sets = [frozenset()]
    for t, (drop, put) in enumerate(reversed(moves)):
        nxt = set(sets[-1]) - {drop}
        if drop <= -2:  # the -2 - drop oldest members (arrival order) left
            nxt -= set(sorted(sets[-1])[:-2 - drop])
        if put:
            nxt.add(t)
        sets.append(frozenset(nxt))
    sets.append(sets[-1])
    return float(cost), sets


def policy_names() -> list:
    """The registry policies whose schedules :func:`policy_runs` gives: every bounded
    semantic one, in registry order."""
    return [n for n, p in REGISTRY.items() if not p.unbounded and "semantic" in p.modes]


def loops_sized(trace, budget: int | None) -> bool:
    """Whether a policy's run for the upper bound uses the loops that track sizes (as a
    run of the same trace and budget does)."""
    return budget is not None or bool(getattr(trace, "sized", False))


def policy_run(trace, name: str, capacity: int | None, top_k: int, switch_cost: float,
               quality: str, budget: int | None = None):
    """``(cost, schedule)`` of the registry policy ``name`` (seed 0) on ``trace``.

    ``schedule`` has the :func:`~theory.opt.model.replay` layout: the key admitted at each
    step (or -1) and the keys evicted or deleted there (every victim of a sized run, from
    its eviction log; every deletion of a policy that deletes several a step, from its
    deletion log).  ``budget`` runs it with that budget (``capacity`` None: no count
    limit).  Its loop is then marked as in the disk cache
    (:func:`simulator.engine.compile_marks.remember`), as ``semcache run`` marks it.
    """
    kw = {} if budget is None else {"budget": budget}
    r = run(trace, name, capacity=capacity, top_k=top_k, switch_cost=switch_cost,
            quality=quality, seed=0, **kw)
    compile_marks.remember(REGISTRY[name], "semantic", loops_sized(trace, budget))
    victims = [[int(e)] if e >= 0 else [] for e in r.evicted]
    if r.evict_log is not None:  # a step of a sized run may evict several
        victims = [[] for _ in victims]
        for t, key in r.evict_log.tolist():
            victims[t].append(int(key))
    deleted = [[int(d)] if d >= 0 else [] for d in r.deleted]
    if r.delete_log is not None:  # a policy that forgets several items a step
        deleted = [[] for _ in deleted]
        for t, key in r.delete_log.tolist():
            deleted[t].append(int(key))
    gone = [sorted(v + d) for v, d in zip(victims, deleted)]
    s = r.summary()
    # the schedule's cost in OPT's model, which has no rewrites (docs/model.md §1.9): the
    # run's cost less λ per rewrite, computed as the record computes a run's without any
    cost = s["cost"] if not s["rewrites"] else s["miss_cost"] + switch_cost * s["modifications"]
    return (float(cost), {"admitted": [int(a) for a in r.admitted], "evicted": gone})


def policy_runs(trace, capacity: int | None, top_k: int, switch_cost: float, quality: str,
                budget: int | None = None):
    """``[(policy, schedule, cost)]`` of :func:`policy_run` for every policy of
    :func:`policy_names`, in that order (no time limit: :mod:`theory.opt.upper` orders
    and limits them for the upper bound)."""
    runs = [(name, policy_run(trace, name, capacity, top_k, switch_cost, quality, budget))
            for name in policy_names()]
    return [(name, schedule, cost) for name, (cost, schedule) in runs]
