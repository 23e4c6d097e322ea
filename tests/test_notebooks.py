"""Every notebook in ``notebooks/`` runs top to bottom without error (as CI executes them).

Notebooks run in a fresh kernel with the working directory set to a temporary folder, so
files they write never land in the repository; ``SEMCACHE_NOTEBOOK_QUICK=1`` asks them for
their small settings.
"""

import os
import pathlib

import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("SEMCACHE_NOTEBOOK_QUICK", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ should hold at least one executed notebook"
    assert os.path.exists(NOTEBOOKS[0])
