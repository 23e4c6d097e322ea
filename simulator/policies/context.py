"""What a policy's ``init`` may know about the run (:class:`Context`)."""

from __future__ import annotations

import dataclasses
import functools
import warnings

import numpy as np


def _keywords_only(cls):
    """``cls`` built with keywords, as its fields are named; positional arguments (the
    way a ``Context`` was built before) still work, with a DeprecationWarning."""
    built = cls.__init__
    # fields added since positional arguments were deprecated never had a position
    names = [field.name for field in dataclasses.fields(cls)
             if not field.metadata.get("keyword_only")]

    @functools.wraps(built)
    def __init__(self, *args, **kwargs):
        if args:
            if len(args) > len(names):
                raise TypeError(f"{cls.__name__}() takes at most {len(names)} arguments, "
                                f"got {len(args)}")
            warnings.warn(f"{cls.__name__}() takes keywords: {cls.__name__}("
                          + ", ".join(f"{n}=..." for n in names[:len(args)])
                          + "); positional arguments are deprecated",
                          DeprecationWarning, stacklevel=2)
            twice = sorted(set(names[:len(args)]) & set(kwargs))
            if twice:
                raise TypeError(f"{cls.__name__}() got {twice[0]!r} twice")
            kwargs.update(zip(names, args))
        built(self, **kwargs)

    cls.__init__ = __init__
    return cls


@_keywords_only
@dataclasses.dataclass(frozen=True, kw_only=True)
class Context:
    """What a policy's ``init`` may know about the run, built with keywords.

    ``capacity`` is the count limit the policy plans with (K; with a budget and no K, the
    most items the budget can hold); ``slots`` is how many slots the engine has (at most
    ``capacity`` and the number of items), which bounds every per-slot array; ``budget``
    is the total size allowed (docs/model.md §1.8) or None.  ``params`` is the validated
    parameter dict (defaults filled in); ``trace`` is the whole trace, for offline
    references such as Belady only.  ``mode`` is ``"semantic"`` or ``"paging"``;
    ``object_ids`` the trace's own id of each dense key when it has them (a paging
    trace's ``object_ids``), else None.  ``times`` is the float64 array [T] of the
    steps' times in seconds (any origin, non-decreasing), or None when the trace has
    none; ``supersedes`` the int64 array [T] of the item key each step's arrival
    supersedes (-1 for none), or None when the trace records none.  Every policy gets
    both, online or not (they are not the trace), and an online one reads entry t at
    step t or later only: ``times[0..t]`` and ``supersedes[0..t]`` at step t
    (docs/model.md §1.9).  Positional arguments, in the order of the fields, still work,
    with a DeprecationWarning.

    >>> Context(capacity=2, n_keys=10, dim=3, params={}, seed=0).slots
    2
    """

    capacity: int
    n_keys: int
    dim: int
    params: dict
    seed: int
    switch_cost: float = 0.0
    trace: object = None
    slots: int = 0
    budget: int | None = None
    mode: str = "semantic"
    object_ids: np.ndarray | None = None
    times: np.ndarray | None = dataclasses.field(default=None,
                                                 metadata={"keyword_only": True})
    supersedes: np.ndarray | None = dataclasses.field(default=None,
                                                      metadata={"keyword_only": True})

    def __post_init__(self):
        if not self.slots:  # as many slots as the count limit allows items
            object.__setattr__(self, "slots", min(self.capacity, max(self.n_keys, 1)))
