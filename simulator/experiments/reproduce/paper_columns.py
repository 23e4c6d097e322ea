"""The paper's column beside ours: which printed cell a measured cell meets, and the verdict.

An :class:`~simulator.experiments.reproduce.base.Experiment` names the printed table(s) it
compares with (``paper_table``, keys of :mod:`~simulator.experiments.reproduce.paper_tables`'
file) and, where our labels differ from the file's, maps them (``paper_rows``,
``paper_columns``: our label -> the file's).  Without a mapping a label is its own; an
authors'-code variant ``X_ref`` meets the paper's ``X`` (it is their implementation of
it).  A later table in ``paper_table`` only fills the cells the earlier ones leave empty
(Table 8 prints no ARC row; the data printed with Figure 3 does); where both print a cell
with different values the first is used and a note gives the verdict under the other.

Every printed cell gets :func:`verdict` computed from the run: ``match``, ``differs``
(with ``difference`` = ours − paper), ``not comparable`` where the paper's metric is
another one (an LLM's answer F1, Tables 4-7 and 12), or null where nothing is printed.
"""

from __future__ import annotations

import math

from simulator.experiments.reproduce.paper_tables import Printed, printed

LEVEL = 0.95
# the paper prints two or three decimals, so a deterministic value (no spread over seeds)
# can only be held to the printed rounding
TOLERANCE = 0.005
# float noise: 0.405 - 0.40 is 0.0050000000000000044
_EPS = 1e-9


def verdict(mean: float, std: float, n: int, paper: Printed | float | None,
            comparable: bool = True) -> str | None:
    """Whether a printed value agrees with ``mean ± std`` over ``n`` seeds.

    Parameters
    ----------
    mean, std, n : float, float, int
        Our mean over the seeds, its sample std (ddof 1; 0 for one seed) and the seed count.
    paper : Printed, float or None
        The printed value (None: nothing printed).
    comparable : bool
        False where the paper's metric is another one than ours.

    Returns
    -------
    str or None
        ``"match"`` when the printed value lies in the seeds' 95% Student-t interval
        ``mean ± t(n-1)·std/√n`` widened by the printed value's own rounding (half a unit
        of its last printed digit: the paper prints two or three decimals, so 0.97 stands
        for anything in [0.965, 0.975]), or, for a deterministic run (n = 1 or std = 0),
        within ±0.005 of ``mean``; ``"differs"`` otherwise; ``"not comparable"``; None
        when nothing is printed.

    Examples
    --------
    >>> verdict(0.50, 0.02, 3, 0.54)   # t(2) = 4.303: 0.50 ± 0.0497
    'match'
    >>> verdict(0.50, 0.02, 3, 0.56)
    'differs'
    >>> verdict(0.405, 0.0, 3, 0.40), verdict(0.9, 0.0, 1, 0.89)
    ('match', 'differs')
    >>> verdict(0.967, 0.001, 3, 0.97)  # 0.967 ± 0.0025, and 0.97 is 0.965 .. 0.975
    'match'
    >>> verdict(0.967, 0.001, 3, 0.972)  # three decimals: 0.9715 .. 0.9725
    'differs'
    >>> verdict(0.30, 0.01, 3, 0.286, comparable=False)
    'not comparable'
    >>> verdict(0.30, 0.01, 3, None) is None
    True
    """
    if paper is None:
        return None
    if not comparable:
        return "not comparable"
    value = paper.value if isinstance(paper, Printed) else float(paper)
    if n <= 1 or std == 0:
        half = TOLERANCE
    else:
        from scipy import stats

        half = float(stats.t.ppf(0.5 + LEVEL / 2, n - 1)) * std / math.sqrt(n)
        half += rounding(value)
    return "match" if abs(value - mean) <= half + _EPS else "differs"


def rounding(value: float) -> float:
    """Half a unit of ``value``'s last printed digit, counting at least two decimals (the
    file holds 0.90 as 0.9).

    >>> rounding(0.97), rounding(0.186), rounding(0.9)
    (0.005, 0.0005, 0.005)
    """
    return 0.5 * 10.0 ** -decimals(value)


def decimals(value: float) -> int:
    """The decimals ``value`` is printed with: as many as it has, at least two (the paper
    prints two or three; the file holds 0.90 as 0.9).

    >>> decimals(0.9), decimals(0.186)
    (2, 3)
    """
    text = repr(float(value))
    given = len(text.split(".")[1]) if "." in text and "e" not in text else 2
    return max(2, given)


def keys(exp) -> tuple:
    """The printed tables ``exp`` compares with, as a tuple of file keys."""
    t = exp.paper_table
    return (t,) if isinstance(t, str) else tuple(t)


def file_label(exp, row: str, column: str) -> tuple:
    """The file's (row, column) for one of our cells."""
    default = row[:-len("_ref")] if row.endswith("_ref") else row
    return exp.paper_rows.get(row, default), exp.paper_columns.get(column, column)


def merged(exp, tables: dict | None) -> tuple:
    """``({(file row, file column): (key, Printed)}, conflicts)`` over ``exp``'s tables.

    ``conflicts``: ``[(cell, (key, Printed) used, (key, Printed) other)]`` where a later
    table prints another value for a cell an earlier one prints.
    """
    out, conflicts = {}, []
    for key in keys(exp):
        for where, p in printed(tables, key).items():
            if where not in out:
                out[where] = (key, p)
            elif out[where][1].value != p.value:
                conflicts.append((where, out[where], (key, p)))
    return out, conflicts


def fields(exp, mean: float, std: float, n: int, found) -> dict:
    """The paper keys of one JSON cell; ``found`` is ``(key, Printed)`` or None."""
    p = None if found is None else found[1]
    v = verdict(mean, std, n, p, exp.paper_comparable)
    # another metric's value is shown, labelled by its verdict, but never subtracted
    compared = p if exp.paper_comparable else None
    return {"paper": None if p is None else p.value,
            "paper_std": None if p is None else p.std,
            "differs": None if v in (None, "not comparable") else v == "differs",
            "verdict": v,
            "difference": None if compared is None else mean - compared.value}


def notes(exp, rows: list, columns: list, tables: dict, found: dict,
          conflicts: list) -> list:
    """What the paper column adds to the run's notes: a missing table, a tally per source,
    a conflict's other printing, where ``X`` and ``X_ref`` disagree about the paper, and
    the printed cells this run did not measure."""
    if not keys(exp):
        return []
    out = [f"paper column: the paper-tables file has no table '{k}'"
           for k in keys(exp) if k not in tables]
    for source in dict.fromkeys(r["source"] for r in rows):
        got = [r[c]["verdict"] for r in rows if r["source"] == source
               for c in columns if c in r and r[c]["verdict"] is not None]
        if got:
            tally = {v: got.count(v) for v in dict.fromkeys(got)}
            out.append(f"paper ({source}): " + ", ".join(f"{k} {v}" for k, v in tally.items())
                       + f" of {len(got)} printed cells")
    for where, (key, used), (other_key, other) in conflicts:
        for r in rows:
            for c in columns:
                if c in r and file_label(exp, r["policy"], c) == where:
                    x = r[c]
                    alt = verdict(x["mean"], x["std"], x["n"], other, exp.paper_comparable)
                    out.append(f"{r['policy']} at {c} ({r['source']}): {key} prints "
                               f"{used.value:g}, {other_key} {other.value:g}; the verdict "
                               f"uses {used.value:g} ({x['verdict']}); under "
                               f"{other.value:g} it is {alt}")
    out += _pairs(rows, columns)
    attached = {file_label(exp, r["policy"], c) for r in rows for c in columns if c in r}
    missing = [w for w in found if w not in attached]
    if missing:
        why = {w: exp.paper_unmeasured.get(w, "not in this run's grid") for w in missing}
        for reason in dict.fromkeys(why.values()):
            cells = [f"{w[0]} {w[1]}" for w in missing if why[w] == reason]
            out.append(f"printed cells not measured ({reason}): " + ", ".join(cells))
    return out


def _pairs(rows: list, columns: list) -> list:
    """Where our ``X`` and the authors' ``X_ref`` get different verdicts (one matches)."""
    by = {(r["policy"], r["source"]): r for r in rows}
    out = []
    for (name, source), ref in by.items():
        ours = by.get((name[:-len("_ref")], source)) if name.endswith("_ref") else None
        if ours is None:
            continue
        only = {ours["policy"]: [], name: []}
        for c in columns:
            a, b = ours.get(c, {}).get("verdict"), ref.get(c, {}).get("verdict")
            if {a, b} == {"match", "differs"}:
                only[ours["policy"] if a == "match" else name].append(c)
        said = [f"only {p} matches at {', '.join(cs)}" for p, cs in only.items() if cs]
        if said:
            out.append(f"{ours['policy']} vs {name} ({source}): " + "; ".join(said))
    return out
