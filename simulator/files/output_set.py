"""A command's several output files, landing in their folder together or not at all.

A command that writes several files into one folder (``semcache reproduce NAME --out
DIR``: a PNG, a Parquet file and a JSON document per table) writes them into a hidden
staging folder inside ``DIR`` (:func:`landing`), and only when every one is written moves
them into place, each by a rename.  A failure while writing (a full disk, a bad input
found late, Ctrl-C) removes the staging folder and leaves ``DIR`` as it was; renames need
no space, and should one fail anyway the files already moved are put back, so ``DIR``
never mixes new files with old ones.  The staging folder is owned
(:func:`simulator.files.partial_files.owned_folder`), so one that a killed command left is
removed by the next write into ``DIR``.

Examples
--------
>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> with landing(folder) as stage:
...     for name in ("a.txt", "b.txt"):
...         with open(os.path.join(stage, name), "w") as f:
...             _ = f.write(name)
>>> sorted(os.listdir(folder))
['a.txt', 'b.txt']
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile

from simulator.files import partial_files


@contextlib.contextmanager
def landing(folder: str):
    """Yield a staging folder inside ``folder`` (made here if missing: its parent must
    exist); at the end of the ``with`` block the staged files replace their namesakes in
    ``folder``, together.  On any exception, nothing in ``folder`` changes, and a
    ``folder`` made here is removed again."""
    made = not os.path.isdir(folder)
    if made:
        os.mkdir(folder)
    try:
        partial_files.clean(folder)
        stage = tempfile.mkdtemp(prefix=partial_files.PREFIX + "stage-", dir=folder)
        try:
            with partial_files.owned_folder(stage):
                yield stage
                _land(stage, folder)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
    except BaseException:
        if made:
            shutil.rmtree(folder, ignore_errors=True)
        raise


def _land(stage: str, folder: str) -> None:
    """Move every file of ``stage`` into ``folder``: each namesake first aside (into
    ``stage``), then the new file in; should a rename fail, undo the ones done."""
    names = sorted(n for n in os.listdir(stage) if os.path.isfile(os.path.join(stage, n)))
    aside = tempfile.mkdtemp(prefix="old-", dir=stage)
    done = []  # (name, whether a namesake was moved aside)
    try:
        for name in names:
            target = os.path.join(folder, name)
            had = os.path.lexists(target)
            if had:
                os.replace(target, os.path.join(aside, name))
            done.append((name, had))
            os.replace(os.path.join(stage, name), target)
    except BaseException:
        for name, had in reversed(done):
            target = os.path.join(folder, name)
            with contextlib.suppress(OSError):
                if not os.path.exists(os.path.join(stage, name)):  # moved in: take it out
                    os.replace(target, os.path.join(stage, name))
                if had:
                    os.replace(os.path.join(aside, name), target)
        raise
