"""The memory study's findings and their verdicts (see ``memory_study``; its figure is
``memory_figure``).

Each finding states the paper's qualitative result and tests it on per-seed *paired*
differences (runs of one seed share tasks and noise): the mean difference and its 95%
Student-t interval.  A comparison is "reproduced" when the interval lies on the side the
paper claims (beyond the stated margin), "not reproduced" when it lies on the other side,
and "inconclusive" otherwise; a finding with several comparisons is reproduced only when
all are, and not reproduced as soon as one is not.  ``measured`` carries every number.
"""

from __future__ import annotations

import math

import numpy as np

MARGIN = 0.02  # E4: "keeps performance" = success at most 2 points lower
SMALLER = 0.8  # E4: "much smaller" = at most 80% of the memory of no deletion
CLOSE = 0.05  # E5: "close to unlimited" = success at most 5 points lower


def _values(cells, row, col) -> dict:
    return {c["seed"]: c["value"] for c in cells if c["row"] == row and c["column"] == col}


def interval(values) -> dict:
    """Mean and 95% t interval of per-seed values (a point when n = 1)."""
    from scipy import stats

    v = np.asarray(list(values), float)
    if v.size == 0:
        return {"mean": None, "ci": [None, None], "n": 0}
    mean = float(v.mean())
    if v.size < 2:
        return {"mean": mean, "ci": [mean, mean], "n": int(v.size)}
    half = float(stats.t.ppf(0.975, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size))
    return {"mean": mean, "ci": [mean - half, mean + half], "n": int(v.size)}


def _diff(cells, a, b, ratio=False) -> dict:
    """Paired a − b (or a / b) over the seeds both have; a, b are (row, column)."""
    va, vb = _values(cells, *a), _values(cells, *b)
    seeds = sorted(set(va) & set(vb))
    if not seeds:
        return {"mean": None, "ci": [None, None], "n": 0}
    return interval([va[s] / vb[s] if ratio else va[s] - vb[s] for s in seeds])


def _side(stat, above=None, below=None) -> str:
    """Verdict of one comparison: claimed to lie above ``above`` or below ``below``."""
    lo, hi = stat["ci"]
    if stat["n"] < 2 or lo is None:
        return "inconclusive"
    if above is not None:
        return "reproduced" if lo > above else "not reproduced" if hi < above else "inconclusive"
    return "reproduced" if hi < below else "not reproduced" if lo > below else "inconclusive"


def _overall(verdicts) -> str:
    if "not reproduced" in verdicts:
        return "not reproduced"
    return "reproduced" if all(v == "reproduced" for v in verdicts) else "inconclusive"


def _rows(cells, prefix) -> list:
    return list(dict.fromkeys(c["row"] for c in cells if c["row"].startswith(prefix)))


def _gains(cells, row, first, last) -> dict:
    """Per seed: success in the last window minus the first."""
    a, b = _values(cells, row, last), _values(cells, row, first)
    return {seed: a[seed] - b[seed] for seed in a if seed in b}


def _e1(cells):
    cols = list(dict.fromkeys(c["column"] for c in cells if c["row"] == "E1 strict"))
    first, last = cols[0], cols[-1]
    gains = {r[3:]: _gains(cells, r, first, last) for r in _rows(cells, "E1 ")}
    gain = {label: interval(g.values()) for label, g in gains.items()}
    vs = {}
    for other in ("add_all", "coarse c=1.4"):
        common = sorted(set(gains["strict"]) & set(gains[other]))
        vs[other] = {"gain_difference": interval([gains["strict"][s] - gains[other][s]
                                                  for s in common]),
                     "last_window_difference": _diff(cells, ("E1 strict", last),
                                                     (f"E1 {other}", last))}
    verdicts = [_side(gain["strict"], above=0.0)]
    verdicts += [_side(v["gain_difference"], above=0.0) for v in vs.values()]
    return {"id": "E1", "finding": "Strict evaluator-gated addition improves long-run "
            "success, while add-all and coarse evaluators flatten or decline.",
            "verdict": _overall(verdicts),
            "measured": {"windows": [first, last], "gain_last_minus_first": gain,
                         "strict_minus": vs}}


def _e2(cells):
    corr = {r[3:]: interval(_values(cells, r, "correlation").values())
            for r in _rows(cells, "E2 ")}
    control = "E2 control (follow=0)"
    above = {r[3:]: _diff(cells, (r, "correlation"), (control, "correlation"))
             for r in _rows(cells, "E2 ") if r != control}
    verdicts = [_side(v, above=0.0) for v in corr.values()] + [_side(above["strict"],
                                                                     above=0.0)]
    return {"id": "E2", "finding": "Agents follow experience: the more similar a retrieved "
            "record's input, the more similar the agent's output.",
            "verdict": _overall(verdicts),
            "measured": {"correlation": corr, "minus_control": above}}


def _e3(cells):
    gap, misled = {}, {}
    for label in ("fixed", "add_all", "strict"):
        gap[label] = _diff(cells, (f"E3 {label} clean", "early success"),
                           (f"E3 {label} erroneous", "early success"))
        extra = _values(cells, f"E3 {label} erroneous", "extra failures when misled")
        if extra:  # None when no execution (or every one) followed an erroneous record
            misled[label] = interval(extra.values())
    verdicts = [_side(v, above=0.0) for v in gap.values()]
    verdicts += [_side(v, above=0.0) for v in misled.values()]
    return {"id": "E3", "finding": "Errors propagate: erroneous records in memory lower "
            "success, and executions that follow an erroneous record fail more often.",
            "verdict": _overall(verdicts),
            "measured": {"early_success_clean_minus_erroneous": gap,
                         "failure_rate_increase_when_best_record_erroneous": misled}}


def _e4(cells):
    out = []
    delta = {ev: _diff(cells, (f"E4 history / {ev}", "success"), (f"E4 none / {ev}", "success"))
             for ev in ("exact", "coarse c=1.4")}
    out.append({"id": "E4-history", "finding": "History-based deletion helps when the "
                "evaluator is reliable.", "verdict": _side(delta["exact"], above=0.0),
                "measured": {"success_history_minus_none": delta}})
    keep = _diff(cells, ("E4 combined / exact", "success"), ("E4 none / exact", "success"))
    size = _diff(cells, ("E4 combined / exact", "memory size"),
                 ("E4 none / exact", "memory size"), ratio=True)
    verdicts = [_side(keep, above=-MARGIN), _side(size, below=SMALLER)]
    out.append({"id": "E4-combined", "finding": "Combined periodic + history deletion keeps "
                "performance with a much smaller memory.", "verdict": _overall(verdicts),
                "measured": {"success_combined_minus_none": keep,
                             "memory_combined_over_none": size, "margin": MARGIN,
                             "much_smaller_below": SMALLER}})
    return out


def _e5(cells):
    drop = _diff(cells, ("E5 shift strict", "before shift"),
                 ("E5 shift strict", "after shift, 1st half"))
    late = "after shift, 2nd half"
    recover = {d: _diff(cells, (f"E5 shift {d}", late), ("E5 shift strict", late))
               for d in ("history", "combined", "add_all")}
    shift = {"id": "E5-shift", "finding": "After a task-distribution shift outdated "
             "experiences mislead the agent, and deletion by history recovers faster than "
             "addition alone.",
             "verdict": _overall([_side(drop, above=0.0), _side(recover["history"], above=0.0)]),
             "measured": {"drop_at_shift_strict": drop, "late_recovery_minus_strict": recover}}
    cols = list(dict.fromkeys(c["column"] for c in cells if c["row"] == "E5 capacity combined"))
    probe = "K=400" if "K=400" in cols else cols[0]
    near = _diff(cells, ("E5 capacity combined", probe), ("E5 capacity combined", "K=unlimited"))
    fifo = _diff(cells, ("E5 capacity combined", probe), ("E5 capacity fifo", probe))
    by_k = {c: interval(_values(cells, "E5 capacity combined", c).values()) for c in cols}
    cap = {"id": "E5-capacity", "finding": "Under a capacity limit, selective retention stays "
           "close to unlimited memory.",
           "verdict": _overall([_side(near, above=-CLOSE), _side(fifo, above=0.0)]),
           "measured": {"capacity": probe, "combined_minus_unlimited": near,
                        "combined_minus_fifo": fifo, "combined_by_capacity": by_k,
                        "close_within": CLOSE}}
    return [shift, cap]


def findings(cells) -> list:
    """The ``findings`` of the ``--json`` document, in experiment order."""
    return [_e1(cells), _e2(cells), _e3(cells), *_e4(cells), *_e5(cells)]
