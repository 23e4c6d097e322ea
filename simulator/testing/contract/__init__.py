"""The contract every registered policy meets: :func:`check_policy` runs it on one policy.

Like scikit-learn's ``check_estimator`` and ``parametrize_with_checks``: each check takes
a registered policy's name (and optionally its parameters) and raises AssertionError with
a readable message (also under ``python -O``: the checks do not use ``assert``);
:func:`semantic_checks` and :func:`paging_checks` list ``(name, check)`` pairs over the
whole registry, which the test suite runs.  The checks hold for any policy: capacity is
never exceeded, a seed fixes a run, no state leaks between runs, N counts every change of
the cache, arrivals and re-arrivals are honoured, a policy reads the steps' times online
(:func:`~simulator.testing.contract.timing.check_online_in_time`), paging runs behave, and
a policy's own paging loop (if any) equals its hooks.  Per-policy behaviour (a policy's
exact rule) is tested elsewhere.

The checks read what a policy declares about itself
(:class:`~simulator.policies.base.Traits`) and verify it: a randomized policy's decisions
change with the seed and any other policy's never do (:func:`check_randomized`), a
regret-gated policy's admissions follow the miss costs and any other policy's decisions
ignore them (:func:`check_feedback`), and an online policy is never handed the trace, so
one that reads it fails every check.

>>> check_policy("fifo")[:3]
['check_capacity', 'check_determinism', 'check_randomized']

:func:`check_hook_order` holds the engines themselves to the order in which they call
a policy's hooks (:data:`~simulator.policies.base.HOOK_ORDER`), with a recording policy.

The checks live in :mod:`~simulator.testing.contract.semantic`,
:mod:`~simulator.testing.contract.paging`, :mod:`~simulator.testing.contract.budget` and
:mod:`~simulator.testing.contract.timing`; their
traces and helpers in :mod:`~simulator.testing.contract.traces`.
"""

from simulator.testing.contract.contract import (PAGING_CHECKS, SEMANTIC_CHECKS, check_policy,
                                              paging_checks, semantic_checks)
from simulator.testing.contract.hook_order import check_hook_order
from simulator.testing.contract.paging import paging_loop_result
from simulator.testing.contract.traces import (K, clustered_trace, declared, sized_requests,
                                            sized_trace, zipf_requests)

__all__ = ["K", "PAGING_CHECKS", "SEMANTIC_CHECKS", "check_hook_order", "check_policy",
           "clustered_trace", "declared", "paging_checks", "paging_loop_result",
           "semantic_checks", "sized_requests", "sized_trace", "zipf_requests"]
