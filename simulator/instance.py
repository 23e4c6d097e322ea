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
from collections.abc import Mapping

from simulator.errors import InputError

OPTION_NAMES = ("capacity", "top_k", "switch_cost", "quality", "budget")


@dataclasses.dataclass(frozen=True)
class Instance:
    """A trace and its run options (the keyword arguments of :func:`simulator.run`).

    ``trace`` is a :class:`~simulator.trace.Trace` or :class:`~simulator.trace.PagingTrace`;
    ``options`` a dict of :data:`OPTION_NAMES`, each checked as :func:`simulator.run`
    checks it (an option that could not run is one InputError naming ``options`` and the
    option); ``labels`` a dict.
    """

    trace: object
    options: dict
    labels: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        from simulator.run_options import RunOptions
        from simulator.trace import PagingTrace, Trace

        if not isinstance(self.trace, (Trace, PagingTrace)):
            raise InputError("trace must be a simulator.Trace or simulator.PagingTrace, got "
                             f"{type(self.trace).__name__}", "trace")
        for name in ("options", "labels"):
            if not isinstance(getattr(self, name), Mapping):
                raise InputError(f"{name} must be a dict, got "
                                 f"{type(getattr(self, name)).__name__}", name)
        unknown = sorted(str(k) for k in set(self.options) - set(OPTION_NAMES))
        if unknown:
            raise InputError(f"options: unknown {unknown}; valid: {', '.join(OPTION_NAMES)}",
                             "options")
        try:
            RunOptions.build(**self.options)
        except InputError as exc:
            raise InputError(f"options: {exc}", "options") from None

    @property
    def steps(self) -> int:
        return int(self.trace.steps)

    def replace(self, trace) -> "Instance":
        """The same options and labels with another trace (a shrunk one)."""
        return dataclasses.replace(self, trace=trace)
