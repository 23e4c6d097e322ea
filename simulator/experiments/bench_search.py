"""The worst-case search against random search (``semcache bench``, rows ``search-…``).

One row per target of the search (docs/search.md): the annealing engine of
:func:`theory.search.worst_case` and its ``random`` engine (independent random instances
of the same space) get the same number of evaluations and the same seed; ``ours_score``
and ``baseline_score`` are the best scores each found, ``ratio`` ours / baseline, and
``meets_target`` says ours is larger (``target_ratio`` 1).  ``evaluations_equal`` says both
scored the same number of candidates, the condition for comparing them.  Each row also
gives both engines' evaluations per second and the grown family's verdict and last score.

Targets: LRU's, FIFO's and LFU's paging ratio to Belady (K = 3, 4 pages); SOLAR (τ = 2λ,
λ = 0.5, K = 1) on instances satisfying Definition 5.3 as the paper words it
(:func:`d53_ratio`); SOLAR's cost − 3·OPT (K = 1, the additive form of Theorem 5.4).
"""

from __future__ import annotations

LAMBDA = 0.5


def d53_ratio(run, opt, instance) -> float:
    """SOLAR/OPT in the paper's model when the instance satisfies Definition 5.3 as the
    paper words it, else 0 (:func:`theory.claims.solar_cr3.evaluate`; a score for
    :func:`theory.search.worst_case`, on instances small enough to enumerate every optimal
    schedule)."""
    from theory.claims.solar_cr3 import evaluate

    e = evaluate(instance.trace, dict(instance.options))
    return float(e["ratio"]) if e["d53_paper"] else 0.0


def targets(budget: int) -> list:
    """(row name, keyword arguments of ``worst_case``) of every target."""
    solar = dict(policy="solar", mode="semantic", capacity=1, top_k=1, switch_cost=LAMBDA,
                 params={"tau": 2 * LAMBDA}, budget=budget)
    return [(f"search-{p}-paging", dict(policy=p, capacity=3, budget=budget))
            for p in ("lru", "fifo", "lfu")] + [
        ("search-solar-d53", dict(solar, score=d53_ratio, max_steps=8, grow=False)),
        ("search-solar-excess", dict(solar, score="excess", c=3.0))]


def measure(name: str, kwargs: dict, seed: int = 0) -> dict:
    """One row: annealing against random search on one target."""
    from theory.search import worst_case

    ours = worst_case(**kwargs, seed=seed, engine="anneal")
    base = worst_case(**dict(kwargs, grow=False), seed=seed, engine="random")
    a, b = ours.best["found"]["score"], base.best["found"]["score"]
    grown = ours.grown or {}
    return {"name": name, "baseline": "random search", "ours_score": a, "baseline_score": b,
            "ratio": a / b if b > 0 else float("inf") if a > 0 else 1.0,
            "evaluations": ours.evaluations, "evaluations_equal":
                ours.evaluations == base.evaluations,
            "hits_equal": ours.evaluations == base.evaluations,
            "ours_evaluations_per_s": ours.evaluations_per_s,
            "baseline_evaluations_per_s": base.evaluations_per_s,
            "grown_verdict": grown.get("verdict"),
            "grown_score": (grown.get("scores") or [None])[-1],
            "target_ratio": 1.0, "meets_target": bool(a > b and ours.evaluations ==
                                                      base.evaluations)}


def rows(quick: bool = False) -> list:
    """Every target's row; ``quick``: 150 evaluations each (a smoke test), else 2000."""
    return [measure(name, kwargs) for name, kwargs in targets(150 if quick else 2000)]
