"""Measured competitive ratios of the adaptive adversaries of :mod:`workloads.adversaries.workload`.

:func:`measure` builds an adversary's trace against a policy, runs the policy on it (the
same run the trace was built against), and compares its cost with OPT's:

- semantic traces: :func:`theory.opt.opt`.  When OPT is exact the ratio is exact; when
  OPT only has bounds, ``cost / lower_bound`` bounds the ratio from above (and
  ``cost / upper_bound`` from below); when OPT cannot be computed at all, both stay
  ``None`` and ``opt_error`` says why;
- paging traces: Belady's MIN (the ``belady`` policy).  It is optimal among
  demand-paging schedules, where every miss admits.  That is the OPT of the classical
  theorem: each miss costs 1 + λ there, so λ does not change the ratio of an always-admit
  target.  docs/model.md §1 also lets a paging policy skip an admission, and then OPT can be lower
  (K = 1, requests a, b, a: Belady misses 3 times, skipping b's admission misses 2), so
  the reported ratio is a lower bound on the model's.  On the cyclic sequence that LRU and
  FIFO get, OPT with skipping misses about T/(K + 1) times instead of T/K.

``reference`` is the ratio the theory of :mod:`workloads.adversaries.workload` gives, as T grows,
with ``reference_kind``:

- ``paging``: K, the limit (``"limit"``) for the K-competitive LRU and FIFO and a lower
  bound (``"at least"``) for any other target (K/(1 + λ) if it skipped an admission);
- ``missing_topic``: a lower bound, (K + 1)(1 + λ) when the target admitted at every step
  and K + 1 otherwise (FIFO attains it);
- ``no_memory_then_dropped``: ``None`` with kind ``"unbounded"`` when the target admitted
  at every step (the ratio grows linearly in T), else ``None`` and kind ``None``.

Examples
--------
>>> row, _ = measure("paging", "lru", capacity=3, steps=60)
>>> row["policy_cost"], row["opt_cost"], row["ratio_exact"]
(60.0, 22.0, True)
"""

from __future__ import annotations

from simulator.errors import InputError
from simulator.runner import run
from simulator.trace import PagingTrace
from theory.opt import opt
from workloads.adversaries import workload as adversarial

K_COMPETITIVE = ("lru", "fifo")  # in paging mode (Sleator and Tarjan)


def measure(adversary: str, policy: str, capacity: int, steps: int, switch_cost: float = 0.0,
            top_k: int = 3, seed: int = 0, params: dict | None = None):
    """One horizon: ``(row, trace)``, with the row's costs, OPT and ratio.

    The arguments are those of :func:`workloads.adversaries.workload.build`.  The row has
    ``policy_cost``, ``policy_miss_cost`` (Σ ℓ_t), ``policy_admissions``, OPT's
    ``opt_cost``, ``opt_exact``, ``opt_lower``, ``opt_upper`` and ``opt_method`` (and
    ``opt_error`` when it failed), the ``ratio`` with ``ratio_exact`` (False: ``ratio`` is
    an upper bound) and ``ratio_lower``, and the theory's ``reference`` and
    ``reference_kind``.
    """
    trace = adversarial.build(adversary, policy, capacity, steps, switch_cost, top_k, seed,
                              params)
    p = trace.meta["params"]
    mine = run(trace, policy, capacity=capacity, top_k=top_k, switch_cost=switch_cost,
               seed=seed, params=adversarial.target_params(p)).summary()
    row = dict(adversary=adversary, policy=policy, capacity=capacity, top_k=top_k,
               switch_cost=float(switch_cost), seed=seed, steps=steps,
               policy_cost=mine["cost"], policy_miss_cost=mine["miss_cost"],
               policy_admissions=mine["admissions"])
    row.update(_reference(adversary, policy, capacity, switch_cost,
                          mine["admissions"] == trace.steps))
    row.update(_opt(trace, capacity, top_k, switch_cost))
    cost, low, high = mine["cost"], row["opt_lower"], row["opt_upper"]
    row.update(ratio=cost / low if low else None, ratio_exact=bool(row["opt_exact"] and low),
               ratio_lower=cost / high if high else None)
    return row, trace


def _reference(adversary, policy, capacity, switch_cost, admits_always) -> dict:
    if adversary == "paging":  # Belady pays 1 + λ per miss, the target at least 1
        return dict(reference=capacity / (1.0 if admits_always else 1 + switch_cost),
                    reference_kind="limit" if policy in K_COMPETITIVE else "at least")
    if adversary == "missing_topic":
        lam = switch_cost if admits_always else 0.0
        return dict(reference=(capacity + 1) * (1 + lam), reference_kind="at least")
    return dict(reference=None, reference_kind="unbounded" if admits_always else None)


def _opt(trace, capacity, top_k, switch_cost) -> dict:
    if isinstance(trace, PagingTrace):
        cost = run(trace, "belady", capacity=capacity, switch_cost=switch_cost).summary()["cost"]
        return dict(opt_cost=cost, opt_exact=True, opt_lower=cost, opt_upper=cost,
                    opt_method="belady")
    try:
        res = opt(trace, capacity, top_k, switch_cost)
    except InputError as exc:  # too big for an exact method (before bounds existed)
        return dict(opt_cost=None, opt_exact=False, opt_lower=None, opt_upper=None,
                    opt_method=None, opt_error=str(exc))
    return dict(opt_cost=res.opt_cost, opt_exact=bool(res.exact), opt_lower=res.lower_bound,
                opt_upper=res.upper_bound, opt_method=res.method)
