"""The reproduced tables on the documentation pages are the committed report's, rendered by
code (simulator/experiments/doc_tables.py), and ``semcache reproduce --update`` rewrites
them: docs/reproduction.md (the paper side by side) and docs/locomo.md."""

import json
import pathlib

import pytest

from simulator.cli import main
from simulator.experiments import doc_tables

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = {"reproduction.md": ("table8", "table9", "table10", "table11"),
         "locomo.md": ("locomo",), "agent-memories.md": ("agent-memories",)}
TABLES = ROOT / "docs" / "report" / "tables"


def _section(text: str, part: str) -> str:
    begin, end = doc_tables.markers(part)
    return text[text.index(begin) + len(begin) + 1:text.index(end) - 1]


@pytest.mark.parametrize("page", PAGES)
def test_each_marked_table_is_the_committed_reports(page):
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    wanted = [p for name in PAGES[page] for p in doc_tables.PARTS[name]]
    assert doc_tables.marked(text) == wanted  # every part, once, in the page's order
    for name in PAGES[page]:
        with open(TABLES / f"{name}.json", encoding="utf-8") as fh:
            made = doc_tables.parts(json.load(fh))
        assert sorted(made) == sorted(doc_tables.PARTS[name])
        for part, body in made.items():
            assert _section(text, part) == body, f"{page}: part {part} differs from " \
                f"docs/report/tables/{name}.json (regenerate it, docs/reproduction.md)"


def test_a_changed_number_on_a_page_would_be_seen():
    text = (ROOT / "docs" / "reproduction.md").read_text(encoding="utf-8")
    with open(TABLES / "table8.json", encoding="utf-8") as fh:
        body = doc_tables.parts(json.load(fh))["table8"]
    changed = text.replace("| 0.900 ± 0.000 · 0.90 ✓ |", "| 0.901 ± 0.000 · 0.90 ✓ |", 1)
    assert changed != text and _section(changed, "table8") != body


def test_update_rewrites_the_runs_parts_and_leaves_the_rest(tmp_path, capsys):
    page = tmp_path / "page.md"
    b8, e8 = doc_tables.markers("table8")
    b9, e9 = doc_tables.markers("table9")
    page.write_text(f"# t\n{b8}\nSTALE\n{e8}\nprose\n{b9}\nOTHER\n{e9}\n", encoding="utf-8")
    assert main(["reproduce", "table8", "--quick", "--json", "--update", str(page),
                 "--out", str(tmp_path / "out")]) == 0
    doc = json.loads(capsys.readouterr().out)
    text = page.read_text(encoding="utf-8")
    assert _section(text, "table8") == doc_tables.parts(doc)["table8"]
    assert "STALE" not in text
    assert text.startswith("# t\n") and "\nprose\n" in text and f"{b9}\nOTHER\n{e9}\n" in text


def test_a_page_without_the_runs_parts_is_refused_before_any_work(tmp_path, capsys):
    page = tmp_path / "page.md"
    page.write_text("no markers\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["reproduce", "table8", "--quick", "--update", str(page),
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "marks no part that this run makes" in err and "table8" in err
    assert err.count("\n") == 1 and not out.exists()
    assert main(["reproduce", "table8", "--quick", "--update", str(tmp_path / "none.md"),
                 "--out", str(out)]) == 2
    assert "cannot read --update" in capsys.readouterr().err and not out.exists()
