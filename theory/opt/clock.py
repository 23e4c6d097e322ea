"""The time limit and progress reports of one :func:`theory.opt.opt` call.

:func:`running` sets them for the code inside it; the solvers ask :func:`expired` between
phases (an exact method, the separation check, an LP solve, a beam horizon, one policy's
run) and :func:`remaining` caps an LP solve; the upper bound also asks
:func:`expires_within` (a phase that would likely end past the limit is not started) and
notes each candidate it leaves out (:func:`skip`).  A phase under way when the limit
passes finishes first, so the limit is a soft one: it is overrun by at most the longest
phase (the O(T²·d) separation check, about 4 s at T = 2·10⁴; one beam search; the flow
bound).  Without a limit nothing is skipped and every result is the same as before this
module.

Examples
--------
>>> with running(time_limit=0.0):
...     expired()
True
>>> expired()  # outside: no limit
False
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import time
from typing import Callable


@dataclasses.dataclass
class Clock:
    """A deadline (``time.monotonic()`` seconds, or None) and a progress callback."""

    deadline: float | None = None
    progress: Callable | None = None
    cut: bool = False  # whether the limit made a phase be skipped
    skipped: list = dataclasses.field(default_factory=list)  # what it skipped, by name


_CLOCK: contextvars.ContextVar = contextvars.ContextVar("opt_clock", default=Clock())


@contextlib.contextmanager
def running(time_limit: float | None = None, progress: Callable | None = None):
    """Run the code inside with ``time_limit`` seconds from now and ``progress(text)``
    called as each phase starts; yields the :class:`Clock` (its ``cut`` says whether the
    limit skipped anything)."""
    deadline = None if time_limit is None else time.monotonic() + float(time_limit)
    clock = Clock(deadline, progress)
    token = _CLOCK.set(clock)
    try:
        yield clock
    finally:
        _CLOCK.reset(token)


def limited() -> bool:
    """Whether the running clock has a time limit."""
    return _CLOCK.get().deadline is not None


def expired() -> bool:
    """Whether the time limit has passed; if so the caller skips its phase (noted)."""
    return expires_within(0.0)


def expires_within(seconds: float) -> bool:
    """Whether the time limit passes within ``seconds`` from now (a phase expected to take
    that long would end past it); if so the caller skips its phase (noted)."""
    clock = _CLOCK.get()
    if clock.deadline is None or time.monotonic() + seconds < clock.deadline:
        return False
    clock.cut = True
    return True


def skip(name: str) -> None:
    """Note that the limit left ``name`` out (the record's ``not_tried``)."""
    clock = _CLOCK.get()
    clock.cut = True
    clock.skipped.append(name)


def remaining(cap: float | None) -> float | None:
    """Seconds left, at most ``cap`` (``cap`` itself without a limit)."""
    deadline = _CLOCK.get().deadline
    if deadline is None:
        return cap
    left = max(0.0, deadline - time.monotonic())
    return left if cap is None else min(cap, left)


def phase(text: str) -> None:
    """Report that the phase ``text`` starts (to the progress callback, if any)."""
    progress = _CLOCK.get().progress
    if progress is not None:
        progress(text)
