"""The compiled side of a run: its arrays as one named bundle.

A :class:`~simulator.live_run.LiveRun` hands the step function one argument, a numba
structref whose fields are the trace's arrays, the cache, the policy's state and the
per-step outputs, so that a call from Python unboxes one object instead of thirty (about
0.5 µs instead of 3.4 µs, which a discrete-event engine pays once per event).
"""

from __future__ import annotations

from numba.core import types as nbtypes
from numba.experimental import structref

from simulator.config import njit

# The per-step outputs of a semantic run, in RunResult's names.
OUTPUTS = ("loss", "hit", "precision", "quality", "admitted", "evicted", "deleted", "size")
TRACE_FIELDS = ("queries", "items", "query_topics", "item_topics", "weights", "item_keys",
                "evidence_indptr", "evidence_indices", "has_evidence", "item_sizes")
CACHE_FIELDS = ("slot_key", "slot_vec", "slot_adm", "slot_topic", "key_slot", "free", "counts",
                "sims", "cross", "r_slot", "r_sim", "slot_size")
SEMANTIC_FIELDS = (TRACE_FIELDS + ("k", "qcode") + CACHE_FIELDS + ("state",) + OUTPUTS
                   + ("evict_log", "delete_log"))
PAGING_FIELDS = ("requests", "slot_key", "slot_vec", "slot_adm", "key_slot", "free", "counts",
                 "state", "hit", "request_sizes", "slot_size", "base")
# the cache of a paging run, which a streamed run's bundles share from chunk to chunk
PAGING_CACHE = ("slot_key", "slot_vec", "slot_adm", "key_slot", "free", "counts")


class _Fields(nbtypes.StructRef):
    """A bundle's numba type: a field set from a literal (an int) keeps its plain type."""

    def preprocess_fields(self, fields):
        return tuple((name, nbtypes.unliteral(typ)) for name, typ in fields)


@structref.register
class _SemanticType(_Fields):
    pass


class SemanticArrays(structref.StructRefProxy):
    """The compiled side of a semantic :class:`LiveRun`: fields :data:`SEMANTIC_FIELDS`."""


structref.define_proxy(SemanticArrays, _SemanticType, list(SEMANTIC_FIELDS))


@structref.register
class _PagingType(_Fields):
    pass


class PagingArrays(structref.StructRefProxy):
    """The compiled side of a paging :class:`LiveRun`: fields :data:`PAGING_FIELDS`."""


structref.define_proxy(PagingArrays, _PagingType, list(PAGING_FIELDS))


@njit(cache=True)  # self-contained: safe to cache on its own
def semantic_arrays(*arrays):
    return SemanticArrays(*arrays)


@njit(cache=True)  # self-contained: safe to cache on its own
def paging_arrays(*arrays):
    return PagingArrays(*arrays)
