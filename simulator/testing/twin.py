"""The base class of a policy's plain-Python twin, which the reference engine runs.

A twin restates one policy from its documentation: it sees whole steps (R_t best first)
and answers by item key, never by slot, so it cannot share a slot bug with the compiled
hooks it is held to.  Subclass :class:`Twin` and override what the policy does; the
defaults always admit, notice nothing and never delete.

>>> class Fifo(Twin):
...     def victim(self, t, key, x, cache):
...         return min(cache.values(), key=lambda item: item.adm).key
>>> from simulator.testing.reference_model import Item, TwinContext
>>> twin = Fifo(TwinContext(capacity=2, params={}))
>>> twin.victim(5, 9, [], {3: Item(3, [], -1, 4), 1: Item(1, [], -1, 2)})
1
"""

from __future__ import annotations

from simulator.errors import InputError
from simulator.testing import arguments
from simulator.testing.reference_model import TwinContext


class Twin:
    """A policy in plain Python: the reference engine's side of the hook interface.

    Attributes
    ----------
    defaults : dict
        The policy's parameters and their defaults, as its ``Policy.params``; a parameter
        given that is not here is an error, and ``self.p`` holds the defaults overlaid
        with the given ones.
    unbounded : bool
        The policy ignores the capacity (the engine gives it room for every item).
    repeat_delete : bool
        As ``Policy.repeat_delete``: in semantic mode the engine asks :meth:`delete` again
        after each deletion of a step, until it says None (default False: once a step).
    item_sizes : list or None
        Set by the reference engine before the first step: the size of each step's
        arrival (semantic) or request (paging); read it with :meth:`arriving_size`.
    rewrites : int
        The in-place rewrites the twin has noted with :meth:`note_rewrites` (the twin of
        ``simulator.policies.base.note_rewrites``); the reference engine reads it at the
        end of a semantic run.

    Notes
    -----
    ``cache`` is a dict key -> :class:`~simulator.testing.reference_model.Item` (the
    reference engine's, read-only); ``x`` is the arrival's vector as a list (empty in
    paging mode).  Engine order within a step: :meth:`on_retrieve`, :meth:`on_feedback`,
    then the arrival (:meth:`on_rearrival`, or :meth:`admit` and while the cache is full
    :meth:`victim` / :meth:`on_evict`, then :meth:`on_insert`), then :meth:`delete` (and
    :meth:`on_evict` of what it names; again until None with ``repeat_delete``).
    """

    defaults: dict = {}
    unbounded = False
    repeat_delete = False
    item_sizes: list | None = None
    rewrites = 0  # an instance's own count once it notes one

    def __init__(self, ctx: TwinContext):
        if not isinstance(ctx, TwinContext):
            raise InputError(f"ctx must be a simulator.testing.TwinContext, got "
                             f"{type(ctx).__name__} {arguments.shown(ctx)}", "ctx")
        arguments.twin_params("params", type(self), ctx.params)
        self.p = {**self.defaults, **ctx.params}
        self.ctx = ctx

    def note_rewrites(self, n: int) -> None:
        """Record that the rule rewrote the content of ``n`` >= 0 cached items in place
        (each costs λ, docs/model.md §1.9), as the compiled ``note_rewrites`` does."""
        self.rewrites += arguments.integer("n", n, 0)

    def on_retrieve(self, t, keys, relevant):
        """R_t, best match first, with each item's relevance."""

    def on_feedback(self, t, loss, quality):
        """Step t's miss cost and quality (every step, scored or not)."""

    def admit(self, t, key, x, cache) -> bool:
        """Admit the arriving item ``key``?"""
        return True

    def victim(self, t, key, x, cache) -> int:
        """The key to evict: the cache is full and ``key`` is being admitted."""
        raise NotImplementedError(f"{type(self).__name__} must define victim")

    def on_insert(self, t, key):
        """``key`` entered the cache."""

    def on_evict(self, t, key):
        """``key`` left the cache (a victim, a deletion, or a removal the twin did not
        choose)."""

    def on_rearrival(self, t, key):
        """The arriving ``key`` is already cached; nothing is admitted."""

    def delete(self, t, cache):
        """A key to delete without admitting, or None."""
        return None

    def same_victim(self, t, got, want) -> bool:
        """Whether the compiled policy's victim ``got`` answers as well as the twin's
        ``want`` (the hook driver asks): equal keys, unless a policy leaves a choice
        free (Belady: any object never requested again)."""
        return got == want

    def arriving_size(self, t) -> int:
        """The size of step t's arrival, or 1 when the engine told no sizes."""
        if self.item_sizes is None:
            return 1
        return self.item_sizes[arguments.integer("t", t, 0, len(self.item_sizes) - 1)]


def twin_class(name: str, value) -> type:
    """``value`` if it is a subclass of :class:`Twin`, else one InputError naming the
    argument ``name``."""
    if not (isinstance(value, type) and issubclass(value, Twin)):
        got = f"an instance of {type(value).__name__}" if isinstance(value, Twin) else \
            f"{type(value).__name__} {arguments.shown(value)}"
        raise InputError(f"{name} must be a subclass of simulator.testing.Twin (the class, "
                         f"not an instance), got {got}", name)
    return value
