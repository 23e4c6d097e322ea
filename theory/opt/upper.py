"""OPT's upper bound (docs/model.md §4): the cheapest of several real schedules, tried so
that the bound is good early, and within the time limit of :mod:`theory.opt.clock`.

The candidates, in their *listed* order: the schedules given (the flow's), the beam
search of :mod:`theory.opt.beam` at each horizon (``beam:16``, ``beam:64``), then every
policy of :func:`theory.opt.beam.policy_names` in registry order (``policy:fifo``, …).
They are *tried* by kind, cheapest first, in listed order within a kind:

1. ``given``: the schedules given, replayed (free);
2. ``compiled``: the policies whose loops are in numba's disk cache, by the marks of
   :mod:`simulator.engine.compile_marks` (a run takes milliseconds to seconds);
3. ``beam``: the beam search (seconds, its compilation included; often the best);
4. ``compile``: the policies whose loops compile first (5–25 s each, the first run only;
   ``semcache compile`` does it ahead), and those whose loops cannot be cached.

Under a time limit no candidate starts once the limit has passed, and a policy's run
starts only if the time left exceeds the longest run of its kind so far in this call (a
policy to compile: at least :data:`COMPILE_SECONDS`), so a compilation expected to end
past the limit is not started; the first candidate tried always runs, so there is a
schedule.  Each candidate left out is noted by name (:func:`theory.opt.clock.skip`; the
record's ``not_tried``).  Equal costs go to the earlier candidate in listed order, so
without a limit the result is the same whatever the cache holds.  The winner is replayed
and must reproduce its cost.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from typing import Callable

from simulator.engine import compile_marks
from simulator.policies import REGISTRY
from theory.opt import beam, clock
from theory.opt.model import schedule_from_sets

KINDS = ("given", "compiled", "beam", "compile")
# about the shortest compilation of one policy's loop (`semcache compile --json` reports each)
COMPILE_SECONDS = 5.0


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One schedule for the upper bound: ``run()`` gives ``(claimed cost, schedule)``.

    ``name`` says it when it is not tried, ``method`` when it wins, ``kind`` (one of
    :data:`KINDS`) when it is tried, and ``label`` is its phase's text.
    """

    name: str
    method: str
    kind: str
    run: Callable
    label: str


def given(name: str, cost: float, schedule: dict) -> Candidate:
    """A schedule already replayed to ``cost``."""
    return Candidate(name, name, "given", lambda: (cost, schedule), f"upper bound: {name}")


def beams(trace, model, capacity: int, switch_cost: float, width=None, sizes=None,
          budget=None) -> list:
    """The beam search at each of :data:`theory.opt.beam.HORIZONS`."""
    def search(horizon):
        cost, sets = beam.beam(model, capacity, switch_cost, width, horizon, sizes, budget)
        return cost, schedule_from_sets(trace.item_keys, sets)

    return [Candidate(f"beam:{h}", "beam", "beam", functools.partial(search, h),
                      f"upper bound: beam search, horizon {h}") for h in beam.HORIZONS]


def to_compile(trace, budget=None) -> list:
    """The policies of :func:`theory.opt.beam.policy_names` whose loops a run compiles
    first (not yet in numba's disk cache), in registry order."""
    pols = [REGISTRY[name] for name in beam.policy_names()]
    return compile_marks.to_compile(pols, "semantic", beam.loops_sized(trace, budget))


def policies(trace, capacity, top_k: int, switch_cost: float, quality: str,
             budget=None) -> list:
    """Every policy of :func:`theory.opt.beam.policy_names`, run with seed 0 (and the
    budget); ``compile`` for those :func:`to_compile` names and those whose loops cannot
    be cached (compiled in every process)."""
    names = beam.policy_names()
    first = set(to_compile(trace, budget))
    sized = beam.loops_sized(trace, budget)
    out = []
    for i, name in enumerate(names):
        compiles = name in first or not compile_marks.cacheable(REGISTRY[name], sized)
        run = functools.partial(beam.policy_run, trace, name, capacity, top_k,
                                switch_cost, quality, budget)
        label = f"upper bound: policy {name} ({i + 1}/{len(names)})" + \
            (", compiling its loop first" if compiles else "")
        out.append(Candidate(f"policy:{name}", f"policy:{name}",
                             "compile" if compiles else "compiled", run, label))
    return out


def compiling_line(trace, budget=None, surely: bool = True) -> list:
    """What the upper bound would compile, said before the work (``[]`` if nothing), in
    the words ``semcache run`` uses; ``surely``: the result will be bounds (else it says
    "if bounds are needed")."""
    names = to_compile(trace, budget)
    if not names:
        return []
    when = ", while the time limit allows" if clock.limited() else ""
    return [f"{'' if surely else 'if bounds are needed, '}the upper bound tries its policies "
            f"to compile last{when}: compiling {', '.join(names)} (first run only; "
            f"`semcache compile` does it ahead)"]


def _expected(kind: str, took: dict) -> float:
    """Seconds a policy's run of ``kind`` is expected to take, from those of this call;
    0 for the others, which are started whenever the limit has not passed (the beam
    search's first horizon includes its compilation, so it would overstate the second)."""
    if kind == "compile":
        return max(took.get(kind, 0.0), COMPILE_SECONDS)
    return took.get(kind, 0.0) if kind == "compiled" else 0.0


def cheapest(candidates: list, replay: Callable):
    """``(cost, method, schedule)``: the cheapest of ``candidates`` tried (module
    docstring), its cost ``replay(schedule)``, which must equal the cost it claimed."""
    order = sorted(range(len(candidates)), key=lambda i: (KINDS.index(candidates[i].kind), i))
    took: dict = {}  # kind -> the longest a candidate of that kind took, in seconds
    found = []  # (claimed cost, listed index, schedule)
    left_out = []
    for i in order:
        cand = candidates[i]
        need = _expected(cand.kind, took)
        if found and clock.expires_within(need):
            left_out.append(i)
            continue
        clock.phase(cand.label)
        start = time.monotonic()
        claimed, schedule = cand.run()
        took[cand.kind] = max(took.get(cand.kind, 0.0), time.monotonic() - start)
        found.append((claimed, i, schedule))
    for i in sorted(left_out):  # said in listed order
        clock.skip(candidates[i].name)
    claimed, i, schedule = min(found, key=lambda f: (f[0], f[1]))
    cost = replay(schedule)
    if not math.isclose(cost, claimed, rel_tol=1e-9, abs_tol=1e-9):
        raise RuntimeError(f"upper bound {candidates[i].name} replays to {cost}, not {claimed}")
    return cost, candidates[i].method, schedule
