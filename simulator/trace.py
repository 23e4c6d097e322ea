"""Traces (docs/model.md §6): the arrays one run reads, validated once on the way in.

A semantic trace holds, per step t, a query vector and the vector of the item that
arrives at t; everything else is optional.  A paging trace holds object ids and the size
each request states.  Validation happens here and nowhere else: engines assume a
:class:`Trace` is sound.  Files are read and written by :mod:`simulator.trace_formats`.

Item identity: without ``item_keys`` the item arriving at step t has id t; with
``item_keys`` its id is its key (equal keys are the same item).  ``evidence_indices``
name item ids in that sense.  What is allowed, and what it means (docs/model.md §6):

* Equal keys must give equal sizes (the budget counts an item once), but each arrival
  carries its own vector and topic: a re-arrival of a cached item changes nothing (the
  cached copy keeps what it was admitted with), and an item admitted again is admitted as
  it arrives then (an item whose content changed).  The engines, the reference model of
  the tests and the offline optimum all read arrivals this way.
* Evidence is a set of relevant items, by key: a key listed twice in a step counts once,
  and a key whose item has not arrived yet (or is not cached) is relevant but cannot be
  retrieved, so it changes no result (latent-relevance workloads such as ``stationary``
  list every relevant item whether or not it has arrived).  A key no arrival has is an
  error.
* From a file, every array must already have a dtype that casts safely to its own, and
  booleans are only ``scored``: ``True`` is no id, topic, key or size.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from simulator import trace_columns
from simulator.errors import InputError
from simulator.engine.kernels import normalize_rows
from simulator.engine.size_limits import total_size

_DTYPES = {
    "queries": np.float32, "items": np.float32, "query_topics": np.int64,
    "item_topics": np.int64, "weights": np.float64, "scored": np.bool_,
    "item_keys": np.int64, "evidence_indptr": np.int64, "evidence_indices": np.int64,
    "item_sizes": np.int64, "requests": np.int64, "request_sizes": np.int64,
    "times": np.float64, "supersedes": np.int64,
}
_PAGING = ("requests", "request_sizes")


@dataclasses.dataclass(frozen=True, eq=False)
class _SemanticArrays:
    """The arrays a semantic run reads (docs/model.md §6), one row per step."""

    queries: np.ndarray
    items: np.ndarray
    query_topics: np.ndarray
    item_topics: np.ndarray
    weights: np.ndarray
    scored: np.ndarray
    item_keys: np.ndarray
    evidence_indptr: np.ndarray
    evidence_indices: np.ndarray
    has_evidence: bool
    item_sizes: np.ndarray

    @property
    def steps(self) -> int:
        return int(self.queries.shape[0])

    @property
    def dim(self) -> int:
        return int(self.queries.shape[1])

    @property
    def n_keys(self) -> int:
        """Number of distinct items (keys are dense ``0 .. n_keys-1``)."""
        return int(self.item_keys.max()) + 1 if self.steps else 0

    @property
    def sized(self) -> bool:
        """Whether some item's size is not 1."""
        return bool((self.item_sizes != 1).any())


@dataclasses.dataclass(frozen=True, eq=False)
class Trace(_SemanticArrays):
    """A validated semantic trace; build it with :meth:`from_arrays` or :func:`load`.

    Examples
    --------
    >>> import numpy as np
    >>> tr = Trace.from_arrays(queries=np.eye(3, dtype=np.float32),
    ...                        items=np.eye(3, dtype=np.float32),
    ...                        query_topics=np.array([0, 1, 2]), item_topics=np.array([0, 1, 2]))
    >>> tr.steps, tr.dim, tr.n_keys
    (3, 3, 3)
    """

    meta: dict = dataclasses.field(default_factory=dict)
    times: np.ndarray | None = None
    supersedes: np.ndarray | None = None

    def __post_init__(self):
        # however a trace is made (validate, dataclasses.replace), its sizes keep every
        # tally of a run within int64 (simulator.engine.size_limits)
        total_size(self.item_sizes, "trace array 'item_sizes'")

    @classmethod
    def from_arrays(cls, queries, items, query_topics=None, item_topics=None, weights=None,
                    scored=None, item_keys=None, evidence_indptr=None, evidence_indices=None,
                    item_sizes=None, meta=None, times=None, supersedes=None) -> "Trace":
        """Validate raw arrays (any array-likes) and return a normalised trace; ``times``
        and ``supersedes`` as :mod:`simulator.trace_columns` says (docs/model.md §1.9)."""
        arrays = {"queries": queries, "items": items, "query_topics": query_topics,
                  "item_topics": item_topics, "weights": weights, "scored": scored,
                  "item_keys": item_keys, "evidence_indptr": evidence_indptr,
                  "evidence_indices": evidence_indices, "item_sizes": item_sizes,
                  "times": times, "supersedes": supersedes}
        return validate({k: v for k, v in arrays.items() if v is not None}, meta or {})

    def arrays(self) -> dict:
        """The docs/model.md §6 arrays of this trace (what a trace file holds); sizes only
        when some size is not 1."""
        out = {"queries": self.queries, "items": self.items, "query_topics": self.query_topics,
               "item_topics": self.item_topics, "weights": self.weights, "scored": self.scored,
               "item_keys": self.item_keys}
        if self.has_evidence:
            out["evidence_indptr"] = self.evidence_indptr
            out["evidence_indices"] = self.evidence_indices
        if self.sized:
            out["item_sizes"] = self.item_sizes
        out.update({name: getattr(self, name) for name in ("times", "supersedes")
                    if getattr(self, name) is not None})
        return out


@dataclasses.dataclass(frozen=True, eq=False)
class PagingTrace:
    """A validated paging trace: object ids, remapped to dense ``0 .. n_keys-1``, and the
    size each request states (docs/model.md §1.8).

    ``object_ids[dense]`` recovers the original id of a dense key (int64 or, from
    libCacheSim's formats, uint64).
    """

    requests: np.ndarray
    object_ids: np.ndarray
    request_sizes: np.ndarray
    meta: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        total_size(self.request_sizes, "trace array 'request_sizes'")  # as Trace's

    @property
    def steps(self) -> int:
        return int(self.requests.shape[0])

    @property
    def n_keys(self) -> int:
        return int(self.object_ids.shape[0])

    @property
    def sized(self) -> bool:
        """Whether some request's size is not 1."""
        return bool((self.request_sizes != 1).any())

    @classmethod
    def from_requests(cls, requests, sizes=None, meta=None) -> "PagingTrace":
        """Validate object ids (int64 >= 0 or uint64) and optional sizes (int64 >= 1)."""
        raw = {"requests": requests} if sizes is None else {"requests": requests,
                                                             "request_sizes": sizes}
        return validate(raw, meta or {})

    def arrays(self) -> dict:
        """What a trace file holds: the original ids, and sizes when some size is not 1."""
        out = {"requests": self.object_ids[self.requests]}
        if self.sized:
            out["request_sizes"] = self.request_sizes
        return out


@dataclasses.dataclass(frozen=True, eq=False)
class TraceBuffer(_SemanticArrays):
    """The arrays of a semantic trace still being written, for a run that reads it as it
    goes (a closed loop, an adversary): row t must be complete before step t runs.  The
    arrays are written in place, never replaced.

    :meth:`blank` gives unit weights, no topics, keys ``0 .. T-1`` (every arrival a new
    item) and room for ``evidence_per_step`` evidence keys a step; :meth:`finish` validates
    the finished rows into a :class:`Trace`.

    Examples
    --------
    >>> import numpy as np
    >>> buf = TraceBuffer.blank(steps=2, dim=3)
    >>> buf.queries[:] = buf.items[:] = np.eye(3, dtype=np.float32)[:2]
    >>> buf.finish().steps
    2
    """

    @classmethod
    def blank(cls, steps: int, dim: int, evidence_per_step: int = 0) -> "TraceBuffer":
        T = int(steps)
        return cls(queries=np.zeros((T, dim), np.float32), items=np.zeros((T, dim), np.float32),
                   query_topics=np.full(T, -1, np.int64), item_topics=np.full(T, -1, np.int64),
                   weights=np.ones(T), scored=np.ones(T, np.bool_),
                   item_keys=np.arange(T, dtype=np.int64),
                   evidence_indptr=np.zeros(T + 1, np.int64),
                   evidence_indices=np.zeros(T * evidence_per_step, np.int64),
                   has_evidence=evidence_per_step > 0, item_sizes=np.ones(T, np.int64))

    def finish(self, meta: dict | None = None) -> Trace:
        """The written trace, validated (evidence only when the buffer has some)."""
        evidence = {}
        if self.has_evidence:
            ptr = self.evidence_indptr
            evidence = dict(evidence_indptr=ptr, evidence_indices=self.evidence_indices[:ptr[-1]])
        return Trace.from_arrays(queries=self.queries, items=self.items,
                                 query_topics=self.query_topics, item_topics=self.item_topics,
                                 weights=self.weights, scored=self.scored,
                                 item_sizes=self.item_sizes, meta=meta, **evidence)


@dataclasses.dataclass(eq=False)
class PagingBuffer:
    """The requests of a paging trace still being written (an adversary), over ``n_keys``
    dense object ids; request t must be set before step t runs.

    An empty buffer is what a streamed run is made with (its requests come with
    :meth:`LiveRun.feed <simulator.live_run.LiveRun.feed>`); ``sized`` says whether they
    carry sizes (an adversary's carry none), ``object_ids`` the file's id of each dense
    key (a streamed run's; None when the requests have no ids of their own).
    """

    requests: np.ndarray
    n_keys: int
    sized: bool = False
    object_ids: np.ndarray | None = None

    @property
    def steps(self) -> int:
        return int(self.requests.shape[0])

    @property
    def request_sizes(self) -> np.ndarray:
        return np.ones(self.steps, np.int64)


def _as_array(name, value, strict_dtype):
    """``value`` as the dtype (docs/model.md §6) of array ``name`` (``requests`` may also
    be uint64: libCacheSim's object ids).

    From files (``strict_dtype``) vectors must already be float32 and other arrays must
    cast safely (e.g. int32 topics, float32 weights); from Python any numeric array of the
    right kind is converted.
    """
    want = np.dtype(_DTYPES[name])
    try:
        arr = np.asarray(value)
    except ValueError:
        raise InputError(f"trace array '{name}' is ragged; give a rectangular array") from None
    if arr.dtype == object:
        raise InputError(f"trace array '{name}' is ragged or has dtype object; "
                         f"give a rectangular {want.name} array")
    if name == "requests" and arr.dtype == np.uint64:
        return np.ascontiguousarray(arr)
    if arr.size == 0 and not strict_dtype:  # [] has no dtype to check: its shape decides
        return np.zeros(arr.shape, want)
    if strict_dtype:
        ok = arr.dtype == want if want == np.float32 else np.can_cast(arr.dtype, want, "safe")
        # bool casts safely to any number, but True/False are no ids, topics or sizes
        ok = ok and (arr.dtype != np.bool_ or want == np.bool_)
    else:
        ok = arr.dtype.kind in {"f": "fiu", "i": "iu", "b": "b"}[want.kind]
    if not ok:
        why = "True/False are only for scored" if arr.dtype == np.bool_ else (
            f"convert with .astype(np.{want.name})")
        raise InputError(f"trace array '{name}' has dtype {arr.dtype}; expected {want.name} "
                         f"({why})")
    return np.ascontiguousarray(arr, dtype=want)


def _first_bad(mask):
    return int(np.flatnonzero(mask)[0])


def _sizes(a: dict, name: str, T: int) -> np.ndarray:
    """Array ``name`` of sizes, checked (int64 in 1 .. 2**53, one per step, adding up to at
    most 2**61: :mod:`simulator.engine.size_limits`), or all 1 when absent."""
    if name not in a:
        return np.ones(T, np.int64)
    sizes = a[name]
    if sizes.shape != (T,):
        raise InputError(f"trace array '{name}' has shape {sizes.shape}; expected ({T},)")
    if (sizes < 1).any():
        raise InputError(f"trace array '{name}' has a size below 1 at index "
                         f"{_first_bad(sizes < 1)}; sizes are integers >= 1")
    return sizes  # bounded by Trace and PagingTrace themselves


def validate(raw: dict, meta: dict, strict_dtype: bool = False):
    """Named arrays (docs/model.md §6) as a validated :class:`Trace` or
    :class:`PagingTrace`.  ``strict_dtype``: the arrays come from a file, so vectors must
    be float32 and other arrays must cast safely."""
    unknown = set(raw) - set(_DTYPES)
    if unknown:
        raise InputError(f"trace has unknown array '{sorted(unknown)[0]}'; valid arrays: "
                         + ", ".join(_DTYPES))
    a = {k: _as_array(k, v, strict_dtype) for k, v in raw.items()}
    if "requests" in a:
        if set(a) - set(_PAGING):
            raise InputError("trace mixes 'requests' (paging) with semantic arrays; use one kind")
        req = a["requests"]
        if req.ndim != 1 or req.size == 0:
            raise InputError(f"trace array 'requests' must be 1-D and non-empty, got shape "
                             f"{req.shape}")
        if req.size and req.min() < 0:
            raise InputError(f"trace array 'requests' has a negative id at index "
                             f"{_first_bad(req < 0)}; ids must be >= 0")
        sizes = _sizes(a, "request_sizes", req.size)
        object_ids, dense = np.unique(req, return_inverse=True)
        return PagingTrace(dense.astype(np.int64).reshape(-1), object_ids, sizes, dict(meta))
    if "request_sizes" in a:
        raise InputError("trace array 'request_sizes' belongs to a paging trace (with "
                         "'requests'); a semantic trace has 'item_sizes'")
    for name in ("queries", "items"):
        if name not in a:
            raise InputError(f"trace is missing array '{name}' (float32 [T, d]); "
                             "a paging trace has 'requests' instead")
        if a[name].ndim != 2:
            raise InputError(f"trace array '{name}' must be 2-D [T, d], got shape {a[name].shape}")
    q, x = a["queries"], a["items"]
    if q.shape != x.shape:
        raise InputError(f"trace arrays 'queries' {q.shape} and 'items' {x.shape} differ in shape")
    T, d = q.shape
    if T == 0 or d == 0:
        raise InputError(f"trace array 'queries' is empty (shape {q.shape}); need T >= 1, d >= 1")
    for name in ("queries", "items"):
        v = a[name]
        finite = np.isfinite(v).all(axis=1)
        if not finite.all():
            raise InputError(f"trace array '{name}' has NaN or inf at index {_first_bad(~finite)}")
        zero = ~(v != 0).any(axis=1)
        if zero.any():
            raise InputError(f"trace array '{name}' has a zero vector at index {_first_bad(zero)}")
    for name in ("query_topics", "item_topics", "weights", "scored", "item_keys"):
        if name in a and a[name].shape != (T,):
            raise InputError(f"trace array '{name}' has shape {a[name].shape}; expected ({T},)")
    for name in ("query_topics", "item_topics"):
        if name in a and (a[name] < -1).any():
            raise InputError(f"trace array '{name}' has a value below -1 at index "
                             f"{_first_bad(a[name] < -1)}; topics are >= 0 or -1 for none")
    w = a.get("weights", np.ones(T))
    bad = ~((w >= 0) & (w <= 1))
    if bad.any():
        raise InputError(f"trace array 'weights' is outside [0, 1] at index {_first_bad(bad)}")
    keys = a.get("item_keys")
    if keys is None:
        keys = np.arange(T, dtype=np.int64)
    elif (keys < 0).any():
        raise InputError(f"trace array 'item_keys' has a negative key at index "
                         f"{_first_bad(keys < 0)}")
    # Dense keys in order of first arrival, so policies can index arrays by key.
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    rank = np.empty(first.size, np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    dense_keys = rank[inverse.reshape(-1)]
    sizes = _sizes(a, "item_sizes", T)
    differ = sizes != sizes[first][inverse.reshape(-1)]  # each arrival against its key's first
    if differ.any():
        t = _first_bad(differ)
        raise InputError(f"trace array 'item_sizes' gives item key {int(keys[t])} size "
                         f"{int(sizes[t])} at index {t} but {int(sizes[first[inverse[t]]])} "
                         "before; equal item_keys are one item, of one size")
    has_ev = "evidence_indptr" in a or "evidence_indices" in a
    if has_ev:
        if "evidence_indptr" not in a or "evidence_indices" not in a:
            raise InputError("trace has only one of 'evidence_indptr' and 'evidence_indices'; "
                             "give both (CSR)")
        ptr, idx = a["evidence_indptr"], a["evidence_indices"]
        if ptr.shape != (T + 1,):
            raise InputError(f"trace array 'evidence_indptr' has shape {ptr.shape}; "
                             f"expected ({T + 1},)")
        if ptr[0] != 0 or (np.diff(ptr) < 0).any() or ptr[-1] != idx.size or idx.ndim != 1:
            raise InputError("trace array 'evidence_indptr' is not a valid CSR pointer "
                             "(must start at 0, not decrease, and end at len(evidence_indices))")
        idx = trace_columns.dense_evidence(idx, keys, rank)
    else:
        ptr, idx = np.zeros(T + 1, np.int64), np.zeros(0, np.int64)
    times = trace_columns.times(a.get("times"), T)
    supersedes = trace_columns.supersedes(a.get("supersedes"), T, keys, first, rank)
    meta = dict(meta)
    return Trace(times=times, supersedes=supersedes,
        queries=normalize_rows(q), items=normalize_rows(x),
        query_topics=a.get("query_topics", np.full(T, -1, np.int64)),
        item_topics=a.get("item_topics", np.full(T, -1, np.int64)),
        weights=w.astype(np.float64), scored=a.get("scored", np.ones(T, np.bool_)),
        item_keys=dense_keys.astype(np.int64), evidence_indptr=ptr, evidence_indices=idx,
        has_evidence=has_ev, item_sizes=sizes, meta=meta)

