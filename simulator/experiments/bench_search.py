"""The worst-case search against random search (``semcache bench``, rows ``search-…``).

One row per target of the search (docs/search.md): the annealing engine of
:func:`theory.search.worst_case` and its ``random`` engine (independent random instances
of the same space) get the same number of evaluations and the same seed; ``ours_score``
and ``baseline_score`` are the best scores each found, ``ratio`` ours / baseline, and
``meets_target`` says ours is larger (``target_ratio`` 1).  ``evaluations_equal`` says both
scored the same number of candidates, the condition for comparing them.  Each row also
gives both engines' evaluations per second, seed by seed the verdict and last score of
the family annealing's worst case grows into, and (for information, no target) the best
scores of the ``hypothesis`` engine with the same budget and seeds.

Targets: LRU's, FIFO's and LFU's paging ratio to Belady (K = 3, 4 pages); SOLAR (τ = 2λ,
λ = 0.5, K = 1) on instances satisfying Definition 5.3 as the paper words it
(:func:`theory.claims.solar_cr3.d53_ratio`); SOLAR's cost − 3·OPT (K = 1, the additive
form of Theorem 5.4), on any instance and on those satisfying Definition 5.3
(:func:`theory.claims.solar_cr3.d53_excess`).
"""

from __future__ import annotations

from theory.claims.solar_cr3 import d53_excess, d53_ratio

LAMBDA = 0.5


def targets(budget: int) -> list:
    """(row name, keyword arguments of ``worst_case``) of every target."""
    solar = dict(policy="solar", mode="semantic", capacity=1, top_k=1, switch_cost=LAMBDA,
                 params={"tau": 2 * LAMBDA}, budget=budget)
    return [(f"search-{p}-paging", dict(policy=p, capacity=3, budget=budget))
            for p in ("lru", "fifo", "lfu")] + [
        ("search-solar-d53", dict(solar, score=d53_ratio, max_steps=8, grow=False)),
        ("search-solar-excess", dict(solar, score="excess", c=3.0)),
        ("search-solar-d53-excess", dict(solar, score=d53_excess, max_steps=8,
                                         grow_steps=64))]


def measure(name: str, kwargs: dict, seeds=(0, 1, 2)) -> dict:
    """One row: annealing against random search on one target, each score the mean over
    ``seeds`` of the best found with that seed."""
    from theory.search import worst_case

    ours = [worst_case(**kwargs, seed=s, engine="anneal") for s in seeds]
    base = [worst_case(**dict(kwargs, grow=False), seed=s, engine="random") for s in seeds]
    targeted = [worst_case(**dict(kwargs, grow=False), seed=s, engine="hypothesis")
                for s in seeds]
    a = sum(r.best["found"]["score"] for r in ours) / len(seeds)
    b = sum(r.best["found"]["score"] for r in base) / len(seeds)
    equal = [r.evaluations for r in ours] == [r.evaluations for r in base]
    return {"name": name, "baseline": "random search", "ours_score": a, "baseline_score": b,
            "ratio": a / b if b > 0 else float("inf") if a > 0 else 1.0,
            "seeds": list(seeds), "evaluations": ours[0].evaluations,
            "evaluations_total": ours[0].evaluations_total,
            "evaluations_equal": equal, "hits_equal": equal,
            "ours_scores": [r.best["found"]["score"] for r in ours],
            "baseline_scores": [r.best["found"]["score"] for r in base],
            "hypothesis_scores": [r.best["found"]["score"] for r in targeted],
            "ours_evaluations_per_s": sum(r.evaluations_per_s for r in ours) / len(seeds),
            "baseline_evaluations_per_s": sum(r.evaluations_per_s for r in base) / len(seeds),
            "grown_verdicts": [(r.grown or {}).get("verdict") for r in ours],
            "grown_scores": [((r.grown or {}).get("scores") or [None])[-1] for r in ours],
            "target_ratio": 1.0, "meets_target": bool(a > b and equal)}


def rows(quick: bool = False) -> list:
    """Every target's row: 1000 evaluations per search and seeds 0, 1, 2; ``quick``: 100
    evaluations and seed 0 (a smoke test)."""
    budget, seeds = (100, (0,)) if quick else (1000, (0, 1, 2))
    return [measure(name, kwargs, seeds) for name, kwargs in targets(budget)]
