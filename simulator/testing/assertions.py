"""Assertions for a user's tests: a policy's cost against OPT, and a compiled policy
against its plain-Python twin.  A failure's message carries the instance, saved as an
``.npz`` trace, and the ``semcache run`` / ``semcache opt`` lines that replay it.

``policy`` is a registry name or a :class:`~simulator.policies.base.Policy`; one that is
not registered under its name is registered for the call only (the replay lines then
need it registered in that process too, e.g. by a plugin).

>>> import numpy as np
>>> from simulator.instance import Instance
>>> from simulator.trace import Trace
>>> x = np.eye(2, dtype=np.float32)
>>> inst = Instance(Trace.from_arrays(queries=x[[0, 0]], items=x[[0, 0]], query_topics=[0, 0],
...                                   item_topics=[0, 0]), {"capacity": 1, "top_k": 1})
>>> assert_ratio_at_most("fifo", inst, c=1.0)  # both miss the first query only
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import tempfile

import numpy as np

from simulator import policies
from simulator.runner import run
from simulator.testing.reference import reference_paging_run, reference_run
from simulator.trace import Trace
from simulator.trace_formats import save
from theory.opt import opt

ARRAYS = ("loss", "hit", "precision", "quality", "admitted", "evicted", "deleted", "size")
COUNTERS = ("scored_steps", "hits", "hit_rate", "mean_precision", "mean_quality",
            "modifications", "admissions", "evictions", "miss_cost", "cost")
PAGING_COUNTERS = ("hits", "admissions", "evictions")
TOLERANCE = 1e-9  # relative: a cost and c·OPT equal but for float rounding pass


class Undecided(AssertionError):
    """OPT has only certified bounds here and they straddle the claim: the policy's cost
    is above c·lower + additive but not above c·upper + additive, so the instance neither
    breaks nor meets the claim.  A distinct failure: catch it, or draw smaller instances
    (:func:`simulator.testing.instances` gives exact OPT)."""


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
    instance : Instance
        A semantic instance (:class:`simulator.instance.Instance`).
    c, additive : float
    params : dict, optional
        The policy's parameters.
    seed : int
    folder : str, optional
        Where a failure saves the instance (default: a new temporary folder).

    Raises
    ------
    AssertionError
        With the costs, the saved instance and the commands that replay it.
    """
    with _registered(policy) as name:
        cost = float(run(instance.trace, name, seed=seed, params=params,
                         **instance.options).summary()["cost"])
    best = opt(instance.trace, time_limit=time_limit, **instance.options)
    upper = best.opt_cost if best.exact else best.upper_bound

    def beyond(value):
        bound = c * value + additive
        return cost > bound + TOLERANCE * max(1.0, abs(bound))

    if beyond(upper):
        opt_text = f"OPT = {upper:g}" if best.exact else f"OPT <= {upper:g} (bounds only)"
        raise AssertionError(f"{name}: cost {cost:g} > {c:g}·OPT + {additive:g} with "
                             f"{opt_text}\n" + describe(instance, name, params, seed, folder))
    if not best.exact and beyond(best.lower_bound):
        raise Undecided(f"{name}: cost {cost:g} against {best.lower_bound:g} <= OPT <= "
                        f"{upper:g}: undecided for c = {c:g}, additive = {additive:g}\n"
                        + describe(instance, name, params, seed, folder))


def assert_same_as_reference(policy, twin, instance, params=None, seed=0, folder=None):
    """Fail unless the compiled run of ``policy`` equals the reference engine's run of
    ``twin`` (a :class:`~simulator.testing.twin.Twin` subclass) on ``instance``.

    Semantic: every per-step array and every summary counter, floats bit for bit and of
    the same type.  Paging: the hit of every request and the hit, admission and eviction
    counts.  The message names the first step that differs.
    """
    trace, options = instance.trace, instance.options
    with _registered(policy) as name:
        result = run(trace, name, seed=seed, params=params, **options)
    if isinstance(trace, Trace):
        ref = reference_run(trace, twin, seed=seed, params=params, **options)
        arrays, counters = ARRAYS, COUNTERS
    else:
        ref = reference_paging_run(trace.requests, twin, options.get("capacity"), seed,
                                   params, trace.request_sizes if trace.sized else None,
                                   options.get("budget"), trace.object_ids)
        ref["admissions"] = sum(a >= 0 for a in ref["admitted"])
        arrays, counters = ("hit",), PAGING_COUNTERS
    where = f"{name} against {twin.__name__}"
    for array in arrays:
        got, want = getattr(result, array).tolist(), ref[array]
        if got != want:
            t = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), len(want))
            raise AssertionError(
                f"{where}: '{array}' differs first at step {t}: engine {got[t:t + 1]}, "
                f"reference {want[t:t + 1]}\nengine    {got}\nreference {want}\n"
                + describe(instance, name, params, seed, folder, with_opt=False))
    summary = result.summary()
    for counter in counters:
        got, want = summary[counter], ref[counter]
        if got != want or type(got) is not type(want):
            raise AssertionError(f"{where}: {counter} {got!r} != reference {want!r}\n"
                                 + describe(instance, name, params, seed, folder,
                                            with_opt=False))


def describe(instance, policy, params=None, seed=0, folder=None, with_opt=True) -> str:
    """The instance saved as an ``.npz`` under ``folder``, its options, and the commands
    that replay it, one a line.

    The default folder is one temporary folder per process.  The file is named by the
    policy, T and a digest of the instance, so each instance is saved once: a property
    test that fails leaves one small file per failing example hypothesis tried while
    shrinking, and its final message names the smallest.
    """
    folder = folder or _temporary_folder()
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{policy}-T{instance.steps}-{_digest(instance)}.npz")
    if not os.path.exists(path):
        save(instance.trace, path)
    lines = [f"instance: {path} ({instance.steps} steps) with {instance.options}",
             " ".join(replay_commands(instance, path, policy, params, seed)[0])]
    if with_opt and isinstance(instance.trace, Trace):
        lines.append(" ".join(replay_commands(instance, path, policy, params, seed)[1]))
    return "\n".join(lines)


def replay_commands(instance, path, policy, params=None, seed=0) -> tuple:
    """(``semcache run`` argv, ``semcache opt`` argv) of ``instance`` saved at ``path``.

    >>> from simulator.instance import Instance
    >>> from simulator.trace import PagingTrace
    >>> inst = Instance(PagingTrace.from_requests([0, 1]), {"capacity": 1})
    >>> " ".join(replay_commands(inst, "i.npz", "lru", {"tie": "admission"})[0])
    'semcache run --trace i.npz --policy lru --policy-param tie=admission --capacity 1'
    """
    model = []
    for key, value in instance.options.items():
        flag = "--" + key.replace("_", "-")
        model += [flag, "none" if value is None else f"{value:g}"
                  if isinstance(value, float) else str(value)]
    pp = [part for k, v in (params or {}).items() for part in ("--policy-param", f"{k}={v}")]
    seeded = ["--seed", str(seed)] if seed else []
    return (["semcache", "run", "--trace", path, "--policy", policy, *pp, *model, *seeded],
            ["semcache", "opt", "--trace", path, *model])


@functools.lru_cache(maxsize=None)
def _temporary_folder() -> str:
    return tempfile.mkdtemp(prefix="semcache-instances-")


def _digest(instance) -> str:
    h = hashlib.sha256(repr(sorted(instance.options.items())).encode())
    for name, array in sorted(instance.trace.arrays().items()):
        h.update(name.encode() + np.ascontiguousarray(array).tobytes())
    return h.hexdigest()[:12]


@contextlib.contextmanager
def _registered(policy):
    """The registry name to run ``policy`` under; a Policy not registered under its name
    is registered for the ``with`` block only."""
    if isinstance(policy, str):
        yield policy
        return
    before = policies.REGISTRY.get(policy.name)
    policies.REGISTRY[policy.name] = policy
    try:
        yield policy.name
    finally:
        if before is None:
            del policies.REGISTRY[policy.name]
        else:
            policies.REGISTRY[policy.name] = before
