"""The stylized eviction model of the SOLAR paper's regret proofs (Theorems 5.6 and 5.7).

Model (docs/claims.md, "The stylized model").  A fixed pool of N items, item i with a
latent utility μ_i.  The cache holds K of them, items 0 … K−1 at the start.  Each step t:

1. the step's reward is μ(S_t) = Σ_{i∈S_t} μ_i (its expected miss cost is K − μ(S_t));
2. every cached item gives one Bernoulli(μ_i) observation (retrieval feedback, k ≥ K);
3. item a_t arrives.  The arrivals are one sequence, drawn uniformly from the pool by the
   seed before the run, and the same for every policy and for its comparator (Definition
   2.3's "same admission sequence").  An arrival that is already cached changes nothing.

Two classes of eviction policy, by what happens to an arrival that is not cached:

*forced* (Algorithm 2 within the paper's model, §2.1)
    the arrival is admitted and the victim is chosen from S_t;
*optional* (the device of the paper's proof of Theorem 5.6)
    the victim is chosen from S_t ∪ {a_t}, so the arrival itself may leave.

Every policy is compared with the best schedule *of its own class* on the same arrivals
(:func:`best_rewards`), with expected losses, the form the paper's bandit proofs use:
R_T = max_{feasible S*} Σ_{t<T} μ(S*_t) − Σ_{t<T} μ(S_t).  For the forced class that
maximum is a dynamic programme over the C(N, K) caches, exact, and it knows the arrival
order (Definition 2.3 takes the minimum over all feasible eviction policies, which includes
every schedule).  For the optional class the greedy rule "keep the K highest utilities of
S_t ∪ {a_t}" is optimal at every horizon at once: its cache is always the top K of all
items seen so far, and every feasible cache is a K-subset of those.  Since the realized
minimum of Definition 2.3 is at most the expected loss of this schedule, E[R_T] of the
definition is at least the R_T here: a linear R_T here refutes an upper bound on it.

Policies (``POLICIES``; ``FORCED`` lists the forced ones):

``ts_restart``
    Algorithm 2 as written: one Beta posterior per cached item, Beta(1, 1) on admission,
    the victim the lowest posterior sample in S_t (forced);
``ts``
    the proof's Thompson sampling: one Beta posterior per *pool item*, kept across
    evictions; the lowest sample of S_t ∪ {a_t} leaves (optional);
``greedy``
    the lowest empirical mean of S_t ∪ {a_t} leaves (unobserved items count as 1/2;
    optional);
``fifo``, ``uniform``
    the oldest, or a uniformly drawn, cached item leaves (forced);
``oracle``
    told μ, the lowest utility in S_t leaves (forced): a non-anticipating rule that
    learns nothing, the guard that shows what the forced comparator's foresight is worth.

Randomness comes from :mod:`simulator.rng` streams of the seed (arrivals and the
policy's draws apart), so a run is a pure function of (utilities, K, T, policy, seed), the
same on every machine, and R_T for a shorter horizon is a prefix of the curve.

Examples
--------
>>> mu = [0.5, 0.5, 0.5, 0.2]
>>> r = regret_curve(mu, capacity=3, steps=200, policy="fifo", seed=0)
>>> r.shape, bool(r[-1] > 0)
((200,), True)
>>> float(regret_curve([0.5, 0.2], 1, 100, "ts_restart", 0)[-1])  # K = 1: no choice
0.0
"""

from __future__ import annotations

import functools
import itertools
from math import comb

import numpy as np

from simulator import rng
from simulator.config import njit
from simulator.engine.cached_kernel import cached_kernel

POLICIES = ("ts_restart", "ts", "greedy", "fifo", "uniform", "oracle")
FORCED = ("ts_restart", "fifo", "uniform", "oracle")
_CODE = {p: i for i, p in enumerate(POLICIES)}
_TOP = len(POLICIES)  # the optional class's best schedule: keep the top K of S_t ∪ {a_t}
_ARRIVALS, _DRAWS = 0xA771, 0xD4A3  # stream salts: arrivals, the policy's own draws
MAX_STATES = 200_000  # C(N, K) caches the forced comparator may enumerate


def arrivals(pool: int, steps: int, seed: int) -> np.ndarray:
    """The arrival sequence a_0 … a_{T−1}: uniform pool indices from the seed's stream."""
    return _draw_arrivals(rng.new_stream(seed, _ARRIVALS), pool, steps)


@cached_kernel
def _draw_arrivals(stream, pool, steps):
    out = np.empty(steps, np.int64)
    for t in range(steps):
        out[t] = rng.randbelow(stream, pool)
    return out


def _checked(utilities, capacity, policy=None):
    mu = np.asarray(utilities, np.float64)
    N, K = mu.size, int(capacity)
    if mu.ndim != 1 or not np.all((mu >= 0) & (mu <= 1)):
        raise ValueError("utilities must be a list of numbers in [0, 1]")
    if not 1 <= K < N:
        raise ValueError(f"capacity must be in 1 … {N - 1} (the pool has {N} items)")
    if policy is not None and policy not in _CODE:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    return mu, K


def rewards(utilities, capacity: int, steps: int, policy: str, seed: int) -> np.ndarray:
    """μ(S_t) of one run, t = 0 … T−1."""
    mu, K = _checked(utilities, capacity, policy)
    a = arrivals(mu.size, steps, seed)
    return _run(mu, K, a, _CODE[policy], policy in FORCED, rng.new_stream(seed, _DRAWS))


@cached_kernel
def _run(mu, K, arrivals, code, forced, stream):
    N = mu.size
    slot_of = np.full(N, -1, np.int64)  # the slot holding item i, or -1
    cache = np.arange(K)
    since = np.zeros(K, np.int64)  # admission step of each slot (fifo)
    hits = np.ones(N)  # Beta(α, β) per pool item; ts_restart resets on admission
    misses = np.ones(N)
    for s in range(K):
        slot_of[s] = s
    out = np.empty(arrivals.size)
    score = np.empty(K + 1)
    for t in range(arrivals.size):
        total = 0.0
        for s in range(K):
            total += mu[cache[s]]
        out[t] = total
        for s in range(K):
            i = cache[s]
            if rng.uniform(stream) < mu[i]:
                hits[i] += 1.0
            else:
                misses[i] += 1.0
        a = arrivals[t]
        if slot_of[a] >= 0:
            continue  # already cached: nothing is admitted
        n = K if forced else K + 1
        for c in range(n):
            i = cache[c] if c < K else a
            if code == 0 or code == 1:
                score[c] = rng.beta(stream, hits[i], misses[i])
            elif code == 2:
                score[c] = (hits[i] - 0.5) / (hits[i] + misses[i] - 1.0)
            elif code == 3:
                score[c] = since[c] if c < K else t
            elif code == 4:
                score[c] = rng.uniform(stream)
            else:
                score[c] = mu[i]
        victim = 0
        for c in range(1, n):
            if score[c] < score[victim]:
                victim = c
        if victim == K:
            continue  # the arrival leaves (optional class only)
        slot_of[cache[victim]] = -1
        cache[victim] = a
        slot_of[a] = victim
        since[victim] = t
        if code == 0:
            hits[a] = 1.0
            misses[a] = 1.0
    return out


def best_rewards(utilities, capacity: int, arrival_seq, forced: bool) -> np.ndarray:
    """Σ_{t<T} μ(S*_t) of the best schedule of the class, for every horizon T = 1 … len."""
    mu, K = _checked(utilities, capacity)
    seq = np.asarray(arrival_seq, np.int64)
    if not forced:  # keep the top K of S_t ∪ {a_t}: optimal at every horizon (docstring)
        return np.cumsum(_run(mu, K, seq, _TOP, False, rng.new_stream(0)))
    states, successors = _cache_graph(mu.size, K)
    return _forward(mu[states].sum(axis=1), successors, seq, 0)


@functools.lru_cache(maxsize=16)
def _cache_graph(N: int, K: int):
    """Every K-subset of N items (rows, sorted; row 0 = the start {0 … K−1}) and, per
    arrival and cache, the caches it may lead to (itself, K times, when already held)."""
    count = comb(N, K)
    if count > MAX_STATES:
        raise ValueError(f"the forced comparator would enumerate C({N}, {K}) = {count} "
                         f"caches, more than {MAX_STATES}; use a smaller pool")
    states = np.array(list(itertools.combinations(range(N), K)), np.int64)
    index = {tuple(row): s for s, row in enumerate(states.tolist())}
    successors = np.empty((N, count, K), np.int64)
    for s, row in enumerate(states.tolist()):
        held = set(row)
        for a in range(N):
            if a in held:
                successors[a, s] = s
            else:
                successors[a, s] = [index[tuple(sorted(held - {i} | {a}))] for i in row]
    return states, successors


@njit(cache=True)
def _forward(value, successors, seq, start):
    """Best cumulative reward per horizon: F_t(S) = the most reward of steps < t over
    schedules in cache S at step t; best[t] = max_S F_t(S) + value(S)."""
    S, K = successors.shape[1], successors.shape[2]
    here = np.full(S, -np.inf)
    here[start] = 0.0
    nxt = np.empty(S)
    best = np.empty(seq.size)
    for t in range(seq.size):
        top = -np.inf
        for s in range(S):
            if here[s] > -np.inf:
                here[s] += value[s]
                if here[s] > top:
                    top = here[s]
        best[t] = top
        nxt[:] = -np.inf
        a = seq[t]
        for s in range(S):
            g = here[s]
            if g > -np.inf:
                for j in range(K):
                    s2 = successors[a, s, j]
                    if g > nxt[s2]:
                        nxt[s2] = g
        here, nxt = nxt, here
    return best


def regret_curve(utilities, capacity: int, steps: int, policy: str, seed: int,
                 against: str = "best") -> np.ndarray:
    """R_1 … R_T of one run.

    ``against="best"``: the best schedule of the policy's own class (the module docstring);
    ``against`` a policy name: that policy's run on the same arrivals, a non-anticipating
    comparator (e.g. ``"oracle"``, for a forced policy).
    """
    mu, K = _checked(utilities, capacity, policy)
    seq = arrivals(mu.size, steps, seed)
    forced = policy in FORCED
    got = np.cumsum(_run(mu, K, seq, _CODE[policy], forced, rng.new_stream(seed, _DRAWS)))
    if against == "best":
        return best_rewards(mu, K, seq, forced) - got
    _checked(mu, K, against)
    if (against in FORCED) != forced:
        raise ValueError(f"against={against!r} is not of {policy!r}'s class")
    return np.cumsum(_run(mu, K, seq, _CODE[against], forced,
                          rng.new_stream(seed, _DRAWS))) - got
