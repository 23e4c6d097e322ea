"""What a run may conclude: verdicts, their bases, and the rules that bind them.

Every verdict a claim check prints (the headline, each reading, each sub-range, a corrected
statement) is a small record made by :func:`verdict`, which refuses a verdict that its
basis or its statement's quantifier does not allow (docs/claims.md, "What a run may
conclude").  The **basis** names the evidence:

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
``witness``
    one instance, found by us, on which an existential statement is certified: the policy
    run exactly and OPT's feasible upper bound (so the ratio it shows is a lower bound on
    the true one);
``search``
    a number of instances from named families or strategies (which, and the largest);
``growth``
    a fitted rate with its confidence interval.

The **quantifier** is what the statement says of its instances (:data:`QUANTIFIERS`):

``every`` (an upper bound, "for every instance")
    ``holds`` only from ``exhaustive``, ``declared`` (the author's word, and labelled so),
    ``closed form`` or ``construction``, over the range their scope names; ``violated`` by
    one instance; ``not refuted`` after a search or a fit.
``some`` (a policy's lower bound, "for some instance", "the ratio reaches c")
    ``holds`` with a witness (or a closed form or construction that exhibits one);
    ``violated`` only when a whole range was enumerated (``exhaustive``, or ``declared``)
    or a closed form shows none exists; after a search without a witness, ``not found``:
    a search cannot show that no instance exists, so never ``violated`` and never ``not
    refuted``.
``growth`` (a rate, O(f) or Ω(f), or an additive form judged along a scaled family)
    ``holds`` only from a closed form; ``violated`` by a fitted rate whose interval clears
    the bound; else ``not refuted``.

``inconclusive`` says what would decide, under any quantifier.  Some statements can never
be confirmed by finite runs whatever the basis (:data:`UNCONFIRMABLE`): an asymptotic
upper bound O(·), which runs can only violate, and a lower bound over every policy of a
class, which a policy that stays below it can refute.  Only a closed form (an argument
over every horizon, checked against the runs) may confirm those.  The quantifier of a
record is given, or read from the statement's ``form`` (:func:`quantifier_of`).

>>> v = verdict(HOLDS, basis(EXHAUSTIVE, "every sequence of length <= 6"), "all 729 agree")
>>> v["verdict"], v["basis"]["kind"]
('holds', 'exhaustive')
>>> verdict(HOLDS, basis(SEARCH, "100 random instances"), "none broke it")
Traceback (most recent call last):
...
ValueError: a search cannot give 'holds': say 'not refuted' (docs/claims.md)
>>> verdict(VIOLATED, basis(SEARCH, "100 random instances"), "no witness",
...         form=SOME_INSTANCE)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: a search cannot give 'violated' of a statement about some instance: say 'not found' ...
"""

from __future__ import annotations

HOLDS, VIOLATED, NOT_REFUTED, INCONCLUSIVE = "holds", "violated", "not refuted", "inconclusive"
NOT_FOUND = "not found"  # an existential statement whose search found no witness
VERDICTS = (HOLDS, VIOLATED, NOT_REFUTED, INCONCLUSIVE, NOT_FOUND)

EXHAUSTIVE, CLOSED_FORM, CONSTRUCTION = "exhaustive", "closed form", "construction"
WITNESS = "witness"
DECLARED, SEARCH, GROWTH = "declared", "search", "growth"
# from the strongest evidence to the weakest (weakest() picks the last of its parts')
BASES = (EXHAUSTIVE, CLOSED_FORM, CONSTRUCTION, DECLARED, WITNESS, SEARCH, GROWTH)
DECIDING = (EXHAUSTIVE, CLOSED_FORM, CONSTRUCTION, DECLARED)  # the bases that may give "holds"
WHOLE_RANGE = (EXHAUSTIVE, DECLARED)  # the bases that saw every instance of their range

# A fitted exponent refutes a bound only when its 95 % interval clears the bound's exponent
# by this much: finite horizons bend local slopes (√(T log T) has slope 0.5 + 1/(2 ln T);
# c√T ± d has slopes on either side of 0.5), so a smaller gap is not evidence.
MARGIN = 0.25

# statement forms that finite runs can never confirm (docs/claims.md)
UPPER_ASYMPTOTIC = "asymptotic upper bound"
LOWER_EVERY_POLICY = "lower bound over every policy"
UNCONFIRMABLE = (UPPER_ASYMPTOTIC, LOWER_EVERY_POLICY)
# an existential statement about one policy: "some instance has ..."
SOME_INSTANCE = "for some instance"
FORMS = (*UNCONFIRMABLE, SOME_INSTANCE)

EVERY, SOME, RATE = "every", "some", "growth"
QUANTIFIERS = (EVERY, SOME, RATE)
_ANY = BASES
# quantifier -> verdict -> the bases that may give it (a verdict absent is never allowed)
RULES = {
    EVERY: {HOLDS: DECIDING, VIOLATED: _ANY, NOT_REFUTED: _ANY, INCONCLUSIVE: _ANY},
    SOME: {HOLDS: (*DECIDING, WITNESS), VIOLATED: (*WHOLE_RANGE, CLOSED_FORM),
           NOT_FOUND: (SEARCH,), INCONCLUSIVE: _ANY},
    RATE: {HOLDS: (CLOSED_FORM,), VIOLATED: (GROWTH, CLOSED_FORM, *WHOLE_RANGE),
           NOT_REFUTED: (GROWTH, SEARCH), INCONCLUSIVE: _ANY},
}
_OF = {EVERY: "a statement about every instance", SOME: "a statement about some instance",
       RATE: "a rate"}


def basis(kind: str, scope: str) -> dict:
    """The evidence behind a verdict: its kind (:data:`BASES`) and the range it covers."""
    if kind not in BASES:
        raise ValueError(f"basis kind must be one of {BASES}, got {kind!r}")
    if not scope:
        raise ValueError("a basis must name its scope (the range or the instances it covers)")
    return {"kind": kind, "scope": scope}


def quantifier_of(form: str | None) -> str:
    """The quantifier a statement's ``form`` implies: ``some`` for :data:`SOME_INSTANCE`,
    else ``every`` (a lower bound over every policy quantifies over the policies)."""
    return SOME if form == SOME_INSTANCE else EVERY


def verdict(said: str, based_on: dict, evidence: str, *, form: str | None = None,
            would_decide: str | None = None, quantifier: str | None = None, **more) -> dict:
    """One checked verdict record: ``verdict``, ``basis``, ``evidence`` and ``more``.

    ``form`` is the statement's form when it is not a plain "for every instance"
    (:data:`FORMS`); ``quantifier`` (:data:`QUANTIFIERS`) defaults to the form's
    (:func:`quantifier_of`); ``would_decide`` is required with ``inconclusive``.
    """
    check(said, based_on, form, would_decide, quantifier)
    record = dict(verdict=said, basis=based_on, evidence=evidence, **more)
    if would_decide:
        record["would_decide"] = would_decide
    return record


def check(said: str, based_on: dict | None, form: str | None = None,
          would_decide: str | None = None, quantifier: str | None = None) -> None:
    """Raise ``ValueError`` unless the basis and the quantifier allow the verdict (the
    rules above, :data:`RULES`)."""
    if said not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}, got {said!r}")
    if not isinstance(based_on, dict) or based_on.get("kind") not in BASES:
        raise ValueError(f"every verdict names its basis, one of {BASES}")
    if form is not None and form not in FORMS:
        raise ValueError(f"form must be None or one of {FORMS}, got {form!r}")
    if quantifier is None:
        quantifier = quantifier_of(form)
    if quantifier not in QUANTIFIERS:
        raise ValueError(f"quantifier must be one of {QUANTIFIERS}, got {quantifier!r}")
    if form == SOME_INSTANCE and quantifier != SOME:
        raise ValueError(f"the form '{SOME_INSTANCE}' is a statement about some instance, "
                         f"not '{quantifier}'")
    kind = based_on["kind"]
    allowed = RULES[quantifier]
    if said == NOT_FOUND and said not in allowed:
        raise ValueError("'not found' is only for a statement about some instance whose "
                         "search found no witness: say 'not refuted' (docs/claims.md)")
    if kind not in allowed.get(said, ()):
        of = "" if quantifier == EVERY else f" of {_OF[quantifier]}"
        raise ValueError(f"a{'n' if kind[0] in 'aeiou' else ''} {kind} cannot give "
                         f"'{said}'{of}: {_instead(quantifier, said)} (docs/claims.md)")
    if said == HOLDS and form in UNCONFIRMABLE and kind != CLOSED_FORM:
        raise ValueError(f"an {form} cannot be confirmed by finite runs: say 'not refuted' "
                         "(docs/claims.md)")
    if said == INCONCLUSIVE and not would_decide:
        raise ValueError("an inconclusive verdict says what would decide it")


def _instead(quantifier: str, said: str) -> str:
    if quantifier == SOME and said == HOLDS:
        return "'holds' needs a witness, a closed form or a construction"
    if quantifier == SOME and said == VIOLATED:
        return "say 'not found' (only a whole range, or a closed form, shows none exists)"
    if quantifier == SOME and said == NOT_FOUND:
        return "'not found' is what a search without a witness says"
    if quantifier == SOME:
        return "say 'not found' (a search found no witness) or 'holds' (with one)"
    return "say 'not refuted'"


def check_record(record: dict, form: str | None = None, quantifier: str | None = None) -> None:
    """:func:`check` applied to a record made by :func:`verdict` (or read back from JSON)."""
    check(record.get("verdict"), record.get("basis"), form, record.get("would_decide"),
          quantifier)


def weakest(records: list, scope: str, form: str | None = None) -> dict:
    """The verdict several parts allow together, e.g. a headline over its sub-ranges.

    Any part violated: violated, with that part's basis, evidence and instance.  Otherwise
    any part inconclusive: inconclusive.  Otherwise any part not refuted: not refuted.
    Otherwise holds, on the parts' deciding bases.  Except for a violation the basis kind is
    the weakest kind among the parts, over ``scope``.
    """
    if not records:
        raise ValueError("no parts to combine")
    kind = weakest_kind([r["basis"] for r in records])
    for said in (VIOLATED, INCONCLUSIVE, NOT_REFUTED, HOLDS):
        mine = [r for r in records if r["verdict"] == said]
        if mine:
            first = mine[0]
            based = first["basis"] if said == VIOLATED else basis(kind, scope)
            extra = {k: v for k, v in first.items()
                     if k in ("instance", "would_decide")}
            return verdict(said, based, first["evidence"], form=form, **extra)
    raise AssertionError("unreachable")


def weakest_kind(bases: list) -> str:
    """The weakest kind among ``bases`` (records of :func:`basis`), in :data:`BASES`'
    order from the strongest evidence to the weakest."""
    order = {k: i for i, k in enumerate(BASES)}
    return max((b["kind"] for b in bases), key=order.__getitem__)


def label(record: dict) -> str:
    """``verdict (basis)``, e.g. ``not refuted (search, 150 runs)``, for tables."""
    runs = record.get("runs")
    kind = record["basis"]["kind"]
    return f"{record['verdict']} ({kind}{f', {runs} runs' if runs else ''})"
