"""LoCoMo's answer F1 (``workloads.data.answer_f1``) on pinned examples worked out by hand from
the rules of LoCoMo's ``task_eval/evaluation.py``: commas, then case, punctuation and the
words a/an/the/and removed, Porter stems, multiset overlap, and the per-category rules."""

import pytest

from workloads.data.answer_f1 import (best_turn_f1, f1_score, normalize_answer, question_f1,
                                     tokens)


@pytest.fixture(autouse=True, scope="module")
def _stemmer():
    # the stemmer comes with the text extra; imported when a test runs, not at collection
    # (NLTK takes seconds to import, in every worker)
    pytest.importorskip("nltk")


@pytest.mark.parametrize("text, expected", [
    ("The Lake!", "lake"),                        # case, article, punctuation
    ("a cat and an owl", "cat owl"),              # a, an and "and" (LoCoMo adds it)
    ("1,000 dollars", "1000 dollars"),            # a comma is deleted, not a blank
    ("Mother's Day; June 5th.", "mothers day june 5th"),
    ("theater, anthem", "theater anthem"),        # only whole words are articles
    ("  spaced\tout \n", "spaced out"),
    ("", ""),
    ("¿Qué?", "¿qué"),                            # only ASCII punctuation goes
])
def test_normalisation(text, expected):
    assert normalize_answer(text) == expected


def test_stems_are_porter_stems():
    assert tokens("Running painted pottery dogs") == ["run", "paint", "potteri", "dog"]


@pytest.mark.parametrize("prediction, answer, expected", [
    ("The sunrise", "sunrise", 1.0),                     # articles do not count
    ("SUNRISE.", "sunrise", 1.0),                        # case and punctuation do not
    ("she painted a sunrise", "sunrise painting", 0.8),  # P 2/3, R 1
    ("dogs dogs", "dog", 2 / 3),                         # multiset: one match, P 1/2
    ("anything", "", 0.0),                               # empty answer
    ("", "sunrise", 0.0),                                # empty prediction
    ("the a an", "the", 0.0),                            # both empty after normalising
    ("in 2022", 2022, 2 / 3),                            # an integer answer is its text
    ("7 May 2023", "7 May 2023", 1.0),
])
def test_f1_score(prediction, answer, expected):
    assert f1_score(prediction, answer) == pytest.approx(expected)


def test_category_rules():
    # 1: both split on commas; mean over the gold parts of the best predicted part
    assert question_f1("pottery, camping", "camping, pottery", 1) == 1.0
    assert question_f1("I love pottery, and camping", "camping, pottery, painting",
                       1) == pytest.approx((1 + 0.5 + 0) / 3)
    # 3: the gold answer before its first semicolon
    assert question_f1("likely yes", "Likely yes; she enjoys it", 3) == 1.0
    assert question_f1("likely yes", "Likely yes; she enjoys it", 2) < 1.0
    # 5: adversarial, scored by refusal in LoCoMo: no F1
    assert question_f1("anything", "x", 5) is None
    assert best_turn_f1(["anything"], "x", 5) is None


def test_best_turn_is_the_best_single_turn():
    turns = ["We went camping last week", "I love pottery", "Camping!"]
    assert best_turn_f1(turns, "camping", 4) == 1.0
    assert best_turn_f1(turns[:2], "camping", 4) == pytest.approx(2 * 0.2 / 1.2)
    assert best_turn_f1([], "camping", 4) == 0.0
