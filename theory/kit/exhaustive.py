"""Every instance of a declared tiny space, with its count: the one source of the
``exhaustive`` basis (docs/claims.md).

:func:`exhaustive` enumerates a finite space of tiny instances and returns an
:class:`Enumeration`, a :class:`~theory.kit.family.Family` whose class says it was
enumerated here: a claim that no instance of it breaks *holds* over the space its scope
names (basis ``exhaustive``).  A family declared exhaustive by hand is its author's word
(basis ``declared``, :func:`family_basis`).  Two spaces:

``paging``
    every request sequence of length ≤ T (or exactly T) over at most ``pages`` pages, for
    each K (and λ) given;
``semantic``
    every sequence of steps (query topic, item topic, weight) over at most ``topics``
    one-hot topics, the weights from a grid, for each K, k, λ and quality given: a query
    and an item are the unit vector of their topic, so a similarity is 1 within a topic
    and 0 across, and each step brings a new item; with ``unmatched=True`` a query may
    also have no relevant topic (−1, a vector orthogonal to every topic's).

Both are taken **up to relabelling**: page (or topic) i first appears after pages
0 … i − 1, a restricted growth string (for a semantic instance over its topics in the order
q_0, b_0, q_1, b_1, …).  Renaming pages or topics changes neither OPT nor the run of a
policy that compares ids and topics only for equality (tests/test_exhaustive.py checks
FIFO, LRU, LFU and Belady on paging, FIFO, LRU and SOLAR on semantic instances, and OPT),
so one instance per class stands for the class.  A policy that reads an id's value (orders
pages by id, say) is judged on these representatives only.

The count is known before anything is built (:func:`exhaustive_count`, same arguments): the
restricted growth strings of length n over at most m labels number Σ_{j ≤ m} S(n, j)
(Stirling numbers of the second kind), times |weights|^T for a semantic space.  A space
of more than ``limit`` instances (:data:`LIMIT` by default) is refused in one
:class:`~simulator.errors.InputError` naming the parameter to lower.  The order is fixed:
the option combinations (K, then λ; semantic: K, k, λ, quality), then the length, then the
sequences in lexicographic order (then the weights).  Each instance's ``labels`` say where
it sits: ``space``, ``index`` (its place in the enumeration), ``length`` and its sequence
(``requests``; or ``query_topics``, ``item_topics`` and ``weights``).

Examples
--------
>>> every = exhaustive("paging", length=3, pages=2, capacity=[1, 2])
>>> len(every), every.count, exhaustive_count("paging", length=3, pages=2, capacity=[1, 2])
(14, 14, 14)
>>> [i.labels["requests"] for i in every][:7]
[(0,), (0, 0), (0, 1), (0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1)]
>>> print(every.scope)
every paging sequence over ≤ 2 pages of length ≤ 3, up to relabelling, K ∈ {1, 2}: 14 instances
>>> exhaustive("paging", length=12, pages=4)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
simulator.errors.InputError: exhaustive: the space has 934 119 instances, more than limit=...
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from simulator.errors import InputError
from simulator.instance import Instance
from simulator.trace import PagingTrace, Trace
from theory.claims.verdicts import DECLARED, EXHAUSTIVE, SEARCH
from theory.kit.family import Family
from theory.kit.user_code import shown

LIMIT = 200_000  # every paging sequence over 4 pages up to length 9, for 4 values of K
MODES = ("paging", "semantic")
# the mark only this module's builder gives an Enumeration (a Family built elsewhere, of
# any kind, is not one)
_ENUMERATED = object()


@dataclasses.dataclass(frozen=True)
class Enumeration(Family):
    """Every instance of the space its scope names, as :func:`exhaustive` enumerated it.

    Built only by :func:`exhaustive`; ``Enumeration + Enumeration`` is an enumeration of
    both spaces, and an enumeration added to any other family is a search.
    """

    kind: str = EXHAUSTIVE
    mark: object = dataclasses.field(default=None, repr=False, compare=False)

    def __post_init__(self):
        if self.mark is not _ENUMERATED or self.kind != EXHAUSTIVE:
            raise InputError("Enumeration: only theory.families.exhaustive(...) builds one; "
                             "for a range you enumerated yourself, Family(instances, scope, "
                             "kind='exhaustive') is your declaration (basis 'declared')",
                             "kind")
        super().__post_init__()

    @property
    def count(self) -> int:
        """The number of instances (:func:`exhaustive_count` before building)."""
        return len(self.instances)

    def __add__(self, other):
        if isinstance(other, Enumeration):
            return Enumeration(self.instances + other.instances,
                               f"{self.scope}; {other.scope}", mark=_ENUMERATED)
        if isinstance(other, Family):
            return Family(self.instances + other.instances, f"{self.scope}; {other.scope}")
        return NotImplemented

    def __radd__(self, other):
        # called before Family.__add__ (a subclass's reflected method goes first), so a
        # declared family added to an enumeration is a search, not a declaration
        if isinstance(other, Family):
            return Family(other.instances + self.instances, f"{other.scope}; {self.scope}")
        return NotImplemented


def family_basis(family: Family) -> dict:
    """The basis a family supports, ``{"kind", "scope"}``: ``exhaustive`` for an
    :class:`Enumeration`, ``declared`` for a family its author declares exhaustive (the
    scope then starts "declared exhaustive by the claim's author:"), else ``search``.

    >>> every = exhaustive("paging", length=2, pages=2)
    >>> family_basis(every)["kind"], family_basis(Family(every.instances, "mine",
    ...                                                  kind="exhaustive"))["scope"]
    ('exhaustive', "declared exhaustive by the claim's author: mine")
    """
    if isinstance(family, Enumeration):
        return {"kind": EXHAUSTIVE, "scope": family.scope}
    if family.kind == EXHAUSTIVE:
        return {"kind": DECLARED,
                "scope": f"declared exhaustive by the claim's author: {family.scope}"}
    return {"kind": SEARCH, "scope": family.scope}


def exhaustive(mode: str, length: int, *, pages: int | None = None,
               topics: int | None = None, weights=None, capacity=1, top_k=None,
               switch_cost=None, quality=None, exact_length: bool = False,
               unmatched: bool = False, limit: int = LIMIT) -> Enumeration:
    """Every instance of a tiny space, up to relabelling (the module docstring).

    Parameters
    ----------
    mode : {"paging", "semantic"}
    length : int
        The longest sequence, T >= 1 (``exact_length=True``: exactly T steps).
    pages : int
        Paging: at most this many distinct pages.
    topics : int
        Semantic: at most this many one-hot topics.
    weights : float or list of float, optional
        Semantic: each step's weight, from this grid in [0, 1] (default 1).
    unmatched : bool
        Semantic: a query may also have no relevant topic (−1; its vector is orthogonal to
        every topic's), a label no relabelling renames.
    capacity, top_k, switch_cost, quality : value or list of values
        The run options, one instance per combination (K default 1; semantic: k default
        1, λ default 0, quality default ``hit``; paging: K and λ only).
    limit : int
        The largest space built; a larger one is an InputError naming what to lower.
    """
    space = _space(mode, length, limit, dict(
        pages=pages, topics=topics, weights=weights, capacity=capacity, top_k=top_k,
        switch_cost=switch_cost, quality=quality, exact_length=exact_length,
        unmatched=unmatched))
    made = _paging(space) if mode == "paging" else _semantic(space)
    return Enumeration(tuple(made), f"{space['scope']}: {_spaced(space['count'])} instances",
                       mark=_ENUMERATED)


def exhaustive_count(mode: str, length: int, *, pages: int | None = None,
                     topics: int | None = None, weights=None, capacity=1, top_k=None,
                     switch_cost=None, quality=None, exact_length: bool = False,
                     unmatched: bool = False) -> int:
    """The number of instances :func:`exhaustive` would build, with no limit and nothing
    built.

    >>> exhaustive_count("semantic", length=2, topics=2, weights=[0.5, 1])  # 2·2 + 8·4
    36
    """
    return _space(mode, length, None, dict(
        pages=pages, topics=topics, weights=weights, capacity=capacity, top_k=top_k,
        switch_cost=switch_cost, quality=quality, exact_length=exact_length,
        unmatched=unmatched))["count"]


def _space(mode: str, length, limit, given: dict) -> dict:
    """The checked description of a space (``given``: :func:`exhaustive`'s keywords): its
    lengths, labels, weights, option combinations, scope and count; refused when the count
    passes ``limit``."""
    from simulator.run_options import RunOptions

    if mode not in MODES:
        raise InputError(f"exhaustive: mode must be one of {', '.join(MODES)}, got "
                         f"{shown(mode)}", "mode")
    paging = mode == "paging"
    name, other = ("pages", "topics") if paging else ("topics", "pages")
    labels = given[name]
    if given[other] is not None:
        raise InputError(f"exhaustive: {other} is for the other mode; a {mode} space takes "
                         f"{name}", other)
    if paging:
        for field in ("weights", "top_k", "quality"):
            if given[field] is not None:
                raise InputError(f"exhaustive: {field} is for a semantic space; a paging "
                                 "space takes capacity and switch_cost", field)
        if given["unmatched"] is not False:
            raise InputError("exhaustive: unmatched is for a semantic space (queries with no "
                             "relevant topic)", "unmatched")
    _count_arg(name, labels)
    _count_arg("length", length)
    for flag in ("exact_length", "unmatched"):
        if not isinstance(given[flag], bool):
            raise InputError(f"exhaustive: {flag} must be True or False, got "
                             f"{shown(given[flag])}", flag)
    if limit is not None:
        _count_arg("limit", limit)
    lam = given["switch_cost"]
    axes = {"capacity": _grid("capacity", given["capacity"]),
            "switch_cost": _grid("switch_cost", 0.0 if lam is None else lam)}
    if not paging:
        k, q = given["top_k"], given["quality"]
        axes = {"capacity": axes["capacity"], "top_k": _grid("top_k", 1 if k is None else k),
                "switch_cost": axes["switch_cost"],
                "quality": _grid("quality", "hit" if q is None else q)}
    combos = [dict(zip(axes, values)) for values in itertools.product(*axes.values())]
    for options in combos:  # before anything is counted or built
        try:
            RunOptions.build(**options)
        except InputError as exc:
            raise InputError(f"exhaustive: {exc}", exc.param) from None
    grid = (1.0,) if paging else _weights(given["weights"])
    spare = given["unmatched"]
    lengths = (length,) if given["exact_length"] else tuple(range(1, length + 1))
    per_options = sum(_growth_count(T if paging else 2 * T, labels, spare) * len(grid) ** T
                      for T in lengths)
    count = per_options * len(combos)
    if limit is not None and count > limit:
        raise InputError(f"exhaustive: the space has {_spaced(count)} instances, more than "
                         f"limit={limit}; lower length ({length}) first, then {name} "
                         f"({labels}) or the number of option values, or raise limit",
                         "length")
    span = f"length {length}" if given["exact_length"] else f"length ≤ {length}"
    return dict(mode=mode, lengths=lengths, labels=labels, weights=grid, combos=combos,
                spare=spare, count=count, scope=_scope(mode, labels, span, spare, grid, axes))


def _count_arg(name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"exhaustive: {name} must be an integer >= 1, got {shown(value)}",
                         name)


def _grid(name: str, value) -> tuple:
    """One value or a list of them, as a tuple: none missing, none twice."""
    values = tuple(value) if isinstance(value, (list, tuple, range)) else (value,)
    if not values:
        raise InputError(f"exhaustive: {name} must be a value or a non-empty list of them",
                         name)
    if len(set(values)) != len(values):
        raise InputError(f"exhaustive: {name} lists a value twice: {list(values)}", name)
    return values


def _weights(weights) -> tuple:
    grid = _grid("weights", 1.0 if weights is None else weights)
    for w in grid:
        if isinstance(w, bool) or not isinstance(w, (int, float, np.number)) or \
                not (math.isfinite(w) and 0 <= w <= 1):
            raise InputError(f"exhaustive: weights must lie in [0, 1], got {shown(w)}",
                             "weights")
    return tuple(float(w) for w in grid)


def _growth_count(n: int, m: int, spare: bool = False) -> int:
    """Restricted growth strings of length n over at most m labels (``spare``: the even
    places may also hold −1, which is no label)."""
    ways = [1] + [0] * m  # ways[j]: prefixes that use j labels
    for i in range(n):
        extra = 1 if spare and i % 2 == 0 else 0
        ways = [ways[j] * (j + extra) + (ways[j - 1] if j else 0) for j in range(m + 1)]
    return sum(ways)


def _growth_strings(n: int, m: int, spare: bool = False):
    """Every restricted growth string of length n over at most m labels, in lexicographic
    order: label i first appears after labels 0 … i − 1 (``spare``: the even places may
    also hold −1, which is no label)."""
    seq = [0] * n

    def grow(i, top):
        if i == n:
            yield tuple(seq)
            return
        for label in range(-1 if spare and i % 2 == 0 else 0, min(top + 2, m)):
            seq[i] = label
            yield from grow(i + 1, max(top, label))

    yield from grow(0, -1)


def _paging(space: dict):
    traces = [(T, seq, PagingTrace.from_requests(np.array(seq, dtype=np.int64)))
              for T in space["lengths"] for seq in _growth_strings(T, space["labels"])]
    index = itertools.count()
    for options in space["combos"]:
        for T, seq, trace in traces:
            yield Instance(trace, options, dict(space="paging", index=next(index), length=T,
                                                requests=seq))


def _semantic(space: dict):
    m, grid, spare = space["labels"], space["weights"], space["spare"]
    # topic i's queries and items: the i-th unit vector; an unmatched query (−1) the last,
    # spare one, orthogonal to every topic
    unit = np.eye(m + spare, dtype=np.float32)
    traces = []
    for T in space["lengths"]:
        for flat in _growth_strings(2 * T, m, spare):
            queries, items = np.array(flat[0::2]), np.array(flat[1::2])
            for w in itertools.product(grid, repeat=T):
                traces.append((T, flat, w, Trace.from_arrays(
                    queries=unit[queries], items=unit[items], query_topics=queries,
                    item_topics=items, weights=np.array(w))))
    index = itertools.count()
    for options in space["combos"]:
        for T, flat, w, trace in traces:
            yield Instance(trace, options, dict(space="semantic", index=next(index), length=T,
                                                query_topics=flat[0::2],
                                                item_topics=flat[1::2], weights=w))


def _scope(mode, labels, span, spare, grid, axes) -> str:
    options = [f"K ∈ {_set(axes['capacity'])}"]
    if mode == "paging":
        head = f"every paging sequence over ≤ {labels} pages of {span}, up to relabelling"
        if axes["switch_cost"] != (0.0,):
            options.append(f"λ ∈ {_set(axes['switch_cost'])}")
    else:
        head = (f"every semantic sequence of (query topic, item topic, weight ∈ "
                f"{_set(grid)}) over ≤ {labels} one-hot topics"
                f"{' (or a query of none)' if spare else ''} of {span}, up to relabelling "
                "of topics")
        options += [f"k ∈ {_set(axes['top_k'])}", f"λ ∈ {_set(axes['switch_cost'])}",
                    f"quality {', '.join(axes['quality'])}"]
    return f"{head}, {', '.join(options)}"


def _set(values) -> str:
    return "{" + ", ".join(f"{v:g}" if isinstance(v, (int, float)) else str(v)
                           for v in values) + "}"


def _spaced(n: int) -> str:
    """1234567 as '1 234 567' (the scope's numbers)."""
    return f"{n:,}".replace(",", " ")
