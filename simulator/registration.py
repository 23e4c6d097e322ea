"""Adding to a registry, and remembering who did: shared by the registries of policies,
workloads, adversaries and claims.

Each registry is a dict of name to object, with the package's own entries frozen at import
(``shipped``) and the plugin that registered each other name (``origins``), which replay
commands and Dask workers need (docs/extending.md).

>>> registry, shipped, origins = {"a": 1}, {"a": 1}, {}
>>> add(registry, shipped, origins, "thing", "b", 2, origin="my_plugin.py")
>>> origin_of(registry, shipped, origins, "b"), origin_of(registry, shipped, origins, "a")
('my_plugin.py', None)
>>> add(registry, shipped, origins, "thing", "a", 3)
Traceback (most recent call last):
...
simulator.errors.InputError: thing 'a' is already registered (by semcache); give yours another name
"""

from __future__ import annotations

from simulator.errors import InputError


def add(registry: dict, shipped: dict, origins: dict, kind: str, name: str, value,
        origin: str | None = None) -> None:
    """Register ``value`` under ``name``; a name another object holds is refused."""
    held = registry.get(name)
    if held is not None and held is not value:
        by = "semcache" if shipped.get(name) is held else origins.get(name, "your code")
        raise InputError(f"{kind} '{name}' is already registered (by {by}); give yours "
                         "another name")
    registry[name] = value
    if origin is not None:
        origins[name] = origin


def origin_of(registry: dict, shipped: dict, origins: dict, name: str) -> str | None:
    """The plugin that registered ``name``, or None (the package's, or your code's)."""
    return origins.get(name) if registry.get(name) is not shipped.get(name) else None


def is_shipped(registry: dict, shipped: dict, name: str) -> bool:
    """Whether ``name`` is registered as the package registers it (every process has it)."""
    return name in shipped and registry.get(name) is shipped[name]
