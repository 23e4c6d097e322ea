"""Breaking instances on disk: each written whole or not at all, and a run's all together.

:func:`write` puts one instance file in its folder atomically (a temporary file beside it,
renamed; a folder that does not exist yet is made by renaming a temporary sibling folder
that already holds the file), so a full or read-only disk leaves nothing behind.  Inside
:func:`staged` (what ``semcache claims`` runs in) every instance saved for ``out_dir`` goes
to one hidden staging folder beside it instead, moved into ``out_dir`` when the block ends
well and removed when it fails, so a claim that fails halfway through a run leaves
``out_dir`` as it was.  A staging folder is a ``.semcache-`` partial
(:mod:`simulator.files.partial_files`): owned while its run lives, removed by a later write once
its run is gone.

>>> import os, tempfile
>>> from simulator.trace import PagingTrace
>>> out = os.path.join(tempfile.mkdtemp(), "claims-out")
>>> with staged(out):
...     write(PagingTrace.from_requests([0, 1, 0]), out, "x.npz")
...     os.path.exists(out)
False
>>> sorted(os.listdir(out))
['x.npz']
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile

from simulator.errors import InputError
from simulator.files import partial_files

_STAGED: dict = {}  # out_dir (absolute) -> the staging folder its instances go to


def write(trace, out_dir: str, filename: str) -> None:
    """``trace`` as ``out_dir/filename`` (or into the staging folder of ``out_dir``);
    an ``OSError`` leaves nothing of it behind."""
    from simulator.trace_formats import save as save_trace

    _write(lambda path: save_trace(trace, path), out_dir, filename)


def write_json(doc: dict, out_dir: str, filename: str) -> None:
    """``doc`` as JSON in ``out_dir/filename``, by the rules of :func:`write` (an instance
    that is not a trace: a loss sequence, a stylized model's pool)."""
    _write(lambda path: _dump(doc, path), out_dir, filename)


def _dump(doc: dict, path: str) -> None:
    """JSON written to a temporary file beside ``path``, renamed onto it."""
    import json

    fd, tmp = tempfile.mkstemp(prefix=partial_files.PREFIX,
                               dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=1)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write(save, out_dir: str, filename: str) -> None:
    """``save(path)`` of ``out_dir/filename``, staged or in a folder made whole."""
    stage = _STAGED.get(os.path.abspath(out_dir))
    if stage is not None:
        save(os.path.join(stage, filename))
    elif os.path.isdir(out_dir):
        save(os.path.join(out_dir, filename))  # a temporary file, renamed
    else:
        parent = os.path.dirname(os.path.abspath(out_dir))
        os.makedirs(parent, exist_ok=True)
        with _folder_beside(out_dir) as folder:
            save(os.path.join(folder, filename))
            _move_in(folder, out_dir)


@contextlib.contextmanager
def staged(out_dir: str):
    """Within the block, the instances saved for ``out_dir`` land there together when
    the block ends, or (on any exception) not at all; ``out_dir``'s parent must exist.
    An ``OSError`` of the staging itself is one InputError naming ``out_dir`` and the
    system's reason."""
    target = os.path.abspath(out_dir)
    with contextlib.ExitStack() as stack:
        try:
            folder = stack.enter_context(_folder_beside(out_dir))
        except OSError as exc:
            raise _failed(out_dir, exc) from None
        _STAGED[target] = folder
        try:
            yield
        finally:
            del _STAGED[target]
        try:
            if os.listdir(folder):
                _move_in(folder, out_dir)
        except OSError as exc:
            raise _failed(out_dir, exc) from None


def _failed(out_dir: str, exc: OSError) -> InputError:
    return InputError(f"out_dir '{out_dir}': cannot save the instances: "
                      f"{exc.strerror or exc}", "out_dir")


@contextlib.contextmanager
def _folder_beside(out_dir: str):
    """A new hidden folder beside ``out_dir``, owned while the block runs, removed after
    (unless it was renamed to ``out_dir``)."""
    folder = tempfile.mkdtemp(prefix=partial_files.PREFIX + "claims-",
                              dir=os.path.dirname(os.path.abspath(out_dir)))
    try:
        with partial_files.owned_folder(folder):
            yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _move_in(folder: str, out_dir: str) -> None:
    """The files of ``folder`` into ``out_dir``: the folder renamed to it when it does not
    exist (with the usual mode, not mkdtemp's private one), else file by file."""
    if not os.path.isdir(out_dir):
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(folder, 0o777 & ~umask)
        try:
            os.rename(folder, out_dir)
            return
        except OSError:
            if not os.path.isdir(out_dir):  # made meanwhile by another writer: join it
                raise
    for name in os.listdir(folder):
        os.replace(os.path.join(folder, name), os.path.join(out_dir, name))
