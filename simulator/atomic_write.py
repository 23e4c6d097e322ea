"""Write a file all at once: to a temporary file beside it, then renamed into place."""

import os
import tempfile


def write_atomically(path, write, suffix: str = ".tmp") -> None:
    """Call ``write(tmp_path)``, then rename ``tmp_path`` to ``path``.

    A failure (an ``OSError`` from here or from ``write``) leaves an existing ``path``
    untouched and no temporary file behind.  The file gets the usual ``0o666 & ~umask``
    mode: a temporary file's private 0600 is for secrets, not results.  ``suffix`` ends
    the temporary name (``np.savez`` appends ``.npz`` to a name without it).
    """
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".semcache-", suffix=suffix, dir=folder)
    os.close(fd)
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
