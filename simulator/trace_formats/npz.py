"""semcache's own trace files: a NumPy ``.npz`` of named arrays (docs/model.md §6)."""

from __future__ import annotations

import zipfile

import numpy as np

from simulator.atomic_write import write_atomically
from simulator.errors import InputError
from simulator.trace import validate


def read(path: str):
    """The validated trace in the ``.npz`` file ``path``."""
    try:
        npz = np.load(path, allow_pickle=False)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise InputError(f"trace file '{path}' is not a readable .npz ({type(exc).__name__}); "
                         "write it with numpy.savez or 'semcache workload make'") from None
    if not isinstance(npz, np.lib.npyio.NpzFile):
        raise InputError(f"trace file '{path}' is a single array (.npy), not an .npz of named "
                         "arrays; write it with numpy.savez(queries=..., items=...)")
    raw = {}
    with npz:
        for name in npz.files:
            try:
                raw[name] = npz[name]
            except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
                raise InputError(f"trace file '{path}': array '{name}' cannot be read "
                                 f"({type(exc).__name__}: object arrays and damaged members "
                                 "are refused)") from None
    return validate(raw, {"source": path}, strict_dtype=True)


def write(trace, path: str) -> None:
    """Write ``trace`` to ``path`` atomically (a temporary file renamed into place)."""
    arrays = trace.arrays()
    write_atomically(path, lambda tmp: np.savez(tmp, **arrays), suffix=".npz")
