"""semcache's own trace files: a NumPy ``.npz`` of named arrays (docs/model.md §6).

:func:`read_arrays` trusts nothing in the archive.  Before a member's data is read, its
zip entry must name a ``.npy`` array, once; be neither encrypted nor compressed other
than as ``numpy.savez`` (stored) or ``numpy.savez_compressed`` (deflated) write it; and
its ``.npy`` header's shape × itemsize must equal the member's size in the zip directory,
which must fit the file (deflate expands at most 1032-fold), so a forged header cannot
make it allocate more than the file can hold.  Any damage found while reading (a corrupt
stream, a CRC mismatch, a short member) is one :class:`~simulator.errors.InputError`
naming the file and the member.
"""

from __future__ import annotations

import json
import math
import os
import struct
import zipfile
import zlib

import numpy as np

from simulator.files.atomic_write import write_atomically
from simulator.errors import InputError
from simulator.files.input_files import open_input
from simulator.trace import validate

_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}
_DEFLATE_RATIO = 1032  # deflate's largest expansion: a member claiming more is damaged
# What opening or reading a damaged archive raises (zlib, zipfile, numpy's header parser).
_DAMAGE = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, struct.error,
           NotImplementedError, RuntimeError, OverflowError, SyntaxError, RecursionError)
_FIX = "write it with numpy.savez or 'semcache workload make'"


# the member that holds what a trace keeps beside its arrays, as JSON text (docs/model.md
# §6): an events import's topic labels and its own fields
META = "meta"
SAVED_META = ("topic_labels", "extra_fields")


def read(path: str):
    """The validated trace in the ``.npz`` file ``path``."""
    arrays = read_arrays(path)
    where = f"trace file '{path}': array '{META}'"
    saved = _meta_of(arrays.pop(META), where) if META in arrays else {}
    trace = validate(arrays, {"source": path, **saved}, strict_dtype=True)
    _check_meta(saved, trace.steps, where, _FIX)
    return trace


def _meta_of(member: np.ndarray, where: str) -> dict:
    """The saved meta in the ``meta`` member: one JSON object as text."""
    if member.dtype.kind != "U" or member.shape != ():
        raise InputError(f"{where} must be one string (a 0-d unicode array) of JSON, got "
                         f"{member.dtype} of shape {member.shape}; {_FIX}")
    text = str(member.item())
    try:
        saved = json.loads(text, parse_constant=_no_constant)
        # whole characters only: a "\ud800" escape parses to half a surrogate pair
        json.dumps(saved, ensure_ascii=False).encode("utf-8")
    except (ValueError, RecursionError) as exc:  # bad JSON, NaN, a lone surrogate
        raise InputError(f"{where} is not JSON text ({_why(exc)}); {_FIX}") from None
    if not isinstance(saved, dict) or set(saved) - set(SAVED_META):
        raise InputError(f"{where} must be a JSON object of {', '.join(SAVED_META)}; {_FIX}")
    return saved


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def _check_meta(saved: dict, steps: int, where: str, fix: str) -> None:
    """``topic_labels``: distinct strings; ``extra_fields``: a list of ``steps`` values a
    field name."""
    labels = saved.get("topic_labels", [])
    if not (isinstance(labels, list) and all(isinstance(x, str) for x in labels)
            and len(set(labels)) == len(labels)):
        raise InputError(f"{where}: 'topic_labels' must be a list of distinct strings "
                         f"(the label of topic id 0, 1, ...); {fix}")
    fields = saved.get("extra_fields", {})
    if not (isinstance(fields, dict)
            and all(isinstance(v, list) and len(v) == steps for v in fields.values())):
        raise InputError(f"{where}: 'extra_fields' must map each field name to a list of "
                         f"{steps} values, one a step; {fix}")


def _saved_meta(trace) -> dict:
    """The ``meta`` member of ``trace``'s file (empty when it has nothing to save), checked
    as :func:`read` will check it."""
    saved = {k: trace.meta[k] for k in SAVED_META if k in trace.meta}
    if not saved:
        return {}
    where = f"trace meta {', '.join(map(repr, saved))}"
    _check_meta(saved, trace.steps, where, "set them so before saving")
    try:
        text = json.dumps(saved, ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")
    except (TypeError, ValueError, RecursionError) as exc:
        raise InputError(f"{where} cannot be saved as JSON ({_why(exc)}); keep JSON values "
                         "there") from None
    return {META: np.array(text)}


def read_arrays(path: str, what: str = "trace file", fix: str = _FIX) -> dict:
    """Every array of the ``.npz`` at ``path`` by name, each member checked before it is read.

    ``what`` and ``fix`` word the errors (``trace file 'F': …; <fix>``).  Object arrays
    (pickles) are refused.
    """
    path = os.fspath(path)
    where = f"{what} '{path}'"
    with open_input(path, what) as f:
        try:
            magic = f.read(6)
            f.seek(0)
            if magic == b"\x93NUMPY":
                raise InputError(f"{where} is a single array (.npy), not an .npz of named "
                                 f"arrays; {fix}")
            size = os.fstat(f.fileno()).st_size
            archive = zipfile.ZipFile(f)
        except _DAMAGE as exc:
            raise InputError(f"{where} is not a readable .npz ({_why(exc)}); {fix}") from None
        return _read_archive(archive, size, where, fix)


def _read_archive(archive, size: int, where: str, fix: str) -> dict:
    """Every member of the open ``archive`` (of ``size`` bytes) as an array, by name."""
    with archive:
        infos = _members(archive, where, fix)
        arrays = {}
        for name, info in infos.items():
            _check_entry(info, size, f"{where}: array '{name}'", fix)
            arrays[name] = _read_member(archive, info, f"{where}: array '{name}'", fix)
    return arrays


def _why(exc: BaseException) -> str:
    """A short reason: the exception type and the first line of its message."""
    name = "zlib.error" if isinstance(exc, zlib.error) else type(exc).__name__
    text = str(exc).splitlines()[0][:120] if str(exc) else ""
    return f"{name}: {text}" if text else name


def _members(archive, where: str, fix: str) -> dict:
    """The archive's members by array name; anything but distinct ``.npy`` members is refused
    before any data is read."""
    try:
        infos = archive.infolist()
    except _DAMAGE as exc:
        raise InputError(f"{where} is not a readable .npz ({_why(exc)}); {fix}") from None
    out = {}
    for info in infos:
        if not (info.filename.endswith(".npy") and info.filename.isprintable()):
            raise InputError(f"{where}: member {info.filename!r} is not a .npy array; an .npz "
                             f"holds only named arrays ({fix})")
        name = info.filename[:-4]
        if name in out:
            raise InputError(f"{where} holds array '{name}' twice; keep one")
        out[name] = info
    return out


def _check_entry(info, archive_size: int, where: str, fix: str) -> None:
    """Refuse an encrypted, oddly compressed or impossibly large member from its zip entry."""
    if info.flag_bits & 0x1:
        raise InputError(f"{where} is encrypted; semcache reads unencrypted .npz files ({fix})")
    if info.compress_type not in _METHODS:
        raise InputError(f"{where} uses zip compression method {info.compress_type}; semcache "
                         f"reads stored or deflated members ({fix})")
    if info.compress_size > archive_size:
        raise InputError(f"{where} claims {info.compress_size} compressed bytes, more than the "
                         f"file's {archive_size}; the file is damaged or cut short")
    limit = (info.compress_size if info.compress_type == zipfile.ZIP_STORED
             else info.compress_size * _DEFLATE_RATIO + 64)
    if info.file_size > limit:
        raise InputError(f"{where} claims {info.file_size} bytes from {info.compress_size} "
                         f"{_METHODS[info.compress_type]} bytes, more than that can hold; the "
                         "file is damaged")


def _header(stream) -> tuple:
    """(shape, fortran_order, dtype, bytes read) of the ``.npy`` header at ``stream``."""
    version = np.lib.format.read_magic(stream)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
    else:
        raise ValueError(f".npy format version {version[0]}.{version[1]} (1.0 or 2.0 read)")
    return shape, fortran, dtype, stream.tell()


def _read_member(archive, info, where: str, fix: str) -> np.ndarray:
    """The member's array, its header checked against the member's size before the data is
    read, and the data read as it comes (memory grows with the bytes actually there)."""
    damaged = f"the file is damaged; {fix}"
    try:
        with archive.open(info) as stream:
            shape, fortran, dtype, offset = _header(stream)
            if dtype.hasobject:
                raise InputError(f"{where} has dtype object (a pickle); semcache refuses "
                                 f"object arrays ({fix})")
            if dtype.itemsize == 0 and math.prod(shape):  # nothing bounds a count of nothings
                raise InputError(f"{where} has dtype {dtype} of zero bytes; give numbers "
                                 f"({fix})")
            need = math.prod(shape) * dtype.itemsize
            if need != info.file_size - offset:
                raise InputError(f"{where}: its header says shape {shape} of {dtype} ({need} "
                                 f"bytes) but the member holds {info.file_size - offset}; "
                                 f"{damaged}")
            data = bytearray()
            while len(data) <= need:  # one read past the end checks the member's CRC
                part = stream.read(min(need + 1 - len(data), 1 << 24))
                if not part:
                    break
                data += part
    except InputError:
        raise
    except _DAMAGE as exc:
        raise InputError(f"{where} cannot be read ({_why(exc)}); {damaged}") from None
    if len(data) != need:
        raise InputError(f"{where} holds {len(data)} bytes of data where its header says "
                         f"{need}; {damaged}")
    array = np.frombuffer(data, dtype).reshape(shape, order="F" if fortran else "C")
    return array if array.flags.aligned else array.copy()  # compiled loops want alignment


def write(trace, path: str) -> None:
    """Write ``trace`` to ``path`` atomically (a temporary file renamed into place)."""
    arrays = {**trace.arrays(), **_saved_meta(trace)}
    write_atomically(path, lambda tmp: np.savez(tmp, **arrays), suffix=".npz")
