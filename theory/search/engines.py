"""The engines that look for a high score, each given the same number of evaluations.

An engine walks a :class:`~theory.search.space.Space` with an
:class:`~theory.search.scores.Evaluator` (which scores each genotype once: a repeated
candidate is free) until ``budget`` candidates have been scored, and returns the best
:class:`~theory.search.scores.Candidate` (ties go to the shorter one, then the first
found).  All draw from one seeded generator, so a seed gives the same search.

``anneal``
    Simulated annealing with restarts: a restart starts from the next ``start`` instance
    (else alternately a random instance and the best so far), proposes one mutation at a
    time, always accepts a candidate at least as bad-for-the-policy as the current one, and
    a lower one with probability exp(Δ / temperature); the temperature falls linearly to 0
    over each restart, from 5 % of the current score's size (at least 0.05).
``hypothesis``
    Hypothesis' targeted property-based testing: a strategy of genotypes, ``target(score)``
    on each, phases generate and target, seeded, no example database.
``random``
    Independent random instances of the space: the baseline the others must beat.

:func:`enumerate_below` lists every genotype shorter than ``n`` (paging sequences up to
relabelling of the pages; semantic steps up to relabelling of the topics), as
:func:`theory.families.exhaustive` enumerates them, for the exhaustive pass that runs
before an engine.
"""

from __future__ import annotations

import math

from simulator.errors import InputError

ENGINES = ("anneal", "hypothesis", "random")
MAX_ENUMERATED = 200_000
RESTART_EVERY = 150  # evaluations per annealing restart, at most 8 restarts


def better(best, new):
    """The better of two candidates (None is worst; a tie goes to the shorter)."""
    if new is None:
        return best
    if best is None or new.score > best.score or (new.score == best.score and
                                                   new.steps < best.steps):
        return new
    return best


def run_engine(name: str, evaluate, space, rng, budget: int, starts: list, tick):
    """The best candidate engine ``name`` finds in ``budget`` evaluations."""
    return {"anneal": anneal, "hypothesis": targeted, "random": random_search}[name](
        evaluate, space, rng, budget, starts, tick)


def random_search(evaluate, space, rng, budget, starts, tick):
    stop, best = evaluate.count + budget, None
    for g in starts:
        best = better(best, evaluate(g))
    for _ in range(50 * budget):  # a tiny space repeats candidates, which are free
        if evaluate.count >= stop:
            break
        best = better(best, evaluate(space.random(rng)))
        tick(best)
    return best


def anneal(evaluate, space, rng, budget, starts, tick):
    stop, best = evaluate.count + budget, None
    restarts = max(1, min(8, budget // RESTART_EVERY))
    tries = 50 * budget
    for i in range(restarts):
        until = evaluate.count + (stop - evaluate.count) // (restarts - i)
        span = max(until - evaluate.count, 1)
        if starts:
            g = starts[i % len(starts)]
        else:
            g = best.genotype if best is not None and i % 2 else space.random(rng)
        current = evaluate(g)
        while current is None and evaluate.count < until and tries > 0:
            tries -= 1
            current = evaluate(space.random(rng))
        if current is None:
            continue
        best = better(best, current)
        hot = 0.05 * max(abs(current.score), 1.0)
        while evaluate.count < until and tries > 0:
            tries -= 1
            new = evaluate(space.mutate(current.genotype, rng))
            if new is None:
                continue
            temperature = hot * (until - evaluate.count) / span
            gain = new.score - current.score
            if gain >= 0 or (temperature > 0 and rng.random() < math.exp(gain / temperature)):
                current = new
            best = better(best, new)
            tick(best)
    return best


def targeted(evaluate, space, rng, budget, starts, tick):
    from hypothesis import HealthCheck, Phase, given, settings, target
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st

    stop, found = evaluate.count + budget, {"best": None}
    for g in starts:
        found["best"] = better(found["best"], evaluate(g))
    if space.mode == "paging":
        step = st.integers(0, space.pages - 1)
    else:
        step = st.tuples(st.integers(-1, space.topics - 1), st.integers(0, space.topics - 1),
                         st.sampled_from(space.weights))
    genotypes = st.lists(step, min_size=space.min_steps, max_size=space.max_steps).map(tuple)

    @hypothesis_seed(int(rng.integers(2 ** 32)))
    @settings(max_examples=budget, database=None, phases=[Phase.generate, Phase.target],
              deadline=None, suppress_health_check=list(HealthCheck))
    @given(genotypes)
    def search(g):
        if evaluate.count >= stop:
            return
        candidate = evaluate(g)
        if candidate is not None:
            target(candidate.score)
            found["best"] = better(found["best"], candidate)
            tick(found["best"])

    search()
    return found["best"]


def enumerate_below(space, n: int) -> tuple:
    """(every genotype of length 1 … n − 1, one per relabelling, the enumeration's scope),
    from :func:`theory.families.exhaustive`; InputError past :data:`MAX_ENUMERATED`."""
    from theory.kit.exhaustive import exhaustive

    length = min(n - 1, space.max_steps)
    opts = space.options
    try:
        if space.mode == "paging":
            every = exhaustive("paging", length, pages=space.pages, capacity=opts["capacity"],
                               limit=MAX_ENUMERATED)
        else:
            every = exhaustive("semantic", length, topics=space.topics,
                               weights=list(space.weights), unmatched=True,
                               capacity=opts["capacity"], top_k=opts["top_k"],
                               switch_cost=opts["switch_cost"], limit=MAX_ENUMERATED)
    except InputError as exc:
        raise InputError(f"exhaustive_below={n}: {exc}; lower exhaustive_below",
                         "exhaustive_below") from None
    if space.mode == "paging":
        found = [tuple(i.labels["requests"]) for i in every]
    else:
        found = [tuple((int(q), int(b), float(w)) for q, b, w in zip(
            i.labels["query_topics"], i.labels["item_topics"], i.labels["weights"]))
            for i in every]
    return found, every.scope
