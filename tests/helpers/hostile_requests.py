"""Hostile-input building blocks for request traces and JSON documents.

``JSON`` is a hypothesis strategy for any JSON value (small); :func:`request_files` gives
valid CSV, text and ``oracleGeneral`` request traces with the options each needs, and
:func:`request_commands` the commands that read one.  Used by ``test_hostile_imports``,
``test_hostile_streams``, ``test_hostile_documents`` and ``test_hostile_events``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=6)


def request_files() -> dict:
    """Valid request traces by file name, with the options each needs."""
    from simulator.trace_formats.oracle_general import RECORD

    records = np.zeros(8, RECORD)
    records["id"], records["size"] = [3, 4, 3, 5, 9, 4, 3, 1], [10, 20, 10, 5, 1, 20, 10, 7]
    csv = b"time,id,size\n" + b"".join(b"%d,%d,%d\n" % (t, i, z) for t, (i, z) in enumerate(
        zip(records["id"].tolist(), records["size"].tolist())))
    return {"t.csv": (csv, ["--trace-param", "obj-id-col=2", "--trace-param", "obj-size-col=3"]),
            "t.txt": (b"".join(b"%d\n" % i for i in records["id"].tolist()), []),
            "t.oracleGeneral": (records.tobytes(), [])}


def request_commands(name: str, options: list) -> list:
    return [["run", "--trace", name, *options, "--policy", "fifo", "--out", "old.json"],
            ["run", "--trace", name, *options, "--policy", "lru", "--stream"],
            ["trace", "import", name, *options, "--out", "old.npz"]]
