"""A claim's search: :func:`theory.search.worst_case` run beside the claim's family, and
what its instances add to the verdict (docs/search.md, a claim's search).

A claim given ``search=theory.search.Budget(...)`` is judged twice by the same rules
(:mod:`theory.kit.conclude`): over its own family, and over the instances the search
found, a family of basis ``search`` whose scope names the search's engine, budget and
seed.  The search runs once for each run options (capacity, top-k, λ) of the family's
instances, restarted from those instances, maximising what the bound's ``seek`` names:

- ``ratio_at_most(c)`` and ``ratio_reaches(c)``: the ratio to the exact OPT; with
  ``additive`` b, cost − c·OPT; its best instance, shrunk, is added;
- ``competitive_at_most(c)``: cost − c·OPT, then the best is grown and the grown family
  (each instance labelled with its scale r) is added, judged along its scale.

The two verdicts combine as the quantifier reads them (:func:`combined`): a violation
the search found violates a "for every instance" or growth statement its family did not
break; a witness it found makes a "for some instance" statement hold; otherwise the
family's verdict stands (a search never turns a verdict into ``holds`` over an
enumerated range, nor takes one away), with the search's own record beside it in
``measured["search"]``.
"""

from __future__ import annotations

from simulator.errors import InputError
from theory.claims.verdicts import EVERY, HOLDS, RATE, SOME, VIOLATED, check_record
from theory.kit.families import Family


def check_search(who: str, claim) -> None:
    """A claim's ``search`` is a Budget, for one policy and a bound a search can score."""
    from theory.search.budget import Budget

    if claim.search is None:
        return
    if not isinstance(claim.search, Budget):
        raise InputError(f"{who}: search must be None or a theory.search.Budget, got "
                         f"{type(claim.search).__name__}", "search")
    if claim.evidence is not None:
        raise InputError(f"{who}: an evidence hook runs its own searches; give search only "
                         "with policy, instances and bound", "search")
    if claim.is_class:
        raise InputError(f"{who}: search is for a claim about one policy; state a class "
                         "claim without it, or one claim per member with a search", "search")
    if claim.bound.seek is None:
        raise InputError(f"{who}: no search can score bound '{claim.bound.describe()}'; "
                         "search works with ratio_at_most, ratio_reaches and "
                         "competitive_at_most (without scale=)", "search")


def searched(claim, family: Family, said: dict, judge) -> dict:
    """The verdict record of ``claim`` from ``said``, its family's, and the search's
    instances judged by ``judge(claim, family)`` (:func:`theory.check`'s judgement)."""
    import dataclasses

    found = found_family(claim, family)
    beside = judge(dataclasses.replace(claim, instances=found, search=None,
                                       id=f"{claim.id[:57]}-search"), found)
    said = dict(combined(claim.bound.quantifier, said, beside), id=claim.id,
                statement=claim.statement,
                conditions=claim.conditions or f"{family.scope}; and {found.scope}")
    check_record(said, said["form"], claim.bound.quantifier)
    return said


def found_family(claim, family: Family) -> Family:
    """The instances the claim's search finds: one search per run options of
    ``family``, its best instance (shrunk), or its grown family for a growth bound."""
    from simulator.instance import Instance
    from simulator.trace import PagingTrace
    from theory.search import worst_case

    budget, seek = claim.search, claim.bound.seek
    groups = {}
    for inst in family:
        mode = "paging" if isinstance(inst.trace, PagingTrace) else "semantic"
        options = {k: v for k, v in inst.options.items() if v is not None}
        groups.setdefault((mode, tuple(sorted(options.items()))), []).append(inst)
    found = []
    for (mode, options), members in groups.items():
        options = dict(options)
        if mode == "semantic" and options.get("quality", "hit") != "hit":
            continue  # the search's semantic space is hit quality only
        space = dict(capacity=options.get("capacity"), top_k=options.get("top_k", 1),
                     switch_cost=options.get("switch_cost", 0.0))
        starts = _starts(members, mode, space, budget)
        result = worst_case(claim.policy, mode=mode, params=claim.params,
                            score=seek["score"], c=seek.get("c"),
                            budget=budget.evaluations, seed=budget.seed,
                            engine=budget.engine, grow=bool(seek.get("grow")),
                            start=starts or None, **space, **budget.sizes())
        if seek.get("grow"):
            found += list(result.family)
        else:
            best = result.instance
            found.append(Instance(best.trace, best.options, dict(
                best.labels, search=seek["score"], score=float(result.best["score"]))))
    if not found:
        raise InputError(f"claim '{claim.id}': the search has no instance of the family to "
                         "search beside (semantic instances must be hit quality)", "search")
    what = seek["score"] if seek["score"] == "ratio" else f"cost − {seek['c']:g}·OPT"
    grown = "grown along its scale, " if seek.get("grow") else ""
    return Family(tuple(found), f"{len(found)} instance(s) theory.search.worst_case found "
                                f"maximising {what} ({grown}{budget.describe()}, one search "
                                f"for each of {len(groups)} run options of the family)")


def _starts(members: list, mode: str, space: dict, budget) -> list:
    """The family's instances the search can restart from (those its space holds)."""
    from theory.search.space import Space

    room = Space(mode, space["capacity"], top_k=space["top_k"],
                 switch_cost=space["switch_cost"], pages=budget.pages, topics=budget.topics,
                 max_steps=budget.max_steps)
    kept = []
    for inst in members:
        try:
            g = room.genotype(inst)
        except InputError:
            continue
        if room.min_steps <= len(g) <= room.max_steps:
            kept.append(inst)
    return kept


def combined(quantifier: str, family: dict, search: dict) -> dict:
    """The verdict record of a claim from its family's record and its search's (the
    module docstring), the search's record in ``measured["search"]``."""
    took = family
    if quantifier in (EVERY, RATE) and search["verdict"] == VIOLATED \
            and family["verdict"] != VIOLATED:
        took = search
    if quantifier == SOME and search["verdict"] == HOLDS and family["verdict"] != HOLDS:
        took = search
    other = family if took is search else search
    said = dict(took)
    beside = {k: other[k] for k in ("verdict", "basis", "evidence", "instance", "measured")
              if other.get(k)}
    said["measured"] = dict(took.get("measured") or {},
                            **{"search" if took is family else "family": beside})
    if took is search:
        said["evidence"] = f"the search: {search['evidence']} (the family: " \
                           f"{family['verdict']}, {family['evidence']})"
        said["subranges"] = family.get("subranges")
    return said
