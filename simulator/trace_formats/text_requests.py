"""Plain-text request traces (libCacheSim's ``txt``): one object id per line, no sizes.

``obj-id-is-num`` (default true): ids are non-negative integers (decimal or ``0x`` hex);
false: each distinct line is one object, its id the line's bytes without the ASCII blanks
around them (two lines that differ in a byte, valid UTF-8 or not, are two objects).
Blank lines are skipped, as libCacheSim does; a line that is not an integer in
0 .. 2**64-1 is an error naming it.

>>> import io
>>> [(i.tolist(), s.tolist()) for i, s in chunks(io.BytesIO(b"5\\n6\\n\\n5\\n"), "t.txt",
...                                              {"obj-id-is-num": True})]
[([5, 6, 5], [1, 1, 1])]
"""

from __future__ import annotations

import io

import numpy as np

from simulator.trace_formats.csv_requests import BLANKS, parse_id

PARAMS = {"obj-id-is-num": True}
EXTENSIONS = (".txt",)


def chunks(stream, path: str, params: dict, chunk_requests: int = 1 << 20):
    """``(ids uint64, sizes int64)`` for successive runs of at most ``chunk_requests`` lines."""
    numeric, names, ids = bool(params["obj-id-is-num"]), {}, []
    # surrogateescape decodes each byte that is not UTF-8 to its own code point, so
    # distinct lines stay distinct ids (errors="replace" would make every such byte one)
    for line_no, line in enumerate(io.TextIOWrapper(stream, encoding="utf-8",
                                                    errors="surrogateescape"), 1):
        text = line.strip() if numeric else line.strip(BLANKS)  # a text id is its bytes
        if not text:
            continue
        if numeric:
            ids.append(parse_id(text, f"trace file '{path}', line {line_no}"))
        else:
            ids.append(names.setdefault(text, len(names)))
        if len(ids) == chunk_requests:
            yield np.array(ids, np.uint64), np.ones(len(ids), np.int64)
            ids = []
    if ids:
        yield np.array(ids, np.uint64), np.ones(len(ids), np.int64)
