"""Hypothesis profiles, set once, and the declared datasets (:mod:`datasets`).

Profiles: ``ci`` (default) never flakes; ``fuzz`` searches harder.  Choose with
``HYPOTHESIS_PROFILE=fuzz``.  JIT compilation trips per-example deadlines, so the deadline
is off in the profile rather than test by test.

Data: a test that reads a dataset declares it, ``@pytest.mark.data("locomo")``, and is
skipped with the reason (what the data is, how to get it) where the data is not found.
Every test runs with the data variables set for it alone: an empty data home and the
LoCoMo fixture ``tests/data/locomo`` unless it declares data (:mod:`datasets`).  So a test
that depends on data without declaring it fails in every checkout.  With
``SEMCACHE_TEST_REQUIRE_DATA=1`` (CI's data pass) a declared dataset that is not found
fails the test instead.

Text embeddings (the ``locomo`` workload) are cached in the checkout's ``.cache/`` during
tests, not in the user's ``~/.cache``, unless ``SEMCACHE_CACHE_DIR`` says otherwise; tests
that need a cold cache make their own.
"""

import atexit
import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, settings

from helpers import datasets

settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True,
                          max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fuzz", deadline=None, max_examples=2000, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

os.environ.setdefault("SEMCACHE_CACHE_DIR", str(datasets.ROOT / ".cache"))
_EMPTY_HOME = tempfile.mkdtemp(prefix="semcache-no-data-")
# set (CI's data pass): a declared dataset that is not found fails the test, not skips it
REQUIRE_DATA = "SEMCACHE_TEST_REQUIRE_DATA"
atexit.register(shutil.rmtree, _EMPTY_HOME, True)


# test data, not tests: --doctest-modules would import tests/data/plugins/redundancy.py at
# collection and register its policy in every worker, under a module name of pytest's (a
# loop named after it is not the one `--plugin` loads)
collect_ignore = ["data"]


def _set(env: dict) -> None:
    for name, value in env.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


# what module-level code sees at collection: no data
_set(datasets.environment((), _EMPTY_HOME))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "data(*names): the test reads these datasets (tests/helpers/datasets.py); "
        "skipped where they are not found")


def _declared(item) -> tuple:
    names = tuple(n for mark in item.iter_markers("data") for n in mark.args)
    unknown = [n for n in names if n not in datasets.DATASETS]
    if unknown:
        raise pytest.UsageError(f"{item.nodeid}: unknown dataset(s) {unknown}; declare one "
                                f"of {sorted(datasets.DATASETS)}")
    return names


def pytest_collection_modifyitems(config, items):
    for item in items:
        _declared(item)  # an unknown name stops the run before any test


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item):
    # around setup, call and teardown, so module fixtures built for a test see its data
    names = _declared(item)
    saved = {v: os.environ.get(v) for v in datasets.VARIABLES}
    _set(datasets.environment(names, _EMPTY_HOME))
    try:
        return (yield)
    finally:
        _set(saved)


def pytest_runtest_setup(item):
    reason = datasets.missing_reason(_declared(item))
    if reason and os.environ.get(REQUIRE_DATA):
        pytest.fail(f"{REQUIRE_DATA} is set: {reason}", pytrace=False)
    if reason:
        pytest.skip(reason)
