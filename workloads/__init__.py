"""The workload registry: one module per workload, one line here per module.

Each module defines ``WORKLOAD``, a :class:`workloads.base.Workload` whose
``generate(params, seed)`` returns a validated trace.

>>> get("clusters").params["topics"]
10
"""

from simulator.errors import InputError
from workloads import (adversarial, clusters, cycling, drift, noise_pool, solar_published,
                       stationary, working_set, zipf_paging)

REGISTRY = {w.WORKLOAD.name: w.WORKLOAD for w in (clusters, zipf_paging, cycling, working_set,
                                                  noise_pool, drift, stationary, adversarial,
                                                  solar_published)}

from workloads import agent  # noqa: E402  (issue 6: the closed-loop memory-study agent)

REGISTRY["agent"] = agent.WORKLOAD

from workloads import locomo  # noqa: E402  (issue 7: real conversations, text embeddings)

REGISTRY["locomo"] = locomo.WORKLOAD


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
