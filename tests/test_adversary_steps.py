"""An adversary's steps are checked where its chooser hands them over
(:func:`workloads.adversaries.builder.build`): a vector that is not unit, of another length, not
finite or no vector; a topic that is no integer >= -1; a weight outside [0, 1]; a page out
of range.  Each is one InputError naming the adversary, the step and the value, at the
step it happens (the target has not run it), also through the ``adversarial`` workload.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.errors import InputError
from workloads import adversaries
from workloads.adversaries import workload as adversarial
from workloads.adversaries.builder import UNIT_TOLERANCE, Adversary, Step, build

D = 4
EYE = np.eye(D, dtype=np.float32)
GOOD = {"query": EYE[0], "item": EYE[1], "query_topic": 0, "item_topic": 1}

BAD = {  # a change to a good step, and the words its error must hold
    "a longer item": ({"item": 3 * EYE[1] + EYE[2]}, ["the item vector has norm 3.16228",
                                                      "not 1"]),
    "a shorter query": ({"query": EYE[0] / 2}, ["the query vector has norm 0.5"]),
    "just past the tolerance": ({"query": EYE[0] * np.float32(1 + 4 * UNIT_TOLERANCE)},
                                ["norm 1 + 4.1e-06"]),
    "a zero item": ({"item": np.zeros(D)}, ["norm 0"]),
    "another length": ({"item": np.ones(D + 1) / np.sqrt(D + 1)}, ["shape (5,)", "(4,)"]),
    "a matrix": ({"query": EYE[:1]}, ["shape (1, 4)"]),
    "NaN": ({"query": np.array([np.nan, 1, 0, 0])}, ["NaN, inf"]),
    "beyond float32": ({"item": np.array([1e39, 0, 0, 0])}, ["beyond float32"]),
    "text": ({"query": "up"}, ["the query must be a vector", "str"]),
    "no item": ({"item": None}, ["needs a query and an item"]),
    "a text topic": ({"query_topic": "cooking"}, ["query_topic", "'cooking'"]),
    "a bool topic": ({"item_topic": True}, ["item_topic", "True"]),
    "a topic below -1": ({"item_topic": -2}, ["item_topic", "-2"]),
    "a float topic": ({"query_topic": 1.0}, ["query_topic", "1.0"]),
    "a NaN weight": ({"weight": float("nan")}, ["weight", "nan"]),
    "a text weight": ({"weight": "1"}, ["weight", "'1'"]),
}


def _chooser(bad: dict, at: int):
    def stretch(view):
        return Step(**{**GOOD, **(bad if view.t == at else {})})
    return stretch


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_step_is_one_error_naming_the_adversary_and_the_step(case):
    change, words = BAD[case]
    with pytest.raises(InputError) as err:
        build(_chooser(change, 0), target="fifo", capacity=2, steps=4, dim=D)
    line = str(err.value)
    assert "\n" not in line
    for word in ["adversary 'stretch' step 0", *words]:
        assert word in line, (word, line)


def test_vectors_within_the_tolerance_are_unit_and_the_step_is_counted():
    near = EYE[0] * np.float32(1 + UNIT_TOLERANCE / 4)
    trace = build(_chooser({"query": near}, 1), target="fifo", capacity=2, steps=3, dim=D)
    assert np.array_equal(trace.queries[1], near)  # kept as given, as a loaded trace is
    with pytest.raises(InputError, match="adversary 'stretch' step 2: the query vector"):
        build(_chooser({"query": 2 * EYE[0]}, 2), target="fifo", capacity=2, steps=3, dim=D)


@pytest.mark.parametrize("request_, words", [(1.5, "1.5"), ("0", "'0'"), (True, "True"),
                                             (-1, "-1"), (3, "0 … 2")])
def test_a_bad_page_is_one_error_naming_the_adversary(request_, words):
    def pager(view):
        return Step(request=request_)
    with pytest.raises(InputError, match="adversary 'pager' step 0: request") as err:
        build(pager, target="fifo", capacity=2, steps=4, mode="paging", pages=3)
    assert words in str(err.value)


def test_a_registered_adversary_is_named_by_its_registered_name(monkeypatch):
    chooser = _chooser({"item": 2 * EYE[1]}, 0)
    monkeypatch.setitem(adversaries.REGISTRY, "long_items", Adversary(
        name="long_items", summary="items twice too long", mode="semantic",
        start=lambda params, rng: (chooser, {}), dim=lambda capacity: D))
    with pytest.raises(InputError, match="adversary 'long_items' step 0: the item vector "
                                         "has norm 2"):
        adversarial.build("long_items", "fifo", capacity=2, steps=4, params={"dim": D})
