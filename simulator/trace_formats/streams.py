"""Opening a trace file as a stream of bytes, decompressing ``.zst`` on the fly, and
writing one the same way.

A ``.zst`` file is decompressed frame by frame through the ``zstandard`` package's
decompression objects, which say when a frame is complete: a file that ends inside a frame
(cut short by a copy or a full disk) is an error, never a shorter trace.  The compressed
bytes go in small pieces, so one piece decompresses to a bounded amount (a Zstandard
block of at most 128 KiB per 4 compressed bytes, at the most): memory stays bounded
whatever the file claims.
"""

from __future__ import annotations

import contextlib
import io

from simulator.errors import InputError
from simulator.files.input_files import open_input

# compressed bytes fed to the decompressor at a time: at most 1024 / 4 blocks of 128 KiB
# (32 MiB) come out of one piece, and decompressing in pieces this size is as fast as whole
_PIECE = 1024


@contextlib.contextmanager
def open_bytes(path: str):
    """A binary stream of the regular file at ``path``; a ``.zst`` file is read through
    Zstandard, so a compressed trace is never held whole."""
    with open_input(path, "trace file") as raw:
        if not path.endswith(".zst"):
            yield raw
            return
        import zstandard

        yield io.BufferedReader(_Zstd(raw, path, zstandard), 1 << 20)


class _Zstd(io.RawIOBase):
    """The decompressed bytes of the Zstandard frames in ``raw``; corrupt data, or data
    that ends inside a frame, is an InputError naming the file."""

    def __init__(self, raw, path, zstandard):
        self.raw, self.path, self.zstandard = raw, path, zstandard
        self.frame = zstandard.ZstdDecompressor().decompressobj()
        self.fed = False  # whether the current frame has been given any byte
        self.out, self.at = b"", 0

    def readable(self):
        return True

    def readinto(self, buffer):
        while self.at == len(self.out):
            piece = self.raw.read(_PIECE)
            if not piece:
                if self.fed and not self.frame.eof:
                    raise InputError(f"trace file '{self.path}' ends inside a zstd frame (it "
                                     "was cut short); give the whole file")
                return 0
            self.out, self.at = self.decompressed(piece), 0
        n = min(len(buffer), len(self.out) - self.at)
        buffer[:n] = self.out[self.at:self.at + n]
        self.at += n
        return n

    def decompressed(self, data: bytes) -> bytes:
        """The bytes ``data`` decompresses to, across frame ends."""
        parts = []
        while data:
            if self.frame.eof:  # the next frame begins: frames are decompressed one by one
                self.frame = self.zstandard.ZstdDecompressor().decompressobj()
            self.fed = True
            try:
                parts.append(self.frame.decompress(data))
            except self.zstandard.ZstdError as exc:
                raise InputError(f"trace file '{self.path}' is not valid zstd data ({exc}); "
                                 "compress it with zstd, or drop the .zst from its name") from None
            data = self.frame.unused_data if self.frame.eof else b""
        return b"".join(parts)


def read_exactly(stream, n: int) -> bytes:
    """Up to ``n`` bytes, fewer only at the end of the stream (streams may read short).

    Each read asks for at most 16 MiB, so a large ``n`` costs only the bytes that are
    there: memory grows with the data actually read, not with what was asked."""
    parts, got = [], 0
    while got < n:
        part = stream.read(min(n - got, 1 << 24))
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
