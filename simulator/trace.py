"""Trace files (docs/model.md §6): the arrays one run reads, validated once on the way in.

A semantic trace holds, per step t, a query vector and the vector of the item that
arrives at t; everything else is optional.  A paging trace holds object ids only.
Validation happens here and nowhere else: engines assume a :class:`Trace` is sound.

Item identity: without ``item_keys`` the item arriving at step t has id t; with
``item_keys`` its id is its key (equal keys are the same item).  ``evidence_indices``
name item ids in that sense.
"""

from __future__ import annotations

import dataclasses
import os
import zipfile

import numpy as np

from simulator.atomic_write import write_atomically
from simulator.errors import InputError
from simulator.kernels import normalize_rows

_DTYPES = {
    "queries": np.float32, "items": np.float32, "query_topics": np.int64,
    "item_topics": np.int64, "weights": np.float64, "scored": np.bool_,
    "item_keys": np.int64, "evidence_indptr": np.int64, "evidence_indices": np.int64,
    "requests": np.int64,
}


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

    @classmethod
    def from_arrays(cls, queries, items, query_topics=None, item_topics=None, weights=None,
                    scored=None, item_keys=None, evidence_indptr=None, evidence_indices=None,
                    meta=None) -> "Trace":
        """Validate raw arrays (any array-likes) and return a normalised trace."""
        arrays = {"queries": queries, "items": items, "query_topics": query_topics,
                  "item_topics": item_topics, "weights": weights, "scored": scored,
                  "item_keys": item_keys, "evidence_indptr": evidence_indptr,
                  "evidence_indices": evidence_indices}
        return _validate({k: v for k, v in arrays.items() if v is not None}, meta or {},
                         strict_dtype=False)

    def arrays(self) -> dict:
        """The docs/model.md §6 arrays of this trace (what :func:`save` writes)."""
        out = {"queries": self.queries, "items": self.items, "query_topics": self.query_topics,
               "item_topics": self.item_topics, "weights": self.weights, "scored": self.scored,
               "item_keys": self.item_keys}
        if self.has_evidence:
            out["evidence_indptr"] = self.evidence_indptr
            out["evidence_indices"] = self.evidence_indices
        return out


@dataclasses.dataclass(frozen=True, eq=False)
class PagingTrace:
    """A validated paging trace: object ids, remapped to dense ``0 .. n_keys-1``.

    ``object_ids[dense]`` recovers the original id of a dense key.
    """

    requests: np.ndarray
    object_ids: np.ndarray
    meta: dict = dataclasses.field(default_factory=dict)

    @property
    def steps(self) -> int:
        return int(self.requests.shape[0])

    @property
    def n_keys(self) -> int:
        return int(self.object_ids.shape[0])

    @classmethod
    def from_requests(cls, requests, meta=None) -> "PagingTrace":
        return _validate({"requests": requests}, meta or {}, strict_dtype=False)


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
                   has_evidence=evidence_per_step > 0)

    def finish(self, meta: dict | None = None) -> Trace:
        """The written trace, validated (evidence only when the buffer has some)."""
        evidence = {}
        if self.has_evidence:
            ptr = self.evidence_indptr
            evidence = dict(evidence_indptr=ptr, evidence_indices=self.evidence_indices[:ptr[-1]])
        return Trace.from_arrays(queries=self.queries, items=self.items,
                                 query_topics=self.query_topics, item_topics=self.item_topics,
                                 weights=self.weights, scored=self.scored, meta=meta,
                                 **evidence)


@dataclasses.dataclass(eq=False)
class PagingBuffer:
    """The requests of a paging trace still being written (an adversary), over ``n_keys``
    dense object ids; request t must be set before step t runs."""

    requests: np.ndarray
    n_keys: int

    @property
    def steps(self) -> int:
        return int(self.requests.shape[0])


def _as_array(name, value, strict_dtype):
    """``value`` as the dtype (docs/model.md §6) of array ``name``.

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
    if strict_dtype:
        ok = arr.dtype == want if want == np.float32 else np.can_cast(arr.dtype, want, "safe")
    else:
        ok = arr.dtype.kind in {"f": "fiu", "i": "iu", "b": "b"}[want.kind]
    if not ok:
        raise InputError(f"trace array '{name}' has dtype {arr.dtype}; expected {want.name} "
                         f"(convert with .astype(np.{want.name}))")
    return np.ascontiguousarray(arr, dtype=want)


def _first_bad(mask):
    return int(np.flatnonzero(mask)[0])


def _validate(raw: dict, meta: dict, strict_dtype: bool):
    unknown = set(raw) - set(_DTYPES)
    if unknown:
        raise InputError(f"trace has unknown array '{sorted(unknown)[0]}'; valid arrays: "
                         + ", ".join(_DTYPES))
    a = {k: _as_array(k, v, strict_dtype) for k, v in raw.items()}
    if "requests" in a:
        if len(a) > 1:
            raise InputError("trace mixes 'requests' (paging) with semantic arrays; use one kind")
        req = a["requests"]
        if req.ndim != 1 or req.size == 0:
            raise InputError(f"trace array 'requests' must be 1-D and non-empty, got shape "
                             f"{req.shape}")
        if req.size and req.min() < 0:
            raise InputError(f"trace array 'requests' has a negative id at index "
                             f"{_first_bad(req < 0)}; ids must be >= 0")
        object_ids, dense = np.unique(req, return_inverse=True)
        return PagingTrace(dense.astype(np.int64).reshape(-1), object_ids, dict(meta))
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
        key_map = {int(k): i for i, k in enumerate(np.unique(keys))}
        dense_ev = np.empty_like(idx)
        for j, v in enumerate(idx.tolist()):
            if v not in key_map:
                raise InputError(f"trace array 'evidence_indices' names unknown item {v} at "
                                 f"index {j}")
            dense_ev[j] = rank[key_map[v]]
        idx = dense_ev
    else:
        ptr, idx = np.zeros(T + 1, np.int64), np.zeros(0, np.int64)
    meta = dict(meta)
    return Trace(
        queries=normalize_rows(q), items=normalize_rows(x),
        query_topics=a.get("query_topics", np.full(T, -1, np.int64)),
        item_topics=a.get("item_topics", np.full(T, -1, np.int64)),
        weights=w.astype(np.float64), scored=a.get("scored", np.ones(T, np.bool_)),
        item_keys=dense_keys.astype(np.int64), evidence_indptr=ptr, evidence_indices=idx,
        has_evidence=has_ev, meta=meta)


def load(path) -> Trace | PagingTrace:
    """Load and validate a trace ``.npz`` file (docs/model.md §6).

    Raises :class:`~simulator.errors.InputError` naming the file, array and index on any
    problem, including a missing or corrupted file.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise InputError(f"trace file '{path}' does not exist; give the path of a trace .npz")
    try:
        npz = np.load(path, allow_pickle=False)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise InputError(f"trace file '{path}' is not a readable .npz ({type(exc).__name__}); "
                         "write it with numpy.savez or 'semcache workload make'") from None
    if not isinstance(npz, np.lib.npyio.NpzFile):
        raise InputError(f"trace file '{path}' is a single array (.npy), not an .npz of named "
                         "arrays; write it with numpy.savez(queries=..., items=...)")
    raw = {}
    with npz:
        for name in npz.files:
            try:
                raw[name] = npz[name]
            except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
                raise InputError(f"trace file '{path}': array '{name}' cannot be read "
                                 f"({type(exc).__name__}: object arrays and damaged members "
                                 "are refused)") from None
    return _validate(raw, {"source": path}, strict_dtype=True)


def save(trace: Trace | PagingTrace, path) -> None:
    """Write a trace atomically (a temporary file renamed into place)."""
    path = os.fspath(path)
    arrays = ({"requests": trace.object_ids[trace.requests]} if isinstance(trace, PagingTrace)
              else trace.arrays())
    write_atomically(path, lambda tmp: np.savez(tmp, **arrays), suffix=".npz")
