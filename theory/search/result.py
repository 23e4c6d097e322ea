"""What a search returns: the worst instance found, its grown family and the search's
counts (:class:`SearchResult`), and the files that replay them (:func:`save`)."""

from __future__ import annotations

import dataclasses
import re
import shlex


@dataclasses.dataclass(frozen=True)
class SearchResult:
    """The outcome of :func:`theory.search.worst_case`.

    Attributes
    ----------
    best : dict
        The shrunk worst instance: ``score``, ``steps``, ``cost`` (the policy's), ``opt``
        (the exact optimum's), ``sequence`` (pages, or ``[query topic, item topic,
        weight]`` steps), ``found`` (the score and steps before shrinking), ``trace`` and
        ``reproduce`` (the saved file and the commands that replay it; None and [] when
        nothing was saved).
    grown : dict or None
        ``verdict`` ("bounded" or "grows"), ``limit`` (the fitted limit, None when it
        grows), ``scores``, ``block`` (start, end) of the shrunk instance, ``repeats``,
        ``steps`` and, when saved, ``trace`` and ``reproduce`` of the largest grown
        instance (:mod:`theory.search.grow`); None when not asked for.
    evaluations : int
        Candidates the engine scored (the budget, unless the space ran out), plus the
        exhaustive pass; ``evaluations_total`` adds shrinking and growing.
    evaluations_per_s : float
        The engine's candidates per second of scoring (a policy run and an exact OPT each).
    instance : simulator.instance.Instance
        The shrunk worst instance.
    family : theory.families.Family or None
        The grown instances, one per r, each labelled ``{"scale": r, "repeats": r,
        "block": (s, e)}``: a scaled family a claim can quantify over (a search, never
        exhaustive).
    """

    policy: str
    mode: str
    options: dict
    score: str
    engine: str
    seed: int
    best: dict
    grown: dict | None
    evaluations: int
    evaluations_total: int
    evaluations_per_s: float
    seconds: float
    exhaustive: dict | None = None
    instance: object = dataclasses.field(default=None, repr=False, compare=False)
    family: object = dataclasses.field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict:
        """JSON-ready: every field but the instance and family objects."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
               if f.name not in ("instance", "family")}
        if out["grown"] is not None:
            out["grown"] = {k: v for k, v in out["grown"].items() if k != "candidates"}
            out["grown"]["block"] = list(out["grown"]["block"])
        return out


def file_name(*parts) -> str:
    """A file name save_instance accepts, from the policy's name and the rest."""
    text = "-".join(str(p) for p in parts)
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text).lstrip("._-")[:180] or "search"


def save(instance, out_dir: str, name: str, model: dict, paging: bool) -> dict:
    """Write ``instance``'s trace to ``out_dir/name.npz``: ``{"trace", "reproduce"}``,
    the ``semcache run`` line of the policy, for OPT ``semcache opt`` (semantic) or the
    ``belady`` run (paging), and ``semcache ratio``, which prints both and their ratio."""
    from theory.claims.base import save_instance

    saved = save_instance(instance.trace, out_dir, name, model, with_opt=not paging)
    lines = list(saved["reproduce"])
    if paging:
        lines.append(f"semcache run --trace {shlex.quote(saved['trace'])} --policy belady "
                     f"--capacity {model['capacity']}")
    lines.append("semcache ratio" + lines[0].removeprefix("semcache run"))
    return {"trace": saved["trace"], "reproduce": lines}
