"""``semcache reproduce all --report DIR``: the index, the figures, bad targets, no partial
report, and the figures docs/reproduction.md shows are what the command makes.

Those figures are compared by their data (the JSON beside each PNG: figure, command,
seeds, panels and series labels), not by PNG bytes, which differ across matplotlib versions
and fonts; the committed report is the full one, so its numbers are not compared with the
quick run's, only what each figure shows and which command and seeds made it.
"""

import json
import os
import pathlib
import re

import pytest

from simulator.cli import main
from simulator.experiments import report
from simulator.experiments.reproduce import REGISTRY
from theory.claims import REGISTRY as CLAIMS
from helpers import quick_runs

ROOT = pathlib.Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "docs" / "report"


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    """A quick report as a user without data makes it, made once per session
    (:mod:`quick_runs`)."""
    made = quick_runs.quick_report(tmp_path_factory)
    return made["folder"], made["manifest"], made["index"]


def test_index_lists_every_figure_and_each_png_is_written(quick_report):
    folder, manifest, index = quick_report
    assert index.startswith(report.MARKER)
    made = [f for f in manifest["figures"] if "png" in f]
    assert {"fig3-cycling", "fig4-working-set", "fig5-frozen-pool", "phase-transition-gap",
            "u-curve", "regret-curves", "competitive-ratio"} <= {f["figure"] for f in made}
    for f in made:
        assert f"]({f['png']})" in index and f"`{f['source']['command']}`" in index
        assert os.path.getsize(folder / f["png"]) > 1000
        with open(folder / f["json"], encoding="utf-8") as fh:
            data = json.load(fh)
        assert data["figure"] == f["figure"] and data["source"] == f["source"]
        assert all(s["label"] and len(s["x"]) == len(s["y"])
                   for p in data["panels"] for s in p["series"])
    for f in manifest["figures"]:
        if "missing" in f:  # LoCoMo not here: said so in the index
            assert f"| {f['figure']} | | not made: " in index


def test_index_names_tables_with_verdict_counts_and_claims_with_verdicts(quick_report):
    _, manifest, index = quick_report
    ran = {t["table"] for t in manifest["tables"]}
    assert ran == {n for n, e in REGISTRY.items() if e.available()}
    for t in manifest["tables"]:
        v = t["verdicts"]
        assert (f"| [{t['table']}](#{t['table']}) | `{t['command']}` | 0,1,2 | {v['match']} | "
                f"{v['differs']} | {v['not comparable']} |") in index
        assert f"### {t['table']}" in index
        for f in t["findings"]:
            assert f"**{f['verdict']}** `{f['id']}`" in index
    if "locomo" in ran:  # its paper tables over time, beside the paper's values
        for key in ("Paper Table 5", "Paper Table 6", "Paper Table 12", "Kendall's τ"):
            assert key in index
    assert [c["id"] for c in manifest["claims"]] == list(CLAIMS)
    for c in manifest["claims"]:
        assert f"| `{c['id']}` |" in index and f"**{c['verdict']}**" in index
        assert f"`semcache claims --only {c['id']} --quick`" in index


def _strings(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, str):
        yield value


@pytest.mark.parametrize("which", ["quick", "committed"])
def test_a_report_names_no_file_outside_itself(quick_report, which):
    """Breaking instances are saved while the claims run, in the staging folder that is gone
    once the report is in place: the report says how to save them, never where they were."""
    folder, manifest = (quick_report[0], quick_report[1]) if which == "quick" else \
        (COMMITTED, json.loads((COMMITTED / "report.json").read_text(encoding="utf-8")))
    stray = [text for text in _strings(manifest)
             if ".semcache-report-" in text or str(folder) in text or text.startswith("/")]
    assert not stray, stray[:3]
    instances = [i for c in manifest["claims"] for i in _instances(c)]
    assert all(set(i) == {"steps", "model", "saved_by"} for i in instances), instances[:3]


def _instances(value):
    if isinstance(value, dict):
        for key, v in value.items():
            if key == "instance" and isinstance(v, dict):
                yield v
            else:
                yield from _instances(v)
    elif isinstance(value, list):
        for v in value:
            yield from _instances(v)


def test_versions_block(quick_report):
    _, manifest, index = quick_report
    v = manifest["versions"]
    assert set(v) >= {"semcache", "code_id", "python", "numpy", "numba", "paper_tables"}
    assert "## Versions" in index
    for key in ("semcache", "code id", "python", "numpy", "numba", "paper tables"):
        assert f"| {key} |" in index
    assert f"`{v['code_id']}`" in index


def test_a_table_shows_the_paper_beside_ours(quick_report):
    _, _, index = quick_report
    assert re.search(r"\d\.\d{3} ± \d\.\d{3}<br>paper \d\.\d{3} ✓", index)
    assert re.search(r"<br>paper \d\.\d{3} ≠ [+-]\d\.\d{3}", index)


def _bad(args, capsys):
    code = main(args)
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "--report" in err
    return err


def test_bad_targets_fail_at_once_and_leave_nothing(tmp_path, capsys):
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    afile = tmp_path / "afile"
    afile.write_text("x")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert "neither empty nor a previous report" in _bad(
        ["reproduce", "all", "--quick", "--report", str(full)], capsys)
    _bad(["reproduce", "all", "--quick", "--report", str(afile)], capsys)
    _bad(["reproduce", "all", "--quick", "--report", str(afile / "sub")], capsys)
    _bad(["reproduce", "all", "--quick", "--report", str(tmp_path / "no" / "such")], capsys)
    assert "needs NAME 'all'" in _bad(
        ["reproduce", "table9", "--quick", "--report", str(tmp_path / "new")], capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert (full / "notes.txt").read_text() == "mine" and afile.read_text() == "x"


def test_a_previous_report_or_empty_folder_is_a_valid_target(tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    (old / "index.md").write_text(report.MARKER + "\nold\n")
    report.check_target(str(old))
    (tmp_path / "empty").mkdir()
    report.check_target(str(tmp_path / "empty"))
    report.check_target(str(tmp_path / "new"))


def test_a_failure_leaves_no_partial_report_and_the_previous_one_intact(tmp_path,
                                                                        monkeypatch):
    import theory.claims
    from simulator.experiments import reproduce
    from simulator.experiments.report import index as report_index

    monkeypatch.setattr(reproduce, "REGISTRY", {})
    monkeypatch.setattr(theory.claims, "check_all", lambda **kw: [])

    def boom(*args):
        raise RuntimeError("disk full")

    monkeypatch.setattr(report_index, "markdown", boom)
    old = tmp_path / "old"
    old.mkdir()
    (old / "index.md").write_text(report.MARKER + "\nold\n")
    with pytest.raises(RuntimeError):
        report.build(str(old), quick=True)
    with pytest.raises(RuntimeError):
        report.build(str(tmp_path / "new"), quick=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old"]
    assert sorted(p.name for p in old.iterdir()) == ["index.md"]
    assert (old / "index.md").read_text() == report.MARKER + "\nold\n"


def _page_figures() -> list:
    """The report's figures that docs/reproduction.md shows."""
    text = (ROOT / "docs" / "reproduction.md").read_text(encoding="utf-8")
    return re.findall(r"\]\(report/figures/([\w-]+)\.png\)", text)


def _labels(figure):
    return [[s["label"].split(": slope")[0] for s in p["series"]] for p in figure["panels"]]


def test_the_pages_figures_are_what_the_command_makes(quick_report):
    """The figures of docs/reproduction.md are the committed report's, and each shows what
    the command draws now: the same command (up to --quick), seeds, titles, axes and
    series.  Without the authors' traces (this test declares no data) a fresh report draws
    no ``(authors)`` series, so the committed figure's are left out here; the next test
    draws them with the traces."""
    names = _page_figures()
    assert len(names) == 3
    _, manifest, _ = quick_report
    made = {f["figure"]: f for f in manifest["figures"] if "png" in f}
    committed_index = (COMMITTED / "index.md").read_text(encoding="utf-8")
    assert committed_index.startswith(report.MARKER)
    for name in names:
        assert (COMMITTED / "figures" / f"{name}.png").stat().st_size > 1000
        with open(COMMITTED / "figures" / f"{name}.json", encoding="utf-8") as fh:
            ours = json.load(fh)
        with open(pathlib.Path(quick_report[0]) / made[name]["json"], encoding="utf-8") as fh:
            fresh = json.load(fh)
        mode = " --quick" if ours["quick"] else ""
        assert ours["source"]["command"] + " --quick" * (not ours["quick"]) == \
            fresh["source"]["command"]
        assert ours["source"]["seeds"] == fresh["source"]["seeds"]
        assert f"`{ours['source']['command']}`" in committed_index
        assert f"](figures/{name}.png)" in committed_index
        for key in ("title", "paper_figure", "xlabel", "ylabel"):
            assert ours[key] == fresh[key], (name, key)
        assert [p["title"] for p in ours["panels"]] == [p["title"] for p in fresh["panels"]]
        committed = [[s for s in p if not s.endswith("(authors)")] for p in _labels(ours)]
        assert committed == _labels(fresh), name
        assert mode in ours["source"]["command"]


@pytest.mark.data("solar-synthetic")
def test_the_pages_figures_drawn_from_the_authors_traces_show_their_series(tmp_path):
    """With the authors' traces, a fresh quick run of the table behind each figure of the page
    that shows ``(authors)`` series draws the committed figure's series, all of them."""
    from simulator.experiments.report import figures as report_figures
    from simulator.experiments.reproduce import reproduce

    makers = {name: make for name, make, _ in report_figures.specs(quick=True)}
    checked = []
    for name in _page_figures():
        with open(COMMITTED / "figures" / f"{name}.json", encoding="utf-8") as fh:
            ours = json.load(fh)
        if not any(s.endswith("(authors)") for panel in _labels(ours) for s in panel):
            continue
        table = ours["source"]["name"]
        assert ours["source"]["kind"] == "table", name
        doc, _ = reproduce(table, quick=True, out_dir=str(tmp_path / table))
        assert _labels(ours) == _labels(makers[name]({table: doc}, {})), name
        checked.append(name)
    assert checked == ["phase-transition-gap"]


def test_a_new_report_replaces_a_previous_one(tmp_path, monkeypatch):
    import theory.claims
    from simulator.experiments import reproduce

    monkeypatch.setattr(reproduce, "REGISTRY", {})  # nothing to run: only the writing
    monkeypatch.setattr(theory.claims, "check_all", lambda **kw: [])
    old = tmp_path / "old"
    old.mkdir()
    (old / "index.md").write_text(report.MARKER + "\nold\n")
    (old / "stale.txt").write_text("from the previous report")
    report.build(str(old), quick=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old"]
    assert not (old / "stale.txt").exists() and report.is_report(str(old))
    assert "## Versions" in (old / "index.md").read_text(encoding="utf-8")
