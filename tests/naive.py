"""Slow, plain-Python reference of SPEC §1 and of every policy, for the engine tests.

Written from the SPEC and the policies' docstrings, not from the simulator's code: no
numba, and nothing from ``simulator`` but a trace's arrays.  The cache is a dict of
:class:`Item` keyed by item key; a policy is a small class that sees whole steps (R_t best
first) and answers by item key, never by slot.

Similarity follows ``simulator.kernels``: IEEE single precision, the float32 product of
each coordinate pair added to a float32 accumulator in index order (no fused multiply-add).
Here every operation is done on Python floats and rounded to float32 by :func:`f32`;
a float64 result rounded once to float32 is the correctly rounded float32 result of a
+ or × of two float32 values (53 >= 2·24 + 2 bits), so the two agree bit for bit, ties
included.
"""

from __future__ import annotations

import dataclasses
import math
import struct

MASK = 2**64 - 1
QUALITIES = ("hit", "precision", "similarity")


# --------------------------------------------------------------------------- randomness

class SplitMix64:
    """SplitMix64 with the stream seeding of ``rng.new_stream(seed, salt)``."""

    GOLDEN = 0x9E3779B97F4A7C15
    SALT_MUL = 0xD1B54A32D192ED03

    def __init__(self, seed: int, salt: int = 0):
        self.state = (int(seed) * self.GOLDEN + int(salt) * self.SALT_MUL) & MASK

    def next_u64(self) -> int:
        self.state = (self.state + self.GOLDEN) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def uniform(self) -> float:
        """[0, 1) from the top 53 bits."""
        return float(self.next_u64() >> 11) * (1.0 / 2.0**53)

    def normal(self) -> float:
        """Box–Muller, first of the pair; u1 in (0, 1] so the log is finite."""
        u1 = 1.0 - self.uniform()
        u2 = self.uniform()
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)

    def gamma(self, shape: float) -> float:
        """Marsaglia–Tsang; a shape below 1 is boosted by U^(1/shape)."""
        boost = 1.0
        if shape < 1.0:
            boost = (1.0 - self.uniform()) ** (1.0 / shape)
            shape += 1.0
        d = shape - 1.0 / 3.0
        c = 1.0 / math.sqrt(9.0 * d)
        while True:
            x = self.normal()
            v = 1.0 + c * x
            if v <= 0.0:
                continue
            v = v * v * v
            u = 1.0 - self.uniform()
            if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
                return d * v * boost

    def beta(self, a: float, b: float) -> float:
        x = self.gamma(a)
        y = self.gamma(b)
        return x / (x + y)


# --------------------------------------------------------------------------- the model

@dataclasses.dataclass
class Item:
    key: int
    vec: list
    topic: int
    adm: int  # step at which it was admitted


def f32(v: float) -> float:
    """``v`` rounded to the nearest float32 (ties to even), as a Python float."""
    return struct.unpack("f", struct.pack("f", v))[0]


def similarity(q, x) -> float:
    """Cosine of two unit float32 vectors, in float32, index order."""
    acc = 0.0
    for j in range(len(q)):
        acc = f32(acc + f32(float(q[j]) * float(x[j])))
    return acc


def retrieve(q, cache: dict, k: int) -> list:
    """R_t best first: similarity desc, then admission step asc, then key asc."""
    scored = [(-similarity(q, it.vec), it.adm, it.key) for it in cache.values()]
    scored.sort()
    return [(key, -neg) for neg, _, key in scored[:k]]


def quality_of(setting, n_rel, n_ret, k, best_sim):
    hit = 1 if n_rel > 0 else 0
    precision = n_rel / k
    if setting == "hit":
        return hit, precision, float(hit)
    if setting == "precision":
        return hit, precision, precision
    return hit, precision, (min(max(best_sim, 0.0), 1.0) if n_ret else 0.0)


@dataclasses.dataclass
class Ctx:
    """What a naive policy may know: the run's options and, for offline ones, the trace."""

    capacity: float
    params: dict
    seed: int = 0
    switch_cost: float = 0.0
    requests: list | None = None  # paging mode: the whole request sequence


def naive_run(trace, policy, capacity, top_k=3, switch_cost=0.0, quality="hit", seed=0,
              params=None) -> dict:
    """SPEC §1 step by step; per-step lists and summary counters of one run."""
    k = top_k
    cls = POLICIES[policy]
    if cls.unbounded:
        capacity = math.inf
    pol = cls(Ctx(capacity, dict(params or {}), seed, switch_cost))
    queries = trace.queries.tolist()
    items = trace.items.tolist()
    qtopic = trace.query_topics.tolist()
    itopic = trace.item_topics.tolist()
    weights = trace.weights.tolist()
    scored = trace.scored.tolist()
    keys = trace.item_keys.tolist()
    ptr = trace.evidence_indptr.tolist()
    ev = trace.evidence_indices.tolist()
    has_ev = bool(trace.has_evidence)
    T = len(queries)
    out = {name: [] for name in ("loss", "hit", "precision", "quality", "admitted", "evicted",
                                 "deleted", "size")}
    cache: dict = {}
    mods = 0
    for t in range(T):
        before = set(cache)
        ranked = retrieve(queries[t], cache, k)
        evidence = set(ev[ptr[t]:ptr[t + 1]]) if has_ev else set()
        rel = [(qtopic[t] >= 0 and cache[key].topic == qtopic[t]) or key in evidence
               for key, _ in ranked]
        hit, prec, qual = quality_of(quality, sum(rel), len(ranked), k,
                                     ranked[0][1] if ranked else 0.0)
        loss = weights[t] * (1.0 - qual)
        pol.on_retrieve(t, [key for key, _ in ranked], rel)
        pol.on_feedback(t, loss, qual)
        adm = evi = dele = -1
        key = keys[t]
        if key in cache:
            pol.on_rearrival(t, key)
        elif pol.admit(t, key, items[t], cache):
            if len(cache) >= capacity:
                evi = pol.victim(t, key, items[t], cache)
                assert evi in cache, f"naive {policy} chose a victim {evi} that is not cached"
                del cache[evi]
                pol.on_evict(t, evi)
            cache[key] = Item(key, items[t], itopic[t], t)
            pol.on_insert(t, key)
            adm = key
        gone = pol.delete(t, cache)
        if gone is not None:
            assert gone in cache
            del cache[gone]
            pol.on_evict(t, gone)
            dele = gone
        mods += set(cache) != before
        for name, v in (("loss", loss), ("hit", hit), ("precision", prec), ("quality", qual),
                        ("admitted", adm), ("evicted", evi), ("deleted", dele),
                        ("size", len(cache))):
            out[name].append(v)
    sc = [t for t in range(T) if scored[t]]
    n = len(sc)
    miss_cost = math.fsum(out["loss"][t] for t in sc)
    hits = sum(out["hit"][t] for t in sc)
    out.update(
        scored_steps=n, hits=hits, hit_rate=hits / n if n else 0.0,
        mean_precision=math.fsum(out["precision"][t] for t in sc) / n if n else 0.0,
        mean_quality=math.fsum(out["quality"][t] for t in sc) / n if n else 0.0,
        modifications=mods,
        admissions=sum(a >= 0 for a in out["admitted"]),
        evictions=sum(e >= 0 for e in out["evicted"]) + sum(e >= 0 for e in out["deleted"]),
        miss_cost=miss_cost, cost=miss_cost + switch_cost * mods,
        miss_cost_all=math.fsum(out["loss"]))
    return out


def naive_paging_run(requests, policy, capacity, seed=0, params=None) -> dict:
    """Paging mode: hit iff cached; a miss offers the requested object for admission."""
    requests = [int(r) for r in requests]
    pol = POLICIES[policy](Ctx(capacity, dict(params or {}), seed, 0.0, requests))
    cache: dict = {}
    hit = []
    admitted = []
    evicted = []
    for t, key in enumerate(requests):
        adm = evi = -1
        if key in cache:
            hit.append(1)
            pol.on_retrieve(t, [key], [True])
            pol.on_feedback(t, 0.0, 1.0)
        else:
            hit.append(0)
            pol.on_feedback(t, 1.0, 0.0)
            if pol.admit(t, key, [], cache):
                if len(cache) >= capacity:
                    evi = pol.victim(t, key, [], cache)
                    assert evi in cache
                    del cache[evi]
                    pol.on_evict(t, evi)
                cache[key] = Item(key, [], -1, t)
                pol.on_insert(t, key)
                adm = key
        admitted.append(adm)
        evicted.append(evi)
    return dict(hit=hit, hits=sum(hit), admitted=admitted, evicted=evicted)


# --------------------------------------------------------------------------- policies

class Naive:
    """Default behaviour: always admit, notice nothing, never delete."""

    unbounded = False
    defaults: dict = {}

    def __init__(self, ctx: Ctx):
        unknown = set(ctx.params) - set(self.defaults)
        assert not unknown, f"unknown parameters {unknown}"
        self.p = {**self.defaults, **ctx.params}
        self.ctx = ctx

    def on_retrieve(self, t, keys, relevant):
        """R_t, best match first, with each item's relevance."""

    def on_feedback(self, t, loss, quality):
        pass

    def admit(self, t, key, x, cache) -> bool:
        return True

    def victim(self, t, key, x, cache) -> int:
        raise NotImplementedError

    def on_insert(self, t, key):
        pass

    def on_evict(self, t, key):
        pass

    def on_rearrival(self, t, key):
        pass

    def delete(self, t, cache):
        return None


class Unlimited(Naive):
    unbounded = True


class Fifo(Naive):
    def victim(self, t, key, x, cache):
        return min(cache.values(), key=lambda it: it.adm).key


class Lru(Naive):
    """Recency = (step, phase, rank): admission at t is later than any retrieval at t,
    and within one R_t the better match is the more recent."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.stamp = {}

    def on_retrieve(self, t, keys, relevant):
        for rank, key in enumerate(keys):
            self.stamp[key] = (t, 0, -rank)

    def on_insert(self, t, key):
        self.stamp[key] = (t, 1, 0)

    def on_evict(self, t, key):
        del self.stamp[key]

    def victim(self, t, key, x, cache):
        return min(cache, key=lambda k: self.stamp[k])


class RegretGate:
    """Alg. 1: c accumulates ℓ_t; admit when c ≥ τ, then c ← 0, τ ← (1−α)τ + α·ℓ_t."""

    defaults = {"alpha": 0.1, "tau0": None, "tau": None}

    def __init__(self, p, switch_cost):
        self.alpha = float(p["alpha"])
        self.fixed = p["tau"] is not None
        if p["tau"] is not None:
            self.tau = float(p["tau"])
        elif p["tau0"] is not None:
            self.tau = float(p["tau0"])
        else:
            self.tau = 2.0 * switch_cost if switch_cost > 0 else 1.0
        self.c = 0.0
        self.last = 0.0

    def observe(self, loss):
        self.c += loss
        self.last = loss

    def admit(self):
        if self.c < self.tau:
            return False
        self.c = 0.0
        if not self.fixed:
            self.tau = (1.0 - self.alpha) * self.tau + self.alpha * self.last
        return True


class Thompson:
    """Alg. 2 eviction: per cached item Beta(1 + r_i, 1 + β_step·⌊(age_i − r_i)/Δ⌋);
    samples drawn in increasing key order; evict argmin sample + γ/(1 + age_i/scale)."""

    defaults = {"delta": 5, "beta_step": 0.05, "gamma": 0.1, "novelty_scale": 10.0}
    salt = 0x7450

    def __init__(self, p, seed):
        self.p = p
        self.rng = SplitMix64(seed, self.salt)
        self.retrieved = {}

    def on_retrieve(self, keys):
        for key in keys:
            self.retrieved[key] += 1

    def on_insert(self, key):
        self.retrieved[key] = 0

    def on_evict(self, key):
        del self.retrieved[key]

    def victim(self, t, cache):
        p = self.p
        best = None
        for key in sorted(cache):
            age = t - cache[key].adm
            r = self.retrieved[key]
            a = 1.0 + r
            b = 1.0 + p["beta_step"] * math.floor((age - r) / p["delta"])
            score = self.rng.beta(a, b) + p["gamma"] / (1.0 + age / p["novelty_scale"])
            if best is None or score < best[0]:
                best = (score, key)
        return best[1]


class SolarE(Naive):
    defaults = Thompson.defaults

    def __init__(self, ctx):
        super().__init__(ctx)
        self.ts = Thompson(self.p, ctx.seed)

    def on_retrieve(self, t, keys, relevant):
        self.ts.on_retrieve(keys)

    def on_insert(self, t, key):
        self.ts.on_insert(key)

    def on_evict(self, t, key):
        self.ts.on_evict(key)

    def victim(self, t, key, x, cache):
        return self.ts.victim(t, cache)


class Solar(SolarE):
    defaults = {**RegretGate.defaults, **Thompson.defaults}

    def __init__(self, ctx):
        super().__init__(ctx)
        self.gate = RegretGate(self.p, ctx.switch_cost)

    def on_feedback(self, t, loss, quality):
        self.gate.observe(loss)

    def admit(self, t, key, x, cache):
        return self.gate.admit()


class SolarA(Naive):
    """Evict argmin w_rec·exp(−age/age_scale) + w_use·r/max(1, age) + w_nov·(1 − nn),
    nn = max(0, highest cosine to another cached item); ties to the smaller key."""

    defaults = {**RegretGate.defaults, "w_recency": 0.4, "w_use": 0.3, "w_novelty": 0.3,
                "age_scale": 100.0}

    def __init__(self, ctx):
        super().__init__(ctx)
        self.gate = RegretGate(self.p, ctx.switch_cost)
        self.retrieved = {}

    def on_feedback(self, t, loss, quality):
        self.gate.observe(loss)

    def admit(self, t, key, x, cache):
        return self.gate.admit()

    def on_retrieve(self, t, keys, relevant):
        for key in keys:
            self.retrieved[key] += 1

    def on_insert(self, t, key):
        self.retrieved[key] = 0

    def on_evict(self, t, key):
        del self.retrieved[key]

    def victim(self, t, key, x, cache):
        p = self.p
        scores = []
        for it in cache.values():
            others = [similarity(it.vec, o.vec) for o in cache.values() if o.key != it.key]
            nn = max([0.0] + others)
            age = t - it.adm
            score = (p["w_recency"] * math.exp(-age / p["age_scale"])
                     + p["w_use"] * self.retrieved[it.key] / max(1, age)
                     + p["w_novelty"] * (1.0 - nn))
            scores.append((score, it.key))
        return min(scores)[1]


class Lfu(Naive):
    """Fewest retrievals since admission goes.  Ties: ``tie="admission"`` the oldest
    admission; ``tie="bucket"`` the item that reached its current count earliest (within
    one R_t the worst match reaches it first: R_t is reported worst match first)."""

    defaults = {"tie": "admission"}

    def __init__(self, ctx):
        super().__init__(ctx)
        assert self.p["tie"] in ("admission", "bucket")
        self.count = {}
        self.reached = {}  # when the current count was reached: (step, phase, -rank)
        self.adm = {}

    def on_retrieve(self, t, keys, relevant):
        for rank, key in enumerate(keys):
            self.count[key] += 1
            self.reached[key] = (t, 0, -rank)

    def on_insert(self, t, key):
        self.count[key] = 0
        self.reached[key] = (t, 1, 0)
        self.adm[key] = t

    def on_evict(self, t, key):
        del self.count[key], self.reached[key], self.adm[key]

    def victim(self, t, key, x, cache):
        if self.p["tie"] == "admission":
            return min(cache, key=lambda k: (self.count[k], self.adm[k], k))
        return min(cache, key=lambda k: (self.count[k], self.reached[k], k))


class Arc(Naive):
    """Megiddo–Modha ARC as the module docstring states it (libCacheSim's variant).

    Lists are Python lists, LRU first.  A retrieval or a re-arrival is a request hit
    (to the MRU end of T2; within one R_t the worst match first, so the best ends MRU);
    a non-cached arrival is a request miss, a ghost hit iff its key is in B1 or B2.
    """

    def __init__(self, ctx):
        super().__init__(ctx)
        self.c = ctx.capacity
        self.t1, self.t2, self.b1, self.b2 = [], [], [], []
        self.p_target = 0.0
        self.ghost = 0  # ghost list of the arriving key (0: none)

    def _hit(self, key):
        (self.t1 if key in self.t1 else self.t2).remove(key)
        self.t2.append(key)

    def on_retrieve(self, t, keys, relevant):
        for key in reversed(keys):
            self._hit(key)

    def on_rearrival(self, t, key):
        self._hit(key)

    def admit(self, t, key, x, cache):
        b1, b2 = len(self.b1), len(self.b2)
        self.ghost = 1 if key in self.b1 else 2 if key in self.b2 else 0
        if self.ghost == 1:
            self.p_target = min(self.p_target + max(b2 / b1, 1.0), self.c)
            self.b1.remove(key)
        elif self.ghost == 2:
            self.p_target = max(self.p_target - max(b1 / b2, 1.0), 0.0)
            self.b2.remove(key)
        return True

    def victim(self, t, key, x, cache):
        c = self.c
        t1, t2, b1, b2 = self.t1, self.t2, self.b1, self.b2
        assert len(t1) + len(b1) <= c and len(t1) + len(t2) + len(b1) + len(b2) <= 2 * c
        if self.ghost == 0:  # case IV
            if len(t1) + len(b1) == c:
                if not b1:
                    return t1.pop(0)  # no ghost
                b1.pop(0)
            elif len(t1) + len(t2) + len(b1) + len(b2) == 2 * c and b2:
                b2.pop(0)
        # REPLACE
        if (t1 and (len(t1) > self.p_target or (len(t1) == self.p_target and self.ghost == 2))) \
                or not t2:
            v = t1.pop(0)
            b1.append(v)
        else:
            v = t2.pop(0)
            b2.append(v)
        return v

    def on_insert(self, t, key):
        (self.t2 if self.ghost else self.t1).append(key)
        self.ghost = 0

    def on_evict(self, t, key):
        # a removal that victim() did not choose (a deletion) leaves no ghost
        for lst in (self.t1, self.t2):
            if key in lst:
                lst.remove(key)


class Belady(Naive):
    """Offline MIN (paging): evict the cached object requested again farthest ahead;
    objects never requested again count as infinitely far (ties: smallest key — any
    choice among them gives the same hits)."""

    def victim(self, t, key, x, cache):
        req = self.ctx.requests

        def following(k):
            for u in range(t + 1, len(req)):
                if req[u] == k:
                    return u
            return math.inf
        return max(sorted(cache), key=following)


class Sieve(Naive):
    """SIEVE: queue oldest first, a visited bit per item, a hand (a key, or None = oldest).

    A request sets the visited bit.  The victim walk starts at the hand, clears visited bits
    moving to newer items (past the newest: back to the oldest) and stops at the first
    unvisited item.  Removing the item under the hand moves the hand to the next newer item
    (None if there is none)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.queue = []  # oldest first
        self.visited = {}
        self.hand = None

    def on_retrieve(self, t, keys, relevant):
        for key in keys:
            self.visited[key] = True

    def on_rearrival(self, t, key):
        self.visited[key] = True

    def on_insert(self, t, key):
        self.queue.append(key)
        self.visited[key] = False

    def victim(self, t, key, x, cache):
        i = 0 if self.hand is None else self.queue.index(self.hand)
        while self.visited[self.queue[i]]:
            self.visited[self.queue[i]] = False
            i = (i + 1) % len(self.queue)
        self.hand = self.queue[i]
        return self.hand

    def on_evict(self, t, key):
        i = self.queue.index(key)
        if key == self.hand:
            self.hand = self.queue[i + 1] if i + 1 < len(self.queue) else None
        del self.queue[i], self.visited[key]


class RandomEvict(Naive):
    """Items in an array (admission appends; a removal moves the last entry into the hole);
    the victim is entry int(u·n), u the next uniform of stream (seed, 0x52414E44)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.rng = SplitMix64(ctx.seed, 0x52414E44)
        self.items = []

    def on_insert(self, t, key):
        self.items.append(key)

    def on_evict(self, t, key):
        i = self.items.index(key)
        self.items[i] = self.items[-1]
        self.items.pop()

    def victim(self, t, key, x, cache):
        return self.items[int(self.rng.uniform() * len(self.items))]


def ghost_push(ghost: list, key, size):
    """Append ``key`` to a FIFO of at most ``size`` keys (the oldest leaves when full)."""
    if size > 0:
        if len(ghost) >= size:
            ghost.pop(0)
        ghost.append(key)


class S3Fifo(Naive):
    """S3-FIFO as libCacheSim's S3FIFO.c: small (max(1, ⌊0.1K⌋)), main (the rest) and ghost
    (⌊0.9K⌋ keys) FIFOs, oldest first; freq += 1 per request, 0 on admission."""

    defaults = {"small_ratio": 0.1, "ghost_ratio": 0.9, "move_threshold": 2}

    def __init__(self, ctx):
        super().__init__(ctx)
        k = ctx.capacity
        self.small_size = max(1, int(k * self.p["small_ratio"]))
        self.main_size = k - self.small_size
        self.ghost_size = int(k * self.p["ghost_ratio"])
        self.small, self.main, self.ghost = [], [], []
        self.freq = {}
        self.has_evicted = False
        self.ghost_hit = False
        self.to_ghost = None

    def on_retrieve(self, t, keys, relevant):
        for key in keys:
            self.freq[key] += 1

    def on_rearrival(self, t, key):
        self.freq[key] += 1

    def admit(self, t, key, x, cache):
        self.ghost_hit = key in self.ghost
        if self.ghost_hit:
            self.ghost.remove(key)
        return True

    def victim(self, t, key, x, cache):
        self.has_evicted = True
        while True:
            if len(self.main) > self.main_size or not self.small:
                while self.freq[self.main[0]] >= 1:  # a 2-bit clock
                    k = self.main.pop(0)
                    self.freq[k] = min(self.freq[k], 3) - 1
                    self.main.append(k)
                return self.main[0]
            while self.small:
                k = self.small[0]
                if self.freq[k] < self.p["move_threshold"]:
                    self.to_ghost = k
                    return k
                self.main.append(self.small.pop(0))
                self.freq[k] = 0

    def on_evict(self, t, key):
        (self.small if key in self.small else self.main).remove(key)
        del self.freq[key]
        if key == self.to_ghost:
            ghost_push(self.ghost, key, self.ghost_size)
        self.to_ghost = None

    def on_insert(self, t, key):
        if self.ghost_hit or (not self.has_evicted and len(self.small) >= self.small_size):
            self.main.append(key)
        else:
            self.small.append(key)
        self.freq[key] = 0
        self.ghost_hit = False


class TwoQ(Naive):
    """2Q as libCacheSim's TwoQ.c: A1in FIFO (max(1, ⌊0.25K⌋)), Am LRU, A1out ghost FIFO
    (⌊0.5K⌋ keys); lists oldest / least recent first."""

    defaults = {"in_ratio": 0.25, "out_ratio": 0.5}

    def __init__(self, ctx):
        super().__init__(ctx)
        k = ctx.capacity
        self.in_size = max(1, int(k * self.p["in_ratio"]))
        self.out_size = int(k * self.p["out_ratio"])
        self.a1in, self.am, self.a1out = [], [], []
        self.ghost_hit = False
        self.to_ghost = None

    def _request(self, key):
        if key in self.am:
            self.am.remove(key)
            self.am.append(key)

    def on_retrieve(self, t, keys, relevant):
        for key in reversed(keys):  # worst match first: the best ends most recent
            self._request(key)

    def on_rearrival(self, t, key):
        self._request(key)

    def admit(self, t, key, x, cache):
        self.ghost_hit = key in self.a1out
        if self.ghost_hit:
            self.a1out.remove(key)
        return True

    def victim(self, t, key, x, cache):
        if len(self.a1in) > self.in_size or not self.am:
            self.to_ghost = self.a1in[0]
            return self.a1in[0]
        return self.am[0]

    def on_evict(self, t, key):
        (self.a1in if key in self.a1in else self.am).remove(key)
        if key == self.to_ghost:
            ghost_push(self.a1out, key, self.out_size)
        self.to_ghost = None

    def on_insert(self, t, key):
        (self.am if self.ghost_hit else self.a1in).append(key)
        self.ghost_hit = False


def xxh64_u64(value: int, seed: int) -> int:
    """XXH64 (xxHash spec) of the 8 little-endian bytes of ``value``: one lane, no stripes."""
    p1, p2, p3, p4, p5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                          0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)

    def rotl(v, r):
        return ((v << r) | (v >> (64 - r))) & MASK

    h = (seed + p5 + 8) & MASK
    h ^= (rotl((value * p2) & MASK, 31) * p1) & MASK
    h = (rotl(h, 27) * p1 + p4) & MASK
    h = ((h ^ (h >> 33)) * p2) & MASK
    h = ((h ^ (h >> 29)) * p3) & MASK
    return h ^ (h >> 32)


class CountMin:
    """libCacheSim's minimalIncrementCBF for ``entries`` at error 0.001, as it behaves: 10
    cells (a + i·b) mod 2³² mod n, a/b = low 32 bits of XXH64(key + 1) under two seeds; an
    update adds 1 to every cell, an estimate is the minimum."""

    def __init__(self, entries):
        bpe = -math.log(0.001) / 0.480453013918201
        self.hashes = math.ceil(0.693147180559945 * bpe)
        n = math.ceil(bpe * entries)
        self.cells_n = 2 * self.hashes if n < self.hashes else n
        self.c = [0] * self.cells_n

    def cells(self, key):
        a, b = (xxh64_u64(key + 1, seed) & 0xFFFFFFFF for seed in (0x12345678, 0x12344321))
        return [((a + i * b) & 0xFFFFFFFF) % self.cells_n for i in range(self.hashes)]

    def estimate(self, key):
        return min(self.c[x] for x in self.cells(key))

    def add(self, key):
        for x in self.cells(key):
            self.c[x] += 1

    def halve(self):
        self.c = [v >> 1 for v in self.c]


class TinyLfu(Naive):
    """W-TinyLFU as libCacheSim's WTinyLFU.c (+ SLRU seg-size=1:4), per the module docstring.

    window W = max(1, ⌊0.01K⌋), main M = K − W, probation P = max(1, ⌊M/5⌋) (0 if M = 0),
    protected M − P; lists least recent first."""

    defaults = {"window_ratio": 0.01}

    def __init__(self, ctx):
        super().__init__(ctx)
        k = ctx.capacity
        self.w_size = max(1, int(k * self.p["window_ratio"]))
        self.m_size = k - self.w_size
        self.p_size = max(1, int(1.0 / 5 * self.m_size)) if self.m_size else 0
        self.q_size = self.m_size - self.p_size
        self.window, self.prob, self.prot = [], [], []
        self.sketch = CountMin(self.m_size)
        self.main_hits = 0
        self.taken = None  # main's victim, already removed by victim()

    def _request(self, key):
        if key in self.window:
            self.window.remove(key)
            self.window.append(key)
            return
        self.sketch.add(key)
        self.main_hits += 1
        if self.main_hits >= 32 * self.m_size:
            self.main_hits = 0
            self.sketch.halve()
        if key in self.prot:
            self.prot.remove(key)
            self.prot.append(key)
            return
        self.prob.remove(key)
        self.prot.append(key)
        if len(self.prot) > self.q_size:
            self.prob.append(self.prot.pop(0))

    def on_retrieve(self, t, keys, relevant):
        for key in reversed(keys):  # worst match first
            self._request(key)

    def on_rearrival(self, t, key):
        self._request(key)

    def _into_main(self, key):
        if len(self.prob) < self.p_size:
            self.prob.append(key)
        elif len(self.prot) < self.q_size:
            self.prot.append(key)
        else:
            self.prob.append(key)

    def victim(self, t, key, x, cache):
        while self.window:
            w = self.window[0]
            if len(self.prob) + len(self.prot) < self.m_size:
                self._into_main(self.window.pop(0))
                self.sketch.add(w)
                continue
            if self.m_size > 0:
                m = self.prob[0] if self.prob else self.prot[0]
                if self.sketch.estimate(w) > self.sketch.estimate(m):
                    (self.prob if m in self.prob else self.prot).remove(m)
                    self._into_main(self.window.pop(0))
                    self.sketch.add(w)
                    self.taken = m
                    return m
            self.sketch.add(w)
            return w
        return self.prob[0] if self.prob else self.prot[0]

    def on_evict(self, t, key):
        if key == self.taken:
            self.taken = None
            return
        for lst in (self.window, self.prob, self.prot):
            if key in lst:
                lst.remove(key)

    def on_insert(self, t, key):
        self.window.append(key)
        self.sketch.add(key)


POLICIES = {
    "unlimited": Unlimited,
    "fifo": Fifo,
    "lru": Lru,
    "lfu": Lfu,
    "arc": Arc,
    "belady": Belady,
    "solar_e": SolarE,
    "solar_a": SolarA,
    "solar": Solar,
    "sieve": Sieve,
    "s3fifo": S3Fifo,
    "twoq": TwoQ,
    "tinylfu": TinyLfu,
    "random": RandomEvict,
}
