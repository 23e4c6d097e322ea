"""semcache: a simulator of semantic caches (agent memory); ``import simulator`` is the front door.

>>> import simulator
>>> trace = simulator.workloads.get("clusters").generate({"steps": 300, "topics": 5}, seed=0)
>>> result = simulator.run(trace, "fifo", capacity=10, top_k=3)
>>> result.summary()["steps"], "fifo" in simulator.policies.REGISTRY
(300, True)

Running: :func:`run` (one policy over one trace, a :class:`RunResult`),
:class:`LiveRun` (a run in progress, stepped by hand) and :func:`stream_run` (paging
policies over a trace file read in chunks, however long).  Traces: :class:`Trace`,
:class:`PagingTrace`, :func:`load`, :func:`save`, and :class:`TraceBuffer` for a trace
still being written.  Registries: :mod:`policies <simulator.policies>` (``REGISTRY``,
``get``) and :mod:`workloads` (``REGISTRY``, ``get``).  Your own policy: :class:`Policy`,
:class:`Traits`, :func:`njit` (the project's numba flags) and :func:`check_policy` (the
contract every policy meets).  Bad input raises :class:`InputError`.  ``__version__`` is
the installed distribution's version.

The core (everything in this package but :mod:`simulator.cli`,
:mod:`simulator.experiments` and :mod:`simulator.testing`) never imports the workloads, the
theory or the application; ``simulator.workloads`` and ``check_policy`` (the contract kit,
:mod:`simulator.testing.contract`) are the names handed on from a floor above.  Every
public name is loaded on first use, so ``import simulator`` (and ``semcache --version``)
costs nothing until a name is asked for.  Modules moved to the folders of
docs/development.md ("The tree") still import by their old names, with a
DeprecationWarning (:mod:`simulator.moved`).
"""

import importlib
import sys
import types
from typing import TYPE_CHECKING

from simulator import moved

if TYPE_CHECKING:  # never run: the API reference (griffe) reads the names of the core here
    from simulator import policies
    from simulator.config import njit
    from simulator.errors import InputError
    from simulator.live_run import LiveRun
    from simulator.policies.base import Policy, Traits
    from simulator.runner import RunResult, run
    from simulator.stream_run import stream_run
    from simulator.trace import PagingTrace, Trace, TraceBuffer
    from simulator.trace_formats import load, save

# Where each public name lives, the modules behind the front door (the imports above say
# the same of the core's names for readers of the source; tests/test_front_pages.py holds
# them together).  _NAMES are read from their module; _MODULES are modules themselves.
_NAMES = {"InputError": "simulator.errors", "LiveRun": "simulator.live_run",
          "PagingTrace": "simulator.trace", "Policy": "simulator.policies.base",
          "RunResult": "simulator.runner", "Trace": "simulator.trace",
          "TraceBuffer": "simulator.trace", "Traits": "simulator.policies.base",
          "check_policy": "simulator.testing.contract",  # a floor above: the contract kit
          "load": "simulator.trace_formats", "njit": "simulator.config",
          "run": "simulator.runner", "save": "simulator.trace_formats",
          "stream_run": "simulator.stream_run"}
_MODULES = {"policies": "simulator.policies",
            "workloads": "workloads"}  # a floor above the core

__all__ = ["InputError", "LiveRun", "PagingTrace", "Policy", "RunResult", "Trace",
           "TraceBuffer", "Traits", "check_policy", "load", "njit", "policies", "run", "save",
           "stream_run", "workloads"]


def _version() -> str:
    """The installed distribution's version (``pyproject.toml`` is read only at install)."""
    from importlib import metadata

    try:
        return metadata.version("semcache")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def __getattr__(name):
    if name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name]), name)
    elif name in _MODULES:
        value = importlib.import_module(_MODULES[name])
    elif name == "__version__":
        value = _version()
    else:
        raise AttributeError(f"module 'simulator' has no attribute {name!r}")
    globals()[name] = value  # asked once: later reads find it without this function
    return value


def __dir__():
    # the public names, loaded or not, and the submodules loaded so far (as before: the
    # plumbing of this file is not the package's)
    loaded = [name for name, value in globals().items() if name.startswith("__")
              or isinstance(value, types.ModuleType) and value.__name__ == f"simulator.{name}"]
    return sorted({*__all__, *loaded})


class _FrontDoor(types.ModuleType):
    """This package's module type: importing the module ``simulator.stream_run`` binds it
    here by its name, over the function of that name; the function stays."""

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and value.__name__ == _NAMES.get(name):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _FrontDoor
moved.install()  # old module paths keep importing, with a warning
