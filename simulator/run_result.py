"""What a run gives back: one result type per mode, under the public base :class:`RunResult`.

A :class:`SemanticResult` keeps the per-step records of a semantic run; a
:class:`PagingResult` keeps one byte a request (the hits) and the run's tallies, so a
10⁷-request run stays small.  Each carries only its mode's fields: asking a paging result
for ``loss`` raises AttributeError saying that semantic runs keep it.  ``summary()`` is
the run record of docs/model.md §7 in both.
"""

from __future__ import annotations

import abc
import dataclasses
import math
from typing import ClassVar

import numpy as np

from simulator.engine import simpy as engine_simpy
from simulator.errors import InputError

# The largest cost a run may be able to reach: every total, and the offline optimum's
# bounds and flow sums (a few times the cost), then stay finite float64 numbers.
MAX_COST = 1e300


def modification_counts(admitted, evicted, deleted, evict_log=None, delete_log=None) -> tuple:
    """``(admissions, evictions)`` of a semantic run from its per-step keys (-1: none).

    Evictions count deletions too, and, where a sized run keeps its ``evict_log``, every
    victim of a step rather than the first one, and where a policy that deletes several
    items a step keeps its ``delete_log``, every deletion (docs/model.md §7).
    """
    evicted_n = len(evict_log) if evict_log is not None else int((evicted >= 0).sum())
    deleted_n = len(delete_log) if delete_log is not None else int((deleted >= 0).sum())
    return int((admitted >= 0).sum()), evicted_n + deleted_n


@dataclasses.dataclass
class RunResult(abc.ABC):
    """Counters and per-step records of one run: the base of :class:`SemanticResult` and
    :class:`PagingResult`, which :func:`~simulator.runner.run` returns by the trace's mode.

    Both keep ``config`` (the run's options, engine and ``mode``), ``hit`` (int8, one
    entry a step), ``elapsed_s``, ``max_occupancy`` (the largest total size held),
    ``too_large`` (arrivals never admitted because larger than the budget) and
    ``feedback`` (SimPy engine only, else None: the steps whose feedback was
    ``delivered``, ``lost``, or ``pending`` when the run ended).  A field of the other
    mode raises AttributeError naming the mode that keeps it.
    """

    config: dict
    hit: np.ndarray
    elapsed_s: float
    max_occupancy: int = 0
    too_large: int = 0
    feedback: dict | None = None
    mode: ClassVar[str] = ""

    @abc.abstractmethod
    def summary(self) -> dict:
        """The docs/model.md §7 run record (plain Python types, ready for JSON)."""

    def __getattr__(self, name: str):
        # only reached when the attribute is missing: say which mode keeps it
        for kind in (SemanticResult, PagingResult):
            if kind.mode != self.mode and name in kind.__dataclass_fields__:
                raise AttributeError(f"{name} is kept by {kind.mode} runs' results; this run "
                                     f"is {self.mode}", name=name, obj=self)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}",
                             name=name, obj=self)

    def _with_engine_options(self, out: dict) -> dict:
        options = self.config.get("engine_options")
        if options is not None and not engine_simpy.is_default(options):
            out.update(engine_options=dict(options), feedback=dict(self.feedback))
        return out



@dataclasses.dataclass
class SemanticResult(RunResult):
    """A semantic run's result: :class:`RunResult`'s fields and the per-step arrays.

    ``loss``, ``hit``, ``precision``, ``quality`` and ``scored`` (whether step t is
    graded) per step; ``admitted``/``evicted``/``deleted`` hold the item key (or -1;
    ``evicted`` the first one a step evicted) and ``size`` the number of cached items
    after step t.  ``evict_log`` (a sized run; else None) is every eviction as a row
    (step, key), since a step may evict several; ``delete_log`` (a policy with
    ``repeat_delete``; else None) every deletion as a row (step, key), since such a policy
    may delete several a step (``deleted`` keeps the first).  ``retrieved`` (runs made with
    ``retrievals=True``; else None) is R_t per step, int64 [T, top_k]: the keys best
    first, −1 where the cache held fewer than k items.  ``admissions`` and ``evictions``
    are the run record's counts; ``rewrites`` the in-place rewrites the policy noted
    (:func:`~simulator.policies.base.note_rewrites`).
    """

    loss: np.ndarray | None = None
    precision: np.ndarray | None = None
    quality: np.ndarray | None = None
    admitted: np.ndarray | None = None
    evicted: np.ndarray | None = None
    deleted: np.ndarray | None = None
    size: np.ndarray | None = None
    scored: np.ndarray | None = None
    evict_log: np.ndarray | None = None
    retrieved: np.ndarray | None = None
    delete_log: np.ndarray | None = None
    rewrites: int = 0
    mode: ClassVar[str] = "semantic"

    @property
    def admissions(self) -> int:
        """Steps that admitted an item."""
        return self._counts()[0]

    @property
    def evictions(self) -> int:
        """Items evicted or deleted."""
        return self._counts()[1]

    def _counts(self) -> tuple:
        return modification_counts(self.admitted, self.evicted, self.deleted, self.evict_log,
                                   self.delete_log)

    def summary(self) -> dict:
        """The docs/model.md §7 run record (plain Python types, ready for JSON).

        Rates and ``miss_cost`` = Σ ℓ_t are taken over the scored steps (with none scored
        the rates are None: such a run has no hit rate, and ``miss_cost`` is 0); ``modifications``
        N counts every step at which the cache changed, warm-up included (building the
        memory costs switches even when its answers are not graded), and
        ``cost = miss_cost + λ·(N + rewrites)``: ``rewrites`` counts the cached items the
        policy rewrote in place (docs/model.md §1.9; 0 for a rule that rewrites nothing).
        With every step scored this is the cost of docs/model.md §1.6 exactly.

        A SimPy run with engine options other than the defaults (immediate feedback, one
        session: the fast engine's model) also records ``engine_options`` and its
        ``feedback`` counters; otherwise the record equals the fast engine's except
        ``engine`` and ``elapsed_s``.
        """
        out = _head(self.config, int(self.hit.shape[0]))
        sc = self.scored
        n = int(sc.sum())
        changed = (self.admitted >= 0) | (self.evicted >= 0) | (self.deleted >= 0)
        mods = int(changed.sum())
        admissions, evictions = self._counts()
        hits = int(self.hit[sc].sum())
        miss_cost = float(math.fsum(self.loss[sc].tolist()))
        out.update(
            scored_steps=n, hits=hits, hit_rate=hits / n if n else None,
            mean_precision=float(math.fsum(self.precision[sc].tolist()) / n) if n else None,
            mean_quality=float(math.fsum(self.quality[sc].tolist()) / n) if n else None,
            miss_cost=miss_cost, modifications=mods,
            admissions=admissions, evictions=evictions, max_occupancy=self.max_occupancy,
            too_large=self.too_large, rewrites=self.rewrites,
            cost=finite_cost(miss_cost + self.config["switch_cost"] * (mods + self.rewrites)),
            elapsed_s=self.elapsed_s)
        return self._with_engine_options(out)


@dataclasses.dataclass
class PagingResult(RunResult):
    """A paging run's result: :class:`RunResult`'s fields (``hit`` one byte a request)
    and its tallies, ``admissions``, ``evictions``, ``requested_size`` and ``hit_size``
    (the sizes requested and served from the cache)."""

    admissions: int = 0
    evictions: int = 0
    requested_size: int = 0
    hit_size: int = 0
    mode: ClassVar[str] = "paging"

    def summary(self) -> dict:
        """The docs/model.md §7.2 run record (as a streamed run's, ``paging_record``)."""
        return self._with_engine_options(paging_record(
            self.config, steps=int(self.hit.shape[0]), hits=int(self.hit.sum()),
            admissions=self.admissions, evictions=self.evictions,
            max_occupancy=self.max_occupancy, too_large=self.too_large,
            requested_size=self.requested_size, hit_size=self.hit_size,
            elapsed_s=self.elapsed_s))


def paging_record(config: dict, *, steps: int, hits: int, admissions: int, evictions: int,
                  max_occupancy: int, too_large: int, requested_size: int, hit_size: int,
                  elapsed_s: float) -> dict:
    """The docs/model.md §7.2 record of a paging run from its tallies (a whole run's or a
    streamed one's): every request is scored, quality is the hit and a miss costs 1.  An
    empty trace has None rates, as a semantic run with no scored step."""
    out = _head(config, steps)
    mods = admissions  # a paging step changes S only by admitting
    rate = hits / steps if steps else None
    out.update(scored_steps=steps, hits=hits, hit_rate=rate, mean_precision=rate,
               mean_quality=rate,
               miss_cost=float(steps - hits), modifications=mods, admissions=mods,
               evictions=evictions, max_occupancy=max_occupancy, too_large=too_large,
               requested_size=requested_size, hit_size=hit_size,
               size_hit_rate=hit_size / requested_size if requested_size else None,
               cost=finite_cost(float(steps - hits) + config["switch_cost"] * mods),
               elapsed_s=elapsed_s)
    return out


def _head(c: dict, steps: int) -> dict:
    """The options part of a run record, in the record's order."""
    return dict(policy=c["policy"], capacity=c["capacity"], budget=c["budget"],
                top_k=c["top_k"], switch_cost=c["switch_cost"], quality=c["quality"],
                seed=c["seed"], params=c["params"], engine=c["engine"], mode=c["mode"],
                steps=steps)


def finite_cost(cost: float) -> float:
    """The cost, which :func:`simulator.runner.check_cost_bound` keeps finite (a streamed
    run, whose T is known only at its end, is checked here)."""
    if not math.isfinite(cost) or cost > MAX_COST:
        raise InputError(f"switch_cost makes the run's cost {cost:g} exceed {MAX_COST:g}; "
                         "give a smaller switch cost", "switch_cost")
    return cost
