"""The Parquet store of ``semcache sweep``: a directory of part files, one per finished chunk.

A store is a directory that holds only ``part-<id>.parquet`` files.  Each part is written
to a temporary file in the same directory and renamed into place, so a crash or a kill
leaves whole parts or none: never half a row group.  A rate of a run with no scored step
is null; no number is ever inf or NaN (a row with one is refused).  A part's metadata
holds the manifest of its rows' ``code`` (:mod:`~simulator.experiments.sweep.manifest`),
written in the same rename.  A resumed sweep adds parts for the runs whose ``task_id`` is
not in the store yet.  It reads only each part's ``task_id``, ``code`` and metadata; a
part where a column is not text or is null (damaged, or not a sweep's) stops it before
any work, with the store unchanged.

One sweep writes to a store at a time: it holds an exclusive ``flock`` on the store's
folder (:func:`locked`) from before it reads which runs are stored until its last part
is written, and a second sweep on the same store stops at once with one line.  A store
that holds a run twice anyway (two sweeps run by a version without the lock, or on a
file system without locks) is repaired by a resumed sweep: :func:`drop_duplicates`
keeps each run's row in the first part (by name) that holds it and rewrites the others
without it, atomically, so no run is ever lost.

Examples
--------
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "store")
>>> open_store(path, resume=False)
set()
>>> write_part(path, "a", [{"task_id": "t1", "policy": "fifo", "capacity": None}])
>>> open_store(path, resume=True)
{'t1'}
>>> load_rows(path)
[{'task_id': 't1', 'policy': 'fifo', 'capacity': None}]
"""

from __future__ import annotations

import contextlib
import fcntl
import fnmatch
import math
import os
import tempfile

import pyarrow as pa
import pyarrow.parquet as pq

from simulator.files.atomic_write import write_atomically
from simulator.errors import InputError

PART = "part-*.parquet"
MANIFEST = b"semcache.code"  # a part's metadata key: the code manifest of its rows
# write_atomically's temporary names: left behind only when a writer was killed
_TEMP = ".semcache-*.part.tmp"

# Fixed column types of the run record, so a part whose capacity column happens to be all
# None (the unbounded policy) still stores int64; other columns (param.<name>) are inferred.
TYPES = {
    "task_id": pa.string(), "workload": pa.string(), "policy": pa.string(),
    "capacity": pa.int64(), "top_k": pa.int64(), "switch_cost": pa.float64(),
    "quality": pa.string(), "seed": pa.int64(), "params": pa.string(), "engine": pa.string(),
    "mode": pa.string(), "steps": pa.int64(), "scored_steps": pa.int64(), "hits": pa.int64(),
    "hit_rate": pa.float64(), "mean_precision": pa.float64(), "mean_quality": pa.float64(),
    "miss_cost": pa.float64(), "modifications": pa.int64(), "admissions": pa.int64(),
    "evictions": pa.int64(), "rewrites": pa.int64(), "cost": pa.float64(),
    "elapsed_s": pa.float64(),
    "code": pa.string(),
}
# load_results orders rows by these (then by the param.<name> columns), not by finish time
_ORDER = ("workload", "seed", "policy", "capacity", "top_k", "switch_cost", "quality")


def _listing(path: str, what: str, param: str | None = None) -> tuple:
    """(part files, leftover temporary files) of an existing store; anything else is an
    error that names the store as ``what`` (the parameter ``param``)."""
    if not os.path.isdir(path):
        raise InputError(f"{what} '{path}' is a file, not a sweep store (a directory of "
                         f"{PART} files); give a new directory name", param)
    parts, temps, other = [], [], []
    for name in sorted(os.listdir(path)):
        if fnmatch.fnmatch(name, PART):
            parts.append(name)
        elif fnmatch.fnmatch(name, _TEMP):
            temps.append(name)
        else:
            other.append(name)
    if other:
        raise InputError(f"{what} '{path}' is a directory that is not a sweep store (it "
                         f"holds '{other[0]}'); give a new or empty directory", param)
    return parts, temps


def _read(path: str, name: str, columns=None) -> pa.Table:
    try:
        return pq.read_table(os.path.join(path, name), columns=columns)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"sweep store '{path}': cannot read {shown(name)}: "
                         f"{' '.join(str(exc).split())}") from None


def _check_parent(path: str) -> None:
    """A missing store can be made: its parent exists and takes new files."""
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise InputError(f"out '{path}': folder '{parent}' does not exist", "out")
    _try_writing(parent, f"out '{path}' cannot be created")


@contextlib.contextmanager
def locked(path: str):
    """Hold the store ``path`` for one sweep's writes; yields whether this call made its
    folder (a missing store is made here, its parent checked first).

    The lock is an exclusive ``flock`` on the folder, dropped when the ``with`` block ends
    or the process dies.  Another sweep holding it is an InputError; a file system that
    has no locks is written without one (a resume then drops any duplicates).
    """
    made = False
    if not os.path.exists(path) and not os.path.islink(path):
        _check_parent(path)
        try:
            os.mkdir(path)
            made = True
        except FileExistsError:  # another sweep made it meanwhile: the lock decides
            pass
        except OSError as exc:
            raise InputError(f"out '{path}' cannot be created: {exc.strerror}", "out") from None
    _listing(path, "out", "out")  # a file, or a folder of something else, is no store
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        raise InputError(f"out '{path}' cannot be opened: {exc.strerror}", "out") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError(f"out '{path}' is being written by another sweep right now; "
                             "wait for it to end (then --resume), or give another folder",
                             "out") from None
        except OSError:
            pass  # no locks here: nothing to hold
        yield made
    finally:
        os.close(fd)


def open_store(path: str, resume: bool) -> set:
    """Check ``path`` (a sweep's ``out``) for a sweep and return the task ids it holds.

    Nothing is created or removed here.  Without ``resume`` the store must be new or empty.
    Which code made the stored rows is read by :func:`part_codes`.  A sweep calls it
    holding the store (:func:`locked`).
    """
    if not os.path.exists(path) and not os.path.islink(path):
        _check_parent(path)
        return set()
    parts, _ = _listing(path, "out", "out")
    if parts and not resume:
        raise InputError(f"out '{path}' already holds sweep results; resume that sweep "
                         "(--resume), or give another folder", "out")
    _try_writing(path, f"out '{path}' cannot take new parts")
    done = set()
    for name in parts:
        done.update(_keys(path, name, ("task_id",)).column("task_id").to_pylist())
    return done


def part_codes(path: str) -> list:
    """``(name, codes, manifest)`` of each part of the store ``path``: the distinct ``code``
    values of its rows (None when it has no code column, as parts written before rows
    carried their code) and the text of its code manifest (None when it has none)."""
    if not os.path.isdir(path):
        return []
    found = []
    for name in _listing(path, "out", "out")[0]:
        table = _keys(path, name, ("code",))
        codes = (sorted(set(table.column("code").to_pylist()))
                 if "code" in table.column_names else None)
        try:
            meta = pq.read_schema(os.path.join(path, name)).metadata or {}
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"sweep store '{path}': cannot read {shown(name)}: "
                             f"{' '.join(str(exc).split())}") from None
        text = meta.get(MANIFEST)
        found.append((name, codes, None if text is None else text.decode("utf-8", "replace")))
    return found


def remove_temps(path: str) -> None:
    """Remove the temporary files that killed writers left in the store ``path``: the
    sweep holding the store (:func:`locked`) owns none of them."""
    for name in _listing(path, "out", "out")[1] if os.path.isdir(path) else []:
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(path, name))


def drop_duplicates(path: str) -> int:
    """Remove from the store ``path`` every row whose ``task_id`` an earlier row holds
    (parts in name order, rows in part order); returns the number of rows removed.

    Each part that loses rows is rewritten atomically without them, or removed when it
    loses all, so a kill at any point leaves every run in the store at least once.  Call it
    holding the store (:func:`locked`), after :func:`open_store` has checked the parts.
    """
    seen, dropped = set(), 0
    for name in _listing(path, "out", "out")[0]:
        ids = _keys(path, name, ("task_id",)).column("task_id").to_pylist()
        keep = []
        for task in ids:
            keep.append(task not in seen)
            seen.add(task)
        if all(keep):
            continue
        dropped += keep.count(False)
        target = os.path.join(path, name)
        try:
            if any(keep):
                table = _read(path, name).filter(pa.array(keep))
                write_atomically(target, lambda tmp: pq.write_table(table, tmp),
                                 suffix=".part.tmp")
            else:
                os.remove(target)
        except OSError as exc:
            raise InputError(f"cannot write to sweep store '{path}': {exc.strerror}") from None
    return dropped


def _keys(path: str, name: str, wanted: tuple) -> pa.Table:
    """The ``wanted`` columns of the part ``name`` (of ``task_id`` and ``code``), each text
    without a null: a resume compares and hashes them, so a damaged part is refused here,
    in one line, rather than failing in a sort or silently re-running its runs.  ``code``
    may be absent (a part written before rows carried their code)."""
    try:
        with pq.ParquetFile(os.path.join(path, name)) as part:
            present = [c for c in wanted if c in part.schema_arrow.names]
            table = part.read(columns=present)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"sweep store '{path}': cannot read {shown(name)}: "
                         f"{' '.join(str(exc).split())}") from None
    if "task_id" in wanted and "task_id" not in table.column_names:
        raise _damaged(path, name, "has no task_id column")
    for column in table.column_names:
        kind = table.schema.field(column).type
        if not _is_text(kind):
            raise _damaged(path, name, f"has {column} values of type {kind}, not text")
        if table.column(column).null_count:
            raise _damaged(path, name, f"has {table.column(column).null_count} null "
                                       f"{column} values")
    return table


def _is_text(kind: pa.DataType) -> bool:
    if pa.types.is_dictionary(kind):  # pyarrow may write text dictionary-encoded
        return _is_text(kind.value_type)
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _damaged(path: str, name: str, what: str) -> InputError:
    return InputError(f"out '{path}': part {shown(name)} {what}, so it is damaged or not a "
                      "sweep's; restore the part, or start the sweep in another folder", "out")


def shown(name: str) -> str:
    """``name`` (a file's, a stored value) quoted on one line: as it is when printable,
    else with Python's escapes (a file name may hold a newline)."""
    return f"'{name}'" if name.isprintable() else ascii(name)


def _try_writing(folder: str, what: str) -> None:
    """Create and remove a file in ``folder``: the one test of writability that holds for
    every user (access bits do not bind root; a read-only mount binds everyone).  Its name
    is a temporary part's, which a resumed sweep removes should a kill leave it."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".semcache-", suffix=".part.tmp", dir=folder)
        os.close(fd)
        os.remove(tmp)
    except OSError as exc:
        raise InputError(f"{what}: {exc.strerror}", "out") from None


def _table(rows: list) -> pa.Table:
    columns = {}
    for row in rows:
        for key, value in row.items():
            columns.setdefault(key, [])
            # runs refuse options that could overflow (runner.check_cost_bound): never inf
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"sweep row {row.get('task_id')}: {key} is {value}")
    for key in columns:
        columns[key] = pa.array([row.get(key) for row in rows], type=TYPES.get(key))
    return pa.table(columns)


def write_part(path: str, name: str, rows: list, manifest: str | None = None) -> None:
    """Write ``rows`` (dicts of plain values) as ``part-<name>.parquet``, atomically, with
    the text ``manifest`` in its metadata (which code made the rows,
    :mod:`~simulator.experiments.sweep.manifest`); a missing store's directory is made
    first."""
    table = _table(rows)
    if manifest is not None:
        table = table.replace_schema_metadata({MANIFEST: manifest.encode()})
    target = os.path.join(path, f"part-{name}.parquet")
    try:
        if not os.path.isdir(path):
            os.mkdir(path)
        write_atomically(target, lambda tmp: pq.write_table(table, tmp), suffix=".part.tmp")
    except OSError as exc:
        raise InputError(f"cannot write to sweep store '{path}': {exc.strerror}") from None


def remove_parts(path: str, names: list, remove_folder: bool = False) -> None:
    """Remove the parts ``part-<name>.parquet`` of ``names`` (those present), then the
    store's directory too if ``remove_folder`` and nothing else is in it."""
    for name in names:
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(path, f"part-{name}.parquet"))
    if remove_folder:
        with contextlib.suppress(OSError):
            os.rmdir(path)


def load_results(path: str) -> pa.Table:
    """Every row of the sweep store at ``path``, as one pyarrow Table.

    Parts written by different grids are concatenated with their schemas unified (a column
    one part lacks is null there).  Rows are sorted by workload, ``param.<name>`` columns,
    seed, policy, capacity, top_k, switch_cost, quality and task_id, so the table does not
    depend on the order in which chunks finished.
    """
    if not os.path.exists(path):
        raise InputError(f"sweep store '{path}' does not exist")
    parts, _ = _listing(path, "sweep store")
    if not parts:
        return pa.table({})
    table = pa.concat_tables([_read(path, name) for name in parts], promote_options="default")
    params = sorted(n for n in table.column_names if n.startswith("param."))
    keys = [n for n in (_ORDER[0], *params, *_ORDER[1:], "task_id")
            if n in table.column_names and table.schema.field(n).type != pa.null()]
    # each part's code manifest is its own: the whole table carries none
    return table.sort_by([(k, "ascending") for k in keys]).replace_schema_metadata(None)


def load_rows(path: str) -> list:
    """:func:`load_results` as a list of dicts, one per row."""
    return load_results(path).to_pylist()


def load_frame(path: str):
    """:func:`load_results` as a pandas DataFrame (``load_results(path).to_pandas()``).

    pandas is a dependency of semcache; an install without it (``pip install --no-deps``)
    gets one InputError that says how to add it, not pyarrow's ImportError.
    """
    try:
        import pandas  # noqa: F401 (to_pandas imports it; here its absence is one line)
    except ImportError:
        raise InputError("reading a sweep store as a DataFrame needs pandas, which this "
                         "install lacks: pip install 'pandas>=2.1' (a dependency of "
                         "semcache), or read load_results(path), a pyarrow Table") from None
    return load_results(path).to_pandas()
