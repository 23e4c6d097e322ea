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

A name is what a command line selects (``--policy a,b``) and what a saved file is named
after, so it is checked when registered (:func:`check_name`): a string of at most 64
letters, digits, ``_``, ``.`` and ``-`` that starts with a letter or digit.

>>> check_name("claim", "../../escape", "id")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
simulator.errors.InputError: claim id '../../escape' must be 1 to 64 letters, digits, ...
"""

from __future__ import annotations

import re

from simulator.errors import InputError

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def check_name(kind: str, name, field: str = "name") -> str:
    """``name`` if it is a valid registry name (module docstring), else one InputError
    naming ``kind`` and the rule.  ``field`` is what the kind calls its name (``id`` for a
    claim)."""
    if not isinstance(name, str):
        raise InputError(f"{kind} {field} must be a string, got {type(name).__name__} "
                         f"{name!r}")
    if not _NAME.fullmatch(name):
        raise InputError(f"{kind} {field} {name!r} must be 1 to 64 letters, digits, '_', "
                         "'.' or '-', starting with a letter or digit (it names files and is "
                         "selected by --only/--policy lists)")
    return name


def add(registry: dict, shipped: dict, origins: dict, kind: str, name: str, value,
        origin: str | None = None) -> None:
    """Register ``value`` under ``name`` (checked by :func:`check_name`); a name another
    object holds is refused."""
    check_name(kind, name, "id" if kind == "claim" else "name")
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


def defining_plugin(value, first=()) -> str | None:
    """The ``--plugin`` another process loads to have ``value`` (a Policy, a Claim …)
    defined as here: the file of a loaded module whose top level holds it, or its
    importable name when that module belongs to a package (so its relative imports work);
    None when no module does (a notebook cell, a function's local) or only the running
    script does (loading it as a plugin would run the script again; multiprocessing also
    calls it ``__mp_main__``).  ``first`` names modules to look in before the others
    (those of its hooks: the likely ones).

    >>> import simulator.policies.fifo as fifo
    >>> defining_plugin(fifo.POLICY)
    'simulator.policies.fifo'
    """
    import os
    import sys

    main = sys.modules.get("__main__")
    modules = dict((m, sys.modules.get(m)) for m in first)
    modules.update(sys.modules)
    for name, module in list(modules.items()):
        path = getattr(module, "__file__", None)
        if module is None or module is main or not isinstance(path, str) \
                or not path.endswith(".py") or not os.path.isfile(path):
            continue
        try:
            held = any(v is value for v in list(vars(module).values()))
        except TypeError:  # a module object without a __dict__
            continue
        if not held:
            continue
        spec = getattr(module, "__spec__", None)
        if spec is not None and spec.parent and spec.name == name:
            return name
        return os.path.realpath(path)
    return None

