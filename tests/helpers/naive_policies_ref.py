"""Plain-Python references of the ``*_ref`` policies (the SOLAR authors' runner), see naive.py.

Written from the policies' docstrings (``lru_ref``, ``arc_ref``, ``authors_gate``,
``authors_thompson``, ``solar_a_ref``): lists and dicts keyed by item key, nothing by slot.
"Admission order" is the cache's items sorted by (admission step, key).
"""

from __future__ import annotations

import math

from simulator.testing import SplitMix64, Twin, similarity
from helpers.twins import twin_of


def in_admission_order(cache):
    return sorted(cache.values(), key=lambda it: (it.adm, it.key))


def top_mean(values, k):
    """Mean of the k largest, added largest first."""
    total = 0.0
    for v in sorted(values, reverse=True)[:k]:
        total += v
    return total / k


def clip01(v):
    return min(max(v, 0.0), 1.0)


@twin_of("lru_ref")
class LruRef(Twin):
    """Evict the smallest (last use step, admission step); last use = last retrieval or
    admission."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.last = {}

    def on_retrieve(self, t, keys, relevant):
        for key in keys:
            self.last[key] = t

    def on_insert(self, t, key):
        self.last[key] = t

    def on_evict(self, t, key):
        del self.last[key]

    def victim(self, t, key, x, cache):
        return min(cache.values(), key=lambda it: (self.last[it.key], it.adm)).key


@twin_of("arc_ref")
class ArcRef(Twin):
    """The runner's ARC: Python lists, LRU first; R_t walked best match first."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.c = ctx.capacity
        self.t1, self.t2, self.b1, self.b2 = [], [], [], []
        self.p_target = 0.0
        self.ghost = 0
        self.dest = None

    def _access(self, key):
        (self.t1 if key in self.t1 else self.t2).remove(key)
        self.t2.append(key)

    def on_retrieve(self, t, keys, relevant):
        for key in keys:  # best first: the worst match ends most recent
            self._access(key)

    def on_rearrival(self, t, key):
        self._access(key)

    def admit(self, t, key, x, cache):
        b1, b2 = len(self.b1), len(self.b2)
        self.ghost = 1 if key in self.b1 else 2 if key in self.b2 else 0
        if self.ghost == 1:
            self.p_target = min(self.p_target + max(1.0, b2 / max(b1, 1)), float(self.c))
            self.b1.remove(key)
        elif self.ghost == 2:
            self.p_target = max(self.p_target - max(1.0, b1 / max(b2, 1)), 0.0)
            self.b2.remove(key)
        return True

    def victim(self, t, key, x, cache):
        n1 = len(self.t1)
        if n1 and (n1 > self.p_target or (self.ghost == 2 and n1 == int(self.p_target))):
            self.dest = (self.t1, self.b1)
        elif self.t2:
            self.dest = (self.t2, self.b2)
        else:
            self.dest = (self.t1, self.b1)
        return self.dest[0][0]

    def on_evict(self, t, key):
        for lst in (self.t1, self.t2):
            if key in lst:
                lst.remove(key)
        if self.dest is not None:
            ghosts = self.dest[1]
            ghosts.append(key)
            if len(ghosts) > self.c:
                ghosts.pop(0)
        self.dest = None

    def on_insert(self, t, key):
        (self.t2 if self.ghost else self.t1).append(key)
        self.ghost = 0


class IgGate:
    """``authors_gate``: information-gain regret, adaptive τ, warm-up, strict c > τ."""

    defaults = {"lam": 5.0, "lipschitz": 2.0, "window": 30, "tau_min": 0.1, "tau_max": 5.0,
                "ig_novelty": 0.6, "ig_density": 0.4, "bootstrap": None}

    def __init__(self, p, capacity):
        self.p = p
        self.tau = math.sqrt(2.0 * p["lam"] / p["lipschitz"])
        self.c = 0.0
        self.L = None
        self.history = []
        self.seen = 0
        self.size = 0
        b = p["bootstrap"]
        self.boot = int(b) if b is not None else min(max(int(capacity) // 2, 5), 25)

    def ig(self, x, cache):
        if not cache:
            return 1.0
        sims = [similarity(x, it.vec) for it in in_admission_order(cache)]
        novelty = clip01(1.0 - max(sims))
        density = clip01(top_mean(sims, min(5, len(sims))))
        return max(self.p["ig_novelty"] * novelty - self.p["ig_density"] * density, 0.0)

    def _observe(self, ig):
        self.seen += 1
        self.c += ig
        self.history.append(ig)
        w = int(self.p["window"])
        if len(self.history) < w:
            return
        recent = self.history[-w:]
        mean = 0.0
        for v in recent:
            mean += v
        mean /= w
        var = 0.0
        for v in recent:
            var += (v - mean) * (v - mean)
        new_l = max(math.sqrt(var / w) * 2.0, 0.1)
        self.L = new_l if self.L is None else 0.7 * self.L + 0.3 * new_l
        self.tau = min(max(math.sqrt(2.0 * self.p["lam"] / self.L), self.p["tau_min"]),
                       self.p["tau_max"])

    def _decide(self):
        if self.size < self.boot or self.c > self.tau:
            self.c = 0.0
            return True
        return False

    def admit(self, x, cache):
        self._observe(self.ig(x, cache))
        return self._decide()

    def rearrival(self):
        self._observe(0.0)
        self._decide()


class RefThompson:
    """``authors_thompson``: Beta(2, 1) prior, α += 1 per retrieval step, β += 0.05 at every
    5th step's feedback for items not retrieved then, bonus from 3-NN distance.

    Sizes: the first victim of step t draws θ for every item cached then; later victims of
    step t keep those θ, with the bonus taken over the items still cached."""

    defaults = {"prior_alpha": 2.0, "prior_beta": 1.0, "decay_every": 5, "decay_amount": 0.05,
                "novelty_bonus": 0.3, "neighbours": 3}
    salt = 0x52455454

    def __init__(self, p, seed):
        self.p = p
        self.rng = SplitMix64(seed, self.salt)
        self.alpha, self.beta, self.last_hit = {}, {}, {}
        self.draw = (None, {})  # (step, key -> θ) of the latest draw

    def on_retrieve(self, t, keys):
        for key in keys:
            self.alpha[key] += 1.0
            self.last_hit[key] = t

    def on_feedback(self, t):
        if (t + 1) % int(self.p["decay_every"]) == 0:
            for key in self.alpha:
                if self.last_hit[key] != t:
                    self.beta[key] += self.p["decay_amount"]

    def on_insert(self, key):
        self.alpha[key] = self.p["prior_alpha"]
        self.beta[key] = self.p["prior_beta"]
        self.last_hit[key] = -1

    def on_evict(self, key):
        del self.alpha[key], self.beta[key], self.last_hit[key]

    def victim(self, t, cache):
        items = in_admission_order(cache)
        if self.draw[0] != t:  # the first victim of this arrival: draw for everyone
            self.draw = (t, {it.key: self.rng.beta(self.alpha[it.key], self.beta[it.key])
                             for it in items})
        k_nn = min(int(self.p["neighbours"]), len(items) - 1)
        best = None
        for it in items:
            theta = self.draw[1][it.key]
            novelty = 0.5
            if k_nn > 0:
                sims = [similarity(it.vec, o.vec) for o in items if o.key != it.key]
                novelty = clip01(1.0 - top_mean(sims, k_nn))
            score = theta + self.p["novelty_bonus"] * novelty
            if best is None or score < best[0]:
                best = (score, it.key)
        return best[1]


@twin_of("solar_e_ref")
class SolarERef(Twin):
    defaults = RefThompson.defaults

    def __init__(self, ctx):
        super().__init__(ctx)
        self.ts = RefThompson(self.p, ctx.seed)

    def on_retrieve(self, t, keys, relevant):
        self.ts.on_retrieve(t, keys)

    def on_feedback(self, t, loss, quality):
        self.ts.on_feedback(t)

    def on_insert(self, t, key):
        self.ts.on_insert(key)

    def on_evict(self, t, key):
        self.ts.on_evict(key)

    def victim(self, t, key, x, cache):
        return self.ts.victim(t, cache)


class GatedRef:
    """The gate's hooks, for a Twin subclass that sets ``self.gate``."""

    def admit(self, t, key, x, cache):
        return self.gate.admit(x, cache)

    def on_rearrival(self, t, key):
        self.gate.rearrival()


@twin_of("solar_ref")
class SolarRef(GatedRef, SolarERef):
    defaults = {**IgGate.defaults, **RefThompson.defaults}

    def __init__(self, ctx):
        super().__init__(ctx)
        self.gate = IgGate(self.p, ctx.capacity)

    def on_insert(self, t, key):
        super().on_insert(t, key)
        self.gate.size += 1

    def on_evict(self, t, key):
        super().on_evict(t, key)
        self.gate.size -= 1


@twin_of("solar_a_ref")
class SolarARef(GatedRef, Twin):
    """Evict the first lowest w_r·exp(−(t − last use)/scale) + w_u·r/seen + w_n·d in
    admission order; d = clip01(1 − highest cosine to another item), 1 when alone.
    Sizes: each victim of a step is scored afresh over the items still cached."""

    defaults = {**IgGate.defaults, "w_recency": 0.4, "w_use": 0.3, "w_novelty": 0.3,
                "age_scale": 100.0}

    def __init__(self, ctx):
        super().__init__(ctx)
        self.gate = IgGate(self.p, ctx.capacity)
        self.last, self.uses = {}, {}

    def on_retrieve(self, t, keys, relevant):
        for key in keys:
            self.last[key] = t
            self.uses[key] += 1

    def on_insert(self, t, key):
        self.gate.size += 1
        self.last[key] = t
        self.uses[key] = 0

    def on_evict(self, t, key):
        self.gate.size -= 1
        del self.last[key], self.uses[key]

    def victim(self, t, key, x, cache):
        p = self.p
        items = in_admission_order(cache)
        seen = max(float(self.gate.seen), 1.0)
        best = None
        for it in items:
            diversity = 1.0
            if len(items) > 1:
                nn = max(similarity(it.vec, o.vec) for o in items if o.key != it.key)
                diversity = clip01(1.0 - nn)
            score = (p["w_recency"] * math.exp(-(t - self.last[it.key]) / p["age_scale"])
                     + p["w_use"] * self.uses[it.key] / seen + p["w_novelty"] * diversity)
            if best is None or score < best[0]:
                best = (score, it.key)
        return best[1]
