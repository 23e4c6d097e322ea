"""Where a policy's twin registers itself: ``@twin_of("fifo")`` on the twin's class.

Adding a built-in policy touches its module, the registry line and its twin, which names
the policy it mirrors here; :mod:`helpers.naive` loads the twin modules and serves
:data:`TWINS` as its ``POLICIES``.
"""

from __future__ import annotations

TWINS: dict = {}  # policy name -> its twin class


def twin_of(name: str):
    """Register the decorated class as the twin of policy ``name`` (once per name)."""
    def register(cls):
        if name in TWINS:
            raise ValueError(f"policy '{name}' has two twins: {TWINS[name].__name__} and "
                             f"{cls.__name__}")
        TWINS[name] = cls
        return cls

    return register
