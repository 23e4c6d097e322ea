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
contract every policy meets).  Bad input raises :class:`InputError`.

The core (everything in this package but :mod:`simulator.cli`,
:mod:`simulator.experiments` and :mod:`simulator.testing`) never imports the workloads, the
theory or the application; ``simulator.workloads`` and ``check_policy`` (the contract kit,
:mod:`simulator.testing.contract`) are the names handed on from a floor above, loaded on
first use.  Modules moved to the folders of docs/development.md ("The tree") still import
by their old names, with a DeprecationWarning (:mod:`simulator.moved`).
"""

from simulator import policies
from simulator.config import njit
from simulator.errors import InputError
from simulator.live_run import LiveRun
from simulator import moved
from simulator.policies.base import Policy, Traits
from simulator.runner import RunResult, run
from simulator.stream_run import stream_run
from simulator.trace import PagingTrace, Trace, TraceBuffer
from simulator.trace_formats import load, save

__all__ = ["InputError", "LiveRun", "PagingTrace", "Policy", "RunResult", "Trace",
           "TraceBuffer", "Traits", "check_policy", "load", "njit", "policies", "run", "save",
           "stream_run", "workloads"]


moved.install()  # old module paths keep importing, with a warning


def __getattr__(name):
    if name == "workloads":  # a floor above the core: loaded when first asked for
        import workloads

        return workloads
    if name == "check_policy":  # the contract kit, on the application floor with the rest
        from simulator.testing.contract import check_policy

        return check_policy
    raise AttributeError(f"module 'simulator' has no attribute {name!r}")
