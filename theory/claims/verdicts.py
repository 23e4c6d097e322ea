"""What a run may conclude: verdicts, their bases, and the rules that bind them.

Every verdict a claim check prints (the headline, each reading, each sub-range, a corrected
statement) is a small record made by :func:`verdict`, which refuses a verdict its basis does
not allow (docs/claims.md, "What a run may conclude").  The **basis** names the evidence:

``exhaustive``
    every instance of a finite range, each with the exact optimum;
``closed form``
    an exact formula, checked against exact runs;
``construction``
    the proof's own instance family, measured exactly (or, for a random model, with the
    seeds' interval);
``declared``
    a range the claim's author declares exhaustive (a ``Family(kind="exhaustive")`` built
    by hand); the kit cannot check a declaration, so its scope says whose word it is;
``search``
    a number of instances from named families or strategies (which, and the largest);
``growth``
    a fitted rate with its confidence interval.

Only the first four may give ``holds``, and only over the range their scope names (a
``declared`` holds is the author's declaration, and says so).  A
search or a growth fit gives ``violated`` (an instance, or a rate whose interval excludes
the bound) or ``not refuted``.  ``inconclusive`` says what would decide.  Some statements
can never be confirmed by finite runs whatever the basis (:data:`UNCONFIRMABLE`): an
asymptotic upper bound O(·), which runs can only violate, and a lower bound over every
policy, which a policy that stays below it can refute.  Only a closed form (an argument
over every horizon, checked against the runs) may confirm those.

>>> v = verdict(HOLDS, basis(EXHAUSTIVE, "every sequence of length <= 6"), "all 729 agree")
>>> v["verdict"], v["basis"]["kind"]
('holds', 'exhaustive')
>>> verdict(HOLDS, basis(SEARCH, "100 random instances"), "none broke it")
Traceback (most recent call last):
...
ValueError: a search cannot give 'holds': say 'not refuted' (docs/claims.md)
"""

from __future__ import annotations

HOLDS, VIOLATED, NOT_REFUTED, INCONCLUSIVE = "holds", "violated", "not refuted", "inconclusive"
VERDICTS = (HOLDS, VIOLATED, NOT_REFUTED, INCONCLUSIVE)

EXHAUSTIVE, CLOSED_FORM, CONSTRUCTION = "exhaustive", "closed form", "construction"
DECLARED, SEARCH, GROWTH = "declared", "search", "growth"
BASES = (EXHAUSTIVE, CLOSED_FORM, CONSTRUCTION, DECLARED, SEARCH, GROWTH)  # strongest first
DECIDING = (EXHAUSTIVE, CLOSED_FORM, CONSTRUCTION, DECLARED)  # the bases that may give "holds"

# A fitted exponent refutes a bound only when its 95 % interval clears the bound's exponent
# by this much: finite horizons bend local slopes (√(T log T) has slope 0.5 + 1/(2 ln T);
# c√T ± d has slopes on either side of 0.5), so a smaller gap is not evidence.
MARGIN = 0.25

# statement forms that finite runs can never confirm (docs/claims.md)
UPPER_ASYMPTOTIC = "asymptotic upper bound"
LOWER_EVERY_POLICY = "lower bound over every policy"
UNCONFIRMABLE = (UPPER_ASYMPTOTIC, LOWER_EVERY_POLICY)


def basis(kind: str, scope: str) -> dict:
    """The evidence behind a verdict: its kind (:data:`BASES`) and the range it covers."""
    if kind not in BASES:
        raise ValueError(f"basis kind must be one of {BASES}, got {kind!r}")
    if not scope:
        raise ValueError("a basis must name its scope (the range or the instances it covers)")
    return {"kind": kind, "scope": scope}


def verdict(said: str, based_on: dict, evidence: str, *, form: str | None = None,
            would_decide: str | None = None, **more) -> dict:
    """One checked verdict record: ``verdict``, ``basis``, ``evidence`` and ``more``.

    ``form`` is the statement's form when finite runs cannot confirm it
    (:data:`UNCONFIRMABLE`); ``would_decide`` is required with ``inconclusive``.
    """
    check(said, based_on, form, would_decide)
    record = dict(verdict=said, basis=based_on, evidence=evidence, **more)
    if would_decide:
        record["would_decide"] = would_decide
    return record


def check(said: str, based_on: dict | None, form: str | None = None,
          would_decide: str | None = None) -> None:
    """Raise ``ValueError`` unless the basis allows the verdict (the rules above)."""
    if said not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}, got {said!r}")
    if not isinstance(based_on, dict) or based_on.get("kind") not in BASES:
        raise ValueError(f"every verdict names its basis, one of {BASES}")
    if said == HOLDS and based_on["kind"] not in DECIDING:
        raise ValueError(f"a {based_on['kind']} cannot give 'holds': say 'not refuted' "
                         "(docs/claims.md)")
    if said == HOLDS and form in UNCONFIRMABLE and based_on["kind"] != CLOSED_FORM:
        raise ValueError(f"an {form} cannot be confirmed by finite runs: say 'not refuted' "
                         "(docs/claims.md)")
    if said == INCONCLUSIVE and not would_decide:
        raise ValueError("an inconclusive verdict says what would decide it")


def check_record(record: dict, form: str | None = None) -> None:
    """:func:`check` applied to a record made by :func:`verdict` (or read back from JSON)."""
    check(record.get("verdict"), record.get("basis"), form, record.get("would_decide"))


def weakest(records: list, scope: str, form: str | None = None) -> dict:
    """The verdict several parts allow together, e.g. a headline over its sub-ranges.

    Any part violated: violated, with that part's basis, evidence and instance.  Otherwise
    any part inconclusive: inconclusive.  Otherwise any part not refuted: not refuted.
    Otherwise holds, on the parts' deciding bases.  Except for a violation the basis kind is
    the weakest kind among the parts, over ``scope``.
    """
    if not records:
        raise ValueError("no parts to combine")
    order = {k: i for i, k in enumerate(BASES)}
    kind = max((r["basis"]["kind"] for r in records), key=order.__getitem__)
    for said in (VIOLATED, INCONCLUSIVE, NOT_REFUTED, HOLDS):
        mine = [r for r in records if r["verdict"] == said]
        if mine:
            first = mine[0]
            based = first["basis"] if said == VIOLATED else basis(kind, scope)
            extra = {k: v for k, v in first.items()
                     if k in ("instance", "would_decide")}
            return verdict(said, based, first["evidence"], form=form, **extra)
    raise AssertionError("unreachable")


def label(record: dict) -> str:
    """``verdict (basis)``, e.g. ``not refuted (search, 150 runs)``, for tables."""
    runs = record.get("runs")
    kind = record["basis"]["kind"]
    return f"{record['verdict']} ({kind}{f', {runs} runs' if runs else ''})"
