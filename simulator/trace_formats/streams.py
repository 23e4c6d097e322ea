"""Opening a trace file as a stream of bytes, decompressing ``.zst`` on the fly, and
writing one the same way."""

from __future__ import annotations

import contextlib
import io

from simulator.errors import InputError


@contextlib.contextmanager
def open_bytes(path: str):
    """A binary stream of the file at ``path``; a ``.zst`` file is read through Zstandard
    (the ``zstandard`` package), so a compressed trace is never held whole."""
    try:
        raw = open(path, "rb")
    except OSError as exc:
        raise InputError(f"trace file '{path}' cannot be opened: {exc.strerror}") from None
    with raw:
        if not path.endswith(".zst"):
            yield raw
            return
        import zstandard

        with zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True) as zst:
            yield _Checked(zst, path, zstandard.ZstdError)


class _Checked(io.RawIOBase):
    """A decompressing stream whose corrupt data is an InputError naming the file."""

    def __init__(self, stream, path, error):
        self.stream, self.path, self.error = stream, path, error

    def readable(self):
        return True

    def readinto(self, buffer):
        try:
            data = self.stream.read(len(buffer))
        except self.error as exc:
            raise InputError(f"trace file '{self.path}' is not valid zstd data ({exc}); "
                             "compress it with zstd, or drop the .zst from its name") from None
        buffer[:len(data)] = data
        return len(data)


def read_exactly(stream, n: int) -> bytes:
    """Up to ``n`` bytes, fewer only at the end of the stream (streams may read short)."""
    parts, got = [], 0
    while got < n:
        part = stream.read(n - got)
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


@contextlib.contextmanager
def create_bytes(path: str, level: int = 3):
    """A binary stream writing the file at ``path``, through Zstandard when it ends in
    ``.zst`` (``level``: its compression level), so a trace is never held whole."""
    with open(path, "wb") as raw:
        if not path.endswith(".zst"):
            yield raw
            return
        import zstandard

        with zstandard.ZstdCompressor(level=level).stream_writer(raw, closefd=False) as zst:
            yield zst
