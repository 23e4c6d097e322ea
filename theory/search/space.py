"""The space the search walks: tiny instances as plain sequences, and their mutations.

A candidate is a *genotype*, a tuple the search can change step by step, and becomes an
:class:`~simulator.instance.Instance` only to be run:

- **paging**: a tuple of page numbers in ``0 … pages − 1`` (a request each);
- **semantic**: a tuple of steps ``(query topic, item topic, weight)`` over ``topics``
  one-hot topics: a query (and an item) is the unit vector of its topic, so similarity is
  1 within a topic and 0 across, and relevance is by topic; query topic −1 is a query no
  item is relevant to (a direction of its own).  Every step brings a new item.

The weights a semantic step may take are a grid (:attr:`Space.weights`): by default
0, ¼, ½, ¾, 1 and the two values just under the rent-or-buy threshold 2λ that the gate of
regret-gated admission reads (``min(1, 2λ − 0.001)`` and its fraction), because a weight
a hair under a threshold is where a gate overshoots; a mutation may also nudge a weight.

Mutations (:data:`MUTATIONS`): insert, delete, replace and swap steps; change a page, a
query topic, an item topic or a weight; repeat a block (a copy of ``g[s:e]`` right after
it).  A mutation that would leave ``min_steps … max_steps`` is not made.

>>> import numpy as np
>>> space = Space("paging", capacity=2)
>>> g = space.random(np.random.default_rng(0))
>>> space.pages, len(g) <= space.max_steps, set(g) <= {0, 1, 2}
(3, True, True)
>>> space.instance((0, 1, 2, 0)).trace.requests.tolist()
[0, 1, 2, 0]
"""

from __future__ import annotations

import dataclasses

import numpy as np

from simulator.errors import InputError
from simulator.instance import Instance
from simulator.trace import PagingTrace, Trace

MODES = ("paging", "semantic")
MUTATIONS = ("insert", "delete", "replace", "swap", "change_page", "change_query",
             "change_item", "change_weight", "repeat_block")
NEAR = 1e-3  # how far under the threshold 2λ the grid's threshold weights stay


@dataclasses.dataclass(frozen=True)
class Space:
    """The instances of one search: mode, run options and sizes.

    ``pages`` (paging) defaults to K + 1 and ``topics`` (semantic) to K + 1, the fewest
    that make every policy choose; ``max_steps`` defaults to 6(K + 1) requests (paging) or
    12 steps (semantic, where every candidate's OPT is exact and fast).
    """

    mode: str
    capacity: int
    top_k: int = 1
    switch_cost: float = 0.0
    pages: int | None = None
    topics: int | None = None
    min_steps: int = 1
    max_steps: int | None = None
    weights: tuple | None = None

    def __post_init__(self):
        if self.mode not in MODES:
            raise InputError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}",
                             "mode")
        K = self.capacity
        if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 1:
            raise InputError(f"capacity must be an integer >= 1, got {K!r}", "capacity")
        self._only_in_its_mode()
        defaults = dict(pages=K + 1 if self.mode == "paging" else None,
                        topics=K + 1 if self.mode == "semantic" else None,
                        max_steps=6 * (K + 1) if self.mode == "paging" else 12)
        for name, value in defaults.items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, value)
        for name in ("min_steps", "max_steps") + (("pages",) if self.mode == "paging"
                                                  else ("topics",)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
                    or value < 1:
                raise InputError(f"{name} must be an integer >= 1, got {value!r}", name)
        if self.min_steps > self.max_steps:
            raise InputError(f"min_steps ({self.min_steps}) must be at most max_steps "
                             f"({self.max_steps})", "min_steps")
        if self.weights is None:
            lam = float(self.switch_cost)
            near = [min(1.0, 2 * lam - NEAR), (2 * lam - NEAR) % 1.0] if lam > NEAR else []
            grid = {0.0, 0.25, 0.5, 0.75, 1.0} | {round(w, 9) for w in near if w > 0}
            object.__setattr__(self, "weights", tuple(sorted(grid)))
        elif not self.weights or any(not 0 <= float(w) <= 1 for w in self.weights):
            raise InputError(f"weights must be a non-empty list of numbers in [0, 1], got "
                             f"{self.weights!r}", "weights")

    def _only_in_its_mode(self) -> None:
        """An option of the other mode is refused, not ignored."""
        if self.mode == "paging":
            given = [name for name, value, default in (
                ("top_k", self.top_k, 1), ("switch_cost", self.switch_cost, 0.0),
                ("topics", self.topics, None), ("weights", self.weights, None))
                if value != default]
            why = "paging counts misses against Belady"
        else:
            given = ["pages"] if self.pages is not None else []
            why = "semantic instances are over topics"
        if given:
            raise InputError(f"{given[0]}: not an option of a {self.mode} search ({why}); "
                             f"leave it out, or search in the other mode", given[0])
        if self.mode == "semantic":
            k, lam = self.top_k, self.switch_cost
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
                raise InputError(f"top_k must be an integer >= 1, got {k!r}", "top_k")
            if isinstance(lam, bool) or not isinstance(lam, (int, float, np.number)) \
                    or not np.isfinite(lam) or lam < 0:
                raise InputError(f"switch_cost must be a finite number >= 0, got {lam!r}",
                                 "switch_cost")

    @property
    def options(self) -> dict:
        """The run options of every instance of the space."""
        if self.mode == "paging":
            return {"capacity": int(self.capacity)}
        return {"capacity": int(self.capacity), "top_k": int(self.top_k),
                "switch_cost": float(self.switch_cost), "quality": "hit"}

    def step(self, rng) -> object:
        """One random step: a page, or a (query topic, item topic, weight)."""
        if self.mode == "paging":
            return int(rng.integers(self.pages))
        return (int(rng.integers(-1, self.topics)), int(rng.integers(self.topics)),
                float(self.weights[int(rng.integers(len(self.weights)))]))

    def random(self, rng) -> tuple:
        """A random genotype of random length."""
        n = int(rng.integers(self.min_steps, self.max_steps + 1))
        return tuple(self.step(rng) for _ in range(n))

    def mutate(self, g: tuple, rng) -> tuple:
        """``g`` changed by one random applicable mutation (``g`` if none applies)."""
        names = [m for m in MUTATIONS if self._applies(m, g)]
        if not names:
            return g
        name = names[int(rng.integers(len(names)))]
        change = {"insert": self._insert, "delete": self._delete, "replace": self._replace,
                  "swap": self._swap, "change_page": self._change_page,
                  "change_query": self._change_query, "change_item": self._change_item,
                  "change_weight": self._change_weight,
                  "repeat_block": self._repeat_block}[name]
        return change(list(g), rng)

    def _applies(self, name: str, g: tuple) -> bool:
        n, paging = len(g), self.mode == "paging"
        return {"insert": n < self.max_steps, "delete": n > self.min_steps,
                "replace": n > 0, "swap": n > 1, "change_page": paging and n > 0,
                "change_query": not paging and n > 0, "change_item": not paging and n > 0,
                "change_weight": not paging and n > 0,
                "repeat_block": n > 0 and n < self.max_steps}[name]

    def _insert(self, g, rng):
        g.insert(int(rng.integers(len(g) + 1)), self.step(rng))
        return tuple(g)

    def _delete(self, g, rng):
        del g[int(rng.integers(len(g)))]
        return tuple(g)

    def _replace(self, g, rng):
        g[int(rng.integers(len(g)))] = self.step(rng)
        return tuple(g)

    def _swap(self, g, rng):
        i, j = (int(x) for x in rng.choice(len(g), 2, replace=False))
        g[i], g[j] = g[j], g[i]
        return tuple(g)

    def _change_page(self, g, rng):
        i = int(rng.integers(len(g)))
        g[i] = int((g[i] + 1 + rng.integers(self.pages - 1)) % self.pages) \
            if self.pages > 1 else g[i]
        return tuple(g)

    def _change_query(self, g, rng):
        i = int(rng.integers(len(g)))
        g[i] = (int(rng.integers(-1, self.topics)),) + tuple(g[i][1:])
        return tuple(g)

    def _change_item(self, g, rng):
        i = int(rng.integers(len(g)))
        g[i] = (g[i][0], int(rng.integers(self.topics)), g[i][2])
        return tuple(g)

    def _change_weight(self, g, rng):
        i = int(rng.integers(len(g)))
        if rng.random() < 0.5:  # a grid value, or a nudge off the current one
            w = float(self.weights[int(rng.integers(len(self.weights)))])
        else:
            w = float(np.clip(g[i][2] + rng.choice([-1, 1]) * 10.0 ** rng.integers(-3, 0),
                              0.0, 1.0))
        g[i] = (g[i][0], g[i][1], round(w, 9))
        return tuple(g)

    def _repeat_block(self, g, rng):
        room = self.max_steps - len(g)
        s = int(rng.integers(len(g)))
        e = s + 1 + int(rng.integers(min(len(g) - s, room)))
        return tuple(g[:e] + g[s:e] + g[e:])

    def instance(self, g: tuple, labels: dict | None = None) -> Instance:
        """The instance of genotype ``g`` (of any length: grown ones are longer)."""
        if self.mode == "paging":
            trace = PagingTrace.from_requests(np.asarray(g, np.int64))
        else:
            m = self.topics
            q = np.array([s[0] for s in g], np.int64)
            it = np.array([s[1] for s in g], np.int64)
            axes = np.eye(m + 1, dtype=np.float32)  # axis m: queries of no topic
            trace = Trace.from_arrays(queries=axes[np.where(q >= 0, q, m)], items=axes[it],
                                      query_topics=q, item_topics=it,
                                      weights=np.array([s[2] for s in g], np.float64))
        return Instance(trace, self.options, dict(labels or {}))

    def genotype(self, instance: Instance) -> tuple:
        """An instance read back as a genotype: paging requests (densely renumbered), or
        each step's query topic, item topic and weight (embeddings are not kept: the
        search's instances are one-hot by topic)."""
        trace = instance.trace
        if self.mode == "paging":
            if not isinstance(trace, PagingTrace):
                raise InputError("start: a paging search starts from paging traces, got a "
                                 "semantic one", "start")
            dense = np.unique(trace.requests, return_inverse=True)[1]
            self._fits(int(dense.max(initial=-1)) + 1, self.pages, "pages")
            return tuple(int(p) for p in dense)
        if not isinstance(trace, Trace):
            raise InputError("start: a semantic search starts from semantic traces, got a "
                             "paging one", "start")
        seen = np.unique(np.r_[trace.query_topics[trace.query_topics >= 0],
                               trace.item_topics[trace.item_topics >= 0]])
        self._fits(seen.size, self.topics, "topics")
        dense = {int(t): i for i, t in enumerate(seen)}
        return tuple((dense.get(int(a), -1), dense.get(int(b), 0), float(w)) for a, b, w in
                     zip(trace.query_topics, trace.item_topics, trace.weights))

    @staticmethod
    def _fits(used: int, room: int, name: str) -> None:
        if used > room:
            raise InputError(f"start: an instance uses {used} {name}, the space has {room}; "
                             f"give {name}={used} or more", name)
