"""libCacheSim's ``oracleGeneral`` binary trace: packed little-endian 24-byte records,
no header: ``uint32 timestamp, uint64 obj_id, uint32 obj_size, int64 next_access_vtime``.

Only the object id and size are read (the engine finds the next use itself).  A file whose
length is not a whole number of records ends mid-record: that is an error naming the
record.

>>> import numpy as np, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "t.oracleGeneral")
>>> records = np.zeros(3, RECORD)
>>> records["id"], records["size"] = [7, 8, 7], [512, 4096, 512]
>>> records.tofile(path)
>>> with open(path, "rb") as f:
...     [(ids.tolist(), sizes.tolist()) for ids, sizes in chunks(f, path, {})]
[([7, 8, 7], [512, 4096, 512])]
"""

from __future__ import annotations

import numpy as np

from simulator.files.atomic_write import write_atomically
from simulator.errors import InputError
from simulator.engine.size_limits import total_size
from simulator.trace_formats.streams import create_bytes, read_exactly

RECORD = np.dtype([("time", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")])
PARAMS: dict = {}  # the format has no options
EXTENSIONS = (".oracleGeneral", ".oracleGeneral.bin")


def chunks(stream, path: str, params: dict, chunk_requests: int = 1 << 20):
    """``(ids uint64, sizes int64)`` for successive runs of at most ``chunk_requests``
    records."""
    done = 0
    while True:
        data = read_exactly(stream, chunk_requests * RECORD.itemsize)
        whole = len(data) // RECORD.itemsize
        if whole:
            records = np.frombuffer(data, RECORD, count=whole)
            yield records["id"].copy(), records["size"].astype(np.int64)
        if len(data) % RECORD.itemsize:
            raise InputError(f"trace file '{path}': record {done + whole} is truncated "
                             f"({len(data) % RECORD.itemsize} of {RECORD.itemsize} bytes); "
                             "the file ends mid-record (was it cut short?)")
        done += whole
        if len(data) < chunk_requests * RECORD.itemsize:
            return


def write(path: str, chunks, level: int = 3) -> None:
    """Write requests as ``oracleGeneral`` records, chunk by chunk, atomically (zstd when
    ``path`` ends in ``.zst``, at ``level``).

    Each chunk is ``(ids, sizes)`` or ``(ids, sizes, next_access)``: uint64 object ids
    (libCacheSim reserves id 0), sizes (None: 1; at most 2³²−1) and the index of each
    request's next request for the same object (None or -1: none; what Belady reads).  The
    timestamp field is the request's index.
    """
    def write_to(tmp):
        done = total = 0
        with create_bytes(tmp, level) as out:
            for chunk in chunks:
                ids, sizes = chunk[0], chunk[1]
                nxt = chunk[2] if len(chunk) > 2 else None
                n = len(ids)
                if sizes is not None and n and not 1 <= np.min(sizes) <= np.max(sizes) < 2**32:
                    raise InputError(f"sizes of requests {done} .. {done + n - 1} must be "
                                     "integers in 1 .. 2**32-1 (the format's uint32)", "sizes")
                # a file that no reader would take is not written (simulator.engine.size_limits)
                total = (total + n if sizes is None
                         else total_size(np.asarray(sizes, np.int64), "sizes", total))
                records = np.empty(n, RECORD)
                records["time"] = np.arange(done, done + n) & 0xFFFFFFFF
                records["id"] = ids
                records["size"] = 1 if sizes is None else sizes
                records["next"] = -1 if nxt is None else nxt
                out.write(records.tobytes())
                done += n

    write_atomically(path, write_to, suffix=".tmp" + (".zst" if str(path).endswith(".zst") else ""))
