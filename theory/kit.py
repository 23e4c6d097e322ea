"""The claim kit: declare a claim about a policy, then judge it as the paper's claims are.

>>> import theory
>>> claim = theory.Claim(
...     id="fifo-cr", statement="FIFO is 1.5-competitive on small cycling traces",
...     policy="fifo", bound=theory.bounds.ratio_at_most(1.5),
...     instances=theory.families.grid("cycling", params={"topics": 3, "dim": 8,
...                                                       "items_per_topic": 1},
...                                    capacity=[2], top_k=[2], steps=[12]))
>>> result = theory.check(claim, out_dir=str(getfixture("tmp_path")))
>>> result.verdict, result.basis["kind"], result.instance["steps"] <= 12
('violated', 'search', True)

:func:`check` runs the policy on every instance, computes OPT when the bound needs it (exact,
or certified bounds within ``time_limit`` seconds an instance), judges each instance with
the bound (:mod:`theory.bounds`), shrinks the smallest breaking instance to one where every
step matters (:mod:`theory.shrink`), saves it with the ``semcache run`` and ``semcache
opt`` lines that replay it (and the ``--plugin`` its policy needs), and gives a verdict per
sub-range.  Verdicts follow docs/claims.md: ``violated`` with that instance; ``holds`` only
over a family that declares itself exhaustive, every instance decided; ``not refuted (n)``
after a search; ``inconclusive`` when nothing broke but OPT's bounds straddle the limit
somewhere (more time, or smaller instances, would decide).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from theory import bounds as bound_kinds
from theory.claims.base import ClaimResult, by_subrange, save_instance
from theory.claims.verdicts import (EXHAUSTIVE, HOLDS, INCONCLUSIVE, NOT_REFUTED, SEARCH,
                                    VIOLATED, basis, check_record)
from theory.families import Family


@dataclasses.dataclass(frozen=True)
class Claim:
    """A claim: a policy, the instances it speaks of, and the bound it obeys on each.

    ``policy`` is a registered name or a :class:`simulator.Policy` (registered under its
    name when checked); ``params`` its parameters; ``instances`` a
    :class:`theory.families.Family`, a list of :class:`simulator.instance.Instance`, or a
    function of ``quick`` returning either; ``bound`` a :class:`theory.bounds.Bound`;
    ``subranges`` maps a name to a predicate on an instance; ``form`` names a statement
    that runs cannot confirm (:data:`theory.claims.verdicts.UNCONFIRMABLE`).
    """

    id: str
    statement: str
    policy: Any
    instances: Any
    bound: Any
    params: dict | None = None
    title: str = ""
    conditions: str = ""
    subranges: dict | None = None
    form: str | None = None
    data: tuple = ()

    def __post_init__(self):
        if not isinstance(self.bound, bound_kinds.Bound):
            raise TypeError(f"claim '{self.id}': bound must be one of theory.bounds' "
                            f"(ratio_at_most, regret_at_most, modifications_at_most, "
                            f"predicate), got {type(self.bound).__name__}")
        if not self.title:
            object.__setattr__(self, "title", self.statement)

    def run(self, quick: bool, out_dir: str) -> ClaimResult:
        """The claims registry's interface (``semcache claims``): :func:`check`."""
        return check(self, out_dir=out_dir, quick=quick)


def _family(claim: Claim, quick: bool) -> Family:
    found = claim.instances(quick) if callable(claim.instances) else claim.instances
    if isinstance(found, Family):
        return found
    items = tuple(found)
    return Family(items, f"{len(items)} given instances")


def _policy_name(claim: Claim) -> str:
    from simulator import policies
    from simulator.policies.base import Policy

    if isinstance(claim.policy, Policy):
        if policies.REGISTRY.get(claim.policy.name) is not claim.policy:
            policies.register(claim.policy)
        return claim.policy.name
    policies.get(claim.policy)  # an unknown name fails here, in one line
    return claim.policy


def judge(claim: Claim, instance, time_limit: float | None = None) -> tuple:
    """(status, numbers) of one instance: ``ok``, ``broken`` or ``undecided``."""
    from simulator.runner import run
    from theory.opt import opt

    result = run(instance.trace, _policy_name(claim), params=claim.params,
                 **instance.options)
    best = opt(instance.trace, time_limit=time_limit, **instance.options) \
        if claim.bound.needs_opt else None
    return claim.bound.judge(result, best, instance)


def check(claim: Claim, time_limit: float | None = None, out_dir: str = "claims-out",
          quick: bool = False) -> ClaimResult:
    """Judge ``claim`` over its instances (the module docstring); a
    :class:`theory.claims.base.ClaimResult` as ``semcache claims`` prints it."""
    import time

    start = time.perf_counter()
    family = _family(claim, quick)
    if not len(family):
        raise ValueError(f"claim '{claim.id}': no instances to check")
    rows = []
    for i, inst in enumerate(family):
        status, numbers = judge(claim, inst, time_limit)
        rows.append(dict(index=i, status=status, steps=inst.steps, **inst.options,
                         labels=inst.labels, **numbers))
    broken = [r for r in rows if r["status"] == bound_kinds.BROKEN]
    undecided = [r for r in rows if r["status"] == bound_kinds.UNDECIDED]
    kind = family.kind if not undecided else SEARCH
    based = basis(kind, f"{family.scope}; {claim.bound.describe()} on each")
    policy = _policy_name(claim)

    def save(row, name):
        return _save(claim, family.instances[row["index"]], policy, out_dir, name)

    parts = None
    if claim.subranges:
        named = {k: (lambda r, f=f: f(family.instances[r["index"]]))
                 for k, f in claim.subranges.items()}
        parts = by_subrange(rows, named, lambda r: r["status"] != bound_kinds.BROKEN,
                            lambda r: save(r, f"{claim.id}_{r['index']}"), based, claim.form)
    found = dict(id=claim.id, statement=claim.statement,
                 conditions=claim.conditions or family.scope, form=claim.form,
                 measured=dict(instances=len(rows), broken=len(broken),
                               undecided=len(undecided), rows=rows), subranges=parts)
    if broken:
        first = min(broken, key=lambda r: r["steps"])
        small = _shrunk(claim, family.instances[first["index"]], time_limit)
        status, numbers = judge(claim, small, time_limit)
        inst = _save(claim, small, policy, out_dir, claim.id)
        found["measured"]["shrunk"] = numbers
        result = dict(found, verdict=VIOLATED, basis=based, instance=inst,
                      evidence=f"{len(broken)} of {len(rows)} instances break "
                               f"{claim.bound.describe()}; shrunk to {small.steps} steps: "
                               + _numbers(numbers))
    elif undecided:
        result = dict(found, verdict=INCONCLUSIVE, basis=based,
                      evidence=f"none of {len(rows)} breaks it, but on {len(undecided)} OPT "
                               "is known only within bounds that straddle the limit",
                      would_decide="exact OPT on those instances: a larger time_limit, or "
                                   "smaller instances")
    else:
        said = HOLDS if kind == EXHAUSTIVE else NOT_REFUTED
        result = dict(found, verdict=said, basis=based,
                      evidence=f"all {len(rows)} instances meet {claim.bound.describe()}")
    check_record(result, claim.form)
    return ClaimResult(seconds=round(time.perf_counter() - start, 2), **result)


def _shrunk(claim: Claim, instance, time_limit):
    from theory.shrink import shrink

    def still_broken(candidate):
        return judge(claim, candidate, time_limit)[0] == bound_kinds.BROKEN

    return shrink(instance, still_broken)


def _save(claim: Claim, instance, policy: str, out_dir: str, name: str) -> dict:
    model = dict(instance.options, policy=policy)
    if claim.params:
        model["policy_params"] = dict(claim.params)
    return save_instance(instance.trace, out_dir, name, model,
                         with_opt=claim.bound.needs_opt)


def _numbers(numbers: dict) -> str:
    return ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
                     for k, v in numbers.items())
