"""The report's figures made from claim checks: regret curves and the competitive ratio.

Each function takes the claims' results (``{id: result dict}``, as ``report`` keeps them)
and returns a figure document (see :mod:`~simulator.experiments.figures.draw`), or None
when the claims behind it did not run.
"""

from __future__ import annotations

import json

STYLES = ("solid", "dashed", "dotted", "dashdot")


def claim_source(ids: list, quick: bool) -> dict:
    """The ``source`` of a figure made from the claims ``ids``."""
    return {"kind": "claim", "name": ",".join(ids), "seeds": "as in the claim's conditions",
            "command": f"semcache claims --only {','.join(ids)}" + (" --quick" if quick else "")}


def regret(claims: dict, quick: bool) -> dict | None:
    """Mean regret against T, log–log, from thm5.5, thm5.6 and thm5.7: one panel for the
    semantic traces, one for the stylized model (thm5.6's pools, their smallest and largest
    K), each curve labelled with its fitted slope and 95% CI."""
    ids = [i for i in ("thm5.5", "thm5.6", "thm5.7") if i in claims]
    if not ids:
        return None
    curves, stylized = [], []
    for i in ids:
        m = claims[i]["measured"]
        # thm5.5 keeps its stationary curve under "stationary", the others under "curves"
        for c in m.get("curves", [m["stationary"]] if "stationary" in m else []):
            key = (c["policy"], json.dumps(c["params"], sort_keys=True))
            if key not in {(s["policy"], s["params"]) for s in curves}:
                curves.append({**c, "params": key[1]})
        for name in ("algorithm2", "oracle", "device"):  # thm5.6's fixed pools
            live = [c for c in m.get(name, []) if not c["zero"]]
            stylized += [{**c, "params": f"K={c['K']}"} for c in live
                         if c["K"] in (live[0]["K"], live[-1]["K"])]
    panels = [{"title": "semantic traces (Definition 2.3)", "series": _series(curves)}]
    if stylized:
        panels.append({"title": "the stylized model, each policy against the best schedule "
                                "of its class", "series": _series(stylized)})
    return {"title": "Eviction regret against T (log-log; the legend gives each fitted "
                     "slope and its 95% CI: 1 = linear, 0.5 = √T)",
            "paper_figure": None, "source": claim_source(ids, quick), "xlabel": "horizon T",
            "ylabel": "mean regret", "xscale": "log", "yscale": "log", "hline": None,
            "panels": panels}


def _series(curves: list) -> list:
    """One series per curve; a policy keeps its colour, its next curves are dashed, dotted,
    dash-dotted."""
    seen = {}
    out = []
    for c in curves:
        seen[c["policy"]] = seen.get(c["policy"], -1) + 1
        out.append({"label": f"{c['policy']}{'' if c['params'] == 'null' else ' ' + c['params']}"
                             f": slope {c['slope']:.2f} [{c['ci'][0]:.2f}, {c['ci'][1]:.2f}]",
                    "x": c["horizons"], "y": c["mean_regret"], "key": c["policy"],
                    "style": STYLES[seen[c["policy"]] % len(STYLES)],
                    "slope": c["slope"], "ci": c["ci"]})
    return out


def ratio(claims: dict, quick: bool) -> dict | None:
    """SOLAR's and FIFO's cost / OPT against T on drift (claim cr-drift); the ratio axis
    shows 1, OPT's own level."""
    if "cr-drift" not in claims:
        return None
    rows = claims["cr-drift"]["measured"]["rows"]
    x = [r["steps"] for r in rows]
    kinds = sorted({r["kind"] for r in rows})
    return {"title": "Competitive ratio (cost / OPT) against T on the drift workload "
                     f"(phases of growing length; OPT {', '.join(kinds)}; dotted: 1)",
            "paper_figure": None, "source": claim_source(["cr-drift"], quick),
            "xlabel": "steps T (6 phases)", "ylabel": "cost / OPT", "xscale": "log",
            "yscale": "log", "hline": 1.0,
            "panels": [{"title": "", "series": [
                {"label": p, "key": p, "x": x, "y": [r[f"{p}_ratio"] for r in rows],
                 "style": "solid"} for p in ("solar", "fifo")]}]}
