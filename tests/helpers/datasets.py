"""The datasets a test may read: each declared by the tests that need it.

semcache ships loaders, not data (docs/usage.md, "Data").  A test that reads a dataset says so
with ``@pytest.mark.data("locomo")`` (several names allowed; ``pytestmark`` for a whole
module).  Without that dataset the test is skipped with a reason that names the data and
how to get it.  Every other test runs with an empty data home and the datasets' own
variables unset (``conftest.py``), in every checkout: a test that reads data without
declaring it fails here as it would in a user's fresh clone, never silently.

Where the data is, decided once when the suite starts: a dataset's own variable
(``SEMCACHE_LOCOMO``, ``SEMCACHE_SOLAR_DATA``) if set, else its folder under
``$SEMCACHE_DATA`` if set, else under the workplace's ``../shared/data`` beside the
checkout, else under the default data home (:func:`workloads.data.data_home.data_home`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib

from workloads.data.data_home import ENV as DATA_HOME
from workloads.data.data_home import data_home

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORKPLACE = ROOT.parent / "shared" / "data"
LOCOMO_FIXTURE = ROOT / "tests" / "data" / "locomo"


@dataclasses.dataclass(frozen=True)
class Dataset:
    """One dataset: its folder under the data home, the variable that may point elsewhere,
    the files that show it is there, and what it is and how to get it."""

    folder: str
    env: str | None
    probes: tuple
    how: str


DATASETS = {
    "locomo": Dataset(
        "locomo", "SEMCACHE_LOCOMO", ("26.json",),
        "LoCoMo-10 (Maharana et al., ACL 2024): unzip data/locomo10.zip of "
        "github.com/snap-research/locomo into $SEMCACHE_DATA/locomo (one JSON file per "
        "conversation), or set SEMCACHE_LOCOMO"),
    "solar-synthetic": Dataset(
        "solar-synthetic", "SEMCACHE_SOLAR_DATA", ("INDEX.json",),
        "the SOLAR authors' synthetic traces: synthetic_workloads/datasets/ of "
        "github.com/ysunbp/SOLAR into $SEMCACHE_DATA/solar-synthetic, or set "
        "SEMCACHE_SOLAR_DATA"),
    "libcachesim-traces": Dataset(
        "libcachesim-traces", None,
        ("cloudPhysicsIO.oracleGeneral.bin", "cloudPhysicsIO.csv", "cloudPhysicsIO.txt"),
        "libCacheSim's CloudPhysics block trace: data/cloudPhysicsIO.oracleGeneral.bin, "
        ".csv and .txt of github.com/1a1a11a/libCacheSim into "
        "$SEMCACHE_DATA/libcachesim-traces"),
    "paper-tables": Dataset(
        "paper-tables", None, ("solar.json",),
        "the workplace's own transcription of the SOLAR paper's printed tables "
        "(paper-tables/solar.json under the data home), against which the shipped copy "
        "is checked; users have the shipped copy and need nothing"),
}
# what a test that declares no data sees: every dataset variable unset (locomo reads the
# fixture, so the registry-wide tests still cover it) and an empty data home
VARIABLES = (DATA_HOME, "SEMCACHE_PAPER_TABLES",
             *(d.env for d in DATASETS.values() if d.env))
# The variables as the suite was started with them.  The first process to import this
# module (pytest, or xdist's controller) records them for its workers, which inherit the
# environment conftest.py has already changed.
_RECORD = "SEMCACHE_TEST_STARTED_WITH"
if _RECORD not in os.environ:
    os.environ[_RECORD] = json.dumps({v: os.environ.get(v) for v in VARIABLES})
STARTED_WITH = json.loads(os.environ[_RECORD])


def _home() -> pathlib.Path:
    if STARTED_WITH[DATA_HOME]:
        return pathlib.Path(STARTED_WITH[DATA_HOME])
    if WORKPLACE.is_dir():
        return WORKPLACE
    saved = os.environ.pop(DATA_HOME, None)
    try:
        return data_home()
    finally:
        if saved is not None:
            os.environ[DATA_HOME] = saved


HOME = _home()


def located(name: str) -> pathlib.Path | None:
    """Where dataset ``name`` is for this suite, or None when it is not there."""
    d = DATASETS[name]
    where = (pathlib.Path(STARTED_WITH[d.env]) if d.env and STARTED_WITH[d.env]
             else HOME / d.folder)
    return where if all((where / p).is_file() for p in d.probes) else None


def missing_reason(names) -> str | None:
    """Why a test that declares ``names`` cannot run here (None: it can)."""
    gone = [n for n in names if located(n) is None]
    if not gone:
        return None
    return "; ".join(f"needs {n}, not found ({DATASETS[n].how})" for n in gone)


def environment(names, empty_home: str) -> dict:
    """The variables a test that declares ``names`` runs with (None: unset).

    A test that declares nothing gets ``empty_home`` as its data home and the LoCoMo
    fixture as its LoCoMo; one that declares data gets the data home, and each declared
    dataset its own location.
    """
    env = dict.fromkeys(VARIABLES)
    env[DATA_HOME] = str(HOME) if names else empty_home
    env["SEMCACHE_LOCOMO"] = str(LOCOMO_FIXTURE)
    for n in names:
        if DATASETS[n].env:
            env[DATASETS[n].env] = str(located(n))
    return env


def path(name: str) -> pathlib.Path:
    """The folder of dataset ``name``, for a test that declared it.

    Read from the test's environment, so a test that did not declare the dataset gets an
    error here rather than the data.
    """
    d = DATASETS[name]
    where = (pathlib.Path(os.environ[d.env]) if d.env and os.environ.get(d.env)
             else pathlib.Path(os.environ.get(DATA_HOME, "/nonexistent")) / d.folder)
    if not all((where / p).is_file() for p in d.probes):
        raise LookupError(f"dataset {name!r} is not visible to this test: declare "
                          f"@pytest.mark.data({name!r})")
    return where
