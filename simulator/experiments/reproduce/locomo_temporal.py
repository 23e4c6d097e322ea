"""LoCoMo over time: the SOLAR paper's Tables 5, 6 and 12 from our runs, on two metrics.

The runs are those of the K columns of ``semcache reproduce locomo`` (made with
``retrievals=True``, which changes no result), so this costs no extra run.  Each scored
question q of a conversation c has a *position* i = 0 … n_c − 1, its index among the
conversation's n_c scored questions in the order they are asked, and two values:

``hit@3``
    1 when one of its top-3 retrieved turns is evidence, else 0 (the table's metric);
``turn F1``
    the best LoCoMo token F1 of any single retrieved turn's text (the bare text, without
    the speaker) against the gold answer (:func:`workloads.data.answer_f1.best_turn_f1`:
    LoCoMo's normalisation, stemming and per-category rules).  Category 5 (adversarial)
    has no F1, so this metric covers the questions of categories 1–4 only.

Per policy, K and seed, over the questions that have the metric:

* **average**: the mean over all of them, pooled over the conversations (for hit@3 this is
  the table's cell);
* **second half**: the same mean over the questions of the later half of each
  conversation, positions i ≥ ⌈n_c / 2⌉;
* **slope**: the least-squares slope of the value against the position i, fitted with one
  intercept per conversation (Σ (i − ī_c)(y − ȳ_c) / Σ (i − ī_c)², means within each
  conversation): the change per scored question; Table 12 prints it × 10³.

Each is computed per seed; tables show the mean over the seeds.  Table 5 per K: the
average gap SOLAR − FIFO, the relative improvement 100 · gap / FIFO's average, the
second-half gap, and the slope ratio SOLAR / FIFO (null when FIFO's slope is ≤ 0, where a
ratio does not say "faster").  Table 6 at K = 50: the averages of FIFO, SOLAR-E, SOLAR-A,
SOLAR and their difference to FIFO.  Kendall's τ (τ-b) compares our ordering of the seven
bounded policies with the paper's Table 4 at each K.

The paper's printed values are labelled reference columns, read from the paper-tables file
(:mod:`~simulator.experiments.reproduce.paper_tables`), and never comparable: they are an
LLM's answer F1, and neither of our metrics is.

Findings (verdicts ``reproduced``, ``not reproduced``, ``inconclusive``) test each claim
on per-seed paired differences with their 95% t-interval
(:func:`~simulator.experiments.reproduce.memory_findings.interval`): a comparison is
reproduced when the interval lies on the claimed side of 0, not reproduced when it lies on
the other side, inconclusive otherwise; a finding of several comparisons is reproduced
only when all are, and not reproduced as soon as one is not.
"""

from __future__ import annotations

import math

import numpy as np

from simulator.experiments.reproduce import locomo_curves
from simulator.experiments.reproduce.base import PAPER_POLICIES
from simulator.experiments.reproduce.memory_findings import interval

METRICS = ("hit@3", "turn F1")
TABLE5_K = (10, 20, 50, 100)
TABLE6_K = 50
TABLE12_K = (10, 20, 50)
CLASSIC = ("lru", "lfu", "arc")
ABLATION = ("fifo", "solar_e", "solar_a", "solar")
VERDICTS = ("reproduced", "not reproduced", "inconclusive")
PAPER_T5 = {"avg_gap": "avg_f1_gap", "relative_improvement_pct": "relative_improvement_pct",
            "second_half_gap": "second_half_f1_gap",
            "slope_ratio": "slope_ratio_solar_over_fifo"}


def statistics(series: list) -> dict:
    """``average``, ``second_half`` and ``slope`` of per-conversation series.

    ``series``: one array per conversation, the values of its scored questions in the
    order asked (NaN: the question has no value for this metric; it is left out, its
    position kept).

    Examples
    --------
    >>> s = statistics([np.array([0., 1., 1., 1.]), np.array([1., np.nan, 1.])])
    >>> s["average"], s["second_half"]  # 5 of 6; later halves: 1, 1 (c1), 1 (c2)
    (0.8333333333333334, 1.0)
    >>> round(s["slope"], 6)  # (1.5 + 0) / (5 + 2): c1 alone rises 0.3, c2 is flat
    0.214286
    """
    values, later, num, den = [], [], 0.0, 0.0
    for y in series:
        y = np.asarray(y, float)
        i = np.arange(len(y), dtype=float)
        ok = ~np.isnan(y)
        values.append(y[ok])
        later.append(y[ok & (i >= math.ceil(len(y) / 2))])
        if ok.sum() > 1:
            x = i[ok] - i[ok].mean()
            num += float(x @ (y[ok] - y[ok].mean()))
            den += float(x @ x)
    values, later = np.concatenate(values or [[]]), np.concatenate(later or [[]])
    return {"average": float(values.mean()) if values.size else math.nan,
            "second_half": float(later.mean()) if later.size else math.nan,
            "slope": num / den if den > 0 else math.nan}


class Recorder:
    """Per-question values of the runs of the K columns, and the tables made of them."""

    def __init__(self, traces: dict):
        from workloads.data import locomo_data

        convs = {c.name: c for c in locomo_data.load(None, sorted({k[0] for k in traces}))}
        self._questions = {}  # (name, seed) -> (steps, qa indices, categories)
        for key, tr in traces.items():
            steps = np.flatnonzero(tr.scored)
            self._questions[key] = (steps, tr.meta["qa_index"][steps],
                                    tr.meta["qa_category"][steps])
        self._convs = convs
        self.values = {}  # (policy, column, seed) -> {metric: [series per conversation]}
        self._f1s = {}  # (conversation, qa index, turn) -> F1

    def _f1(self, name: str, qa: int, turn: int) -> float:
        # policies and seeds retrieve the same (question, turn) pairs again and again
        key = (name, qa, turn)
        if key not in self._f1s:
            from workloads.data.answer_f1 import question_f1

            q = self._convs[name].qa[qa]
            self._f1s[key] = question_f1(self._convs[name].turns[turn].text, q.answer,
                                         q.category)
        return self._f1s[key]

    def _values(self, key, result) -> tuple:
        steps, qa, cats = self._questions[key]
        f1 = np.full(len(steps), np.nan)
        for j, (t, q, c) in enumerate(zip(steps, qa, cats)):
            if c != 5:  # adversarial: no F1 (workloads.data.answer_f1)
                f1[j] = max((self._f1(key[0], int(q), int(k)) for k in result.retrieved[t]
                             if k >= 0), default=0.0)
        return result.hit[steps].astype(float), f1

    def add(self, policy: str, column: str, seed: int, runs: dict, same_as=None) -> None:
        """Record the runs ``{(name, seed): RunResult}`` of one cell (made with
        ``retrievals=True``), or, with ``same_as`` (another column), copy that column's
        values: the same runs (``unlimited`` has no limit)."""
        if same_as is not None:
            self.values[(policy, column, seed)] = self.values[(policy, same_as, seed)]
            return
        out = self.values.setdefault((policy, column, seed), {m: [] for m in METRICS})
        for key in sorted(runs):
            for metric, series in zip(METRICS, self._values(key, runs[key])):
                out[metric].append(series)

    def section(self, seeds: list, paper_doc: dict | None) -> dict:
        """The ``temporal`` section of the JSON, and its findings."""
        stats = {k: {m: statistics(v) for m, v in by_metric.items()}
                 for k, by_metric in self.values.items()}
        policies = list(dict.fromkeys(k[0] for k in stats))
        columns = list(dict.fromkeys(k[1] for k in stats))
        per = {m: _Stats(stats, m, seeds) for m in METRICS}
        out = {"definitions": _definitions(), "positions": "scored questions, in the order "
               "asked, per conversation", "metrics": {}}
        findings = []
        for m in METRICS:
            s = per[m]
            out["metrics"][m] = {
                "series": {p: {c: {n: s.summary(p, c, n) for n in
                                   ("average", "second_half", "slope")}
                               for c in columns if s.has(p, c)} for p in policies},
                "table5": _table5(s, paper_doc),
                "table6": _table6(s, paper_doc),
                "table12": _table12(s, paper_doc),
                "kendall_tau": _kendall(s, paper_doc),
            }
            findings += [dict(f, id=f"{f['id']} ({m})", metric=m) for f in _findings(s)]
        out["findings"] = findings
        out["curves"] = locomo_curves.curves(self.values, seeds, METRICS)  # Figure 2's
        return out


class _Stats:
    """One metric's per-seed statistics, read by (policy, K column, statistic)."""

    def __init__(self, stats: dict, metric: str, seeds: list):
        self._s, self._m, self.seeds = stats, metric, list(seeds)

    def has(self, p, c) -> bool:
        return all((p, c, s) in self._s for s in self.seeds)

    def seeds_of(self, p, c, n) -> list:
        return [self._s[(p, c, s)][self._m][n] for s in self.seeds if (p, c, s) in self._s]

    def mean(self, p, c, n) -> float:
        return float(np.mean(self.seeds_of(p, c, n)))

    def summary(self, p, c, n) -> dict:
        v = self.seeds_of(p, c, n)
        return {"mean": float(np.mean(v)),
                "std": float(np.std(v, ddof=1)) if len(v) > 1 else 0.0, "n": len(v)}

    def paired(self, a, b, c, n) -> list:
        """Per-seed ``a − b`` of statistic ``n`` at column ``c``."""
        return [x - y for x, y in zip(self.seeds_of(a, c, n), self.seeds_of(b, c, n))]


def _ref(paper: dict, row: str, col: str):
    cell = paper.get((row, col))
    return None if cell is None else cell.value


def _printed(paper_doc, key: str) -> dict:
    from simulator.experiments.reproduce.paper_tables import printed

    return printed(paper_doc, key)


def _table5(s: _Stats, paper_doc) -> dict:
    paper = _printed(paper_doc, "table5_locomo_solar_vs_fifo")
    rows = {r: {} for r in PAPER_T5}
    for K in TABLE5_K:
        col = f"K={K}"
        if not (s.has("solar", col) and s.has("fifo", col)):
            continue
        gap = s.mean("solar", col, "average") - s.mean("fifo", col, "average")
        fifo = s.mean("fifo", col, "average")
        ratio = _ratio(s.mean("solar", col, "slope"), s.mean("fifo", col, "slope"))
        ours = {"avg_gap": gap,
                "relative_improvement_pct": 100 * gap / fifo if fifo > 0 else None,
                "second_half_gap": (s.mean("solar", col, "second_half")
                                    - s.mean("fifo", col, "second_half")),
                "slope_ratio": ratio}
        for r, v in ours.items():
            rows[r][col] = {"ours": v, "paper": _ref(paper, PAPER_T5[r], col)}
    return {"rows": rows, "paper_comparable": False}


def _ratio(a: float, b: float):
    return a / b if b > 0 and math.isfinite(a) else None


def _table6(s: _Stats, paper_doc) -> dict:
    paper = _printed(paper_doc, "table6_locomo_ablation_k50")
    col = f"K={TABLE6_K}"
    rows = {}
    if s.has("fifo", col):
        fifo = s.mean("fifo", col, "average")
        for p in ABLATION:
            if s.has(p, col):
                avg = s.mean(p, col, "average")
                rows[p] = {"average": avg, "delta_vs_fifo": None if p == "fifo" else avg - fifo,
                           "paper_average": _ref(paper, p, "avg_f1"),
                           "paper_delta_vs_fifo": _ref(paper, p, "delta_vs_fifo")}
    return {"column": col, "rows": rows, "paper_comparable": False}


def _table12(s: _Stats, paper_doc) -> dict:
    paper = _printed(paper_doc, "table12_locomo_learning_slope_x1000")
    rows = {}
    for p in PAPER_POLICIES:
        for K in TABLE12_K:
            col = f"K={K}"
            if s.has(p, col):
                v = s.summary(p, col, "slope")
                rows.setdefault(p, {})[col] = {"mean": 1e3 * v["mean"], "std": 1e3 * v["std"],
                                               "paper": _ref(paper, p, col)}
    return {"unit": "per scored question × 10³", "rows": rows, "paper_comparable": False}


def _kendall(s: _Stats, paper_doc) -> dict:
    """τ-b between our averages and the paper's Table 4 over the bounded paper policies."""
    from scipy.stats import kendalltau

    paper = _printed(paper_doc, "table4_locomo_f1")
    out = {}
    for K in TABLE5_K:
        col = f"K={K}"
        pols = [p for p in PAPER_POLICIES if s.has(p, col) and (p, col) in paper]
        if len(pols) < 2:
            out[col] = {"tau": None, "p_value": None, "policies": pols}
            continue
        ours = [s.mean(p, col, "average") for p in pols]
        theirs = [paper[(p, col)].value for p in pols]
        res = kendalltau(ours, theirs)
        out[col] = {"tau": float(res.statistic), "p_value": float(res.pvalue),
                    "ours": _order(pols, ours), "paper": _order(pols, theirs)}
    return out


def _order(pols: list, values: list) -> list:
    return [p for _, p in sorted(zip(values, pols), key=lambda vp: -vp[0])]


def _side(values: list, above: bool = True) -> tuple:
    """Verdict of "the mean of ``values`` is above 0" (or below), and its interval."""
    stat = interval(values)
    lo, hi = stat["ci"]
    if stat["n"] < 2 or lo is None:
        return "inconclusive", stat
    if not above:
        lo, hi = -hi, -lo
    return ("reproduced" if lo > 0 else "not reproduced" if hi < 0 else "inconclusive"), stat


def _overall(verdicts: list) -> str:
    if "not reproduced" in verdicts:
        return "not reproduced"
    return "reproduced" if verdicts and all(v == "reproduced" for v in verdicts) \
        else "inconclusive"


def _findings(s: _Stats) -> list:
    cols = [f"K={K}" for K in TABLE5_K if s.has("fifo", f"K={K}")]
    out = []
    # classic heuristics below FIFO: each one's average over the K columns
    parts = {}
    for p in CLASSIC:
        diffs = [float(np.mean([s.paired(p, "fifo", c, "average")[i] for c in cols]))
                 for i in range(len(s.seeds))] if cols else []
        parts[p] = _side(diffs, above=False)
    out.append({"id": "classic-below-fifo",
                "finding": "LRU, LFU and ARC each below FIFO (average over K = "
                           + ", ".join(c[2:] for c in cols) + ")",
                "verdict": _overall([v for v, _ in parts.values()]),
                "measured": {f"{p} − fifo": st["mean"] for p, (_, st) in parts.items()}})
    # SOLAR first among the bounded policies at K <= 50
    small = [c for c in cols if int(c[2:]) <= 50]
    verdicts, measured = [], {}
    for c in small:
        means = {p: s.mean(p, c, "average") for p in PAPER_POLICIES if s.has(p, c)}
        best = max((p for p in means if p != "solar"), key=means.get)
        v, st = _side(s.paired("solar", best, c, "average"))
        verdicts.append(v)
        measured[c] = {"rank": sorted(means, key=lambda p: -means[p]).index("solar") + 1,
                       f"solar − {best}": st["mean"]}
    out.append({"id": "solar-first", "finding": "SOLAR first of the seven bounded policies "
                "at K ≤ 50", "verdict": _overall(verdicts), "measured": measured})
    # a transition K* between 50 and 100: SOLAR ahead at 50, FIFO ahead at 100
    gaps = {c: s.paired("solar", "fifo", c, "average") for c in cols}
    v50, _ = _side(gaps.get("K=50", []))
    v100, _ = _side(gaps.get("K=100", []), above=False)
    out.append({"id": "transition", "finding": "a transition K* in (50, 100]: SOLAR above "
                "FIFO at K = 50, FIFO above SOLAR at K = 100",
                "verdict": _overall([v50, v100]),
                "measured": {"solar − fifo": {c: float(np.mean(g)) for c, g in gaps.items()},
                             "k_star": _k_star(gaps)}})
    # SOLAR's advantage grows over time: second-half gap above the average gap, and
    # SOLAR's slope above FIFO's (slope ratio > 1 when FIFO's slope is positive)
    verdicts, measured = [], {}
    for c in cols:
        half = [h - a for h, a in zip(s.paired("solar", "fifo", c, "second_half"),
                                      s.paired("solar", "fifo", c, "average"))]
        vh, sh = _side(half)
        vs, ss = _side(s.paired("solar", "fifo", c, "slope"))
        verdicts += [vh, vs]
        measured[c] = {"second-half gap − gap": sh["mean"], "slope gap": ss["mean"]}
    out.append({"id": "advantage-grows", "finding": "SOLAR's advantage over FIFO grows over "
                "time (second-half gap > average gap, slope ratio > 1) at every K",
                "verdict": _overall(verdicts), "measured": measured})
    return out


def _k_star(gaps: dict) -> str:
    """Where FIFO's mean first overtakes SOLAR's as K grows (text)."""
    cols = list(gaps)
    signs = [float(np.mean(gaps[c])) > 0 for c in cols]
    if all(signs):
        return "none: SOLAR above FIFO at every K"
    if not any(signs):
        return "none: FIFO at or above SOLAR at every K"
    for a, b, sa, sb in zip(cols, cols[1:], signs, signs[1:]):
        if sa and not sb:
            return f"in ({a[2:]}, {b[2:]}]"
    return "FIFO ahead at small K, SOLAR at large K"


def _definitions() -> dict:
    return {
        "position": "a scored question's index among its conversation's scored questions, "
                    "in the order asked",
        "hit@3": "1 when a top-3 retrieved turn is evidence",
        "turn F1": "best LoCoMo token F1 (normalised, Porter-stemmed, per-category rules) "
                   "of one retrieved turn's text against the gold answer; categories 1-4",
        "average": "mean over every scored question with the metric, pooled over the "
                   "conversations; per seed, then mean over seeds",
        "second_half": "the same mean over positions i >= ceil(n_c / 2) of each conversation",
        "slope": "least-squares slope of the metric against the position, one intercept per "
                 "conversation; Table 12 prints it x 1000",
        "slope_ratio": "SOLAR's slope / FIFO's (seed means); null when FIFO's is <= 0",
        "relative_improvement_pct": "100 x (SOLAR - FIFO average) / FIFO average",
        "kendall_tau": "scipy.stats.kendalltau (tau-b) of our averages and the paper's "
                       "Table 4 over the seven bounded paper policies",
        "paper": "printed values of the SOLAR paper (an LLM's answer F1): reference only, "
                 "not comparable with either metric",
    }
