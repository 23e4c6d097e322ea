"""The worst-case search: maximise a score over tiny instances, then shrink, then grow.

:func:`worst_case` checks its inputs once, then (docs/search.md):

1. scores every instance shorter than ``exhaustive_below`` (none by default);
2. runs the engine for ``budget`` evaluations, from ``start``'s instances if given;
3. shrinks the best: drops steps (:func:`theory.kit.shrink.shrink`) while the score stays
   at the best's (within 10⁻⁹ of its size), so every step left matters;
4. grows it (``grow=True``): the block whose repetition drives the score, repeated
   r = 1, 2, 4, … times, and the verdict "bounded" (with the fitted limit) or "grows"
   (:mod:`theory.search.grow`);
5. saves the shrunk and the largest grown instance under ``out_dir`` (if given), with the
   commands that replay them.

Every candidate is scored against an exact optimum (:mod:`theory.search.scores`); the
same seed gives the same instances, scores and verdict on any machine (only the seconds
differ).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from simulator.errors import InputError
from simulator.rng import check_seed
from theory.kit.families import as_family
from theory.kit.shrink import shrink
from theory.kit.user_code import is_finite, shown
from theory.search import engines, grow as growing
from theory.search.result import SearchResult, file_name, save
from theory.search.scores import SCORES, Evaluator
from theory.search.space import Space

TICKS = 50  # progress reports per search, at most


def worst_case(policy, mode: str = "paging", capacity: int | None = None, top_k: int = 1,
               switch_cost: float = 0.0, params: dict | None = None, score="ratio",
               c: float | None = None, budget: int = 2000, seed: int = 0,
               grow: bool = True, exhaustive_below: int = 0, engine: str = "anneal",
               start=None, progress=None, out_dir: str | None = None,
               pages: int | None = None, topics: int | None = None,
               max_steps: int | None = None, weights=None,
               grow_steps: int | None = None) -> SearchResult:
    """The instance of a space on which ``policy`` scores worst against the exact optimum.

    Parameters
    ----------
    policy : str or simulator.Policy
        A registered policy (built-in or a plugin's) or a Policy object.
    mode : {"paging", "semantic"}
        Paging: request sequences over ``pages`` pages (default K + 1), against Belady.
        Semantic: steps over ``topics`` one-hot topics (default K + 1) with weights from
        ``weights``, against the model's exact OPT (:mod:`theory.search.space`).
    capacity, top_k, switch_cost
        K, k and λ of every instance (semantic mode uses all three, hit quality).
    params : dict, optional
        The policy's parameters (SOLAR with τ = 2λ: ``{"tau": 2 * λ}``).
    score : {"ratio", "excess"} or callable
        cost / OPT, cost − c·OPT, or ``score(run, opt, instance) -> float``.
    c : float
        The constant of ``"excess"``.
    budget : int
        Candidates the engine scores.
    seed : int
        Seeds the engine and the policy's runs.
    grow : bool
        Grow the shrunk instance (``grown`` in the result).
    exhaustive_below : int
        Score every instance shorter than this first (0: none).
    engine : {"anneal", "hypothesis", "random"}
    start : theory.families.Family or list of Instance, optional
        Instances to start (annealing: restart) from, read as genotypes of the space.
    progress : callable or bool, optional
        ``progress(record)`` with ``evaluations``, ``budget`` and ``best`` a few dozen times;
        True: a tqdm bar on stderr.
    out_dir : str, optional
        Where the shrunk and the largest grown instance are saved.
    pages, topics, max_steps, weights
        The space's sizes (:class:`theory.search.space.Space`).
    grow_steps : int, optional
        The longest grown instance (default :data:`theory.search.grow.MAX_GROWN_STEPS`
        of the mode); lower it for a score that is slow on long instances.

    Examples
    --------
    >>> found = worst_case("fifo", capacity=2, budget=300, seed=1)
    >>> found.best["score"] > 1.5, found.grown["verdict"], found.grown["limit"] > 1.9
    (True, 'bounded', True)
    """
    name, plugin = _policy(policy)
    space = Space(mode, capacity, top_k=top_k, switch_cost=switch_cost, pages=pages,
                  topics=topics, max_steps=max_steps,
                  weights=tuple(weights) if weights is not None else None)
    _check(score, c, budget, seed, grow, exhaustive_below, engine, progress)
    if grow_steps is not None and (isinstance(grow_steps, bool) or not isinstance(
            grow_steps, (int, np.integer)) or grow_steps < 1):
        raise InputError(f"grow_steps must be an integer >= 1, got {shown(grow_steps)}",
                         "grow_steps")
    params = _params(params)
    starts = [space.genotype(i) for i in as_family(start, "start")] if start is not None \
        else []
    evaluate = Evaluator(space, name, params, score, float(c or 0.0), seed)
    evaluate.measure(starts[0] if starts else (0,) if mode == "paging" else ((0, 0, 1.0),))
    t0 = time.perf_counter()
    report = _Progress(progress, budget, evaluate)
    best, exhaustive = None, None
    if exhaustive_below > 1:
        every, scope = engines.enumerate_below(space, exhaustive_below)
        for g in every:
            best = engines.better(best, evaluate(g))
        exhaustive = {"below": exhaustive_below, "instances": len(every), "scope": scope,
                      "best": best.score if best else None}
    counted, seconds = evaluate.count, evaluate.seconds
    rng = np.random.default_rng(seed)
    best = engines.better(best, engines.run_engine(engine, evaluate, space, rng, budget,
                                                   starts, report.tick))
    report.close()
    evaluations = evaluate.count
    per_s = (evaluations - counted) / max(evaluate.seconds - seconds, 1e-12)
    if best is None:
        raise InputError(f"no candidate of the space could be scored in {budget} "
                         "evaluations (OPT inexact or 0 on every one); raise budget, or "
                         "change the space", "budget")
    small = _shrunk(best, space, evaluate)
    grown = growing.grow(small.genotype, evaluate,
                         grow_steps or growing.MAX_GROWN_STEPS[mode]) if grow else None
    model = dict(space.options, policy=name, **({"policy_params": params} if params else {}),
                 **({"plugin": plugin} if plugin else {}))
    record = dict(score=small.score, steps=small.steps, cost=small.cost, opt=small.opt,
                  sequence=[list(s) if isinstance(s, tuple) else s for s in small.genotype],
                  found={"score": best.score, "steps": best.steps}, trace=None,
                  reproduce=[])
    if out_dir is not None:
        stem = file_name(name, mode, f"K{space.capacity}", f"seed{seed}")
        record.update(save(space.instance(small.genotype), out_dir, f"{stem}-best", model,
                           mode == "paging"))
        if grown is not None:
            grown.update(save(space.instance(grown["candidates"][-1].genotype), out_dir,
                              f"{stem}-grown", model, mode == "paging"))
    return SearchResult(policy=name, mode=mode, options=space.options,
                        score=score if isinstance(score, str) else
                        getattr(score, "__name__", "custom"),
                        engine=engine, seed=seed, best=record, grown=grown,
                        evaluations=evaluations, evaluations_total=evaluate.count,
                        evaluations_per_s=per_s, seconds=time.perf_counter() - t0,
                        exhaustive=exhaustive, instance=space.instance(small.genotype),
                        family=_family(grown, space, name))


def _family(grown, space, name: str):
    """The grown instances as a family, each labelled with its scale r."""
    from theory.kit.families import Family

    if grown is None:
        return None
    block = tuple(grown["block"])
    found = tuple(space.instance(c.genotype, {"scale": r, "repeats": r, "block": block})
                  for r, c in zip(grown["repeats"], grown["candidates"]))
    return Family(found, f"{name}'s worst case, block {block} repeated r = "
                         f"{grown['repeats'][0]}…{grown['repeats'][-1]} times")


def _shrunk(best, space, evaluate):
    """The smallest instance shrink finds whose score stays at ``best``'s."""
    floor = best.score - 1e-9 * max(1.0, abs(best.score))

    def still_worst(instance):
        found = evaluate(space.genotype(instance))
        return found is not None and found.score >= floor

    small = shrink(space.instance(best.genotype), still_worst)
    return evaluate(space.genotype(small))


def _policy(policy) -> tuple:
    """(registered name, plugin that defines it or None)."""
    from simulator import policies
    from simulator.policies.base import Policy
    from theory.claims.base import plugin_of

    if isinstance(policy, Policy):
        if policies.REGISTRY.get(policy.name) is not policy:
            policies.register(policy, origin=plugin_of(policy))
        name = policy.name
    elif isinstance(policy, str) and policy in policies.REGISTRY:
        name = policy
    else:
        raise InputError(f"policy: unknown policy {shown(policy)}; give a registered name "
                         f"({', '.join(policies.REGISTRY)}) or a simulator.Policy", "policy")
    if policies.shipped(name):
        return name, None
    return name, policies.origin(name) or plugin_of(policies.REGISTRY[name])


def _params(params) -> dict:
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise InputError(f"params must be a dict of the policy's parameters, got "
                         f"{shown(params)}", "params")
    return dict(params)


def _check(score, c, budget, seed, grow, exhaustive_below, engine, progress) -> None:
    if not (callable(score) or score in SCORES):
        raise InputError(f"score must be one of {', '.join(SCORES)} or a function "
                         f"score(run, opt, instance) -> float, got {shown(score)}", "score")
    if score == "excess" and not is_finite(c):
        raise InputError(f"c: score 'excess' is cost − c·OPT; give c as a number, got "
                         f"{shown(c)}", "c")
    if c is not None and not is_finite(c):
        raise InputError(f"c must be a finite number, got {shown(c)}", "c")
    for value, what, least in ((budget, "budget", 1), (exhaustive_below, "exhaustive_below",
                                                        0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
                or value < least:
            raise InputError(f"{what} must be an integer >= {least}, got {shown(value)}",
                             what)
    check_seed(seed, "seed")
    if not isinstance(grow, bool):
        raise InputError(f"grow must be True or False, got {shown(grow)}", "grow")
    if engine not in engines.ENGINES:
        raise InputError(f"engine must be one of {', '.join(engines.ENGINES)}, got "
                         f"{shown(engine)}", "engine")
    if not (progress is None or isinstance(progress, bool) or callable(progress)):
        raise InputError(f"progress must be a function, True or None, got {shown(progress)}",
                         "progress")


class _Progress:
    """Reports about :data:`TICKS` times per search: to ``progress(record)`` or a tqdm
    bar."""

    def __init__(self, progress, budget: int, evaluate):
        self.fn, self.budget, self.evaluate, self.bar = progress, budget, evaluate, None
        self.base, self.shown = evaluate.count, 0
        self.every = max(1, budget // TICKS)
        if progress is True:
            from tqdm import tqdm

            self.bar = tqdm(total=budget, unit="eval", desc="search", file=sys.stderr,
                            leave=False)

    def tick(self, best) -> None:
        done = min(self.evaluate.count - self.base, self.budget)
        if not self.fn or done - self.shown < self.every:
            return
        score = None if best is None else best.score
        if self.bar is not None:
            self.bar.update(done - self.shown)
            self.bar.set_postfix(best=f"{score:.4g}" if score is not None else "-")
        else:
            self.fn({"evaluations": done, "budget": self.budget, "best": score})
        self.shown = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
