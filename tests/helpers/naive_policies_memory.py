"""Plain-Python references of the memory-management study's strategies (see naive.py).

Written from ``simulator/policies/parts/memory_rules.py``'s docstring: warm-up, addition
(``none``/``all``/``strict``/``coarse``), history and periodic deletion, the least-useful
victim.  Items are keyed by item key; a record's counters start at its admission.
"""

from __future__ import annotations

from fractions import Fraction

from simulator.testing import SplitMix64, Twin
from helpers.twins import twin_of

JUDGE_SALT = 0xC0A25E
JUDGE = {"threshold": 0.5, "false_positive": 0.2, "false_negative": 0.0}
HISTORY = {"min_retrievals": 5, "beta": 0.4}
PERIODIC = {"period": 100, "stale_after": 500, "min_uses": 1}


class Memory(Twin):
    """Shared rules; subclasses fix ``addition`` and which deletions run."""

    addition = "all"
    history = periodic = False
    defaults = {"warmup": 0}

    def __init__(self, ctx):
        super().__init__(ctx)
        if "addition" in self.p:
            self.addition = self.p["addition"]
        self.judge = SplitMix64(ctx.seed, JUDGE_SALT)
        self.uses = {}  # key -> list of (step, relevant), retrievals after warm-up
        self.verdict = None  # (step, passed) of the latest feedback
        self.sweeping = False

    def warm(self, t):
        return t < self.p["warmup"]

    def on_retrieve(self, t, keys, relevant):
        if not self.warm(t):
            for key, rel in zip(keys, relevant):
                self.uses[key].append((t, bool(rel)))

    def on_feedback(self, t, loss, quality):
        if self.warm(t):
            return
        if self.addition == "coarse":
            u = self.judge.uniform()
            good = quality >= self.p["threshold"]
            passed = u >= self.p["false_negative"] if good else u < self.p["false_positive"]
        else:
            passed = quality >= 1.0
        self.verdict = (t, passed)

    def admit(self, t, key, x, cache):
        if self.warm(t) or self.addition == "all":
            return True
        if self.addition == "none":
            return False
        return self.verdict == (t, True)

    def on_insert(self, t, key):
        self.uses[key] = []

    def on_evict(self, t, key):
        del self.uses[key]

    def utility(self, key, prior=0):
        """Mean utility as an exact fraction; ``prior=1`` adds one good and one bad use."""
        u = self.uses[key]
        return Fraction(sum(r for _, r in u) + prior, len(u) + 2 * prior)

    def victim(self, t, key, x, cache):
        """Least useful first; asked again after each eviction, it names the next least
        useful, so an arrival that needs room for several goes down one ranking (sizes
        play no part)."""
        return min(cache, key=lambda k: (self.utility(k, prior=1), cache[k].adm, k))

    def delete(self, t, cache):
        if self.warm(t) or not (self.history or self.periodic):
            return None
        if self.periodic and t % self.p["period"] == 0:
            self.sweeping = True
        if len(cache) <= self.p["min_size"]:
            return None
        if self.history:
            bad = [k for k in cache if len(self.uses[k]) >= self.p["min_retrievals"]
                   and sum(r for _, r in self.uses[k]) / len(self.uses[k]) < self.p["beta"]]
            if bad:
                return min(bad, key=lambda k: (self.utility(k), cache[k].adm, k))
        if self.sweeping:
            w = self.p["stale_after"]
            stale = [k for k in cache if t - cache[k].adm >= w
                     and sum(1 for s, _ in self.uses[k] if s > t - w) < self.p["min_uses"]]
            if stale:
                return min(stale, key=lambda k: (cache[k].adm, k))
            self.sweeping = False
        return None


@twin_of("fixed")
class Fixed(Memory):
    addition = "none"


@twin_of("add_all")
class AddAll(Memory):
    addition = "all"


@twin_of("strict")
class Strict(Memory):
    addition = "strict"


@twin_of("coarse")
class Coarse(Memory):
    addition = "coarse"
    defaults = {"warmup": 0, **JUDGE}


@twin_of("periodic")
class Periodic(Memory):
    periodic = True
    defaults = {"warmup": 0, "addition": "strict", **JUDGE, **PERIODIC, "min_size": 1}


@twin_of("history")
class History(Memory):
    history = True
    defaults = {"warmup": 0, "addition": "strict", **JUDGE, **HISTORY, "min_size": 1}


@twin_of("combined")
class Combined(Memory):
    history = periodic = True
    defaults = {"warmup": 0, "addition": "strict", **JUDGE, **HISTORY, **PERIODIC,
                "min_size": 1}
