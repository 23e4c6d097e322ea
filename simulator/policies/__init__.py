"""The policy registry: one module per policy, one line here per module.

>>> REGISTRY['fifo'].summary
'always admit; evict the oldest admission'
"""

from simulator.errors import InputError
from simulator.policies import (arc, arc_ref, belady, fifo, lfu, lru, lru_ref, random, s3fifo,
                                 sieve, solar, solar_a, solar_a_ref, solar_e, solar_e_ref,
                                 solar_ref, tinylfu, twoq, unlimited)

REGISTRY = {p.POLICY.name: p.POLICY for p in (
    unlimited, fifo, lru, lfu, arc, belady, solar_e, solar_a, solar, sieve, s3fifo, twoq,
    tinylfu, random, lru_ref, arc_ref, solar_e_ref, solar_a_ref, solar_ref)}

# The memory-management study's strategies (issue 6).
from simulator.policies import (add_all, coarse, combined, fixed, history,  # noqa: E402
                                 periodic, strict)

REGISTRY.update({p.POLICY.name: p.POLICY for p in (
    fixed, add_all, strict, coarse, periodic, history, combined)})
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
