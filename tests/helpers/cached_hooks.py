"""A policy whose hooks, called one by one from Python, load from numba's disk cache.

The hook driver (:class:`simulator.testing.HookDriver`) calls a policy's hooks directly,
so each hook compiles on its own in every process (1 to 6 s a policy): the package caches
only the engine's loops, never a hook alone, since numba checks a cached function against
its own file only.  :func:`cached_hooks` gives the same policy with each hook a
disk-cached copy of the same code, named as the engine names its loops
(:func:`simulator.engine.kernel_cache.suffix`: the policy, its hooks, the engine's files
and everything the hooks reach), so an edit anywhere a hook reaches compiles it afresh.
The compiled code is that of the hook as written; only where numba keeps it differs.
"""

from __future__ import annotations

import dataclasses
import types

import numba

from simulator import policies
from simulator.config import JIT
from simulator.engine import kernel_cache
from simulator.engine.fast import HOOKS

_CACHED: dict = {}


def cached_hooks(name: str):
    """The registered policy ``name`` with disk-cached copies of its hooks (the policy as
    registered when a hook has no source file to name the copy after)."""
    if name not in _CACHED:
        pol = policies.get(name)
        if not kernel_cache.disk_cached(pol, HOOKS):
            _CACHED[name] = pol
        else:
            suffix = kernel_cache.suffix(pol, HOOKS)
            _CACHED[name] = dataclasses.replace(
                pol, **{hook: _copy(getattr(pol, hook), suffix) for hook in HOOKS})
    return _CACHED[name]


def _copy(hook, suffix: str):
    py = hook.py_func
    name = f"{py.__name__}_{suffix}"
    fn = types.FunctionType(py.__code__, py.__globals__, name, py.__defaults__,
                            py.__closure__)
    fn.__qualname__, fn.__module__ = name, py.__module__
    # under a lock named after it: a second process waits, then loads what the first saved
    return kernel_cache.locked(numba.njit(fn, **{**JIT, "cache": True}))
