"""The policy registry: one module per policy, one line here per module.

>>> sorted(REGISTRY)[:3]
['arc', 'belady', 'fifo']
"""

from simulator.errors import InputError
from simulator.policies import fifo, lru, unlimited

REGISTRY = {p.POLICY.name: p.POLICY for p in (
    unlimited, fifo, lru)}


def get(name: str):
    """The registered policy called ``name``; an unknown name raises InputError."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown policy '{name}'; valid policies: "
                         + ", ".join(REGISTRY)) from None
