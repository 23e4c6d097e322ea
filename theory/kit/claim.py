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
over an enumeration of :func:`theory.families.exhaustive` (basis ``exhaustive``) or a
family its author declares exhaustive (basis ``declared``, the author's word), every
instance decided; ``not refuted (n)``
after a search; ``inconclusive`` when nothing broke but OPT's bounds straddle the limit
somewhere (more time, or smaller instances, would decide).

Everything a claim is made of is checked when it is built (its id names files, so it is a
registry name: :func:`simulator.registration.check_name`), and what your functions give
when they are called; a bad value or an exception of your code is one
:class:`~simulator.errors.InputError` naming the claim (and the bound, sub-range or
instance), your message kept, never a verdict (docs/extending.md, a claim).

>>> theory.Claim(id="../up", statement="s", policy="fifo", instances=claim.instances,
...              bound=claim.bound)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
simulator.errors.InputError: claim id '../up' must be 1 to 64 letters, digits, ...
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from typing import Any, Callable

from simulator.errors import InputError
from simulator.registration import check_name
from theory.kit import bounds as bound_kinds
from theory.claims.base import ClaimResult, by_subrange, plugin_of, save_instance
from theory.claims.verdicts import (DECIDING, HOLDS, INCONCLUSIVE, NOT_REFUTED, SEARCH,
                                    UNCONFIRMABLE, VIOLATED, basis, check_record)
from theory.kit.exhaustive import family_basis
from theory.kit.families import Family, as_family
from theory.kit.user_code import call, is_bool, is_finite, shown


@dataclasses.dataclass(frozen=True)
class Claim:
    """A claim: a policy, the instances it speaks of, and the bound it obeys on each.

    ``id`` names the claim and its saved instances (1 to 64 letters, digits, ``_``, ``.``
    or ``-``, starting with a letter or digit); ``policy`` is a registered name or a
    :class:`simulator.Policy` (registered under its name when checked); ``params`` its
    parameters; ``instances`` a :class:`theory.families.Family`, a list of
    :class:`simulator.instance.Instance`, or a function of ``quick`` returning either;
    ``bound`` a :class:`theory.bounds.Bound`; ``subranges`` maps a name to a predicate on
    an instance (True when the instance is in that part of the range); ``form`` names a
    statement that runs cannot confirm (:data:`theory.claims.verdicts.UNCONFIRMABLE`).

    A claim whose evidence is an experiment of its own (the paper's claims,
    :mod:`theory.claims`) gives ``evidence`` instead of ``policy``, ``instances`` and
    ``bound``: a function ``evidence(quick, out_dir)`` returning the fields of
    :class:`theory.claims.base.ClaimResult` other than the claim's identity (``verdict``,
    ``basis``, ``evidence``, ``measured``, and any of ``instance``, ``would_decide``,
    ``corrected``, ``readings``, ``subranges``), each verdict made by
    :func:`theory.claims.verdicts.verdict` and checked again when the result is built
    (docs/extending.md, a claim).
    """

    id: str
    statement: str
    policy: Any = None
    instances: Any = None
    bound: Any = None
    params: dict | None = None
    title: str = ""
    conditions: str = ""
    subranges: dict | None = None
    form: str | None = None
    data: tuple = ()
    evidence: Callable | None = None

    def __post_init__(self):
        try:
            check_name("claim", self.id, "id")
        except InputError as exc:
            raise InputError(str(exc), "id") from None
        who = f"claim '{self.id}'"
        for field in ("statement", "title", "conditions"):
            if not isinstance(getattr(self, field), str):
                raise InputError(f"{who}: {field} must be a string, got "
                                 f"{type(getattr(self, field)).__name__}", field)
        if not self.statement.strip():
            raise InputError(f"{who}: statement must say what the claim states, got ''",
                             "statement")
        if self.evidence is not None:
            _check_evidence(who, self)
        else:
            _check_statement(who, self)
        if self.form is not None and self.form not in UNCONFIRMABLE:
            raise InputError(f"{who}: form must be None or one of {UNCONFIRMABLE}, got "
                             f"{self.form!r}", "form")
        if not (isinstance(self.data, (tuple, list)) and
                all(isinstance(d, str) for d in self.data)):
            raise InputError(f"{who}: data must be a tuple of dataset names", "data")
        object.__setattr__(self, "data", tuple(self.data))
        if self.evidence is None and not callable(self.instances):
            # a function of quick is checked when called
            object.__setattr__(self, "instances", _family(self, self.instances))
        if not self.title:
            object.__setattr__(self, "title", self.statement)

    def run(self, quick: bool, out_dir: str) -> ClaimResult:
        """The claims registry's interface (``semcache claims``): the ``evidence`` hook's
        result, or :func:`check`."""
        if self.evidence is None:
            return check(self, out_dir=out_dir, quick=quick)
        import time

        start = time.perf_counter()
        found = self.evidence(quick, out_dir)
        return ClaimResult(id=self.id, statement=self.statement, conditions=self.conditions,
                           form=self.form, seconds=round(time.perf_counter() - start, 2),
                           **found)


def _check_evidence(who: str, claim: Claim) -> None:
    """A claim with its own experiment states nothing the kit would run."""
    if not callable(claim.evidence):
        raise InputError(f"{who}: evidence must be a function evidence(quick, out_dir), got "
                         f"{shown(claim.evidence)}", "evidence")
    given = [f for f in ("policy", "instances", "bound", "params", "subranges")
             if getattr(claim, f) is not None]
    if given:
        raise InputError(f"{who}: give either evidence(quick, out_dir) or policy, instances "
                         f"and bound, not both ({given[0]} given with evidence)", given[0])


def _check_statement(who: str, claim: Claim) -> None:
    """What the kit runs: a policy, a bound and (checked later) the instances."""
    _check_policy(who, claim.policy)
    if claim.instances is None:
        raise InputError(f"{who}: instances must be a theory.families.Family, a list of "
                         "simulator.instance.Instance or a function of quick returning one "
                         "(or evidence(quick, out_dir) for an experiment of your own), got "
                         "NoneType", "instances")
    if not isinstance(claim.bound, bound_kinds.Bound):
        raise InputError(f"{who}: bound must be one of theory.bounds' (ratio_at_most, "
                         "regret_at_most, modifications_at_most, predicate), got "
                         f"{type(claim.bound).__name__}", "bound")
    if claim.params is not None and not (isinstance(claim.params, dict) and
                                         all(isinstance(k, str) for k in claim.params)):
        raise InputError(f"{who}: params must be a dict of the policy's parameters by "
                         f"name, got {shown(claim.params)}", "params")
    _check_subranges(who, claim.subranges)


def _check_policy(who: str, policy) -> None:
    from simulator.policies.base import Policy

    if isinstance(policy, str):
        try:
            check_name("policy", policy)
        except InputError as exc:
            raise InputError(f"{who}: {exc}", "policy") from None
    elif not isinstance(policy, Policy):
        raise InputError(f"{who}: policy must be a registered policy's name or a "
                         f"simulator.Policy, got {type(policy).__name__}", "policy")


def _check_subranges(who: str, subranges) -> None:
    if subranges is None:
        return
    if not isinstance(subranges, dict):
        raise InputError(f"{who}: subranges must be a dict of names to predicates on an "
                         f"instance, got {type(subranges).__name__}", "subranges")
    for name, inside in subranges.items():
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"{who}: a sub-range's name must be a non-empty string, got "
                             f"{name!r}", "subranges")
        if not callable(inside):
            raise InputError(f"{who}, sub-range '{name}': give a function of the instance "
                             f"(True inside the sub-range), got {type(inside).__name__}",
                             "subranges")


@contextlib.contextmanager
def _blame(claim: Claim, part: str = ""):
    """An InputError raised in the block, as one line that names the claim and ``part``."""
    try:
        yield
    except InputError as exc:
        raise InputError(f"claim '{claim.id}'{', ' + part if part else ''}: {exc}",
                         exc.param) from None


def _family(claim: Claim, found) -> Family:
    with _blame(claim):
        family = as_family(found)
    if not len(family):
        raise InputError(f"claim '{claim.id}': no instances to check ({family.scope}); give "
                         "a family or a list with at least one simulator.instance.Instance")
    return family


def _instances(claim: Claim, quick: bool) -> Family:
    if not callable(claim.instances):
        return claim.instances
    with _blame(claim):
        found = call(claim.instances, f"instances(quick={quick})", quick)
    return _family(claim, found)


def _policy(claim: Claim) -> tuple:
    """The policy's registered name and the plugin that defines it (None: semcache's, or
    no file defines it)."""
    from simulator import policies
    from simulator.policies.base import Policy

    if isinstance(claim.policy, Policy):
        if policies.REGISTRY.get(claim.policy.name) is not claim.policy:
            with _blame(claim):
                policies.register(claim.policy, origin=plugin_of(claim.policy))
        name = claim.policy.name
    elif claim.policy not in policies.REGISTRY:
        raise InputError(f"claim '{claim.id}': unknown policy '{claim.policy}'; define it "
                         "in the claims file or in a plugin that --plugin FILE or "
                         "SEMCACHE_PLUGINS loads (docs/extending.md), or give the "
                         f"simulator.Policy itself; valid policies: {', '.join(policies.REGISTRY)}")
    else:
        name = claim.policy
    if policies.shipped(name):
        return name, None
    return name, policies.origin(name) or plugin_of(policies.REGISTRY[name])


def _options(claim: Claim, policy: str, family: Family) -> list:
    """Each instance's checked run options (:class:`simulator.run_options.RunOptions`),
    before anything runs."""
    from simulator.run_options import RunOptions

    with _blame(claim):
        RunOptions.build(policy=policy, params=claim.params)
    found = []
    for i, inst in enumerate(family):
        with _blame(claim, f"instance {i}"):
            found.append(RunOptions.build(policy=policy, params=claim.params, **inst.options))
    return found


def _members(claim: Claim, family: Family) -> dict:
    """Each sub-range's membership of every instance, before anything runs."""
    found = {}
    for name, inside in (claim.subranges or {}).items():
        with _blame(claim, f"sub-range '{name}'"):
            said = [call(inside, "the predicate", inst) for inst in family]
            for i, s in enumerate(said):
                if not is_bool(s):
                    raise InputError(f"the predicate returned {shown(s)} on "
                                     f"instance {i}; it must return a bool (True inside the "
                                     "sub-range)")
        found[name] = [bool(s) for s in said]
    return found


def _judge(claim: Claim, instance, options, time_limit) -> tuple:
    from simulator.runner import run
    from theory.opt import opt_with

    with _blame(claim):
        result = run(instance.trace, options=options)
        best = opt_with(instance.trace, options, time_limit=time_limit) \
            if claim.bound.needs_opt else None
    with _blame(claim, f"bound '{claim.bound.describe()}'"):
        return claim.bound.apply(result, best, instance)


def judge(claim: Claim, instance, time_limit: float | None = None) -> tuple:
    """(status, numbers) of one instance: ``ok``, ``broken`` or ``undecided``."""
    _check_arguments(claim, time_limit, "judge")
    if claim.evidence is not None:
        raise InputError(f"judge: claim '{claim.id}' gives evidence(quick, out_dir), not a "
                         "bound to judge one instance by; run it with theory.check", "claim")
    policy, _ = _policy(claim)
    family = _family(claim, [instance])
    return _judge(claim, instance, _options(claim, policy, family)[0], time_limit)


def _check_arguments(claim, time_limit, caller: str) -> None:
    """What :func:`check` and :func:`judge` take alike, checked before any work."""
    if not isinstance(claim, Claim):
        raise InputError(f"{caller}: claim must be a theory.Claim, got {type(claim).__name__}",
                         "claim")
    if time_limit is not None and not (is_finite(time_limit) and time_limit > 0):
        raise InputError(f"time_limit must be a number of seconds > 0, got {time_limit!r}",
                         "time_limit")


def check(claim: Claim, time_limit: float | None = None, out_dir: str = "claims-out",
          quick: bool = False) -> ClaimResult:
    """Judge ``claim`` over its instances (the module docstring), or run its ``evidence``
    hook; a :class:`theory.claims.base.ClaimResult` as ``semcache claims`` prints it."""
    import time

    _check_arguments(claim, time_limit, "check")
    if not isinstance(quick, bool):
        raise InputError(f"quick must be True or False, got {quick!r}", "quick")
    if not isinstance(out_dir, (str, os.PathLike)) or not os.fspath(out_dir):
        raise InputError(f"out_dir must be a folder's path, got {out_dir!r}", "out_dir")
    out_dir = os.fspath(out_dir)
    if claim.evidence is not None:  # an experiment of its own: its hook decides
        return claim.run(quick, out_dir)
    start = time.perf_counter()
    family = _instances(claim, quick)
    policy, plugin = _policy(claim)
    options = _options(claim, policy, family)
    members = _members(claim, family)
    rows = []
    for i, (inst, opts) in enumerate(zip(family, options)):
        status, numbers = _judge(claim, inst, opts, time_limit)
        rows.append(dict(index=i, status=status, steps=inst.steps, **inst.options,
                         labels=inst.labels, **numbers))
    broken = [r for r in rows if r["status"] == bound_kinds.BROKEN]
    undecided = [r for r in rows if r["status"] == bound_kinds.UNDECIDED]
    supported = family_basis(family)  # exhaustive only from families.exhaustive
    kind = supported["kind"] if not undecided else SEARCH
    based = basis(kind, f"{supported['scope']}; {claim.bound.describe()} on each")

    def save(instance, name):
        model = dict(instance.options, policy=policy, **({"plugin": plugin} if plugin else {}))
        if claim.params:
            model["policy_params"] = dict(claim.params)
        return save_instance(instance.trace, out_dir, name, model,
                             with_opt=claim.bound.needs_opt)

    if broken:  # every judgement before any file is saved
        first = min(broken, key=lambda r: r["steps"])
        small = _shrunk(claim, family.instances[first["index"]], options[first["index"]],
                        time_limit)
        shrunk = _judge(claim, small, options[first["index"]], time_limit)[1]
    parts = None
    if claim.subranges:
        named = {k: (lambda r, m=m: m[r["index"]]) for k, m in members.items()}
        parts = by_subrange(rows, named, lambda r: r["status"] != bound_kinds.BROKEN,
                            lambda r: save(family.instances[r["index"]],
                                           f"{claim.id}_{r['index']}"), based, claim.form)
    found = dict(id=claim.id, statement=claim.statement,
                 conditions=claim.conditions or family.scope, form=claim.form,
                 measured=dict(instances=len(rows), broken=len(broken),
                               undecided=len(undecided), rows=rows), subranges=parts)
    if broken:
        found["measured"]["shrunk"] = shrunk
        result = dict(found, verdict=VIOLATED, basis=based, instance=save(small, claim.id),
                      evidence=f"{len(broken)} of {len(rows)} instances break "
                               f"{claim.bound.describe()}; shrunk to {small.steps} steps: "
                               + _numbers(shrunk))
    elif undecided:
        result = dict(found, verdict=INCONCLUSIVE, basis=based,
                      evidence=f"none of {len(rows)} breaks it, but on {len(undecided)} OPT "
                               "is known only within bounds that straddle the limit",
                      would_decide="exact OPT on those instances: a larger time_limit, or "
                                   "smaller instances")
    else:
        said = HOLDS if kind in DECIDING else NOT_REFUTED
        result = dict(found, verdict=said, basis=based,
                      evidence=f"all {len(rows)} instances meet {claim.bound.describe()}")
    check_record(result, claim.form)
    return ClaimResult(seconds=round(time.perf_counter() - start, 2), **result)


def _shrunk(claim: Claim, instance, options, time_limit):
    from theory.kit.shrink import shrink

    def still_broken(candidate):
        return _judge(claim, candidate, options, time_limit)[0] == bound_kinds.BROKEN

    return shrink(instance, still_broken)


def _numbers(numbers: dict) -> str:
    return ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
                     for k, v in numbers.items())
