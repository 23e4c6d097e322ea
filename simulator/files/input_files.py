"""Opening a file a user names for reading: a regular file, or one line of error.

Everything semcache reads from a user's path (trace files, the SOLAR authors' folders,
LoCoMo files, the paper-tables file) is opened here.  Only a regular file is read: a FIFO
would block the open until some writer comes (and a streamed trace reads its file twice),
and a device such as ``/dev/zero`` or ``/dev/urandom`` never ends, so a reader would loop
on skipped records or grow a line without bound.  The file is opened without blocking,
then checked with ``fstat`` (the file read is the file checked, whatever replaces the
path meanwhile), so refusing takes no time whatever the path names.

>>> import tempfile
>>> try:
...     open_input(tempfile.mkdtemp(), "trace file")
... except InputError as exc:
...     print(str(exc).split("' is ")[1])
a folder, not a regular file; semcache reads files (copy the data to a file first)
"""

from __future__ import annotations

import os
import stat

from simulator.errors import InputError

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


class UnreadableInput(InputError):
    """A file that cannot be read; ``reason`` says why without the file's name."""

    def __init__(self, what: str, path: str, reason: str, param: str | None):
        super().__init__(f"{what} '{path}' {reason}", param)
        self.reason = reason


def open_input(path, what: str, param: str | None = None):
    """``path`` opened for reading in binary, if it is a regular file (links followed).

    ``what`` names the file in errors (``trace file``); ``param`` is the parameter an
    error names.  Raises :class:`UnreadableInput` (an InputError) for a missing or
    unreadable file and for anything but a regular file, before reading a byte.
    """
    path = os.fspath(path)
    try:  # O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise UnreadableInput(what, path, f"cannot be opened: {exc.strerror}", param) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "a special file")
            raise UnreadableInput(what, path, f"is {kind}, not a regular file; semcache reads "
                                  "files (copy the data to a file first)", param)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_input(path, what: str, param: str | None = None) -> bytes:
    """The whole content of the regular file ``path`` (:func:`open_input`'s checks)."""
    with open_input(path, what, param) as f:
        try:
            return f.read()
        except OSError as exc:
            raise UnreadableInput(what, os.fspath(path), f"cannot be read: {exc.strerror}",
                                  param) from None
