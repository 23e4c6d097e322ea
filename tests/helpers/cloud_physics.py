"""libCacheSim's CloudPhysics block trace, as the tests that compare with libCacheSim read it.

The files are the dataset ``libcachesim-traces`` (:mod:`datasets`): the same 113,872
requests as an ``oracleGeneral`` binary (per-object sizes), a CSV (per-request sizes, read
with libCacheSim's options) and plain text (ids only).  A test that reads them is marked
:data:`NEEDED`.
"""

from __future__ import annotations

import pytest

from helpers import datasets

NEEDED = pytest.mark.data("libcachesim-traces")
# libCacheSim's CSV reader options for this file (its test suite's)
CSV_PARAMS = {"obj-id-col": 5, "obj-size-col": 4, "header": "true", "delimiter": ","}
MiB = 1 << 20
# The byte budgets (MiB) at which runs from the binary file and the CSV are compared with
# libCacheSim's: every budget from one file, each file at a budget where 2Q defers (512 MiB,
# 1 GiB: tests/test_budget_queues.py counts the deferrals from both files at all four) and
# one where it does not.  Each comparison runs libCacheSim over the whole trace (its
# W-TinyLFU sizes a sketch by the budget in bytes: 2-3 s a run), so not every pair.
BUDGETS = (("bin", 128), ("csv", 256), ("bin", 512), ("csv", 1024))
FILES = {"bin": "cloudPhysicsIO.oracleGeneral.bin", "csv": "cloudPhysicsIO.csv",
         "txt": "cloudPhysicsIO.txt"}


def file(kind: str):
    """The path of one of the three files (``bin``, ``csv``, ``txt``), in a test marked
    :data:`NEEDED`."""
    return datasets.path("libcachesim-traces") / FILES[kind]


def unit_trace():
    """The binary file loaded with every size 1 (libCacheSim's ``ignore_obj_size``)."""
    from simulator.trace_formats import load

    return load(file("bin"), ignore_sizes=True)


def both_traces() -> dict:
    """``{"bin": trace, "csv": trace}`` loaded by us."""
    from simulator.trace_formats import load

    return {"bin": load(file("bin")), "csv": load(file("csv"), trace_params=CSV_PARAMS)}
