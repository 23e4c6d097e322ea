"""An instance: one trace with the model options to run it under.

What a claim quantifies over and what a property test draws: the trace, and ``options``,
the keyword arguments of :func:`simulator.run` and :func:`theory.opt.opt` (``capacity``,
``top_k``, ``switch_cost``, ``quality`` and, if any, ``budget``).  ``labels`` name where it
came from (workload, parameters, seed), for sub-ranges and for the commands that replay
it.

>>> import numpy as np
>>> from simulator.trace import PagingTrace
>>> inst = Instance(PagingTrace.from_requests(np.array([0, 1, 0])), {"capacity": 1})
>>> inst.steps, inst.options["capacity"]
(3, 1)
"""

from __future__ import annotations

import dataclasses

OPTION_NAMES = ("capacity", "top_k", "switch_cost", "quality", "budget")


@dataclasses.dataclass(frozen=True)
class Instance:
    """A trace and its run options (the keyword arguments of :func:`simulator.run`)."""

    trace: object
    options: dict
    labels: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        unknown = set(self.options) - set(OPTION_NAMES)
        if unknown:
            raise ValueError(f"options: unknown {sorted(unknown)}; valid: {OPTION_NAMES}")

    @property
    def steps(self) -> int:
        return int(self.trace.steps)

    def replace(self, trace) -> "Instance":
        """The same options and labels with another trace (a shrunk one)."""
        return dataclasses.replace(self, trace=trace)
