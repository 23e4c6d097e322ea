"""Plain-Python twins of the SOLAR paper's policies and the classic ones (see naive.py).

Each class is a :class:`simulator.testing.Twin` written from its policy's docstring; it
sees whole steps (R_t best first) and answers by item key, never by slot.
"""

from __future__ import annotations

import math

from simulator.testing import SplitMix64, Twin, similarity
from helpers.twins import twin_of


@twin_of("unlimited")
class Unlimited(Twin):
    unbounded = True


@twin_of("fifo")
class Fifo(Twin):
    def victim(self, t, key, x, cache):
        return min(cache.values(), key=lambda it: it.adm).key


@twin_of("lru")
class Lru(Twin):
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
    samples drawn in increasing key order; evict argmin sample + γ/(1 + age_i/scale).
    r_i counts retrievals, or only relevant retrievals with ``reward="relevant"``.

    Sizes (docs/model.md §2.5): one draw per arrival.  The first victim of step t draws
    and scores every item cached then; the later victims of step t are the lowest
    remaining scores of that draw (ties: the smaller key).  ``evict_rank="per_size"``
    ranks by score / size instead."""

    defaults = {"delta": 5, "beta_step": 0.05, "gamma": 0.1, "novelty_scale": 10.0,
                "reward": "retrieved", "evict_rank": "sample"}
    salt = 0x7450

    def __init__(self, p, seed):
        self.p = p
        self.rng = SplitMix64(seed, self.salt)
        self.retrieved = {}
        self.size = {}
        self.draw = (None, {})  # (step, key -> score) of the latest draw

    def on_retrieve(self, keys, relevant):
        for key, rel in zip(keys, relevant):
            if rel or self.p["reward"] == "retrieved":
                self.retrieved[key] += 1

    def on_insert(self, key, size=1):
        self.retrieved[key] = 0
        self.size[key] = size

    def on_evict(self, key):
        del self.retrieved[key], self.size[key]

    def victim(self, t, cache):
        p = self.p
        if self.draw[0] != t:  # the first victim of this arrival: draw for everyone
            scores = {}
            for key in sorted(cache):
                age = t - cache[key].adm
                r = self.retrieved[key]
                a = 1.0 + r
                b = 1.0 + p["beta_step"] * math.floor((age - r) / p["delta"])
                score = self.rng.beta(a, b) + p["gamma"] / (1.0 + age / p["novelty_scale"])
                if p["evict_rank"] == "per_size":
                    score = score / self.size[key]
                scores[key] = score
            self.draw = (t, scores)
        scores = self.draw[1]
        return min(cache, key=lambda k: (scores[k], k))


@twin_of("solar_e")
class SolarE(Twin):
    defaults = Thompson.defaults

    def __init__(self, ctx):
        super().__init__(ctx)
        self.ts = Thompson(self.p, ctx.seed)

    def on_retrieve(self, t, keys, relevant):
        self.ts.on_retrieve(keys, relevant)

    def on_insert(self, t, key):
        self.ts.on_insert(key, self.arriving_size(t))

    def on_evict(self, t, key):
        self.ts.on_evict(key)

    def victim(self, t, key, x, cache):
        return self.ts.victim(t, cache)


@twin_of("solar")
class Solar(SolarE):
    defaults = {**RegretGate.defaults, **Thompson.defaults}

    def __init__(self, ctx):
        super().__init__(ctx)
        self.gate = RegretGate(self.p, ctx.switch_cost)

    def on_feedback(self, t, loss, quality):
        self.gate.observe(loss)

    def admit(self, t, key, x, cache):
        return self.gate.admit()


@twin_of("solar_a")
class SolarA(Twin):
    """Evict argmin w_rec·exp(−age/age_scale) + w_use·r/max(1, age) + w_nov·(1 − nn),
    nn = max(0, highest cosine to another cached item); ties to the smaller key.

    Sizes: each victim of a step is scored afresh over the items still cached (nn follows
    the departures); ``evict_rank="per_size"`` ranks by score / size."""

    defaults = {**RegretGate.defaults, "w_recency": 0.4, "w_use": 0.3, "w_novelty": 0.3,
                "age_scale": 100.0, "evict_rank": "score"}

    def __init__(self, ctx):
        super().__init__(ctx)
        self.gate = RegretGate(self.p, ctx.switch_cost)
        self.retrieved = {}
        self.size = {}

    def on_feedback(self, t, loss, quality):
        self.gate.observe(loss)

    def admit(self, t, key, x, cache):
        return self.gate.admit()

    def on_retrieve(self, t, keys, relevant):
        for key in keys:
            self.retrieved[key] += 1

    def on_insert(self, t, key):
        self.retrieved[key] = 0
        self.size[key] = self.arriving_size(t)

    def on_evict(self, t, key):
        del self.retrieved[key], self.size[key]

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
            if p["evict_rank"] == "per_size":
                score = score / self.size[it.key]
            scores.append((score, it.key))
        return min(scores)[1]


@twin_of("lfu")
class Lfu(Twin):
    """Fewest retrievals since admission goes.  Ties: ``tie="admission"`` the oldest
    admission; ``tie="bucket"`` the item that reached its current count earliest (within
    one R_t the worst match reaches it first: R_t is reported worst match first);
    ``tie="auto"`` the first in semantic mode, the second in paging mode."""

    defaults = {"tie": "auto"}

    def __init__(self, ctx):
        super().__init__(ctx)
        assert self.p["tie"] in ("auto", "admission", "bucket")
        if self.p["tie"] == "auto":
            self.p = dict(self.p, tie="bucket" if ctx.mode == "paging" else "admission")
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


@twin_of("arc")
class Arc(Twin):
    """Megiddo–Modha ARC as the module docstring states it (libCacheSim's variant).

    Lists are Python lists, LRU first.  A retrieval or a re-arrival is a request hit
    (to the MRU end of T2; within one R_t the worst match first, so the best ends MRU);
    a non-cached arrival is a request miss, a ghost hit iff its key is in B1 or B2.

    Sizes: the sized tests set ``budget`` (and ``item_sizes``, see :meth:`Twin.arriving_size`)
    on a subclass.  With a budget, c = B and each list's size is the total size of its
    keys (a ghost keeps its item's size); without one, c = K and every key counts 1.
    """

    budget = None

    def __init__(self, ctx):
        super().__init__(ctx)
        self.c = ctx.capacity if self.budget is None else self.budget
        self.t1, self.t2, self.b1, self.b2 = [], [], [], []
        self.size = {}  # key -> weight, for cached keys and ghosts
        self.p_target = 0.0
        self.ghost = 0  # ghost list of the arriving key (0: none)
        self.w = 1  # the arriving item's weight

    def total(self, lst):
        return sum(self.size[k] for k in lst)

    def _hit(self, key):
        (self.t1 if key in self.t1 else self.t2).remove(key)
        self.t2.append(key)

    def on_retrieve(self, t, keys, relevant):
        for key in reversed(keys):
            self._hit(key)

    def on_rearrival(self, t, key):
        self._hit(key)

    def admit(self, t, key, x, cache):
        self.w = 1 if self.budget is None else self.arriving_size(t)
        b1, b2 = self.total(self.b1), self.total(self.b2)
        self.ghost = 1 if key in self.b1 else 2 if key in self.b2 else 0
        if self.ghost == 1:
            self.p_target = min(self.p_target + max(b2 / b1, 1.0), self.c)
            self.b1.remove(key)
        elif self.ghost == 2:
            self.p_target = max(self.p_target - max(b1 / b2, 1.0), 0.0)
            self.b2.remove(key)
        if self.ghost:
            del self.size[key]
        return True

    def _drop_oldest(self, ghosts):
        del self.size[ghosts.pop(0)]

    def victim(self, t, key, x, cache):
        c = self.c
        t1, t2, b1, b2 = self.t1, self.t2, self.b1, self.b2
        if self.ghost == 0:  # case IV
            if self.total(t1) + self.total(b1) + self.w > c:
                if not b1:
                    v = t1.pop(0)  # no ghost
                    del self.size[v]
                    return v
                self._drop_oldest(b1)
            elif sum(map(self.total, (t1, t2, b1, b2))) >= 2 * c and b2:
                self._drop_oldest(b2)
        # REPLACE
        n1 = self.total(t1)
        if (t1 and (n1 > self.p_target or (n1 == self.p_target and self.ghost == 2))) \
                or not t2:
            v = t1.pop(0)
            b1.append(v)
        else:
            v = t2.pop(0)
            b2.append(v)
        return v

    def on_insert(self, t, key):
        (self.t2 if self.ghost else self.t1).append(key)
        self.size[key] = self.w
        self.ghost = 0

    def on_evict(self, t, key):
        # a removal that victim() did not choose (a deletion) leaves no ghost
        for lst in (self.t1, self.t2):
            if key in lst:
                lst.remove(key)
                del self.size[key]


@twin_of("belady")
class Belady(Twin):
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

    def same_victim(self, t, got, want):
        """Any object never requested again is as good a victim as another."""
        later = self.ctx.requests[t + 1:]

        def next_use(k):
            return later.index(k) if k in later else len(later)
        return next_use(got) == next_use(want)


