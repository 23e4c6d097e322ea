"""The hook interface every policy implements, and the no-op defaults.

A policy is a :class:`Policy` record: parameter defaults, an ``init`` that builds its state
(a tuple of numpy arrays, created fresh for every run), and compiled hooks that engines
call.  Engines own the cache (slots, vectors, admission times); a policy only keeps its
own bookkeeping, indexed by slot or by item key, and answers two questions: admit the
arriving item? which slot to evict?  Policies never see an engine or a clock.

State: a plain tuple, whose fields the built-in policies read by name all the same.  Each
module names the positions with constants beside its ``init``, one comment each saying
what the field holds (LRU: ``_PREV, _NEXT, _META = 0, 1, 2``), and its hooks index in
place, ``state[_PREV][s]``.  numba freezes a module's integer constants when it compiles,
so that is the same static index as ``state[0]``, at the same speed.  The state is not a
NamedTuple read by attribute (``state.prev``), though numba compiles that as fast: users
extend a built-in policy by concatenating its state with their own
(``lru.POLICY.init(ctx) + (extra,)``), which makes a plain tuple that attribute access
would refuse, while a constant still finds the built-in's field in its place, the user's
fields coming after.  (FIFO's state is a NamedTuple, ``fifo.Ring``, that its hooks unpack
by position for the same reason.)

Hooks (all ``@njit``; ``state`` is what ``init`` returned; ``cache`` is the engine's
read-only view of its slots, read through the accessors below, never by position:
:func:`slot_keys` (``-1`` marks a free slot), :func:`slot_vectors`,
:func:`admission_steps`, :func:`cached_count`, :func:`cache_capacity` and
:func:`arriving_size`; a hook that gets ``cache`` may also tell the engine of in-place
rewrites with :func:`note_rewrites`):

``on_hit(state, slot, t, relevant)``
    the item in ``slot`` was retrieved into R_t (semantic) or requested (paging hit).
    R_t is reported worst match first, so a recency policy ends with the best match
    most recent.
``on_feedback(state, t, loss, quality)``
    step t's miss cost and quality (docs/model.md §1.4), on every step, scored or not.  In paging
    mode a hit is quality 1 / loss 0 and a miss quality 0 / loss 1.
``admit(state, t, key, x, cache) -> bool``
    admit the arriving item ``key`` (vector ``x``) ?  A boolean: an integer is refused
    (:mod:`simulator.engine.hook_types`).
``victim(state, t, key, x, cache) -> slot``
    the cache is full and an item is being admitted: which occupied slot goes.
``on_insert(state, slot, key, t)`` / ``on_evict(state, slot, key, t)``
    the engine put ``key`` into / removed it from ``slot``.
``on_rearrival(state, slot, t)``
    the arriving item is already cached (``item_keys``); nothing is admitted.
``delete(state, t, cache) -> slot``
    after the decision, an occupied slot to delete without admitting, or -1 for none
    (deletion strategies).  A policy with ``repeat_delete`` is asked again after each
    deletion of a semantic step, until it gives -1 (forgetting several items at once).
    A paging request asks it after a hit's ``on_hit`` and after an admission's
    ``on_insert``, again and again until it gives -1 (W-TinyLFU drops there what
    libCacheSim evicts during a hit).

The call order, per step t (every hook gets t, so a step's calls can be told apart even
where the SimPy engine interleaves steps), is :data:`HOOK_ORDER`:

* semantic: ``on_hit`` for each retrieved item, ``on_feedback``, then the arrival:
  ``on_rearrival`` if the item is cached, nothing if it exceeds the budget, else
  ``admit``; an admission evicts first (``victim`` then ``on_evict``, once with unit
  sizes, until the item fits with a budget) and then calls ``on_insert``.  Last,
  ``delete`` on every step, and ``on_evict`` if it names a slot.
* paging: a hit is ``on_hit``, then ``on_feedback``; a miss is ``on_feedback``, then the
  arrival as above (``on_rearrival`` only in the SimPy engine, for a miss whose
  admission is still in flight).  A policy with its own ``delete`` is asked it after
  the hit's ``on_hit`` and after the admission's ``on_insert``, each slot it names
  evicted (``on_evict``) and the question asked again, until it gives -1.

So a policy may move its bookkeeping in ``victim`` and rely on ``on_evict`` of that slot
following at once, before ``on_insert`` (LRU does).  With the SimPy engine's feedback
``delay`` a step's ``on_feedback`` comes after its arrival, and with its ``loss`` never.
:func:`simulator.testing.contract.check_hook_order` holds both engines to the order.

A policy declares its :class:`Traits` (randomized, regret-gated, offline), as
scikit-learn's estimators declare their tags; :func:`simulator.testing.contract.check_policy`
verifies each declaration, and an online policy never gets the trace (``Context.trace``
is None), so one that reads it fails there.

A policy may also give ``paging_loop(requests, n_keys, capacity, state, out_hit) ->
(hits, admissions, evictions)``, a compiled whole-trace paging run that fills ``out_hit``
exactly as the engine's hook loop would; the fast engine then runs paging traces through
it (the SimPy engine always uses the hooks).  It exists for speed alone, where a layout
that cannot be split into hooks is much faster (ARC:
:mod:`simulator.policies.parts.arc_paging_loop`), and
:func:`simulator.testing.contract.check_policy` holds it equal to the hooks.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Callable

import numpy as np

from simulator import registration
from simulator.engine.counts import ARRIVING, CAPACITY, REWRITES, SIZE
from simulator.config import njit
from simulator.errors import InputError
from simulator.engine.hook_source import RETURNS, check_returns, check_signature
from simulator.params import check_defaults, resolve
from simulator.policies.context import Context  # noqa: F401  (where it was defined)


@njit
def no_hit(state, slot, t, relevant):
    pass


@njit
def no_feedback(state, t, loss, quality):
    pass


@njit
def always_admit(state, t, key, x, cache):
    return True


@njit
def no_insert(state, slot, key, t):
    pass


@njit
def no_evict(state, slot, key, t):
    pass


@njit
def no_rearrival(state, slot, t):
    pass


@njit
def no_delete(state, t, cache):
    return -1


# The cache view.  The engine's tuple and its counts array are its own business and may
# change; a policy reads them through these, which numba compiles into the caller (a call
# costs nothing in a loop).
@njit
def slot_keys(cache):
    """Each slot's item key, ``-1`` for a free slot (int64, one per slot)."""
    return cache[0]


@njit
def slot_vectors(cache):
    """The cached vectors, [d, slots]: column s is the vector in slot s (float32)."""
    return cache[1]


@njit
def admission_steps(cache):
    """The step at which each slot's item was admitted (int64, one per slot)."""
    return cache[2]


@njit
def cached_count(cache):
    """How many items the cache holds now."""
    return cache[3][SIZE]


@njit
def cache_capacity(cache):
    """The count limit K the engine holds the cache to."""
    return cache[3][CAPACITY]


@njit
def arriving_size(cache):
    """The size of the item ``admit`` and ``victim`` are asked about (1 in a run without
    sizes; docs/model.md §1.8)."""
    return cache[3][ARRIVING]


@njit
def note_rewrites(cache, n):
    """Record that the rule has just rewritten the content of ``n`` >= 0 cached items in
    place (A-MEM's note evolution, a summary rewritten); call it from a hook that gets
    ``cache`` (``admit``, ``victim``, ``delete``).  Each rewrite costs λ like a
    modification (docs/model.md §1.9): the run's ``rewrites`` counts them and its cost is
    Σℓ + λ·(N + rewrites); the cache itself, and N, do not change."""
    if n < 0:
        raise ValueError("note_rewrites(cache, n) takes n >= 0 items rewritten")
    cache[3][REWRITES] += n


# The names of the hooks called with one step's t, in call order and each followed by a
# space, match the mode's pattern (the module docstring says it in words; the SimPy
# engine's feedback delay and loss aside).
HOOK_ORDER = {
    "semantic": (r"(on_hit )*on_feedback "
                 r"(on_rearrival |admit ((victim on_evict )*on_insert )?)?"
                 r"delete (on_evict )?"),
    # a semantic policy with repeat_delete: delete asked again after each deletion
    "semantic_repeat_delete": (r"(on_hit )*on_feedback "
                               r"(on_rearrival |admit ((victim on_evict )*on_insert )?)?"
                               r"(delete on_evict )*delete "),
    "paging": (r"on_hit (delete on_evict )*delete on_feedback "
               r"|on_feedback (on_rearrival |admit ((victim on_evict )*on_insert "
               r"(delete on_evict )*delete )?)?"),
}
MODES = ("semantic", "paging")
# Each hook's arguments, as the engines pass them (the module docstring).
HOOK_ARGUMENTS = {"on_hit": ("state", "slot", "t", "relevant"),
                  "on_feedback": ("state", "t", "loss", "quality"),
                  "admit": ("state", "t", "key", "x", "cache"),
                  "victim": ("state", "t", "key", "x", "cache"),
                  "on_insert": ("state", "slot", "key", "t"),
                  "on_evict": ("state", "slot", "key", "t"),
                  "on_rearrival": ("state", "slot", "t"),
                  "delete": ("state", "t", "cache")}
PAGING_LOOP_ARGUMENTS = ("requests", "n_keys", "capacity", "state", "out_hit")


@dataclasses.dataclass(frozen=True)
class Traits:
    """What a policy declares about itself; the contract verifies every declaration.

    Attributes
    ----------
    randomized : bool
        Its decisions depend on the seed (draws from the run's random stream).  The
        contract requires some seed to change them if True, and no seed to if False.
    regret_gated : bool
        It admits only once the miss cost fed back since its last admission reaches a
        threshold (the SOLAR paper's Alg. 1): if True, with every miss cost 0 it never
        admits and miss costs change what it admits; if False, miss costs change nothing.
    offline : bool
        It reads the whole trace in advance (``Context.trace``, Belady), so it cannot run
        online: not in a closed loop, and no adversary can play it.
    """

    randomized: bool = False
    regret_gated: bool = False
    offline: bool = False

    def __post_init__(self):
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, (bool, np.bool_)):
                raise InputError(f"Traits.{field.name} must be True or False, got "
                                 f"{value!r}"[:200])
            object.__setattr__(self, field.name, bool(value))  # np.bool_ too


@dataclasses.dataclass(frozen=True)
class Policy:
    """One cache policy: its name, documented parameters, state builder and hooks.

    ``init(ctx)`` takes a :class:`Context` and returns the state tuple.  ``unbounded``
    policies get one slot per distinct item and ignore the capacity.  ``modes`` lists where
    the policy is defined (``"semantic"``, ``"paging"``), and must be given: a rule that
    reads vectors has no business on a paging trace, so no mode is assumed.  Building a
    ``Policy`` checks each hook: compiled with ``@simulator.njit`` and taking the arguments
    documented above, or one error naming the hook.  ``traits`` is a :class:`Traits`,
    or a function of the resolved parameters that returns one when a parameter decides
    (a noisy judge draws from the seed only when it can err); read it with
    :meth:`traits_of`.  ``state_bytes(params, slots, n_keys)``, when a parameter or the
    slot count sizes the state beyond a few words a slot, declares its rough size in bytes
    (:mod:`simulator.engine.memory_estimate` checks it before ``init``).
    ``repeat_delete`` (default False): in semantic mode the engines ask ``delete`` again
    after each deletion of a step, until it gives -1, so a rule may forget several items
    at once without an arrival (each deletion is an eviction; the step counts once in N;
    docs/model.md §1.9).  Without it a semantic step deletes at most one item.
    """

    name: str
    summary: str
    init: Callable
    victim: Callable
    params: dict = dataclasses.field(default_factory=dict)
    on_hit: Callable = no_hit
    on_feedback: Callable = no_feedback
    admit: Callable = always_admit
    on_insert: Callable = no_insert
    on_evict: Callable = no_evict
    on_rearrival: Callable = no_rearrival
    delete: Callable = no_delete
    unbounded: bool = False
    modes: tuple = ()
    traits: Traits | Callable = Traits()
    check_params: Callable | None = None
    paging_loop: Callable | None = None
    state_bytes: Callable | None = None
    repeat_delete: bool = False

    def __post_init__(self):
        registration.check_name("policy", self.name)  # it names files and --policy lists
        where = f"Policy '{self.name}'"
        if isinstance(self.modes, str):
            raise InputError(f"{where}: modes must be a tuple such as ({self.modes!r},), "
                             f"not the string {self.modes!r}")
        if not isinstance(self.modes, (tuple, list)) or not self.modes or \
                not set(self.modes) <= set(MODES) or len(set(self.modes)) != len(self.modes):
            raise InputError(f"{where}: modes must name where it runs, from {MODES} (e.g. "
                             f"modes=('semantic',) for a rule that reads vectors), got "
                             f"{self.modes!r}")
        object.__setattr__(self, "modes", tuple(self.modes))
        _check_fields(where, self)
        check_defaults("policy", self.name, self.params)
        hooks = dict(HOOK_ARGUMENTS, **({"paging_loop": PAGING_LOOP_ARGUMENTS}
                                        if self.paging_loop is not None else {}))
        for hook, names in hooks.items():
            check_signature(where, hook, getattr(self, hook), names)
        for hook in RETURNS:
            check_returns(where, hook, getattr(self, hook))

    def resolve_params(self, given: dict | None) -> dict:
        """Defaults overlaid with ``given``; unknown keys or bad values raise InputError."""
        if given is not None and not isinstance(given, Mapping):
            raise InputError("params must be a mapping of parameter names to values (e.g. "
                             f"{{'alpha': 0.2}}) for policy '{self.name}'; got "
                             f"{type(given).__name__} {given!r}"[:200], "params")
        out = resolve("policy", self.name, self.params, given)
        if self.check_params is not None:
            problem = _declared(self, "check_params", self.check_params, out)
            if problem is not None and not isinstance(problem, str):
                raise InputError(f"policy '{self.name}': check_params must return a "
                                 f"sentence saying the problem, or None; got "
                                 f"{type(problem).__name__}")
            if problem:
                raise InputError(f"policy '{self.name}': {problem}")
        return out

    def traits_of(self, params: dict | None = None) -> Traits:
        """The declared traits with ``params`` (defaults when None).

        >>> from simulator.policies import REGISTRY
        >>> REGISTRY["solar"].traits_of()
        Traits(randomized=True, regret_gated=True, offline=False)
        """
        if not callable(self.traits):
            return self.traits
        traits = _declared(self, "traits", self.traits, self.resolve_params(params))
        if not isinstance(traits, Traits):
            raise InputError(f"policy '{self.name}': traits(params) must return a "
                             f"simulator.Traits, got {type(traits).__name__}")
        return traits

    def state_size(self, params: dict, slots: int, n_keys: int) -> int | None:
        """What ``state_bytes`` declares for a run (None when the policy declares
        nothing): a finite number of bytes >= 0, or one InputError naming the policy."""
        if self.state_bytes is None:
            return None
        size = _declared(self, "state_bytes", self.state_bytes, params, slots, n_keys)
        if isinstance(size, bool) or not isinstance(size, (int, float, np.number)) or \
                not math.isfinite(size) or size < 0:
            raise InputError(f"policy '{self.name}': state_bytes(params, slots, n_keys) must "
                             f"return a number of bytes >= 0, got {size!r}"[:200])
        return int(size)


def _check_fields(where: str, policy: Policy) -> None:
    """The fields other than the hooks: each of its documented type."""
    if not isinstance(policy.summary, str):
        raise InputError(f"{where}: summary must be a string (one line for listings)")
    if not callable(policy.init):
        raise InputError(f"{where}: init must be a function of the run's Context that "
                         "returns the state tuple")
    for name in ("unbounded", "repeat_delete"):
        if not isinstance(getattr(policy, name), bool):
            raise InputError(f"{where}: {name} must be True or False, got "
                             f"{getattr(policy, name)!r}"[:200])
    if not isinstance(policy.traits, Traits) and not callable(policy.traits):
        raise InputError(f"{where}: traits must be a simulator.Traits, or a function of the "
                         f"parameters returning one; got {type(policy.traits).__name__}")
    for name in ("check_params", "state_bytes"):
        if getattr(policy, name) is not None and not callable(getattr(policy, name)):
            raise InputError(f"{where}: {name} must be a function or None")


def _declared(policy: Policy, what: str, fn, *args):
    """``fn(*args)``, a policy's own declaration; its exception in one line."""
    try:
        return fn(*args)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001  (the user's function may raise anything)
        message = " ".join(str(exc).split())[:200]
        raise InputError(f"policy '{policy.name}': {what} raised {type(exc).__name__}"
                         + (f": {message}" if message else "")) from exc


def empty_state():
    """A placeholder state for policies that keep no bookkeeping."""
    return (np.zeros(1, np.int64),)
