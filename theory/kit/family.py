"""A family: the instances a claim quantifies over, the basis they support and the
range they name (:mod:`theory.kit`).

A family is a named, finite, reproducible list of :class:`simulator.instance.Instance`.
Its kind says what a claim that no instance breaks may conclude (docs/claims.md): a sample
of a large space is a ``search``; ``exhaustive`` says the instances are every instance of
the range ``scope`` names.  Only :func:`theory.families.exhaustive` builds such a family
the kit can trust (an :class:`~theory.kit.exhaustive.Enumeration`); a ``Family`` built
by hand with ``kind="exhaustive"`` is accepted as its author's declaration, which the kit
cannot check and reports as such (basis ``declared``).  A family holds instances and
nothing else: anything else in it is refused when it is built, in one
:class:`~simulator.errors.InputError` naming the item.

>>> Family([1, 2], "two numbers")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
simulator.errors.InputError: family 'two numbers': item 0 is 1, not a simulator...
"""

from __future__ import annotations

import dataclasses

from simulator.errors import InputError
from simulator.instance import Instance
from simulator.trace import PagingTrace, Trace
from theory.kit.user_code import shown

KINDS = ("search", "exhaustive")


@dataclasses.dataclass(frozen=True)
class Family:
    """A list of instances, the basis kind it supports (:data:`KINDS`) and the scope it
    names.  ``kind="exhaustive"`` on a family built by hand is its author's declaration
    that the instances are every instance of the finite range ``scope`` names: a claim
    that no instance breaks then *holds* on basis ``declared``, the author's word, not the
    kit's (:func:`theory.families.exhaustive` builds the families the kit vouches for;
    docs/extending.md, a claim)."""

    instances: tuple
    scope: str
    kind: str = "search"

    def __post_init__(self):
        if not isinstance(self.scope, str) or not self.scope.strip():
            raise InputError(f"Family: scope must be a non-empty string naming the range, "
                             f"got {self.scope!r}", "scope")
        if self.kind not in KINDS:
            raise InputError(f"family '{self.scope}': kind must be one of {', '.join(KINDS)}, "
                             f"got {self.kind!r}", "kind")
        object.__setattr__(self, "instances",
                           _checked(self.instances, f"family '{self.scope}'"))

    def __iter__(self):
        return iter(self.instances)

    def __len__(self):
        return len(self.instances)

    def __add__(self, other: "Family") -> "Family":
        if not isinstance(other, Family):
            return NotImplemented
        kind = self.kind if self.kind == other.kind else "search"
        return Family(self.instances + other.instances, f"{self.scope}; {other.scope}", kind)


def as_family(found, what: str = "instances") -> Family:
    """``found`` as a :class:`Family`: a family as it is, a list (or other iterable) of
    instances as a search over them; anything else is one InputError naming ``what``."""
    if isinstance(found, Family):
        return found
    items = _checked(found, what)
    return Family(items, f"{len(items)} given instances")


def _checked(found, what: str) -> tuple:
    """``found`` as a tuple of instances, each holding a trace; else InputError."""
    if isinstance(found, (Instance, Trace, PagingTrace)):
        raise InputError(f"{what} is one {type(found).__name__}; give a list of "
                         "simulator.instance.Instance, or a theory.families.Family")
    if isinstance(found, (str, bytes, dict)) or not hasattr(found, "__iter__"):
        raise InputError(f"{what} must be a theory.families.Family or a list of "
                         f"simulator.instance.Instance, got {type(found).__name__}")
    items = tuple(found)
    for i, inst in enumerate(items):
        if not isinstance(inst, Instance):
            raise InputError(f"{what}: item {i} is {shown(inst)}, not a "
                             "simulator.instance.Instance (a trace with its run options: "
                             "Instance(trace, {'capacity': K}))")
        if not isinstance(inst.trace, (Trace, PagingTrace)):
            raise InputError(f"{what}: item {i}'s trace is {type(inst.trace).__name__}, "
                             "not a simulator.Trace or PagingTrace")
    return items
