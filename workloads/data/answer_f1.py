"""Token-level answer F1 as LoCoMo's own evaluation computes it, for text that needs no LLM.

LoCoMo (Maharana et al., ACL 2024; ``task_eval/evaluation.py`` of its repository) scores a
prediction against the gold answer by token F1 after this normalisation, which
:func:`normalize_answer` follows step by step:

1. delete every comma (before anything else, so ``"1,000"`` is one token ``1000``);
2. lower-case;
3. delete every ASCII punctuation character (Python's ``string.punctuation``);
4. replace the words ``a``, ``an``, ``the`` *and* ``and`` by a blank (LoCoMo adds ``and`` to
   SQuAD's articles);
5. split on whitespace.

:func:`f1_score` then stems every token with NLTK's Porter stemmer (as LoCoMo does;
``nltk`` comes with the ``text`` extra) and counts the common tokens as multisets.
:func:`question_f1` applies LoCoMo's per-category rules: category 1 (multi-hop) splits both
texts on commas and averages, over the gold parts, the best F1 of any predicted part;
category 3 keeps the gold answer before its first ``;``; categories 2 and 4 use
:func:`f1_score` as it is.  Category 5 (adversarial) is scored by LoCoMo as whether the
model *declines* to answer, which a retrieved turn cannot express: it has no F1 here
(None).

We apply this to a retrieved turn's text in place of an LLM's answer
(:func:`best_turn_f1`: the best single turn of R_t); an answer is always longer in a
turn than in a model's reply, so precision, and with it F1, is lower than a reader's.

Examples
--------
>>> normalize_answer("The Sunrise, and a LAKE!")
'sunrise lake'
>>> f1_score("She painted the sunrise", "a sunrise painting")  # 2 of 3 tokens, both of 2
0.8
>>> round(f1_score("Caroline went to the LGBTQ support group", "LGBTQ support group"), 3)
0.667
>>> question_f1("I love pottery, and camping", "camping, pottery, painting", 1)  # (1+.5+0)/3
0.5
>>> question_f1("In 2022", 2022, 2), question_f1("anything", "x", 5)
(0.6666666666666666, None)
>>> best_turn_f1(["hello there", "we moved in 2022"], "2022", 2)  # we, move, in, 2022
0.4
"""

from __future__ import annotations

import collections
import functools
import re
import string

_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)
ADVERSARIAL = 5  # the category LoCoMo scores by refusal, not by F1


@functools.lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem import PorterStemmer  # NLTK's default (NLTK_EXTENSIONS) mode, as LoCoMo

    return PorterStemmer()


@functools.lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    # turns repeat across questions and policies: stemming is the cost, so keep it once
    return _stemmer().stem(word)


def normalize_answer(text) -> str:
    """LoCoMo's ``normalize_answer``: commas out, lower case, punctuation out, ``a``/``an``/
    ``the``/``and`` out, single blanks (see the module docstring)."""
    text = str(text).replace(",", "").lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def tokens(text) -> list:
    """The stemmed tokens F1 counts."""
    return [_stem(w) for w in normalize_answer(text).split()]


def f1_score(prediction, answer) -> float:
    """Token F1 of ``prediction`` against ``answer`` (LoCoMo's ``f1_score``); 0.0 when they
    share no token, including when either is empty after normalisation."""
    pred, gold = tokens(prediction), tokens(answer)
    same = sum((collections.Counter(pred) & collections.Counter(gold)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(gold)
    return 2 * precision * recall / (precision + recall)


def question_f1(prediction, answer, category: int) -> float | None:
    """F1 under LoCoMo's rule for the question's ``category`` (None for category 5)."""
    answer = str(answer)
    if category == ADVERSARIAL:
        return None
    if category == 1:  # LoCoMo's ``f1``: several answers, split on commas
        preds = [p.strip() for p in str(prediction).split(",")]
        golds = [g.strip() for g in answer.split(",")]
        return float(sum(max(f1_score(p, g) for p in preds) for g in golds) / len(golds))
    if category == 3:
        answer = answer.split(";")[0].strip()
    return f1_score(prediction, answer)


def best_turn_f1(turns, answer, category: int) -> float | None:
    """The best :func:`question_f1` of any one of ``turns`` (0.0 when there are none; None
    for category 5)."""
    if category == ADVERSARIAL:
        return None
    return max((question_f1(t, answer, category) for t in turns), default=0.0)
