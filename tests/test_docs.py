"""The guides show code that runs and name files that exist (docs/extending.md)."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "extending.md"


def test_the_extending_guides_code_runs(tmp_path, monkeypatch):
    import simulator

    monkeypatch.setattr(simulator.policies, "REGISTRY", dict(simulator.policies.REGISTRY))
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 3
    space = {}
    for block in blocks:
        exec(compile(block, str(GUIDE), "exec"), space)  # one namespace, as a reader would
    import theory

    result = theory.check(space["CLAIM"], out_dir=str(tmp_path))
    assert result.verdict in ("violated", "not refuted")
    assert space["trace"].meta["target_misses"] == 200
    try:  # the property test: it passes, or fails with an instance that replays
        space["test_redundancy_is_3_competitive"]()
    except AssertionError as failure:
        assert "semcache opt --trace" in str(failure)


def test_every_file_the_guide_names_exists():
    text = GUIDE.read_text(encoding="utf-8")
    folders = "simulator|workloads|theory|tests|docs|examples|notebooks"
    named = set(re.findall(rf"`((?:{folders})/[\w/.*]+)`", text))
    named |= set(re.findall(r"\b((?:simulator|workloads|theory|tests)/[\w/]+\.py)\b", text))
    missing = [p for p in named if "<" not in p and "*" not in p and not (ROOT / p).exists()]
    assert not missing, missing
