"""What a claim check returns, and the pieces every claim's evidence is made of.

Each claim of the SOLAR paper is a :class:`theory.Claim` (the claim kit's one class)
stating the claim as the paper gives it, with an ``evidence`` hook that runs the experiment;
its ``run(quick, out_dir)`` returns a :class:`ClaimResult` whose verdict is computed from
the run, never written by hand.  Every
verdict (the headline, each reading, each sub-range, a corrected statement) names its
basis and says no more than the basis allows (:mod:`theory.claims.verdicts`,
docs/claims.md): ``holds`` only from an exhaustive range, a closed form or the proof's
construction; ``violated`` with a saved instance that ``semcache run`` and ``semcache
opt`` reproduce; ``not refuted`` from a search or a growth fit; ``inconclusive`` with what
would decide.

Readings and sub-ranges.  The headline verdict is for the statement *as the paper gives
it*, judged by the paper's own definitions (the model of its §2.1, Definition 2.3's
comparator class, Algorithm 2 as written).  ``readings`` lists one verdict per other
reading, each naming what it is; a proof's device that those definitions do not allow is
labelled ``outside the paper's definitions``.  A statement covers a range of parameters;
``subranges`` lists one verdict per part of the tested range (edge values such as K = 1,
λ = 0, k ≥ K, small T on their own), each failing part with its own breaking instance
(:func:`by_subrange`).
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from typing import Callable

from simulator.errors import InputError
from theory.claims import instance_files
from theory.claims.verdicts import (
    HOLDS,
    INCONCLUSIVE,
    NOT_REFUTED,
    VERDICTS,
    VIOLATED,
    check_record,
    label,
    verdict,
)

_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")

__all__ = ["HOLDS", "INCONCLUSIVE", "NOT_REFUTED", "VERDICTS", "VIOLATED", "ClaimResult",
           "by_subrange", "only_in", "parts_line", "plugin_of", "save_instance",
           "save_policy_instance"]


@dataclasses.dataclass
class ClaimResult:
    """The outcome of one claim check (one entry of ``semcache claims --json``).

    ``basis`` is the headline's basis (:func:`theory.claims.verdicts.basis`); every reading,
    sub-range and corrected statement carries its own.  ``form`` names a statement form
    that finite runs cannot confirm (:data:`theory.claims.verdicts.UNCONFIRMABLE`), or is
    None.  ``verdict_note`` says what the headline verdict rests on when that is narrower
    than the statement's range (``"K = 1 only; K ≥ 2: not refuted (growth)"``, ``"T ≤ 6"``);
    tables print it in the verdict's cell.  Construction checks every verdict against the
    rules.
    """

    id: str
    statement: str
    conditions: str
    verdict: str
    basis: dict
    evidence: str
    measured: dict
    form: str | None = None
    instance: dict | None = None
    would_decide: str | None = None
    corrected: dict | None = None
    readings: list | None = None
    subranges: list | None = None
    verdict_note: str | None = None
    seconds: float = 0.0

    def __post_init__(self):
        check_record(dict(verdict=self.verdict, basis=self.basis,
                          would_decide=self.would_decide), self.form)
        if self.verdict == VIOLATED and self.instance is None:
            raise ValueError(f"{self.id}: a violated claim must name its instance")
        for part in [*(self.readings or ()), *(self.subranges or ())]:
            check_record(part, self.form)
        if self.corrected:
            check_record(self.corrected, self.corrected.get("form"))

    def to_dict(self) -> dict:
        return _plain(dataclasses.asdict(self))


def parts_line(readings: list | None, subranges: list | None) -> str:
    """One line of markdown: each reading's verdict and basis, then each sub-range's."""
    said = [f"{x['reading']}{_outside(x)} **{x['verdict']}** ({x['basis']['kind']}: "
            f"{x['evidence']})" for x in readings or ()]
    if subranges:
        said.append("sub-ranges: " + "; ".join(f"{x['range']} **{label(x)}**"
                                                for x in subranges))
    return "; ".join(said)


def _outside(reading: dict) -> str:
    return "" if reading.get("within_definitions", True) else \
        " (outside the paper's definitions)"


def by_subrange(rows: list, ranges: dict, ok: Callable, instance: Callable,
                based_on: dict, form: str | None = None) -> list:
    """One verdict per named part of a tested range.

    ``ranges`` maps a name (e.g. ``"K = 1"``) to a predicate on a row; ``ok(row)`` says
    whether the row agrees with the statement; ``instance(row)`` saves the row's breaking
    instance (called once per failing part, on its smallest failing row by ``steps``).
    ``based_on`` is the rows' basis: a part whose rows all agree *holds* on a deciding
    basis and is *not refuted* on a search.  A part with no rows is ``inconclusive``.
    """
    from theory.claims.verdicts import DECIDING, basis

    parts = []
    for name, inside in ranges.items():
        mine = [r for r in rows if inside(r)]
        bad = [r for r in mine if not ok(r)]
        here = basis(based_on["kind"], f"{based_on['scope']}; part {name}")
        if not mine:
            parts.append(verdict(INCONCLUSIVE, here, "no run in this part of the range",
                                 form=form, would_decide="runs in this part of the range",
                                 range=name, runs=0))
        elif bad:
            worst = min(bad, key=lambda r: r.get("steps", 0))
            parts.append(verdict(VIOLATED, here, f"{len(bad)} of {len(mine)} runs break it",
                                 form=form, range=name, runs=len(mine),
                                 instance=instance(worst)))
        else:
            confirmed = based_on["kind"] in DECIDING and form is None
            parts.append(verdict(HOLDS if confirmed else NOT_REFUTED, here,
                                 f"all {len(mine)} runs agree", form=form, range=name,
                                 runs=len(mine)))
    return parts


def only_in(headline: dict, parts: list, narrow: str, rest: str) -> str | None:
    """The headline's ``verdict_note`` when it rests on the sub-range ``narrow`` alone.

    When ``headline`` is violated and ``narrow`` is the only violated part of ``parts``
    (sub-range records, :func:`by_subrange`), the note names it and the verdict of the part
    ``rest`` beside it; otherwise None.

    >>> from theory.claims.verdicts import CLOSED_FORM, GROWTH, basis, verdict
    >>> one = verdict(VIOLATED, basis(CLOSED_FORM, "K = 1"), "R_T = 0", range="K = 1",
    ...               instance={})
    >>> more = verdict(NOT_REFUTED, basis(GROWTH, "K ≥ 2"), "grows", range="K ≥ 2")
    >>> only_in(one, [one, more], "K = 1", "K ≥ 2")
    'K = 1 only; K ≥ 2: not refuted (growth)'
    """
    broken = [p["range"] for p in parts if p["verdict"] == VIOLATED]
    if headline["verdict"] != VIOLATED or broken != [narrow]:
        return None
    other = next(p for p in parts if p["range"] == rest)
    return f"{narrow} only; {rest}: {other['verdict']} ({other['basis']['kind']})"


def save_instance(trace, out_dir: str, name: str, model: dict,
                  with_opt: bool = True) -> dict:
    """Write a breaking instance and say how to reproduce it.

    ``name`` names the file, ``out_dir/name.npz``: letters, digits, ``_``, ``.`` and
    ``-``, starting with a letter or digit (a claim id and what the kit appends to it),
    so never a path of its own.  ``model``
    holds the run options (``capacity``, ``top_k``, ``switch_cost``, ``quality``,
    optional ``budget``, ``policy``, optional ``policy_params``, optional ``plugin``); the
    commands repeat them, with the ``--plugin`` that defines the policy (``plugin``, else
    the one that registered it).  ``with_opt`` adds the ``semcache opt`` command, for
    claims that compare with OPT.

    The file is written whole or not at all (:mod:`theory.claims.instance_files`): on an
    ``OSError`` (a full or read-only disk) nothing is left and one InputError names
    ``out_dir`` and the system's reason.
    """
    import shlex

    from simulator import policies

    if not (isinstance(name, str) and len(name) <= 200 and _FILE_NAME.fullmatch(name)):
        raise InputError(f"name {name!r} must be letters, digits, '_', '.' or '-', starting "
                         "with a letter or digit (it names a file in out_dir)", "name")
    path = os.path.join(out_dir, f"{name}.npz")
    try:
        instance_files.write(trace, out_dir, f"{name}.npz")
    except OSError as exc:
        raise InputError(f"out_dir '{out_dir}': cannot save the instance {name}.npz: "
                         f"{exc.strerror or exc}", "out_dir") from None
    opts = (f"--capacity {model.get('capacity') or 'none'} --top-k {model.get('top_k', 3)} "
            f"--switch-cost {model.get('switch_cost', 0.0):g} "
            f"--quality {model.get('quality', 'hit')}"
            + (f" --budget {model['budget']}" if model.get("budget") else ""))
    pp = "".join(f" --policy-param {k}={v}" for k, v in model.get("policy_params", {}).items())
    policy = model.get("policy")
    plugin = (model.get("plugin") or policies.origin(policy)) if policy else None
    plug = f" --plugin {shlex.quote(plugin)}" if plugin else ""
    quoted = shlex.quote(path)
    run = f"semcache run{plug} --trace {quoted} --policy {policy}{pp} {opts}" if policy \
        else None
    return {"trace": path, "steps": int(trace.steps), "model": dict(model),
            "reproduce": [c for c in (run, with_opt and f"semcache opt --trace {quoted} {opts}")
                          if c]}


def save_policy_instance(instance, policy: str, out_dir: str, name: str,
                         params: dict | None = None, with_opt: bool = True) -> dict:
    """:func:`save_instance` of a :class:`simulator.instance.Instance` run by ``policy``
    (a registered name) with ``params``: the saved file and the lines that replay it."""
    model = dict(instance.options, policy=policy)
    if params:
        model["policy_params"] = dict(params)
    return save_instance(instance.trace, out_dir, name, model, with_opt=with_opt)


def plugin_of(value) -> str | None:
    """The plugin that defines ``value`` for another process (a replay command):
    :func:`simulator.registration.defining_plugin`."""
    from simulator.registration import defining_plugin

    return defining_plugin(value)


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
