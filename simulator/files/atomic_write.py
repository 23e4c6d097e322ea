"""Write a file all at once: to a temporary file beside it, then renamed into place."""

import os
import tempfile

from simulator.files import partial_files


def write_atomically(path, write, suffix: str = ".tmp") -> None:
    """Call ``write(tmp_path)``, then rename ``tmp_path`` to ``path``.

    A failure (an ``OSError`` from here or from ``write``) leaves an existing ``path``
    untouched and no temporary file behind.  The file gets the usual ``0o666 & ~umask``
    mode: a temporary file's private 0600 is for secrets, not results.  ``suffix`` ends
    the temporary name (``np.savez`` appends ``.npz`` to a name without it).

    The temporary file is owned (:func:`simulator.files.partial_files.own`) until it is renamed,
    and the first write into a folder removes the partials that killed writers left there
    (:func:`simulator.files.partial_files.clean`).
    """
    folder = os.path.dirname(os.path.abspath(path))
    partial_files.clean(folder)
    fd, tmp = tempfile.mkstemp(prefix=partial_files.PREFIX, suffix=suffix, dir=folder)
    try:
        partial_files.own(fd)
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        os.close(fd)
        if os.path.exists(tmp):
            os.remove(tmp)
