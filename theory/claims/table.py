"""The claims as markdown: one table row per claim, then corrected statements, readings
and sub-ranges, each verdict with its basis (the table of docs/claims.md and the report's).

Works on the JSON records of ``semcache claims --json`` (``ClaimResult.to_dict()``).
"""

from __future__ import annotations

from theory.claims.base import parts_line


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def basis_cell(record: dict) -> str:
    """``kind: scope`` of a verdict record."""
    return f"{record['basis']['kind']}: {record['basis']['scope']}"


def lines(claims: list, command=None) -> list:
    """Markdown lines; ``command(claim)`` adds a column with the command behind a row."""
    head = "| claim | statement | verdict | basis | evidence |"
    rule = "|---|---|---|---|---|"
    if command:
        head, rule = head + " command |", rule + "---|"
    out = [head, rule]
    for c in claims:
        note = f" ({c['verdict_note']})" if c.get("verdict_note") else ""
        row = (f"| `{c['id']}` | {_cell(c['statement'])} | **{c['verdict']}**{_cell(note)} | "
               f"{_cell(basis_cell(c))} | {_cell(c['evidence'])} |")
        out.append(row + (f" `{command(c)}` |" if command else ""))
    fixes = [c for c in claims if c.get("corrected")]
    if fixes:
        out += ["", "Corrected statements tested alongside:", ""]
        out += [f"- `{c['id']}`: {_cell(c['corrected']['statement'])} — "
                f"**{c['corrected']['verdict']}** ({c['corrected']['basis']['kind']}: "
                f"{_cell(c['corrected']['evidence'])})" for c in fixes]
    split = [c for c in claims if c.get("readings") or c.get("subranges")]
    if split:
        out += ["", "Readings and sub-ranges (the headline is the paper's statement judged by "
                    "the paper's own definitions; each line below is from the same run, "
                    "docs/claims.md):", ""]
        out += [f"- `{c['id']}`: {_cell(parts_line(c.get('readings'), c.get('subranges')))}"
                for c in split]
    return out
