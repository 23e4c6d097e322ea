"""A valid trace and the folder and outcome of a hostile-input run, for the hostile suites.

:func:`valid_arrays` is a small trace using every array (``T`` steps, ``D`` dimensions),
:func:`npz_bytes` its ``.npz`` bytes; :func:`workdir` is a fresh folder holding an earlier
result to keep; :func:`outcome` runs a command there under the bad-input contract
(:mod:`hostile_contract`).  Used by ``test_hostile_files`` (which corrupts trace ``.npz``
files), the other ``test_hostile_*`` modules and the events tests.
"""

from __future__ import annotations

import io
import pathlib
import tempfile

import numpy as np

from helpers.hostile_contract import assert_rejected

T, D = 6, 4


def valid_arrays() -> dict:
    """A small trace using every array: re-arriving keys, evidence and sizes."""
    rng = np.random.default_rng(1)
    keys = np.array([5, 9, 5, 2, 9, 7], np.int64)
    vectors = {k: rng.normal(size=D).astype(np.float32) for k in (2, 5, 7, 9)}
    return {"queries": rng.normal(size=(T, D)).astype(np.float32),
            "items": np.array([vectors[k] for k in keys.tolist()]),
            "query_topics": np.array([0, 1, -1, 2, 0, 1], np.int64),
            "item_topics": np.array([0, 1, 0, 2, 1, 2], np.int64),
            "weights": np.array([1, 0.5, 1, 0, 1, 0.25]),
            "scored": np.array([0, 1, 1, 1, 1, 1], bool), "item_keys": keys,
            "evidence_indptr": np.array([0, 1, 1, 3, 4, 4, 5], np.int64),
            "evidence_indices": np.array([5, 9, 2, 5, 7], np.int64),
            "item_sizes": np.array([2, 1, 2, 3, 1, 1], np.int64)}


def outcome(argv, workdir, word=None):
    """``semcache argv`` in ``workdir``: None when it succeeded, else the error line, the
    bad-input contract asserted (anything else, a traceback above all, fails)."""
    try:
        return assert_rejected(argv, workdir, word)
    except AssertionError as exc:
        if str(exc).startswith("exit code 0,"):
            return None
        raise


def workdir() -> pathlib.Path:
    folder = pathlib.Path(tempfile.mkdtemp(prefix="hostile-"))
    (folder / "old.json").write_text('{"kept": true}\n')
    (folder / "old.npz").write_bytes(b"an earlier result")
    return folder


def npz_bytes(arrays: dict, compress: bool = True) -> bytes:
    buf = io.BytesIO()
    (np.savez_compressed if compress else np.savez)(buf, **arrays)
    return buf.getvalue()
