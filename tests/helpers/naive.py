"""The project's policy twins by policy name, and the reference engine run by name.

Each registered policy has a plain-Python twin (:class:`simulator.testing.Twin`) written
from its docstring: naive_policies.py (the SOLAR paper's and the classic ones),
naive_policies_modern.py (docs/model.md §2.3), naive_policies_ref.py (the authors' runner)
and naive_policies_memory.py (the memory-management study).  :func:`naive_run` and
:func:`naive_paging_run` run the twin of a name through the public reference engine
(:mod:`simulator.testing.reference`), so a test can register a variant under a new name.
"""

from __future__ import annotations

from simulator.testing import reference_paging_run, reference_run
from helpers.naive_policies import (Arc, Belady, Fifo, Lfu, Lru, Solar, SolarA, SolarE,
                            Unlimited)
from helpers.naive_policies_modern import RandomEvict, S3Fifo, Sieve, TinyLfu, TwoQ
from helpers.naive_policies_ref import ArcRef, LruRef, SolarARef, SolarERef, SolarRef

POLICIES = {
    "unlimited": Unlimited,
    "fifo": Fifo,
    "lru": Lru,
    "lfu": Lfu,
    "arc": Arc,
    "belady": Belady,
    "solar_e": SolarE,
    "solar_a": SolarA,
    "solar": Solar,
    "sieve": Sieve,
    "s3fifo": S3Fifo,
    "twoq": TwoQ,
    "tinylfu": TinyLfu,
    "random": RandomEvict,
    "lru_ref": LruRef,
    "arc_ref": ArcRef,
    "solar_e_ref": SolarERef,
    "solar_a_ref": SolarARef,
    "solar_ref": SolarRef,
}

# The memory-management study.
from helpers.naive_policies_memory import (AddAll, Coarse, Combined, Fixed, History,  # noqa: E402
                                   Periodic, Strict)

POLICIES.update({"fixed": Fixed, "add_all": AddAll, "strict": Strict, "coarse": Coarse,
                 "periodic": Periodic, "history": History, "combined": Combined})


def naive_run(trace, policy, *args, **options) -> dict:
    """:func:`simulator.testing.reference_run` of the twin registered as ``policy``."""
    return reference_run(trace, POLICIES[policy], *args, **options)


def naive_paging_run(requests, policy, *args, **options) -> dict:
    """:func:`simulator.testing.reference_paging_run` of the twin registered as ``policy``."""
    return reference_paging_run(requests, POLICIES[policy], *args, **options)
