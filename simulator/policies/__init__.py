"""The policy registry: one module per policy, listed once here.

Building blocks that several policies share live in :mod:`simulator.policies.parts`.

>>> REGISTRY['fifo'].summary
'always admit; evict the oldest admission'
"""

import difflib

from simulator import registration
from simulator.errors import InputError
from simulator.policies import (add_all, arc, arc_ref, belady, coarse, combined, fifo, fixed,
                                history, lfu, lru, lru_ref, periodic, random, s3fifo, sieve,
                                solar, solar_a, solar_a_ref, solar_e, solar_e_ref, solar_ref,
                                strict, tinylfu, twoq, unlimited)
from simulator.policies import langmem, mem0_surrogate, memoryos, memoryos_shipped
from simulator.policies import generative_agents, letta, memorybank, memorybank_shipped
from simulator.policies import amem, zep

# In this order everywhere a list of policies is shown or run by default.
REGISTRY = {p.POLICY.name: p.POLICY for p in (
    unlimited, fifo, lru, lfu, arc, belady, solar_e, solar_a, solar,  # the SOLAR paper's
    sieve, s3fifo, twoq, tinylfu, random,  # beyond the papers
    lru_ref, arc_ref, solar_e_ref, solar_a_ref, solar_ref,  # as the SOLAR authors' runner has them
    fixed, add_all, strict, coarse, periodic, history, combined,  # the memory-management study
    memoryos, memoryos_shipped, langmem, mem0_surrogate,  # agent-memory frameworks' rules
    memorybank, memorybank_shipped, generative_agents, letta,
    amem, zep)}
_SHIPPED = dict(REGISTRY)  # what every process has after importing the package
ORIGINS: dict = {}  # name -> the plugin (a file path or a module name) that registered it


def shipped(name: str) -> bool:
    """Whether ``name`` is registered as the package registers it, so that another process
    (a Dask worker) resolves it to the same policy.

    >>> shipped("fifo")
    True
    """
    return registration.is_shipped(REGISTRY, _SHIPPED, name)


def register(policy, origin: str | None = None) -> None:
    """Add ``policy`` under its name (a plugin's policies are registered for it).

    ``origin`` is the plugin that defines it: the ``--plugin`` that a replay command names
    and that a Dask worker loads.  A name taken by another policy is refused.

    >>> import dataclasses
    >>> register(dataclasses.replace(REGISTRY["fifo"], name="my_fifo"))
    >>> "my_fifo" in REGISTRY
    True
    >>> del REGISTRY["my_fifo"]
    """
    from simulator.policies.base import Policy

    if not isinstance(policy, Policy):
        raise InputError(f"register() takes a simulator.Policy, got {type(policy).__name__}")
    registration.add(REGISTRY, _SHIPPED, ORIGINS, "policy", policy.name, policy, origin)


def origin(name: str) -> str | None:
    """The plugin that registered policy ``name``, or None (the package's, or your code's)."""
    return registration.origin_of(REGISTRY, _SHIPPED, ORIGINS, name)


def resolve(policy):
    """``policy`` itself when it is a :class:`~simulator.policies.base.Policy`, else the
    registered policy of that name (an unregistered Policy object runs as it is)."""
    from simulator.policies.base import Policy

    return policy if isinstance(policy, Policy) else get(policy)


class UnknownPolicy(InputError):
    """A policy name nothing registered.  The message suggests close names and how to
    register one from Python; :attr:`command_line` says it for the command line, where a
    plugin registers it (docs/extending.md)."""

    def __init__(self, name: str):
        close = difflib.get_close_matches(name, list(REGISTRY), n=3)
        guess = f" (did you mean {', '.join(close)}?)" if close else ""
        # the names, not all of them: with dozens registered the line would outgrow a terminal
        known = (f"unknown policy '{name}'{guess}; {len(REGISTRY)} policies are registered "
                 "(docs/policies.md lists them; in Python, simulator.policies.REGISTRY)")
        super().__init__(f"{known}; register your own with simulator.policies.register",
                         "policy")
        self.name = name
        self.command_line = (f"{known}; load yours with --plugin FILE (or "
                             "SEMCACHE_PLUGINS)")

    def __reduce__(self):  # rebuilt from the name (a Dask worker's error comes back pickled)
        return UnknownPolicy, (self.name,)


def get(name: str):
    """The registered policy called ``name``; an unknown name raises InputError.

    >>> get("lur")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    simulator.policies.UnknownPolicy: unknown policy 'lur' (did you mean lru, ...?); ...
    """
    if not isinstance(name, str):
        raise InputError("policy must be a registered name (a string) or a simulator.Policy, "
                         f"got {type(name).__name__} {name!r}"[:200], "policy")
    try:
        return REGISTRY[name]
    except KeyError:
        raise UnknownPolicy(name) from None
