"""Hypothesis profiles, set once: ``ci`` (default) never flakes; ``fuzz`` searches harder.

Choose with ``HYPOTHESIS_PROFILE=fuzz``.  JIT compilation trips per-example deadlines,
so the deadline is off in the profile rather than test by test.

Text embeddings (the ``locomo`` workload) are cached in the checkout's ``.cache/`` during
tests, not in the user's ``~/.cache``, unless ``SEMCACHE_CACHE_DIR`` says otherwise; tests
that need a cold cache make their own.  The data home (``SEMCACHE_DATA``, see
:mod:`workloads.data_home`) defaults here to the workplace's ``../shared/data`` beside the
checkout, when it is there.  Without LoCoMo data there (and no ``SEMCACHE_LOCOMO``), the
``locomo`` workload reads the fixture ``tests/data/locomo``, so the registry-wide tests still
cover it; the tests of real-data facts skip.
"""

import os
import pathlib

from hypothesis import HealthCheck, settings

settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True,
                          max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fuzz", deadline=None, max_examples=2000, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

_ROOT = pathlib.Path(__file__).resolve().parents[1]
_SHARED = _ROOT.parent / "shared" / "data"
os.environ.setdefault("SEMCACHE_CACHE_DIR", str(_ROOT / ".cache"))
if _SHARED.is_dir():
    os.environ.setdefault("SEMCACHE_DATA", str(_SHARED))
if not (pathlib.Path(os.environ.get("SEMCACHE_DATA", "/nonexistent")) / "locomo").is_dir():
    os.environ.setdefault("SEMCACHE_LOCOMO", str(_ROOT / "tests" / "data" / "locomo"))
