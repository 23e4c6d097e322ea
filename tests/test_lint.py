"""The code passes ``ruff check`` under the project's configuration ([tool.ruff] in
pyproject.toml), so a ``# noqa`` marker names a rule that is checked."""

import pathlib
import shutil
import subprocess
import sys


ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff", path=str(pathlib.Path(sys.executable).parent)) or \
        shutil.which("ruff")
    assert ruff, "ruff is not installed: `make test` installs it (the test extra)"
    proc = subprocess.run([ruff, "check", "--output-format", "concise", "."], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
