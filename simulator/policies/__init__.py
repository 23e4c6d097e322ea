"""The policy registry: one module per policy, listed once here.

Building blocks that several policies share live in :mod:`simulator.policies.parts`.

>>> REGISTRY['fifo'].summary
'always admit; evict the oldest admission'
"""

from simulator.errors import InputError
from simulator.policies import (add_all, arc, arc_ref, belady, coarse, combined, fifo, fixed,
                                history, lfu, lru, lru_ref, periodic, random, s3fifo, sieve,
                                solar, solar_a, solar_a_ref, solar_e, solar_e_ref, solar_ref,
                                strict, tinylfu, twoq, unlimited)

# In this order everywhere a list of policies is shown or run by default.
REGISTRY = {p.POLICY.name: p.POLICY for p in (
    unlimited, fifo, lru, lfu, arc, belady, solar_e, solar_a, solar,  # the SOLAR paper's
    sieve, s3fifo, twoq, tinylfu, random,  # beyond the papers
    lru_ref, arc_ref, solar_e_ref, solar_a_ref, solar_ref,  # as the SOLAR authors' runner has them
    fixed, add_all, strict, coarse, periodic, history, combined)}  # the memory-management study
_SHIPPED = dict(REGISTRY)  # what every process has after importing the package


def shipped(name: str) -> bool:
    """Whether ``name`` is registered as the package registers it, so that another process
    (a Dask worker) resolves it to the same policy.

    >>> shipped("fifo")
    True
    """
    return name in _SHIPPED and REGISTRY.get(name) is _SHIPPED[name]


def get(name: str):
    """The registered policy called ``name``; an unknown name raises InputError."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown policy '{name}'; valid policies: "
                         + ", ".join(REGISTRY)) from None
