"""The workload registry: one module per workload, listed once here.

Each module defines ``WORKLOAD``, a :class:`workloads.base.Workload` whose
``generate(params, seed)`` returns a validated trace.

>>> get("clusters").params["topics"]
10
"""

from simulator import registration
from simulator.errors import InputError
from workloads import (agent, clusters, cycling, drift, locomo, noise_pool, solar_published,
                       stationary, working_set, zipf_paging)
from workloads.adversaries import workload as adversarial

__all__ = ["REGISTRY", "register", "get", "available", "shipped", "origin"]

# In this order everywhere a list of workloads is shown.
REGISTRY = {w.WORKLOAD.name: w.WORKLOAD for w in (
    clusters, zipf_paging,  # generic
    cycling, working_set, noise_pool, drift, stationary, adversarial,  # the SOLAR paper's
    solar_published,  # the SOLAR authors' own traces
    agent,  # the memory-management study's closed loop
    locomo)}  # real conversations


_SHIPPED = dict(REGISTRY)
ORIGINS: dict = {}  # name -> the plugin (a file path or a module name) that registered it


def register(workload, origin: str | None = None) -> None:
    """Add ``workload`` under its name; ``origin`` is the plugin that defines it (named by
    replay commands).  A name taken by another workload is refused."""
    from workloads.base import Workload

    if not isinstance(workload, Workload):
        raise InputError(f"register() takes a workloads.base.Workload, got "
                         f"{type(workload).__name__}")
    registration.add(REGISTRY, _SHIPPED, ORIGINS, "workload", workload.name, workload, origin)


def shipped(name: str) -> bool:
    """Whether ``name`` is registered as the package registers it (every process has it)."""
    return registration.is_shipped(REGISTRY, _SHIPPED, name)


def origin(name: str) -> str | None:
    """The plugin that registered workload ``name``, or None."""
    return registration.origin_of(REGISTRY, _SHIPPED, ORIGINS, name)


def available() -> list:
    """Names of the workloads that can generate on this machine (data-backed ones need
    their data: ``solar_published`` needs the authors' traces)."""
    return [name for name, w in REGISTRY.items() if w.available()]


def get(name: str):
    """The registered workload called ``name``; an unknown name raises InputError."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown workload '{name}'; valid workloads: "
                         + ", ".join(REGISTRY)) from None
