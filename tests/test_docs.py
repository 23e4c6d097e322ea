"""The guides show code that runs (docs/extending.md), the pages name files that exist, and
every relative link of the README and of docs/ leads to a file and a heading that exist (the
strict site build, `make docs`, checks docs/ again; the README is not part of the site)."""

import pathlib
import re
import unicodedata

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "extending.md"


def test_the_extending_guides_code_runs(tmp_path, monkeypatch):
    import simulator

    monkeypatch.setattr(simulator.policies, "REGISTRY", dict(simulator.policies.REGISTRY))
    monkeypatch.chdir(tmp_path)
    blocks = _blocks(GUIDE)
    assert len(blocks) >= 3
    space = {}
    for block in blocks:
        exec(compile(block, str(GUIDE), "exec"), space)  # one namespace, as a reader would
    import theory

    result = theory.check(space["CLAIM"], out_dir=str(tmp_path))
    assert result.verdict in ("violated", "not refuted")
    assert space["trace"].meta["target_misses"] == 200
    every = theory.check(space["LRU_K"], out_dir=str(tmp_path))  # the exhaustive example
    assert (every.verdict, every.basis["kind"]) == ("holds", "exhaustive")
    try:  # the property test: it passes, or fails with an instance that replays
        space["test_redundancy_is_3_competitive"]()
    except AssertionError as failure:
        assert "semcache opt --trace" in str(failure)


def _blocks(page: pathlib.Path) -> list:
    """The page's Python blocks, each at its own lines (a traceback points into the page)."""
    text = page.read_text(encoding="utf-8")
    return ["\n" * text[:m.start(1)].count("\n") + m.group(1)
            for m in re.finditer(r"```python\n(.*?)```", text, re.S)]


@pytest.mark.parametrize("name", ["usage.md", "policies.md"])
def test_each_pages_python_runs(name, tmp_path, monkeypatch, capsys):
    import simulator

    monkeypatch.setattr(simulator.policies, "REGISTRY", dict(simulator.policies.REGISTRY))
    monkeypatch.chdir(tmp_path)
    page = ROOT / "docs" / name
    space = {}
    for block in _blocks(page):
        exec(compile(block, str(page), "exec"), space)  # one namespace, as a reader would
    printed = capsys.readouterr().out.split()
    assert printed and all(0 <= float(v) <= 1 for v in printed[1::2])


def test_the_property_test_page_runs(tmp_path, monkeypatch):
    """docs/testing.md: its blocks check what they show (asserts), in one namespace."""
    monkeypatch.chdir(tmp_path)
    page = ROOT / "docs" / "testing.md"
    space = {}
    for block in _blocks(page):
        exec(compile(block, str(page), "exec"), space)
    assert len(list((tmp_path / "failures").iterdir())) == 1  # the failure it shows


def test_every_page_with_python_is_run_by_a_test():
    run = {"extending.md", "usage.md", "policies.md", "testing.md"}  # the tests above
    assert {p.name for p in (ROOT / "docs").glob("*.md") if _blocks(p)} == run


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         ROOT / "notebooks" / "README.md"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_file_a_page_names_exists(page):
    text = page.read_text(encoding="utf-8")
    folders = "simulator|workloads|theory|tests|docs|examples|notebooks"
    named = set(re.findall(rf"`((?:{folders})/[\w/.*]+)`", text))
    named |= set(re.findall(r"\b((?:simulator|workloads|theory|tests)/[\w/]+\.py)\b", text))
    missing = [p for p in named
               if "<" not in p and "*" not in p and "NAME" not in p and not (ROOT / p).exists()]
    assert not missing, missing


def _slug(heading: str) -> str:
    """The anchor Python-Markdown's toc (the site's) gives a heading."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(path: pathlib.Path) -> set:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {_slug(h) for h in re.findall(r"^#+ (.+?)\s*$", text, flags=re.M)}


def broken_links(page: pathlib.Path) -> list:
    """The relative links of ``page`` whose file, or heading, does not exist."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # a URL, not a file of this repository
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.exists():
            broken.append(target)
        elif anchor and where.suffix == ".md" and anchor not in _anchors(where):
            broken.append(target)
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_somewhere(page):
    assert not broken_links(page)


def test_a_broken_link_would_be_seen(tmp_path):
    (tmp_path / "other.md").write_text("# A heading\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("[a](other.md#a-heading) [b](https://example.org) [c](#here)\n## Here\n"
                    "[d](missing.md) [e](other.md#no-heading)\n", encoding="utf-8")
    assert broken_links(page) == ["missing.md", "other.md#no-heading"]
