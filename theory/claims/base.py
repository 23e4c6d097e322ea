"""What a claim check is and what it returns.

A :class:`Claim` states one claim of the SOLAR paper as the paper gives it and says how it
is tested; its ``check(quick, out_dir)`` runs the experiment and returns a
:class:`ClaimResult` whose verdict is computed from the run, never written by hand:

``holds``
    the measured numbers satisfy the statement under the stated conditions;
``violated``
    a concrete instance breaks it; the smallest one found is saved as a trace file that
    ``semcache run`` and ``semcache opt`` reproduce (``instance`` gives the commands);
``inconclusive``
    the experiment cannot decide (e.g. the regret experiment failed its validity guard,
    or an asymptotic statement that finite runs can only support).

A claim that fails may also report a ``corrected`` statement (the bound the evidence
supports) with its own verdict.

Readings and sub-ranges.  The headline verdict is for the statement *as the paper gives
it* (its definitions, the workload and comparator of its proof).  Where the paper's model
or comparator differs from ours (Definition 2.3's comparator, forced admission, our
reading of a definition), ``readings`` lists one verdict per reading, each naming which
one it is.  A statement covers a range of parameters; ``subranges`` lists one verdict per
part of the tested range (edge values such as K = 1, λ = 0, k ≥ K, small T on their own),
each failing part with its own breaking instance (:func:`by_subrange`).
"""

from __future__ import annotations

import dataclasses
import math
import os
from typing import Callable

HOLDS, VIOLATED, INCONCLUSIVE = "holds", "violated", "inconclusive"
VERDICTS = (HOLDS, VIOLATED, INCONCLUSIVE)


@dataclasses.dataclass
class ClaimResult:
    """The outcome of one claim check (one entry of ``semcache claims --json``)."""

    id: str
    statement: str
    conditions: str
    verdict: str
    evidence: str
    measured: dict
    instance: dict | None = None
    corrected: dict | None = None
    readings: list | None = None
    subranges: list | None = None
    seconds: float = 0.0

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.verdict == VIOLATED and self.instance is None:
            raise ValueError(f"{self.id}: a violated claim must name its instance")

    def to_dict(self) -> dict:
        return _plain(dataclasses.asdict(self))


@dataclasses.dataclass(frozen=True)
class Claim:
    """One claim: its identity, the paper's statement, the tested conditions, the check."""

    id: str
    title: str
    statement: str
    conditions: str
    check: Callable  # (quick: bool, out_dir: str) -> dict(verdict, evidence, measured, ...)

    def run(self, quick: bool, out_dir: str) -> ClaimResult:
        import time

        start = time.perf_counter()
        found = self.check(quick, out_dir)
        return ClaimResult(id=self.id, statement=self.statement, conditions=self.conditions,
                           seconds=round(time.perf_counter() - start, 2), **found)


def parts_line(readings: list | None, subranges: list | None) -> str:
    """One line of markdown: each reading's verdict, then each sub-range's."""
    said = [f"{x['reading']} **{x['verdict']}** ({x['evidence']})" for x in readings or ()]
    if subranges:
        said.append("sub-ranges: " + "; ".join(f"{x['range']} **{x['verdict']}**"
                                                for x in subranges))
    return "; ".join(said)


def by_subrange(rows: list, ranges: dict, ok: Callable, instance: Callable) -> list:
    """One verdict per named part of a tested range.

    ``ranges`` maps a name (e.g. ``"K = 1"``) to a predicate on a row; ``ok(row)`` says
    whether the row agrees with the statement; ``instance(row)`` saves the row's breaking
    instance (called once per failing part, on its smallest failing row by ``steps``).
    A part with no rows is reported as ``inconclusive`` (nothing was tested there).
    """
    parts = []
    for name, inside in ranges.items():
        mine = [r for r in rows if inside(r)]
        bad = [r for r in mine if not ok(r)]
        if not mine:
            parts.append(dict(range=name, runs=0, verdict=INCONCLUSIVE,
                              evidence="no run in this part of the range"))
        elif bad:
            worst = min(bad, key=lambda r: r.get("steps", 0))
            parts.append(dict(range=name, runs=len(mine), verdict=VIOLATED,
                              evidence=f"{len(bad)} of {len(mine)} runs break it",
                              instance=instance(worst)))
        else:
            parts.append(dict(range=name, runs=len(mine), verdict=HOLDS,
                              evidence=f"all {len(mine)} runs agree"))
    return parts


def save_instance(trace, out_dir: str, name: str, model: dict,
                  with_opt: bool = True) -> dict:
    """Write a breaking instance and say how to reproduce it.

    ``model`` holds the run options (``capacity``, ``top_k``, ``switch_cost``, ``quality``,
    ``policy``, optional ``policy_params``); the commands repeat them.  ``with_opt``
    adds the ``semcache opt`` command, for claims that compare with OPT.
    """
    from simulator.trace_formats import save

    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{name}.npz")
    save(trace, path)
    opts = (f"--capacity {model['capacity']} --top-k {model.get('top_k', 3)} "
            f"--switch-cost {model.get('switch_cost', 0.0):g} "
            f"--quality {model.get('quality', 'hit')}")
    pp = "".join(f" --policy-param {k}={v}" for k, v in model.get("policy_params", {}).items())
    policy = model.get("policy")
    run = f"semcache run --trace {path} --policy {policy}{pp} {opts}" if policy else None
    return {"trace": path, "steps": int(trace.steps), "model": dict(model),
            "reproduce": [c for c in (run, with_opt and f"semcache opt --trace {path} {opts}")
                          if c]}


def _plain(value):
    """JSON-ready: numpy scalars to Python, non-finite floats to strings."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return "inf" if value > 0 else ("-inf" if value < 0 else "nan")
    return value
