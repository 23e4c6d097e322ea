"""Plain-Python reference policies of docs/model.md §2.3: SIEVE, random, S3-FIFO, 2Q, W-TinyLFU.

Written from each policy's docstring, like naive_policies.py.
"""

from __future__ import annotations

import math

from simulator.testing import SplitMix64, Twin
from simulator.testing.reference_model import MASK
from helpers.twins import twin_of


@twin_of("sieve")
class Sieve(Twin):
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


@twin_of("random")
class RandomEvict(Twin):
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


class Sized:
    """Weights for the queue-sharing twins: the sized tests set ``budget`` (and
    ``item_sizes``, see :meth:`Twin.arriving_size`) on a subclass.  With a budget
    the cache size is c = B and an item weighs its size; without one, c = K and every item
    weighs 1."""

    budget = None

    def setup_weights(self, ctx):
        self.c = ctx.capacity if self.budget is None else self.budget
        self.size = {}  # key -> weight, for cached keys and ghosts
        self.w = 1  # the arriving item's weight

    def note_arrival(self, t):
        self.w = 1 if self.budget is None else self.arriving_size(t)

    def total(self, keys):
        return sum(self.size[k] for k in keys)


def ghost_push(ghost: list, sizes: dict, key, size, cap):
    """Append ``key`` (weight ``size``) to a FIFO whose weights may total ``cap``: the
    oldest keys leave until it fits; a key heavier than ``cap`` is not remembered."""
    if size > cap:
        return
    while sum(sizes[k] for k in ghost) + size > cap:
        del sizes[ghost.pop(0)]
    ghost.append(key)
    sizes[key] = size


@twin_of("s3fifo")
class S3Fifo(Sized, Twin):
    """S3-FIFO as libCacheSim's S3FIFO.c: small (max(1, ⌊0.1c⌋)), main (the rest) and ghost
    (⌊0.9c⌋) FIFOs, oldest first, measured in weights; freq += 1 per request, 0 on
    admission; an arrival heavier than small's share is refused."""

    defaults = {"small_ratio": 0.1, "ghost_ratio": 0.9, "move_threshold": 2}

    def __init__(self, ctx):
        super().__init__(ctx)
        self.setup_weights(ctx)
        c = self.c
        self.small_size = max(1, int(c * self.p["small_ratio"]))
        self.main_size = c - self.small_size
        self.ghost_size = int(c * self.p["ghost_ratio"])
        self.small, self.main, self.ghost = [], [], []
        self.ghost_w = {}
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
        self.note_arrival(t)
        self.ghost_hit = key in self.ghost
        if self.ghost_hit:
            self.ghost.remove(key)
            del self.ghost_w[key]
        return self.w <= self.small_size

    def victim(self, t, key, x, cache):
        self.has_evicted = True
        while True:
            if self.total(self.main) > self.main_size or not self.small:
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
            ghost_push(self.ghost, self.ghost_w, key, self.size[key], self.ghost_size)
        del self.size[key]
        self.to_ghost = None

    def on_insert(self, t, key):
        if self.ghost_hit or (not self.has_evicted
                              and self.total(self.small) >= self.small_size):
            self.main.append(key)
        else:
            self.small.append(key)
        self.freq[key] = 0
        self.size[key] = self.w
        self.ghost_hit = False


@twin_of("twoq")
class TwoQ(Sized, Twin):
    """2Q as libCacheSim's TwoQ.c: A1in FIFO (max(1, ⌊0.25c⌋)), Am LRU (the rest), A1out
    ghost FIFO (⌊0.5c⌋), measured in weights; lists oldest / least recent first.  An
    arrival heavier than A1in's share is refused.  A ghost hit entering Am first moves
    Am's least recent keys to ``deferred`` while Am's weight plus its own exceeds Am's
    share; deferred keys are the next victims, oldest first, and requests leave them be."""

    defaults = {"in_ratio": 0.25, "out_ratio": 0.5}

    def __init__(self, ctx):
        super().__init__(ctx)
        self.setup_weights(ctx)
        self.in_size = max(1, int(self.c * self.p["in_ratio"]))
        self.out_size = int(self.c * self.p["out_ratio"])
        self.a1in, self.am, self.a1out, self.deferred = [], [], [], []
        self.out_w = {}
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
        self.note_arrival(t)
        self.ghost_hit = key in self.a1out
        if self.ghost_hit:
            self.a1out.remove(key)
            del self.out_w[key]
        return self.w <= self.in_size

    def victim(self, t, key, x, cache):
        if self.deferred:
            return self.deferred[0]
        if self.total(self.a1in) > self.in_size or not self.am:
            self.to_ghost = self.a1in[0]
            return self.a1in[0]
        return self.am[0]

    def on_evict(self, t, key):
        for lst in (self.a1in, self.am, self.deferred):
            if key in lst:
                lst.remove(key)
        if key == self.to_ghost:
            ghost_push(self.a1out, self.out_w, key, self.size[key], self.out_size)
        del self.size[key]
        self.to_ghost = None

    def on_insert(self, t, key):
        if self.ghost_hit:
            while self.am and self.total(self.am) + self.w > self.c - self.in_size:
                self.deferred.append(self.am.pop(0))
            self.am.append(key)
        else:
            self.a1in.append(key)
        self.size[key] = self.w
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
    cells (a + i·b) mod 2³² mod n, a/b = low 32 bits of XXH64(id) under two seeds, where
    id is the key's object id (``ids[key]``) or, without ids, key + 1; n = ceil(bpe·entries)
    capped at 2³¹ − 1 (20 when below 10), ``entries`` read as a 32-bit signed int; an
    update adds 1 to every cell, an estimate is the minimum.  Counters live in a dict (a
    cell never touched is 0), since n can be 2³¹ − 1."""

    def __init__(self, entries, ids=None):
        self.ids = ids
        bpe = -math.log(0.001) / 0.480453013918201
        self.hashes = math.ceil(0.693147180559945 * bpe)
        entries = (entries + 2**31) % 2**32 - 2**31
        n = min(math.ceil(bpe * entries), 2**31 - 1)
        self.cells_n = 2 * self.hashes if n < self.hashes else n
        self.c = {}

    def cells(self, key):
        object_id = key + 1 if self.ids is None else self.ids[key]
        a, b = (xxh64_u64(object_id, seed) & 0xFFFFFFFF for seed in (0x12345678, 0x12344321))
        return [((a + i * b) & 0xFFFFFFFF) % self.cells_n for i in range(self.hashes)]

    def estimate(self, key):
        return min(self.c.get(x, 0) for x in self.cells(key))

    def add(self, key):
        for x in self.cells(key):
            self.c[x] = self.c.get(x, 0) + 1

    def halve(self):
        self.c = {x: v >> 1 for x, v in self.c.items()}


@twin_of("tinylfu")
class TinyLfu(Sized, Twin):
    """W-TinyLFU as libCacheSim's WTinyLFU.c (+ SLRU seg-size=1:4), per the module docstring.

    window W = max(1, ⌊0.01c⌋), main M = c − W, probation P = max(1, ⌊M/5⌋) (0 if M = 0),
    protected ⌊0.8·M⌋ in paging mode and M − P in semantic mode, all in weights; lists
    least recent first.  An arrival heavier than W is refused.  Keys libCacheSim would
    evict when no victim is asked for go to ``deferred``: in paging mode ``delete`` hands
    them out at once, oldest first; in semantic mode they are the next victims, oldest
    first, and requests leave them be.  The sketch hashes the keys' object ids."""

    defaults = {"window_ratio": 0.01}

    def __init__(self, ctx):
        super().__init__(ctx)
        self.setup_weights(ctx)
        c = self.c
        self.paging = ctx.mode == "paging"
        self.w_size = max(1, int(c * self.p["window_ratio"]))
        self.m_size = c - self.w_size
        self.p_size = max(1, int(1.0 / 5 * self.m_size)) if self.m_size else 0
        self.q_size = (int(4.0 / 5 * self.m_size) if self.paging
                       else self.m_size - self.p_size)
        self.window, self.prob, self.prot, self.deferred = [], [], [], []
        self.sketch = CountMin(self.m_size, ctx.object_ids)
        self.main_hits = 0
        self.taken = None  # main's victim, already removed by victim()

    def _main(self):
        return self.total(self.prob) + self.total(self.prot)

    def _main_victim(self):
        return self.prob[0] if self.prob else self.prot[0]

    def _request(self, key):
        if key in self.deferred:
            return
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
        while self.total(self.prot) > self.q_size:
            self.prob.append(self.prot.pop(0))
            while self.total(self.prob) > self.p_size:
                self.deferred.append(self.prob.pop(0))

    def on_retrieve(self, t, keys, relevant):
        for key in reversed(keys):  # worst match first
            self._request(key)

    def on_rearrival(self, t, key):
        self._request(key)

    def _into_main(self, key):
        w = self.size[key]
        if self.total(self.prob) + w <= self.p_size:
            self.prob.append(key)
        elif self.total(self.prot) + w <= self.q_size:
            self.prot.append(key)
        else:
            while (self.prob or self.prot) and self._main() + w > self.m_size:
                victim = self._main_victim()
                (self.prob if victim in self.prob else self.prot).remove(victim)
                self.deferred.append(victim)
            self.prob.append(key)

    def admit(self, t, key, x, cache):
        self.note_arrival(t)
        return self.w <= self.w_size

    def victim(self, t, key, x, cache):
        if self.deferred:
            return self.deferred[0]
        while self.window:
            w = self.window[0]
            if self._main() + self.size[w] <= self.m_size:
                self._into_main(self.window.pop(0))
                self.sketch.add(w)
                continue
            if self.prob or self.prot:
                m = self._main_victim()
                if self.sketch.estimate(w) > self.sketch.estimate(m):
                    (self.prob if m in self.prob else self.prot).remove(m)
                    self._into_main(self.window.pop(0))
                    self.sketch.add(w)
                    self.taken = m
                    return m
            self.sketch.add(w)
            return w
        return self._main_victim()

    def delete(self, t, cache):
        return self.deferred[0] if self.paging and self.deferred else None

    def on_evict(self, t, key):
        if key != self.taken:
            for lst in (self.window, self.prob, self.prot, self.deferred):
                if key in lst:
                    lst.remove(key)
        self.taken = None
        del self.size[key]

    def on_insert(self, t, key):
        self.window.append(key)
        self.size[key] = self.w
        self.sketch.add(key)
