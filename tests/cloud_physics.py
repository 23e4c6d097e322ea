"""libCacheSim's CloudPhysics block trace, as the tests that compare with libCacheSim read it.

The files live in the data home (``SEMCACHE_DATA``/``libcachesim-traces``; the shared data
beside the project, see ``conftest.py``): the same 113,872 requests as an ``oracleGeneral``
binary (per-object sizes), a CSV (per-request sizes, read with libCacheSim's options) and
plain text (ids only).
"""

from __future__ import annotations

import os
import pathlib

import pytest

DATA = pathlib.Path(os.environ.get("SEMCACHE_DATA", "/nonexistent")) / "libcachesim-traces"
BINARY = DATA / "cloudPhysicsIO.oracleGeneral.bin"
CSV = DATA / "cloudPhysicsIO.csv"
# libCacheSim's CSV reader options for this file (its test suite's)
CSV_PARAMS = {"obj-id-col": 5, "obj-size-col": 4, "header": "true", "delimiter": ","}
MiB = 1 << 20


def unit_trace():
    """The binary file loaded with every size 1 (libCacheSim's ``ignore_obj_size``); skips
    the test without the data."""
    from simulator.trace_formats import load

    if not BINARY.exists():
        pytest.skip("no libcachesim-traces data")
    return load(BINARY, ignore_sizes=True)


def both_traces() -> dict:
    """``{"bin": trace, "csv": trace}`` loaded by us; skips the test without the data."""
    from simulator.trace_formats import load

    if not CSV.exists():
        pytest.skip("no libcachesim-traces data")
    return {"bin": load(BINARY), "csv": load(CSV, trace_params=CSV_PARAMS)}
