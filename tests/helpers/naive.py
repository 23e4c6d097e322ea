"""The project's policy twins by policy name, and the reference engine run by name.

Each registered policy has a plain-Python twin (:class:`simulator.testing.Twin`) written
from its docstring: naive_policies.py (the SOLAR paper's and the classic ones),
naive_policies_modern.py (docs/model.md §2.3), naive_policies_ref.py (the authors' runner),
naive_policies_memory.py (the memory-management study), naive_policies_agent_b.py
(agent-memory frameworks: MemoryOS, LangMem, the mem0 surrogate),
naive_policies_agent_a.py (MemoryBank, Generative Agents, Letta) and
naive_policies_agent_c.py (``amem``, ``zep``).  :func:`naive_run` and
:func:`naive_paging_run` run the twin of a name through the public reference engine
(:mod:`simulator.testing.reference`), so a test can register a variant under a new name.
A twin registers itself, ``@twin_of(name)`` on its class (:mod:`helpers.twins`).
"""

from __future__ import annotations

from simulator.testing import reference_paging_run, reference_run
# each twin module registers its twins (helpers.twins) as it is imported
from helpers import (naive_policies, naive_policies_agent_a,  # noqa: F401
                     naive_policies_agent_b, naive_policies_agent_c, naive_policies_memory,
                     naive_policies_modern, naive_policies_ref)
from helpers.twins import TWINS

POLICIES = TWINS  # policy name -> its twin class, in the order the modules define them


def naive_run(trace, policy, *args, **options) -> dict:
    """:func:`simulator.testing.reference_run` of the twin registered as ``policy``."""
    return reference_run(trace, POLICIES[policy], *args, **options)


def naive_paging_run(requests, policy, *args, **options) -> dict:
    """:func:`simulator.testing.reference_paging_run` of the twin registered as ``policy``."""
    return reference_paging_run(requests, POLICIES[policy], *args, **options)
