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
the bound (:mod:`theory.bounds`), and concludes by what the statement says of its
instances, the bound's quantifier (:mod:`theory.kit.conclude`, docs/claims.md):

- *for every instance* (``ratio_at_most`` and the others): ``violated`` with the smallest
  breaking instance, shrunk to one where every step matters (:mod:`theory.kit.shrink`);
  ``holds`` only over an enumeration of :func:`theory.families.exhaustive` (basis
  ``exhaustive``) or a family its author declares exhaustive (basis ``declared``, the
  author's word), every instance decided; ``not refuted (n)``
  after a search; ``inconclusive`` when nothing broke but OPT's bounds straddle the limit
  somewhere (more time, or smaller instances, would decide);
- *for some instance* (``ratio_reaches``): ``holds`` with the smallest witness; ``not found
  (n)`` after a search without one; ``violated`` only over an enumerated range;
- *a rate or an additive form*: the bound's own growth judgement over the family.

A saved instance comes with the ``semcache run`` and ``semcache opt`` lines that replay
it (and the ``--plugin`` its policy needs), and each sub-range gets its own verdict.  A
claim whose ``policy`` is a list of policies (or a function of ``quick`` returning one)
is stated for every member of that class: each member is checked, and one that fails
refutes the class (:mod:`theory.kit.conclude.policies`).

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
from theory.claims.base import ClaimResult, save_instance
from theory.claims.verdicts import (SOME, UNCONFIRMABLE, UPPER_ASYMPTOTIC, check_record,
                                    quantifier_of)
from theory.kit.conclude import Judged, conclude
from theory.kit.conclude.policies import class_verdict
from theory.kit.exhaustive import family_basis
from theory.kit.families import Family, as_family
from theory.kit.members import check_policy, generated, is_generator, registered
from theory.kit.user_code import call, is_bool, is_finite, shown


@dataclasses.dataclass(frozen=True)
class Claim:
    """A claim: a policy (or a class of them), the instances it speaks of, and the bound
    it obeys on them.

    ``id`` names the claim and its saved instances (1 to 64 letters, digits, ``_``, ``.``
    or ``-``, starting with a letter or digit); ``policy`` is a registered name or a
    :class:`simulator.Policy` (registered under its name when checked), or a class of
    policies: a list of those, or a function of ``quick`` returning one (a generator of
    the class, whose members are a sample of it); ``params`` the policy's parameters;
    ``instances`` a :class:`theory.families.Family`, a list of
    :class:`simulator.instance.Instance`, or a function of ``quick`` returning either;
    ``bound`` a :class:`theory.bounds.Bound`, whose quantifier says whether the statement
    is about every instance, some instance or a rate; ``subranges`` maps a name to a
    predicate on an instance (True when the instance is in that part of the range);
    ``form`` names a statement that runs cannot confirm
    (:data:`theory.claims.verdicts.UNCONFIRMABLE`).

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
        if self.form == UPPER_ASYMPTOTIC and self.evidence is None \
                and self.bound.quantifier == SOME:
            raise InputError(f"{who}: a statement about some instance is not an "
                             f"{UPPER_ASYMPTOTIC}; leave form None", "form")
        if not (isinstance(self.data, (tuple, list)) and
                all(isinstance(d, str) for d in self.data)):
            raise InputError(f"{who}: data must be a tuple of dataset names", "data")
        object.__setattr__(self, "data", tuple(self.data))
        if isinstance(self.policy, list):
            object.__setattr__(self, "policy", tuple(self.policy))
        if self.evidence is None and not callable(self.instances):
            # a function of quick is checked when called
            object.__setattr__(self, "instances", _family(self, self.instances))
        if not self.title:
            object.__setattr__(self, "title", self.statement)

    @property
    def is_class(self) -> bool:
        """Whether the claim is stated for every policy of a class (a list or a
        function of ``quick``), not for one policy."""
        return isinstance(self.policy, tuple) or is_generator(self.policy)

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
    check_policy(who, claim.policy)
    if claim.instances is None:
        raise InputError(f"{who}: instances must be a theory.families.Family, a list of "
                         "simulator.instance.Instance or a function of quick returning one "
                         "(or evidence(quick, out_dir) for an experiment of your own), got "
                         "NoneType", "instances")
    if not isinstance(claim.bound, bound_kinds.Bound):
        raise InputError(f"{who}: bound must be one of theory.bounds' (ratio_at_most, "
                         "ratio_reaches, regret_at_most, modifications_at_most, "
                         f"predicate, ...), got {type(claim.bound).__name__}", "bound")
    if claim.params is not None and not (isinstance(claim.params, dict) and
                                         all(isinstance(k, str) for k in claim.params)):
        raise InputError(f"{who}: params must be a dict of the policy's parameters by "
                         f"name, got {shown(claim.params)}", "params")
    _check_subranges(who, claim.subranges)


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


def _inside(claim: Claim, family: Family) -> dict:
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


def _judge(claim: Claim, instance, options, time_limit, best=None) -> tuple:
    """(status, numbers) of ``instance``; ``best`` its OPT if already known."""
    from simulator.runner import run
    from theory.kit.optimum import optimum

    with _blame(claim):
        result = run(instance.trace, options=options)
        if best is None and claim.bound.needs_opt:
            best = optimum(instance.trace, options, time_limit)
    with _blame(claim, f"bound '{claim.bound.describe()}'"):
        return claim.bound.apply(result, best, instance)


def judge(claim: Claim, instance, time_limit: float | None = None, policy=None) -> tuple:
    """(status, numbers) of one instance: ``ok``, ``broken`` or ``undecided`` (for a
    statement about some instance: ``witness``, ``no`` or ``undecided``).  For a claim
    about a class, ``policy`` names the member to run."""
    _check_arguments(claim, time_limit, "judge")
    if claim.evidence is not None:
        raise InputError(f"judge: claim '{claim.id}' gives evidence(quick, out_dir), not a "
                         "bound to judge one instance by; run it with theory.check", "claim")
    if policy is None and claim.is_class:
        raise InputError(f"judge: claim '{claim.id}' is about a class of policies; give "
                         "policy=, the member to run", "policy")
    if policy is not None:
        check_policy(f"judge: claim '{claim.id}'", policy)
    name, _ = registered(f"claim '{claim.id}'", claim.policy if policy is None else policy)
    family = _family(claim, [instance])
    return _judge(claim, instance, _options(claim, name, family)[0], time_limit)


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
    who = f"claim '{claim.id}'"
    if isinstance(claim.policy, tuple):
        members = claim.policy
    elif claim.is_class:
        members = generated(who, claim.policy, quick)
    else:
        members = (claim.policy,)
    ready = [(*registered(who, m), None) for m in members]  # every member before any run
    ready = [(name, plugin, _options(claim, name, family)) for name, plugin, _ in ready]
    if len({name for name, _, _ in ready}) < len(ready):
        raise InputError(f"claim '{claim.id}': the class lists a policy twice: "
                         f"{', '.join(name for name, _, _ in ready)}", "policy")
    inside = _inside(claim, family)
    opts = {}  # OPT of each instance, shared by the members of a class
    found = [conclude(_judged(claim, family, inside, name, plugin, options, time_limit,
                              out_dir, opts)) for name, plugin, options in ready]
    said = dict(id=claim.id, statement=claim.statement,
                conditions=claim.conditions or family.scope)
    if claim.is_class:
        said.update(class_verdict(claim, family, _range(family)["scope"],
                                  [n for n, _, _ in ready], found))
    else:
        said.update(found[0])
    check_record(said, said["form"], quantifier_of(said["form"])
                 if claim.is_class else claim.bound.quantifier)
    return ClaimResult(seconds=round(time.perf_counter() - start, 2), **said)


def _judged(claim, family, inside, policy, plugin, options, time_limit, out_dir,
            opts) -> Judged:
    """``policy`` run and judged on every instance of ``family``."""
    from simulator.trace import PagingTrace
    from theory.kit.optimum import optimum

    def save(instance, name):
        model = dict(instance.options, policy=policy, **({"plugin": plugin} if plugin else {}))
        if claim.params:
            model["policy_params"] = dict(claim.params)
        paging = isinstance(instance.trace, PagingTrace)
        saved = save_instance(instance.trace, out_dir, name, model,
                              with_opt=claim.bound.needs_opt and not paging)
        if claim.bound.needs_opt and paging:  # OPT is Belady's run: its replay line
            saved["reproduce"] += save_instance(instance.trace, out_dir, name, dict(
                instance.options, policy="belady"), with_opt=False)["reproduce"]
        return saved

    rows = []
    for i, (inst, opt_options) in enumerate(zip(family, options)):
        if claim.bound.needs_opt and i not in opts:
            with _blame(claim):
                opts[i] = optimum(inst.trace, opt_options, time_limit)
        status, numbers = _judge(claim, inst, opt_options, time_limit, opts.get(i))
        rows.append(dict(index=i, status=status, steps=inst.steps, **inst.options,
                         labels=inst.labels, **numbers))
    return Judged(claim=claim, policy=policy, family=family, rows=rows,
                  range_kind=_range(family)["kind"], range_scope=_range(family)["scope"],
                  inside=inside, save=save,
                  rejudge=lambda inst, i: _judge(claim, inst, options[i], time_limit),
                  save_as=f"{claim.id}-{policy}" if claim.is_class else claim.id)


def _range(family: Family) -> dict:
    """The basis kind a family supports and the range its scope names: ``exhaustive``
    only for an enumeration of :func:`theory.families.exhaustive`, ``declared`` for a
    family its author declares exhaustive (:func:`theory.kit.exhaustive.family_basis`)."""
    return family_basis(family)
