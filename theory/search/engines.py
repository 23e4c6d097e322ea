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
relabelling of the pages; semantic steps up to relabelling of the topics), for the
exhaustive pass that runs before an engine.
"""

from __future__ import annotations

import itertools
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


def enumerate_below(space, n: int) -> list:
    """Every genotype of length 1 … n − 1, one per relabelling; InputError past
    :data:`MAX_ENUMERATED`."""
    out = []
    for length in range(1, min(n, space.max_steps + 1)):
        for g in (_paging(space.pages, length) if space.mode == "paging"
                  else _semantic(space, length)):
            out.append(g)
            if len(out) > MAX_ENUMERATED:
                raise InputError(f"exhaustive_below={n}: more than {MAX_ENUMERATED} "
                                 "instances below that length; lower exhaustive_below",
                                 "exhaustive_below")
    return out


def _paging(pages: int, length: int):
    """Sequences where each new page is the next unused number (restricted growth)."""
    def grow(prefix, top):
        if len(prefix) == length:
            yield tuple(prefix)
            return
        for p in range(min(top + 2, pages)):
            yield from grow(prefix + [p], max(top, p))
    yield from grow([], -1)


def _semantic(space, length: int):
    steps = [(q, i, w) for q in range(-1, space.topics) for i in range(space.topics)
             for w in space.weights]
    for g in itertools.product(steps, repeat=length):
        order = [t for s in g for t in s[:2] if t >= 0]
        first = list(dict.fromkeys(order))
        if first == list(range(len(first))):  # topics numbered by first appearance
            yield g
