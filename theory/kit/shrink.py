"""Shrinking a breaking instance: drop steps while it still breaks, to a smallest one.

Used by :func:`theory.check` and the paper's claims (Theorem 5.4) alike: a counterexample
is reported at the size where every single step matters.  A step is dropped with its query
and its arrival; item keys are renumbered densely and evidence that names a dropped item's
key is dropped with it (docs/model.md §6: evidence must name arrived keys); latent item
utilities (``meta["utilities"]``) follow their keys, other meta is not kept.

>>> import numpy as np
>>> from simulator.trace import PagingTrace
>>> from simulator.instance import Instance
>>> inst = Instance(PagingTrace.from_requests(np.array([0, 1, 2, 0, 1, 2])), {"capacity": 2})
>>> small = shrink(inst, lambda i: i.trace.n_keys >= 3)  # "three distinct pages"
>>> small.trace.requests.tolist()
[0, 1, 2]
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from simulator.errors import InputError
from simulator.trace import PagingTrace, Trace
from theory.kit.user_code import shown


def drop_steps(trace, keep) -> object:
    """The sub-trace of the steps ``keep`` (sorted indices), as a new validated trace."""
    if not isinstance(trace, (Trace, PagingTrace)):
        raise InputError(f"drop_steps: trace must be a simulator.Trace or PagingTrace, got "
                         f"{type(trace).__name__}", "trace")
    keep_given = keep
    try:
        keep = np.asarray(keep, np.int64)
    except (TypeError, ValueError):
        keep = None
    if keep is None or keep.ndim != 1 or (keep.size and not (
            0 <= keep.min() and keep.max() < trace.steps and np.all(np.diff(keep) > 0))):
        raise InputError(f"drop_steps: keep must be sorted distinct step indices in "
                         f"[0, {trace.steps}), got {shown(keep_given)}", "keep")
    if isinstance(trace, PagingTrace):
        ids = trace.object_ids[trace.requests[keep]] if trace.object_ids is not None \
            else trace.requests[keep]
        return PagingTrace.from_requests(ids, sizes=trace.request_sizes[keep]
                                         if trace.sized else None)
    kept_keys, dense = np.unique(trace.item_keys[keep], return_inverse=True)
    arrays = dict(queries=trace.queries[keep], items=trace.items[keep],
                  query_topics=trace.query_topics[keep], item_topics=trace.item_topics[keep],
                  weights=trace.weights[keep], scored=trace.scored[keep], item_keys=dense)
    if trace.sized:
        arrays["item_sizes"] = trace.item_sizes[keep]
    if trace.has_evidence:
        where = {int(k): i for i, k in enumerate(kept_keys)}
        indptr, indices = [0], []
        for t in keep:
            span = trace.evidence_indices[trace.evidence_indptr[t]:trace.evidence_indptr[t + 1]]
            indices += [where[int(k)] for k in span if int(k) in where]
            indptr.append(len(indices))
        arrays.update(evidence_indptr=indptr, evidence_indices=np.asarray(indices, np.int64))
    meta = {}
    if "utilities" in trace.meta:  # one latent utility per item key (theory.regret)
        meta["utilities"] = np.asarray(trace.meta["utilities"])[kept_keys]
    return Trace.from_arrays(**arrays, meta=meta)


def shrink(instance, broken: Callable, max_tries: int = 2000):
    """A smallest instance, by dropping steps one at a time, that ``broken(instance)``
    still says True of (``instance`` itself if no step can go).  ``max_tries`` bounds the
    evaluations of ``broken``."""
    from simulator.instance import Instance

    if not isinstance(instance, Instance):
        raise InputError(f"shrink: instance must be a simulator.instance.Instance, got "
                         f"{type(instance).__name__}", "instance")
    if not callable(broken):
        raise InputError(f"shrink: broken must be a function broken(instance) -> bool, got "
                         f"{shown(broken)}", "broken")
    if isinstance(max_tries, bool) or not isinstance(max_tries, int) or max_tries < 0:
        raise InputError(f"shrink: max_tries must be an integer >= 0, got {shown(max_tries)}",
                         "max_tries")
    current, tries, changed = instance, 0, True
    while changed and current.steps > 1 and tries < max_tries:
        changed = False
        for t in range(current.steps):
            keep = np.delete(np.arange(current.steps), t)
            candidate = current.replace(drop_steps(current.trace, keep))
            tries += 1
            if broken(candidate):
                current, changed = candidate, True
                break
            if tries >= max_tries:
                break
    return current
