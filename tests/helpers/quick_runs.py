"""The quick reproductions and claim checks, run once per test session and read by every
test that needs them.

``semcache reproduce all --quick --report DIR`` runs every quick reproduction and every
quick claim check; ``test_report.py`` checks the report, ``test_reproduce.py`` and
``test_locomo_temporal.py`` the tables and ``test_claims.py`` the claims.  Each used to run
them again.  Here :func:`quick_tables` and :func:`quick_claims` make the calls the report
makes (``reproduce(name, quick=True, seeds=(0, 1, 2))`` for every reproduction that can
run, ``check_all(quick=True)``), and :func:`quick_report` builds the report through the
command, its own calls answered with those results.

With pytest-xdist the workers share each through a file: the first to ask makes it under a
lock, in the session's temporary folder (the parent of each worker's), and the other reads
the pickle; the tables and the claims have a lock each, so two workers make them at once.
Everything is made as a fresh clone sees it (an empty data home and the suite's LoCoMo
fixture), whichever test asks first.
"""

from __future__ import annotations

import contextlib
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


SEEDS = [0, 1, 2]  # the report's default seeds, and reproduce()'s


def quick_tables(tmp_path_factory) -> dict:
    """Each reproduction that can run here, by name: ``(document, files)`` as
    :func:`~simulator.experiments.reproduce.reproduce` returns them with ``quick=True``."""
    return copy.deepcopy(shared(tmp_path_factory, "quick-tables", _tables))


def quick_claims(tmp_path_factory) -> list:
    """:func:`theory.claims.check_all` with ``quick=True``: every claim's result, its
    instances saved under the session's folder."""
    return copy.deepcopy(shared(tmp_path_factory, "quick-claims", _claims))


def quick_report(tmp_path_factory) -> dict:
    """The quick report: ``{"folder", "manifest", "index"}``."""
    return copy.deepcopy(shared(tmp_path_factory, "quick-report",
                                lambda folder: _report(folder, tmp_path_factory)))


@contextlib.contextmanager
def _fresh_clone(folder: pathlib.Path):
    empty = folder / "empty-data-home"
    empty.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        for variable, value in datasets.environment((), str(empty)).items():
            if value is None:
                patch.delenv(variable, raising=False)
            else:
                patch.setenv(variable, value)
        yield patch


def _tables(folder: pathlib.Path) -> dict:
    from simulator.experiments.reproduce import REGISTRY, reproduce

    with _fresh_clone(folder):
        return {name: reproduce(name, quick=True, seeds=SEEDS, out_dir=str(folder / "out"))
                for name, exp in REGISTRY.items() if exp.available()}


def _claims(folder: pathlib.Path) -> list:
    from theory.claims import check_all

    with _fresh_clone(folder):
        return check_all(quick=True, out_dir=str(folder / "out"))


def _report(folder: pathlib.Path, tmp_path_factory) -> dict:
    import theory.claims
    from simulator.cli import main
    from simulator.experiments import reproduce as repro

    tables, claims = quick_tables(tmp_path_factory), quick_claims(tmp_path_factory)
    real_reproduce, real_check_all = repro.reproduce, theory.claims.check_all

    def reproduce(name, quick=False, seeds=(0, 1, 2), out_dir="reproduce-out"):
        if not (quick and list(seeds) == SEEDS and name in tables):
            return real_reproduce(name, quick=quick, seeds=seeds, out_dir=out_dir)
        # the session's result, in a copy the report may edit and delete
        doc, files = copy.deepcopy(tables[name])
        os.makedirs(out_dir, exist_ok=True)
        return doc, {k: shutil.copy(v, os.path.join(out_dir, os.path.basename(v)))
                     for k, v in files.items()}

    def check_all(ids=None, quick=False, out_dir="claims-out", progress=None):
        if ids is not None or not quick:
            return real_check_all(ids, quick=quick, out_dir=out_dir, progress=progress)
        for claim in theory.claims.REGISTRY.values():
            if progress is not None:
                progress(claim)
        return copy.deepcopy(claims)

    with _fresh_clone(folder) as patch:
        patch.setattr(repro, "reproduce", reproduce)
        patch.setattr(theory.claims, "check_all", check_all)
        out = folder / "out"
        assert main(["reproduce", "all", "--quick", "--report", str(out)]) == 0
    with open(out / "report.json", encoding="utf-8") as fh:
        manifest = json.load(fh)
    return {"folder": out, "manifest": manifest,
            "index": (out / "index.md").read_text(encoding="utf-8")}
