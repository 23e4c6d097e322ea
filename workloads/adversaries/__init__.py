"""The adversary registry: one module per adversary, listed once here.

Each module defines ``ADVERSARY``, a :class:`workloads.adversaries.builder.Adversary` (a chooser
behind :func:`workloads.adversaries.builder.build`).  :func:`register` adds yours (a plugin's are
added for it); the ``adversarial`` workload plays any registered one.

>>> sorted(REGISTRY)
['missing_topic', 'no_memory_then_dropped', 'paging']
"""

from simulator import registration
from simulator.errors import InputError
from workloads.adversaries import missing_topic, no_memory_then_dropped, paging
from workloads.adversaries.builder import Adversary

REGISTRY = {m.ADVERSARY.name: m.ADVERSARY for m in (missing_topic, paging,
                                                    no_memory_then_dropped)}
_SHIPPED = dict(REGISTRY)
ORIGINS: dict = {}  # name -> the plugin that registered it


def register(adversary: Adversary, origin: str | None = None) -> None:
    """Add ``adversary`` under its name; ``origin`` is the plugin that defines it.  A name
    taken by another adversary is refused."""
    if not isinstance(adversary, Adversary):
        raise InputError(f"register() takes a workloads.adversaries.builder.Adversary, got "
                         f"{type(adversary).__name__}")
    registration.add(REGISTRY, _SHIPPED, ORIGINS, "adversary", adversary.name, adversary,
                     origin)


def origin(name: str) -> str | None:
    """The plugin that registered adversary ``name``, or None."""
    return registration.origin_of(REGISTRY, _SHIPPED, ORIGINS, name)


def get(name: str) -> Adversary:
    """The registered adversary called ``name``; an unknown name raises InputError."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown adversary '{name}'; valid adversaries: "
                         + ", ".join(REGISTRY)) from None
