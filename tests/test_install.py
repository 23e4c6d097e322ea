"""The distribution installs ``simulator``, ``workloads`` and ``theory`` as three top-level
packages of one root, and nothing depends on where that root is: installed elsewhere, the
packages load together from there, hash to the same code id (which sweep rows carry) and
run, with the paper's printed values installed beside the code."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

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
