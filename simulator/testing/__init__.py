"""Property tests for your own policies and claims, in your own CI.

Strategies (hypothesis): :func:`traces` draws valid semantic, paging or sized traces and
:func:`instances` tiny semantic :class:`Instance` s (a trace and the options it runs under,
:mod:`simulator.instance`) whose OPT is exact;
both build the trace from drawn primitives (steps, vectors, topics, keys, weights, K, k,
λ, quality), so a counterexample shrinks to a smaller instance, not to another seed.
:func:`policy_params` draws a policy's parameters.

Reference: :func:`reference_run` and :func:`reference_paging_run` run docs/model.md §1
in plain Python, with a policy restated as a :class:`Twin` (subclass it; the model it
sees is in :mod:`simulator.testing.reference_model`: :class:`Item`, :func:`similarity`,
:class:`SplitMix64`, the twin of the seeded random streams).  :class:`HookDriver` calls a
compiled policy's hooks one at a time against its twin, and :func:`hook_machine` makes a
hypothesis state machine of it.

Assertions: :func:`assert_ratio_at_most` (cost ≤ c·OPT + additive; :class:`Undecided`
when only bounds straddle it) and :func:`assert_same_as_reference` (the compiled run
equals the twin's step by step); a failure names the saved instance and the
``semcache run`` / ``semcache opt`` lines that replay it, with the ``--plugin`` that
defines the policy.  The instance is saved when the message is first read, so a failed
property test leaves one file, its shrunk instance (:mod:`simulator.testing.replay`).

Every function checks its arguments when called: a bad one is one
:class:`~simulator.errors.InputError` whose ``param`` names it
(:mod:`simulator.testing.arguments`).  The guide is docs/testing.md.

This package sits on the application floor: it imports :mod:`theory` for OPT, and
nothing in the core imports it.

The first run of a policy compiles it (seconds): give hypothesis ``deadline=None``.

Examples
--------
The smallest instance on which LRU costs more than twice OPT, with λ = 2: one step, where
LRU pays λ to admit an item no later query needs.

>>> from hypothesis import find, settings
>>> from simulator.testing import assert_ratio_at_most, instances
>>> def breaks_lru_2(inst):
...     try:
...         assert_ratio_at_most("lru", inst, c=2.0)
...     except AssertionError:
...         return True
...     return False
>>> smallest = find(instances(switch_costs=[2.0]), breaks_lru_2,
...                 settings=settings(deadline=None, database=None, derandomize=True))
>>> smallest.steps
1
>>> try:
...     assert_ratio_at_most("lru", smallest, c=2.0)
... except AssertionError as failure:
...     print(str(failure).splitlines()[0])
lru: cost 3 > 2·OPT + 0 with OPT = 1
"""

from simulator.instance import Instance
from simulator.testing.assertions import (Undecided, assert_ratio_at_most,
                                          assert_same_as_reference)
from simulator.testing.hook_driver import HookDriver
from simulator.testing.hook_machine import hook_machine
from simulator.testing.reference import reference_paging_run, reference_run
from simulator.testing.reference_model import Item, SplitMix64, TwinContext, similarity
from simulator.testing.strategies import instances, policy_params, traces
from simulator.testing.twin import Twin

__all__ = ["HookDriver", "Instance", "Item", "SplitMix64", "Twin", "TwinContext", "Undecided",
           "assert_ratio_at_most", "assert_same_as_reference", "hook_machine", "instances",
           "policy_params", "reference_paging_run", "reference_run", "similarity", "traces"]
