"""Plain-Python twins of the agent-memory rules ``memoryos``, ``memoryos_shipped``,
``langmem`` and ``mem0_surrogate`` (see naive.py).

Written from the docstrings of ``simulator/policies/parts/memoryos_segments.py`` and
``simulator/policies/parts/fact_updates.py`` and of the four policy modules.  Items are
keyed by item key; "oldest" is the earliest admission step.
"""

from __future__ import annotations

import math

from simulator.testing.reference_model import dot32
from simulator.testing import Twin
from helpers.twins import twin_of

MEMORYOS = {"similarity_threshold": 0.6, "alpha": 1.0, "beta": 1.0, "gamma": 1.0,
            "heat_threshold": 5.0}


def oldest(keys, cache):
    return min(keys, key=lambda k: cache[k].adm)


class MemoryOSPaper(Twin):
    """STM of the newest pages; older pages in segments; evict a whole segment."""

    defaults = dict(MEMORYOS, short_term_capacity=7, tau_seconds=1e7, step_seconds=1.0)
    repeat_delete = True
    lfu = False  # evict the least visited segment (the code) instead of the coldest
    reset_visits = False  # a transfer resets N too (the code)

    def __init__(self, ctx):
        super().__init__(ctx)
        self.seg_of = {}  # page key -> founder key of its segment
        self.segs = {}  # founder key -> dict of N, L, last, born, count, fresh, visit
        self.doomed = set()
        self.born = 0
        self.inserted = self.checked = None

    def now(self, t):
        times = self.ctx.times
        return float(times[t]) if times is not None else t * self.p["step_seconds"]

    def heat(self, f, now):
        g, p = self.segs[f], self.p
        return (p["alpha"] * g["N"] + p["beta"] * g["L"]
                + p["gamma"] * math.exp(-(now - g["last"]) / p["tau_seconds"]))

    def live(self):
        return [f for f in self.segs if f not in self.doomed]

    def admit(self, t, key, x, cache):
        stm = [k for k in cache if k not in self.seg_of]
        if len(stm) >= self.p["short_term_capacity"]:
            page = oldest(stm, cache)
            scored = [(dot32(cache[page].vec, cache[f].vec), -self.segs[f]["born"], f)
                      for f in self.live()]
            best = max(scored) if scored else None
            if best is not None and best[0] >= self.p["similarity_threshold"]:
                f = best[2]
            else:
                f = page
                self.segs[f] = dict(N=0, L=0, last=0.0, born=self.born, count=0, fresh=0,
                                    visit=None)
                self.born += 1
            self.seg_of[page] = f
            g = self.segs[f]
            g["L"] += 1
            g["fresh"] += 1
            g["last"] = self.now(t)
        return True

    def next_doomed(self, cache):
        pages = [k for k in self.doomed if k in cache]
        if not pages:
            return None
        others = [k for k in pages if self.seg_of.get(k) != k]
        return oldest(others, cache) if others else pages[0]

    def victim(self, t, key, x, cache):
        page = self.next_doomed(cache)
        if page is not None:
            return page
        live = self.live()
        if live:
            now = self.now(t)

            def coldness(f):
                value = self.segs[f]["count"] if self.lfu else self.heat(f, now)
                return (value, self.segs[f]["born"])
            f = min(live, key=coldness)
            self.doomed |= {k for k, g in self.seg_of.items() if g == f}
            return self.next_doomed(cache)
        return oldest(cache, cache)

    def on_retrieve(self, t, keys, relevant):
        for key in keys:
            f = self.seg_of.get(key)
            if f is not None and self.segs[f]["visit"] != t:
                g = self.segs[f]
                g["visit"] = t
                g["N"] += 1
                g["count"] += 1
                g["last"] = self.now(t)

    def on_insert(self, t, key):
        self.inserted = t

    def on_evict(self, t, key):
        self.doomed.discard(key)
        f = self.seg_of.pop(key, None)
        if f == key:
            del self.segs[f]
            self.doomed |= {k for k, g in self.seg_of.items() if g == f}

    def delete(self, t, cache):
        if self.inserted == t and self.checked != t:
            self.checked = t
            live = self.live()
            if live:
                now = self.now(t)
                f = max(live, key=lambda f: (self.heat(f, now), -self.segs[f]["born"]))
                g = self.segs[f]
                if self.heat(f, now) >= self.p["heat_threshold"] and g["fresh"] > 0:
                    g["L"] = g["fresh"] = 0
                    if self.reset_visits:
                        g["N"] = 0
                    g["last"] = now
        return self.next_doomed(cache)


twin_of("memoryos")(MemoryOSPaper)


@twin_of("memoryos_shipped")
class MemoryOSShipped(MemoryOSPaper):
    defaults = dict(MEMORYOS, short_term_capacity=10, tau_seconds=86400.0,
                    step_seconds=3600.0)
    lfu = True
    reset_visits = True


class FactStore(Twin):
    """Marked memories leave this step (the victim first, else ``delete``); a full cache
    otherwise evicts the oldest admission."""

    repeat_delete = True

    def __init__(self, ctx):
        super().__init__(ctx)
        self.marked = set()

    def superseded(self, t, cache):
        sup = self.ctx.supersedes
        if sup is None or sup[t] < 0 or sup[t] not in cache:
            return None
        return int(sup[t])

    @staticmethod
    def order(x, cache, k):
        """Retrieval order for the arrival: cosine desc, admission asc, key asc."""
        return (-dot32(x, cache[k].vec), cache[k].adm, k)

    def nearest(self, x, cache, skip=None):
        keys = [k for k in cache if k != skip and k not in self.marked]
        return min(keys, key=lambda k: self.order(x, cache, k)) if keys else None

    def victim(self, t, key, x, cache):
        marked = [k for k in self.marked if k in cache]
        return oldest(marked or list(cache), cache)

    def on_evict(self, t, key):
        self.marked.discard(key)

    def delete(self, t, cache):
        marked = [k for k in self.marked if k in cache]
        return oldest(marked, cache) if marked else None


@twin_of("langmem")
class LangMem(FactStore):
    defaults = {"update_threshold": 0.8, "deletes": False}

    def admit(self, t, key, x, cache):
        j = self.superseded(t, cache)
        if j is not None:
            self.marked.add(j)
            if not self.p["deletes"]:
                return True
        m = self.nearest(x, cache, skip=j)
        if m is not None and dot32(x, cache[m].vec) >= self.p["update_threshold"]:
            self.marked.add(m)
        return True


@twin_of("mem0_surrogate")
class Mem0Surrogate(FactStore):
    defaults = {"top_s": 5, "update_threshold": 0.8, "noop_threshold": 0.95,
                "add_contradicting": False}

    def admit(self, t, key, x, cache):
        j = self.superseded(t, cache)
        top = sorted(cache, key=lambda k: self.order(x, cache, k))[:self.p["top_s"]]
        if j is not None and j in top:
            self.marked.add(j)
            return self.p["add_contradicting"]
        m = self.nearest(x, cache)
        if m is not None and dot32(x, cache[m].vec) >= self.p["noop_threshold"]:
            return False
        if m is not None and dot32(x, cache[m].vec) >= self.p["update_threshold"]:
            self.marked.add(m)
        return True
