"""The contract: which checks apply to a policy, and :func:`check_policy`."""

from __future__ import annotations

from simulator import policies
from simulator.testing.contract.budget import check_budget, check_paging_budget
from simulator.testing.contract.paging import check_paging, check_paging_loop
from simulator.testing.contract.semantic import (check_arrivals, check_capacity,
                                              check_determinism, check_feedback,
                                              check_modifications, check_randomized,
                                              check_reset)
from simulator.testing.contract.timing import check_online_in_time


SEMANTIC_CHECKS = (check_capacity, check_determinism, check_randomized, check_feedback,
                   check_reset, check_modifications, check_arrivals, check_budget,
                   check_online_in_time)
PAGING_CHECKS = (check_paging, check_paging_budget)


def _paging_checks_of(pol):
    # The loop is checked against the hooks before the budget check, which runs the loop:
    # a loop that disagrees should be reported as that, not as a budget difference.
    if "paging" not in pol.modes:
        return ()
    loop = (check_paging_loop,) if pol.paging_loop is not None else ()
    return PAGING_CHECKS[:1] + loop + PAGING_CHECKS[1:]


def semantic_checks():
    return [(name, c) for name, p in policies.REGISTRY.items() if "semantic" in p.modes
            for c in SEMANTIC_CHECKS]


def paging_checks():
    return [(name, c) for name, p in policies.REGISTRY.items() for c in _paging_checks_of(p)]


def check_policy(name, params: dict | None = None) -> list:
    """Run every check that applies to a policy (by its modes), with its parameters
    ``params`` (defaults when None); ``name`` is a registered name or a
    :class:`~simulator.policies.base.Policy` object, which need not be registered.

    Returns the names of the checks run; raises AssertionError naming the policy, the
    failed check and what failed (an error the engine raised counts as a failure too, such
    as a victim slot that is not occupied).  The hooks run compiled, so a hook that writes
    out of its arrays' bounds can crash the process instead.
    """
    pol = policies.resolve(name)
    pol.resolve_params(params)  # a bad parameter is the caller's error, not a failed check
    checks = (SEMANTIC_CHECKS if "semantic" in pol.modes else ()) + _paging_checks_of(pol)
    for check in checks:
        try:
            check(name, params)
        except AssertionError as exc:
            raise AssertionError(f"policy '{pol.name}' fails {check.__name__}: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - the engine's own objections
            raise AssertionError(f"policy '{pol.name}' fails {check.__name__}: "
                                 f"{type(exc).__name__}: {exc}") from None
    return [check.__name__ for check in checks]
