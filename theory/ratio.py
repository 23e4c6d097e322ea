"""Empirical competitive ratio: a policy's cost over the offline optimum's, seed by seed.

For each seed the workload's trace is generated, the policy is run on it (its seed is the
workload's seed unless ``policy_seed`` is given) and :func:`theory.opt.opt` is solved.  The
ratio is cost / OPT when OPT is exact (kind ``"exact"``); otherwise cost / (certified lower
bound on OPT), which is an *upper bound on the ratio* (kind ``"upper_bound"``).  The
aggregate (max and mean over seeds) is ``"exact"`` only if every seed is.

Zero denominators: when OPT (or its lower bound) is 0, the ratio is 1 if the policy's cost
is 0 too and ``inf`` otherwise (no finite multiple of 0 covers a positive cost).

Bounds when OPT is out of reach: :func:`~theory.opt.opt` then reports ``exact=False``
with its certified ``lower_bound`` and feasible ``upper_bound``, and the ratio is an upper
bound (policy cost over the lower bound).

Examples
--------
>>> r = competitive_ratio("cycling", {"topics": 3, "items_per_topic": 1, "steps": 12,
...                       "dim": 8}, "fifo", capacity=2, top_k=2, seeds=(0, 1))
>>> r.kind, r.max_ratio >= 1.0, len(r.records)
('exact', True, 2)
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

import workloads
from simulator import trace_formats
from simulator.errors import InputError
from simulator.run_options import RunOptions
from simulator.runner import run
from simulator.trace import Trace
from theory.opt import opt_with


def ratio_of(cost: float, bound: float) -> float:
    """cost / bound with the zero rule: 0/0 = 1 and c/0 = inf for c > 0."""
    if bound <= 0.0:
        return 1.0 if cost <= 0.0 else math.inf
    return cost / bound


def opt_bounds(trace: Trace, options: RunOptions) -> dict:
    """OPT of one instance under ``options`` (checked) as {opt_cost, lower_bound,
    upper_bound, exact, method}.

    ``opt_cost`` is None when OPT is not exact.
    """
    res = opt_with(trace, options)
    exact = bool(res.exact)
    return dict(opt_cost=float(res.opt_cost) if exact else None,
                lower_bound=float(res.lower_bound),
                upper_bound=None if res.upper_bound is None else float(res.upper_bound),
                exact=exact, method=res.method)


@dataclasses.dataclass
class RatioResult:
    """Per-seed ratios of one policy and their aggregate.

    ``records`` has one dict per seed (``seed``, ``policy_seed``, ``policy_cost``,
    ``opt_cost``, ``lower_bound``, ``upper_bound``, ``exact``, ``method``, ``ratio``,
    ``kind``).  ``worst_trace`` is the trace of the seed with the largest ratio (the first
    such seed), ``worst_seed`` its seed.
    """

    policy: str
    records: list
    max_ratio: float
    mean_ratio: float
    kind: str
    worst_seed: int
    worst_trace: Trace
    config: dict

    def save_worst(self, path) -> None:
        """Write the worst instance as a trace file (atomically,
        :func:`simulator.trace_formats.save`)."""
        trace_formats.save(self.worst_trace, path)

    def to_dict(self) -> dict:
        """Everything but the trace, as plain Python values (``inf`` stays a float)."""
        return dict(policy=self.policy, records=[dict(r) for r in self.records],
                    max_ratio=self.max_ratio, mean_ratio=self.mean_ratio, kind=self.kind,
                    worst_seed=self.worst_seed, **self.config)


def _seeds(seeds):
    seeds = [seeds] if isinstance(seeds, (int, np.integer)) else list(seeds)
    if not seeds or any(isinstance(s, bool) or int(s) != s or s < 0 for s in seeds):
        raise InputError(f"seeds must be one or more integers >= 0, got {seeds!r}")
    return [int(s) for s in seeds]


def competitive_ratio(workload, params, policy: str, capacity: int, top_k: int = 3,
                      switch_cost: float = 0.0, quality: str = "hit", seeds=(0, 1, 2),
                      policy_params: dict | None = None,
                      policy_seed: int | None = None) -> RatioResult:
    """Empirical competitive ratio of ``policy`` against OPT over ``seeds``.

    Parameters
    ----------
    workload : str or Trace
        A workload name (generated once per seed with ``params``) or a ready trace (e.g. an
        adversarial one; ``params`` must then be None and the seeds are policy seeds).
    params : dict or None
        Workload parameters.
    policy, capacity, top_k, switch_cost, quality
        The policy and the model options of docs/model.md §1
    seeds : iterable of int
        Workload seeds (trace seeds), each also the policy's seed.
    policy_params : dict, optional
        Policy parameters.
    policy_seed : int, optional
        One policy seed for every run instead of the workload seed.
    """
    options = RunOptions.build(policy=policy, capacity=capacity, top_k=top_k,
                               switch_cost=switch_cost, quality=quality, params=policy_params)
    seeds = _seeds(seeds)
    fixed = isinstance(workload, Trace)
    if fixed and params is not None:
        raise InputError("params must be None when workload is a ready Trace")
    if not fixed and not isinstance(workload, str):
        raise InputError(f"workload must be a workload name or a Trace, got "
                         f"{type(workload).__name__}")
    wl = None if fixed else workloads.get(workload)
    records, traces, fixed_opt = [], [], None
    for seed in seeds:
        tr = workload if fixed else wl.generate(params, seed)
        if not isinstance(tr, Trace):
            raise InputError(f"workload {workload!r} makes paging traces; competitive_ratio "
                             "needs semantic ones (in paging mode the 'belady' policy is OPT)")
        pseed = seed if policy_seed is None else int(policy_seed)
        cost = run(tr, options=options.with_seed(pseed)).summary()["cost"]
        if fixed_opt is None:  # a ready trace needs OPT once
            bounds = opt_bounds(tr, options)
            fixed_opt = bounds if fixed else None
        else:
            bounds = fixed_opt
        bounds = dict(bounds)
        if bounds["upper_bound"] is None:  # the run itself is a feasible schedule
            bounds["upper_bound"] = cost
        exact = bounds["exact"]
        ratio = ratio_of(cost, bounds["opt_cost"] if exact else bounds["lower_bound"])
        records.append(dict(seed=seed, policy_seed=pseed, policy_cost=cost, **bounds,
                            ratio=ratio, kind="exact" if exact else "upper_bound"))
        traces.append(tr)
    ratios = [r["ratio"] for r in records]
    worst = int(np.argmax(ratios))
    return RatioResult(
        policy=policy, records=records, max_ratio=max(ratios),
        mean_ratio=math.fsum(ratios) / len(ratios),
        kind="exact" if all(r["exact"] for r in records) else "upper_bound",
        worst_seed=seeds[worst], worst_trace=traces[worst],
        config=dict(workload="trace" if fixed else workload,
                    params=None if fixed else wl.resolve_params(params),
                    capacity=options.capacity, top_k=options.top_k,
                    switch_cost=options.switch_cost, quality=options.quality,
                    policy_params=policy_params, policy_seed=policy_seed))


def ratio_curve(workload: str, params, policy: str, capacity: int, horizons, **options):
    """The competitive ratio at each horizon T: how cost / OPT grows with the trace's length.

    For each T in ``horizons`` the workload is generated with ``steps=T`` (per seed) and
    :func:`competitive_ratio` runs the policy and solves OPT; a ratio that rises towards a
    limit as T grows is how a lower-bound construction shows its constant (Theorem 5.1's
    cycling instance tends to (K + 1)(1 + λ) from below).  Each result's ``kind`` says
    whether its ratios are exact or upper bounds (OPT known only within bounds).

    Parameters
    ----------
    workload : str
        A registered workload with a ``steps`` parameter.
    params : dict or None
        Its other parameters (``steps`` is set by ``horizons``).
    policy : str
        A registered policy.
    capacity : int
        K.
    horizons : iterable of int
        The values of T, each >= 1.
    **options
        The other keywords of :func:`competitive_ratio`: ``top_k``, ``switch_cost``,
        ``quality``, ``seeds``, ``policy_params``, ``policy_seed``.

    Returns
    -------
    dict
        ``{T: RatioResult}`` in the order of ``horizons``; ``max_ratio`` and ``mean_ratio``
        over the seeds, ``records`` one per seed.

    Examples
    --------
    FIFO on cycling over K + 1 = 4 topics, λ = 0.5: the ratio climbs towards
    (K + 1)(1 + λ) = 6.

    >>> c = ratio_curve("cycling", {"topics": 4, "items_per_topic": 1, "dim": 8}, "fifo",
    ...                 capacity=3, horizons=[12, 48], top_k=3, switch_cost=0.5, seeds=(0,))
    >>> [round(c[T].max_ratio, 3) for T in c], c[48].kind
    ([2.4, 4.364], 'exact')
    """
    if not isinstance(workload, str) or "steps" not in workloads.get(workload).params:
        raise InputError(f"workload {workload!r} has no 'steps' parameter; ratio_curve needs "
                         "one (give a workload name, not a Trace)")
    if "steps" in (params or {}):
        raise InputError("params must not set 'steps': the horizons set it")
    horizons = [int(T) for T in horizons]
    if not horizons or min(horizons) < 1:
        raise InputError(f"horizons must be one or more integers >= 1, got {horizons}")
    return {T: competitive_ratio(workload, {**(params or {}), "steps": T}, policy, capacity,
                                 **options) for T in horizons}
