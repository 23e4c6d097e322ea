"""Growing a worst case: which block's repetition drives the score, and does it converge.

From the shrunk instance ``g``, each contiguous block ``g[s:e]`` is repeated r times in
place (``g[:s] + g[s:e]·r + g[e:]``).  Every block is screened repeated until it fills
:data:`SCREEN` times the instance's length (at least twice; less when the longest grown
instance allows less), so that short and long blocks are compared at the same length,
and the block with the highest score there is kept (a tie goes to the shorter block, then
the earlier); its repetition is then doubled while the instance stays within
:data:`MAX_GROWN_STEPS` steps (16 384 paging requests, 2 048 semantic steps, whose exact
OPT costs more; at most r = 1024), and the scores along r decide (:func:`growth`):

- **grows** when the score rises at each of the last three doublings of r by at least
  three quarters of the rise before (a rise that does not fade: linear, logarithmic or
  any faster growth; a bounded score L − a/r rises by half as much at each doubling);
- **bounded** otherwise, with the limit L of a least-squares fit of score = L − a/r over
  the last four points (the last score when fewer were measured or the score fell).

K is not scaled here: a space has one capacity, so the search runs once per K
(:mod:`theory.search.capacity`).

>>> growth([1, 2], [1.0, 1.5])["verdict"]
'bounded'
>>> g = growth([1, 2, 4, 8, 16], [1.0, 2.0, 4.0, 8.0, 16.0])
>>> g["verdict"], g["limit"]
('grows', None)
>>> b = growth([1, 2, 4, 8, 16], [3 - 2 / r for r in (1, 2, 4, 8, 16)])
>>> b["verdict"], round(b["limit"], 6)
('bounded', 3.0)
"""

from __future__ import annotations

import numpy as np

MAX_GROWN_STEPS = {"paging": 16384, "semantic": 2048}
SCREEN = 8  # a screened block fills this many times the instance's length
FADE = 0.75  # a rise at least this fraction of the one before does not fade
RISES = 3  # the last rises that must not fade for "grows"


def repeated(g: tuple, block: tuple, r: int) -> tuple:
    """``g`` with its block ``(s, e)`` repeated ``r`` times."""
    s, e = block
    return tuple(g[:s]) + tuple(g[s:e]) * r + tuple(g[e:])


def growth(repeats, scores) -> dict:
    """The verdict (module docstring) on ``scores`` measured at ``repeats``."""
    repeats, scores = np.asarray(repeats, float), np.asarray(scores, float)
    rises = np.diff(scores)
    size = max(1.0, float(np.abs(scores).max()))
    tail = rises[-RISES:]
    grows = (rises.size >= RISES and bool(np.all(tail > 1e-9 * size)) and
             bool(np.all(tail[1:] >= FADE * tail[:-1])))
    if grows:
        return {"verdict": "grows", "limit": None}
    last = slice(-4, None)
    if scores.size >= 4 and rises[-1] > 0:
        slope, limit = np.polyfit(1 / repeats[last], scores[last], 1)
        return {"verdict": "bounded", "limit": float(limit)}
    return {"verdict": "bounded", "limit": float(scores[-1])}


def grow(g: tuple, measure, max_steps: int = 2048) -> dict | None:
    """Screen every block of ``g``, then grow the one that drives the score, up to
    ``max_steps`` steps (:data:`MAX_GROWN_STEPS` of the space's mode, in a search).

    ``measure(genotype)`` returns a scored candidate or None.  Returns the ``grown``
    record: ``verdict``, ``limit``, ``scores``, ``block`` (s, e), ``repeats``, ``steps``
    (each grown instance's length), ``screened`` (blocks tried) and ``candidates`` (the
    scored grown instances), or None when no block could be scored.
    """
    n = len(g)
    best = None
    for s in range(n):
        for e in range(s + 1, n + 1):
            # at the same length for every block, as long as max_steps allows
            r = min(-(-SCREEN * n // (e - s)), (max_steps - n) // (e - s) + 1)
            if r < 2:
                continue
            found = measure(repeated(g, (s, e), r))
            if found is None:
                continue
            key = (found.score, -(e - s), -s)
            if best is None or key > best[0]:
                best = (key, (s, e))
    if best is None:
        return None
    block = best[1]
    repeats, scores, steps, found_all = [], [], [], []
    r = 1
    while r <= 1024 and n + (r - 1) * (block[1] - block[0]) <= max_steps:
        found = measure(repeated(g, block, r))
        if found is not None:
            repeats.append(r)
            scores.append(found.score)
            steps.append(found.steps)
            found_all.append(found)
        r *= 2
    verdict = growth(repeats, scores)
    return dict(verdict, scores=scores, block=block, repeats=repeats, steps=steps,
                screened=n * (n + 1) // 2, candidates=found_all)
