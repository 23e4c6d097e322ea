"""Hypothesis profiles, set once: ``ci`` (default) never flakes; ``fuzz`` searches harder.

Choose with ``HYPOTHESIS_PROFILE=fuzz``.  JIT compilation trips per-example deadlines,
so the deadline is off in the profile rather than test by test.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True,
                          max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fuzz", deadline=None, max_examples=2000, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
