"""Plain-Python reference policies of docs/model.md §2.3: SIEVE, random, S3-FIFO, 2Q, W-TinyLFU.

Written from each policy's docstring, like naive_policies.py.
"""

from __future__ import annotations

import math

from naive_model import MASK, SplitMix64
from naive_policies import Naive

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


