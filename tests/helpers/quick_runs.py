"""The quick report, made once per test session and read by every test that needs it.

``semcache reproduce all --quick --report DIR`` runs every quick reproduction and every
quick claim check; ``test_report.py`` checks the report, ``test_reproduce.py`` and
``test_locomo_temporal.py`` the tables and ``test_claims.py`` the claims.  Each used to run
them again.  :func:`quick_report` builds the report once, through the command, and keeps
what ``reproduce`` and ``check_all`` returned inside it: the tables' documents with their
files, and the claims' results with their saved instances.

With pytest-xdist the workers share it through a file: the first to ask builds it under
a lock, in the session's temporary folder (the parent of each worker's), and the other
reads the pickle.  It is built as a fresh clone sees it (an empty data home and the suite's
LoCoMo fixture), whichever test asks first.
"""

from __future__ import annotations

import copy
import json
import os
import pathlib
import pickle
import shutil

import filelock
import pytest

from helpers import datasets


def shared(tmp_path_factory, name: str, make):
    """``make(folder)``'s value, computed once per session by whichever worker asks first;
    ``folder`` outlives the session's tests and the value must pickle."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the session's folder, shared by its workers
    done = root / f"{name}.pickle"
    with filelock.FileLock(str(root / f"{name}.lock")):
        if done.exists():
            with open(done, "rb") as fh:
                return pickle.load(fh)
        folder = root / name
        shutil.rmtree(folder, ignore_errors=True)  # a build that failed half-way
        folder.mkdir()
        value = make(folder)
        with open(done, "wb") as fh:
            pickle.dump(value, fh)
        return value


def quick_report(tmp_path_factory) -> dict:
    """The session's quick report: ``{"folder", "manifest", "index", "tables", "claims"}``.

    ``tables`` maps each reproduction that ran to ``(document, files)`` as
    :func:`~simulator.experiments.reproduce.reproduce` returned them (the Parquet file
    kept: the report drops its own copy); ``claims`` is the list
    :func:`theory.claims.check_all` returned, instances saved under the folder.
    """
    value = shared(tmp_path_factory, "quick-report", _build)
    return copy.deepcopy(value)  # a test that edits a document leaves the next one alone


def _build(folder: pathlib.Path) -> dict:
    import theory.claims
    from simulator.cli import main
    from simulator.experiments import reproduce as repro

    tables, claims = {}, []
    real_reproduce, real_check_all = repro.reproduce, theory.claims.check_all

    def reproduce(name, quick=False, seeds=(0, 1, 2), out_dir="reproduce-out"):
        # run into a folder of our own, then hand the report a copy to edit and delete
        doc, files = real_reproduce(name, quick=quick, seeds=seeds,
                                    out_dir=str(folder / "tables"))
        tables[name] = (copy.deepcopy(doc), dict(files))
        os.makedirs(out_dir, exist_ok=True)
        given = {k: shutil.copy(v, os.path.join(out_dir, os.path.basename(v)))
                 for k, v in files.items()}
        return doc, given

    def check_all(ids=None, quick=False, out_dir="claims-out", progress=None):
        # the instances go where the tests can read them (the report deletes its own)
        results = real_check_all(ids, quick=quick, out_dir=str(folder / "claims"),
                                 progress=progress)
        claims.extend(results)
        return results

    empty = folder / "empty-data-home"
    empty.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        for variable, value in datasets.environment((), str(empty)).items():
            if value is None:
                patch.delenv(variable, raising=False)
            else:
                patch.setenv(variable, value)
        patch.setattr(repro, "reproduce", reproduce)
        patch.setattr(theory.claims, "check_all", check_all)
        out = folder / "out"
        assert main(["reproduce", "all", "--quick", "--report", str(out)]) == 0
    with open(out / "report.json", encoding="utf-8") as fh:
        manifest = json.load(fh)
    return {"folder": out, "manifest": manifest,
            "index": (out / "index.md").read_text(encoding="utf-8"),
            "tables": tables, "claims": claims}
