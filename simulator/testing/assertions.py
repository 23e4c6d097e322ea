"""Assertions for a user's tests: a policy's cost against OPT, and a compiled policy
against its plain-Python twin.  A failure's message carries the instance, saved as an
``.npz`` trace, and the ``semcache run`` / ``semcache opt`` lines that replay it.

``policy`` is a registry name or a :class:`~simulator.policies.base.Policy` (registered
or not).  Every argument is checked before anything runs or compiles: a bad one is one
:class:`~simulator.errors.InputError` naming it.  The replay lines carry the ``--plugin``
that defines the policy (:mod:`simulator.testing.replay`).

>>> import numpy as np
>>> from simulator.instance import Instance
>>> from simulator.trace import Trace
>>> x = np.eye(2, dtype=np.float32)
>>> inst = Instance(Trace.from_arrays(queries=x[[0, 0]], items=x[[0, 0]], query_topics=[0, 0],
...                                   item_topics=[0, 0]), {"capacity": 1, "top_k": 1})
>>> assert_ratio_at_most("fifo", inst, c=1.0)  # both miss the first query only
"""

from __future__ import annotations

from simulator.errors import InputError
from simulator.rng import check_seed
from simulator.run_options import RunOptions
from simulator.runner import run
from simulator.testing import arguments
from simulator.testing.reference import reference_paging_run, reference_run
from simulator.testing.replay import Failure, describe
from simulator.testing.twin import twin_class
from simulator.trace import Trace
from theory.opt import opt_with

ARRAYS = ("loss", "hit", "precision", "quality", "admitted", "evicted", "deleted", "size")
COUNTERS = ("scored_steps", "hits", "hit_rate", "mean_precision", "mean_quality",
            "modifications", "rewrites", "admissions", "evictions", "miss_cost", "cost")
PAGING_COUNTERS = ("hits", "admissions", "evictions")
TOLERANCE = 1e-9  # relative: a cost and c·OPT equal but for float rounding pass


class Undecided(AssertionError):
    """OPT has only certified bounds here and they straddle the claim: the policy's cost
    is above c·lower + additive but not above c·upper + additive, so the instance neither
    breaks nor meets the claim.  A distinct failure: catch it, or draw smaller instances
    (:func:`simulator.testing.instances` gives exact OPT)."""


class Refuted(Failure):
    """The assertion's failure: the instance breaks it (an AssertionError)."""


class _UndecidedFailure(Failure, Undecided):
    __name__ = __qualname__ = "Undecided"  # what a traceback shows: the public type


def assert_ratio_at_most(policy, instance, c, additive=0.0, params=None, seed=0,
                         folder=None, time_limit=None):
    """Fail when the policy's cost on ``instance`` exceeds ``c``·OPT + ``additive``.

    The cost is ``simulator.run(instance.trace, policy, **instance.options)``'s; OPT is
    :func:`theory.opt.opt`'s (under ``time_limit`` seconds, if given).  When OPT is only
    bounded (lower ≤ OPT ≤ upper) it fails when the cost exceeds c·upper + additive and
    raises :class:`Undecided` when the cost lies between c·lower + additive and that.

    Parameters
    ----------
    policy : str or Policy
        A registered name or a :class:`~simulator.policies.base.Policy`.
    instance : Instance
        A semantic instance (:class:`simulator.instance.Instance`) with a capacity or a
        budget.
    c : float
        Finite and >= 0 (0 bounds the cost by ``additive`` alone).
    additive : float
        Finite.
    params : dict, optional
        The policy's parameters.
    seed : int
    folder : str or path, optional
        Where a failure saves the instance (default: a new temporary folder).
    time_limit : float, optional
        Seconds > 0 for OPT.

    Raises
    ------
    InputError
        A bad argument, before anything runs.
    AssertionError
        With the costs, the saved instance and the commands that replay it.
    """
    pol = arguments.policy("policy", policy)
    instance = arguments.instance("instance", instance, semantic=True)
    c = arguments.number("c", c, low=0.0)
    additive = arguments.number("additive", additive)
    time_limit = arguments.number("time_limit", time_limit, above=0.0, none=True)
    params, seed, folder = _common(pol, instance, params, seed, folder)
    options = _options(pol, instance, params, seed)
    if options.capacity is None and options.budget is None:
        raise InputError("instance: OPT needs a capacity or a budget in instance.options",
                         "instance")
    cost = float(run(instance.trace, options=options).summary()["cost"])
    best = opt_with(instance.trace, options, time_limit=time_limit)
    upper = best.opt_cost if best.exact else best.upper_bound

    def beyond(value):
        bound = c * value + additive
        return cost > bound + TOLERANCE * max(1.0, abs(bound))

    def details():
        return describe(instance, pol, params, seed, folder)

    if beyond(upper):
        opt_text = f"OPT = {upper:g}" if best.exact else f"OPT <= {upper:g} (bounds only)"
        raise Refuted(f"{pol.name}: cost {cost:g} > {c:g}·OPT + {additive:g} with "
                       f"{opt_text}", details)
    if not best.exact and beyond(best.lower_bound):
        raise _UndecidedFailure(f"{pol.name}: cost {cost:g} against {best.lower_bound:g} <= OPT <= "
                         f"{upper:g}: undecided for c = {c:g}, additive = {additive:g}",
                         details)


def assert_same_as_reference(policy, twin, instance, params=None, seed=0, folder=None):
    """Fail unless the compiled run of ``policy`` equals the reference engine's run of
    ``twin`` (a :class:`~simulator.testing.twin.Twin` subclass) on ``instance``.

    Semantic: every per-step array and every summary counter, floats bit for bit and of
    the same type.  Paging: the hit of every request and the hit, admission and eviction
    counts.  The message names the first step that differs.  The arguments are those of
    :func:`assert_ratio_at_most` (``params`` must suit the twin's ``defaults`` too), each
    checked before anything runs.
    """
    pol = arguments.policy("policy", policy)
    twin = twin_class("twin", twin)
    instance = arguments.instance("instance", instance)
    params, seed, folder = _common(pol, instance, params, seed, folder)
    arguments.twin_params("params", twin, params)
    if bool(twin.repeat_delete) != pol.repeat_delete:
        raise InputError(f"policy '{pol.name}' has repeat_delete={pol.repeat_delete} and "
                         f"twin {twin.__name__} {twin.repeat_delete}; give both the same",
                         "twin")
    trace, options = instance.trace, instance.options
    result = run(trace, options=_options(pol, instance, params, seed))
    if isinstance(trace, Trace):
        ref = reference_run(trace, twin, seed=seed, params=params, **options)
        arrays, counters = ARRAYS, COUNTERS
    else:
        ref = reference_paging_run(trace.requests, twin, options.get("capacity"), seed,
                                   params, trace.request_sizes if trace.sized else None,
                                   options.get("budget"), trace.object_ids)
        ref["admissions"] = sum(a >= 0 for a in ref["admitted"])
        arrays, counters = ("hit",), PAGING_COUNTERS
    where = f"{pol.name} against {twin.__name__}"

    def details():
        return describe(instance, pol, params, seed, folder, with_opt=False)

    for array in arrays:
        got, want = getattr(result, array).tolist(), ref[array]
        if got != want:
            t = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), len(want))
            raise Refuted(f"{where}: '{array}' differs first at step {t}: engine "
                           f"{got[t:t + 1]}, reference {want[t:t + 1]}\nengine    {got}\n"
                           f"reference {want}", details)
    if isinstance(trace, Trace) and result.delete_log is not None:
        got = [tuple(row) for row in result.delete_log.tolist()]
        want = [(t, key) for t, keys in enumerate(ref["deleted_all"]) for key in keys]
        if got != want:
            raise Refuted(f"{where}: the deletions (step, key) differ: engine {got}, "
                          f"reference {want}", details)
    summary = result.summary()
    for counter in counters:
        got, want = summary[counter], ref[counter]
        if got != want or type(got) is not type(want):
            raise Refuted(f"{where}: {counter} {got!r} != reference {want!r}", details)


def _common(pol, instance, params, seed, folder) -> tuple:
    """The arguments both assertions take, checked: (params, seed, folder)."""
    mode = "semantic" if isinstance(instance.trace, Trace) else "paging"
    if mode not in pol.modes:
        raise InputError(f"policy '{pol.name}' runs in {', '.join(pol.modes)} mode only; the "
                         f"instance is {mode}", "policy")
    params = arguments.policy_params("params", pol, params)
    return params, check_seed(seed), arguments.folder("folder", folder)


def _options(pol, instance, params, seed) -> RunOptions:
    """The run's options, checked once (the instance's were when it was built)."""
    return RunOptions.build(policy=pol, seed=seed, params=params, **instance.options)
