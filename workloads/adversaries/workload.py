"""The ``adversarial`` workload: a registered adversary played against one target policy.

The adversary writes the trace while the target runs, one step at a time, and the finished
trace is certified by a re-run (:mod:`workloads.adversaries.builder`, where you write your own).  It
is adversarial only for the run it was built against: same ``target`` (and
``target_params``), ``capacity``, ``top_k``, ``switch_cost`` and seed (``semcache run
--seed`` seeds both the workload and the policies), with ``quality=hit``.  Pass those to
``semcache run`` too.  Offline policies (``belady``) read the future, and ``unlimited`` has
no capacity, so neither can be a target.

Adversaries (:mod:`workloads.adversaries`; K = ``capacity``, T = ``steps``): the built-in
``missing_topic`` and ``no_memory_then_dropped`` (semantic) and ``paging``, each documented
in its module, and any you register.  ``adversary_params`` (``"key=value,key=value"``)
carries your adversary's own options; ``phase``, ``dim`` and the noise parameters are the
built-ins'.

Examples
--------
>>> from simulator import run
>>> tr = build("missing_topic", "fifo", capacity=2, steps=9, params={"dim": 8})
>>> tr.query_topics.tolist()  # the topic FIFO has just evicted, every step
[0, 1, 2, 0, 1, 2, 0, 1, 2]
>>> int(run(tr, "fifo", capacity=2, top_k=3).hit.sum()), tr.meta["target_misses"]
(0, 9)
>>> build("paging", "fifo", capacity=3, steps=8).requests.tolist()
[0, 1, 2, 3, 0, 1, 2, 3]
"""

from __future__ import annotations

import math

import numpy as np

from simulator.engine import memory_estimate as mem
from simulator import policies
from simulator.errors import InputError
from workloads import adversaries
from workloads.adversaries import builder as adversary
from workloads.data import topic_space as ts
from workloads.base import Workload, policy_params

# Defaults of capacity, top_k and switch_cost are those of `semcache run`, so a run with
# default options matches the run the trace was built against.
PARAMS = {"adversary": "missing_topic", "adversary_params": "", "target": "lru",
          "target_params": "", "capacity": 10, "top_k": 3, "switch_cost": 0.0, "steps": 200,
          "phase": 8, "dim": 32, **ts.NOISE_PARAMS, "preset": "compact"}


def _mode(name: str) -> str:
    return adversaries.get(name).mode


def targets(name: str) -> list:
    """The registered policies that adversary ``name`` can play against."""
    return [p for p, pol in policies.REGISTRY.items()
            if _mode(name) in pol.modes and not pol.traits_of().offline
            and not pol.unbounded]


def target_params(p: dict) -> dict:
    """``p["target_params"]`` (``"key=value,key=value"``) as the target's resolved parameters."""
    return policy_params(p, "target_params", p["target"])


def _check(p: dict) -> str | None:
    if p["adversary"] not in adversaries.REGISTRY:
        return (f"parameter 'adversary' must be one of {', '.join(adversaries.REGISTRY)}, "
                f"got {p['adversary']!r}")
    valid = targets(p["adversary"])
    if p["target"] not in valid:
        return (f"parameter 'target' must be a policy that adversary '{p['adversary']}' can "
                f"play ({', '.join(valid)}), got {p['target']!r}")
    problem = ts.check_minimums(p, {"capacity": 1, "top_k": 1, "steps": 1, "phase": 1})
    if problem:
        return problem
    least = adversaries.get(p["adversary"]).dim(p["capacity"])
    if _mode(p["adversary"]) == "semantic" and p["dim"] < least:
        return (f"parameter 'dim' must be >= {least} for adversary '{p['adversary']}' "
                f"(capacity {p['capacity']}), got {p['dim']}")
    if not math.isfinite(p["switch_cost"]) or p["switch_cost"] < 0:
        return f"parameter 'switch_cost' must be a finite number >= 0, got {p['switch_cost']}"
    try:
        target_params(p)
    except InputError as exc:
        return str(exc)
    return ts.check_noise(p)


def _make(p: dict, seed: int):
    chosen = adversaries.get(p["adversary"])
    params = dict(p, adversary_params=_own_params(p))
    choose, facts = chosen.start(params, np.random.default_rng(seed))
    return adversary.build(
        choose, p["target"], p["capacity"], p["steps"], mode=chosen.mode, dim=p["dim"],
        top_k=p["top_k"], switch_cost=p["switch_cost"], seed=seed, name=chosen.name,
        target_params=target_params(p), pages=chosen.pages(p) if chosen.pages else None,
        meta={"workload": "adversarial", "params": dict(p), "seed": seed, **facts})


def _own_params(p: dict) -> dict:
    """``adversary_params`` (``"key=value,key=value"``) as a dict of strings."""
    out = {}
    for part in filter(None, (x.strip() for x in p["adversary_params"].split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise InputError(f"parameter 'adversary_params' takes key=value pairs separated "
                             f"by commas, got {part!r}")
        out[key.strip()] = value.strip()
    return out


def build(name: str, policy: str, capacity: int, steps: int, switch_cost: float = 0.0,
          top_k: int = 3, seed: int = 0, params: dict | None = None):
    """The trace of ``adversary`` played against ``policy`` run with ``seed``.

    Parameters
    ----------
    adversary : str
        A registered adversary (:mod:`workloads.adversaries`).
    policy : str
        The target: a registered online policy defined in the adversary's mode.
    capacity, steps, switch_cost, top_k
        K, T, λ and k of the target's run (the run to reproduce with the trace).
    seed : int
        Seeds both the vectors and the target's random stream.
    params : dict, optional
        Other workload parameters (``phase``, ``dim``, ``target_params``, noise).

    Returns
    -------
    Trace or PagingTrace
        ``meta["aimed"]`` marks the steps built to be misses; ``meta["target_misses"]``
        counts the target's misses on steps of weight > 0, certified by a re-run.
    """
    given = dict(params or {}, adversary=name, target=policy, capacity=capacity,
                 steps=steps, switch_cost=switch_cost, top_k=top_k)
    return WORKLOAD.generate(given, seed)


def _footprint(p: dict) -> int:
    """Rough bytes to generate the trace (:mod:`simulator.engine.memory_estimate`)."""
    # the target runs as the trace is built: its slots hold up to K vectors
    if _mode(p["adversary"]) == "paging":
        return mem.paging_trace(p["steps"], p["capacity"] + 1) + 64 * p["capacity"]
    return mem.semantic_trace(p["steps"], p["steps"] + p["capacity"] + 2, p["dim"])


WORKLOAD = Workload(
    name="adversarial",
    summary="adaptive adversary built against one target policy as it runs",
    make=_make, params=PARAMS, check_params=_check,
    footprint=_footprint)
