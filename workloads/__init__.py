"""The workload registry: one module per workload, listed once here.

Each module defines ``WORKLOAD``, a :class:`workloads.base.Workload` whose
``generate(params, seed)`` returns a validated trace.

>>> get("clusters").params["topics"]
10
"""

from simulator.errors import InputError
from workloads import (adversarial, agent, clusters, cycling, drift, locomo, noise_pool,
                       solar_published, stationary, working_set, zipf_paging)

# In this order everywhere a list of workloads is shown.
REGISTRY = {w.WORKLOAD.name: w.WORKLOAD for w in (
    clusters, zipf_paging,  # generic
    cycling, working_set, noise_pool, drift, stationary, adversarial,  # the SOLAR paper's
    solar_published,  # the SOLAR authors' own traces
    agent,  # the memory-management study's closed loop
    locomo)}  # real conversations


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
