"""Bad arguments to the claim kit (theory.Claim, check, judge, theory.bounds,
theory.families, theory.kit.shrink): each is one InputError, before any work, whose
``param`` is the argument at fault and whose one-line message names it; an InputError is
still a ValueError for code that catches that."""

import numpy as np
import pytest

import theory
from simulator.errors import InputError
from simulator.instance import Instance
from simulator.trace import PagingTrace
from simulator.testing import instances
from theory import bounds, families
from theory.kit.shrink import drop_steps, shrink

INSTANCE = Instance(PagingTrace.from_requests(np.array([0, 1, 2, 0, 1, 2])), {"capacity": 2})


def _claim(**changes):
    good = dict(id="c", statement="s", policy="fifo", instances=[INSTANCE],
                bound=bounds.ratio_at_most(2))
    return theory.Claim(**{**good, **changes})


def _judge(r, o, i):
    return True


BAD = {
    "ratio_at_most c": (lambda: bounds.ratio_at_most("x"), "c"),
    "ratio_at_most c <= 0": (lambda: bounds.ratio_at_most(0), "c"),
    "ratio_at_most additive": (lambda: bounds.ratio_at_most(1, additive=float("nan")),
                               "additive"),
    "modifications_at_most f": (lambda: bounds.modifications_at_most(3), "f"),
    "regret_at_most f": (lambda: bounds.regret_at_most(None), "f"),
    "predicate fn": (lambda: bounds.predicate(3, "t"), "fn"),
    "predicate text": (lambda: bounds.predicate(_judge, " "), "text"),
    "predicate needs_opt": (lambda: bounds.predicate(_judge, "t", needs_opt=1), "needs_opt"),
    "Bound text": (lambda: bounds.Bound("", _judge), "text"),
    "Bound judge": (lambda: bounds.Bound("t", 5), "judge"),
    "Bound needs_opt": (lambda: bounds.Bound("t", _judge, "yes"), "needs_opt"),
    "Family scope": (lambda: families.Family((), ""), "scope"),
    "Family kind": (lambda: families.Family((), "s", kind="all"), "kind"),
    "grid workload": (lambda: families.grid("no_such_workload"), "workload"),
    "grid params": (lambda: families.grid("cycling", params=3), "params"),
    "grid capacity": (lambda: families.grid("cycling", capacity=[0]), "capacity"),
    "grid top_k": (lambda: families.grid("cycling", top_k=["a"]), "top_k"),
    "grid switch_cost": (lambda: families.grid("cycling", switch_cost=[-1]), "switch_cost"),
    "grid quality": (lambda: families.grid("cycling", quality=["best"]), "quality"),
    "grid seeds": (lambda: families.grid("cycling", seeds=[-1]), "seeds"),
    "sample strategy": (lambda: families.sample(3), "strategy"),
    "sample n": (lambda: families.sample(instances(), n=0), "n"),
    "sample seed": (lambda: families.sample(instances(), n=1, seed="x"), "seed"),
    "saved paths": (lambda: families.saved(5), "paths"),
    "shrink instance": (lambda: shrink(5, bool), "instance"),
    "shrink broken": (lambda: shrink(INSTANCE, 5), "broken"),
    "shrink max_tries": (lambda: shrink(INSTANCE, bool, max_tries=-1), "max_tries"),
    "drop_steps trace": (lambda: drop_steps([0, 1], [0]), "trace"),
    "drop_steps keep": (lambda: drop_steps(INSTANCE.trace, [99]), "keep"),
    "drop_steps keep unsorted": (lambda: drop_steps(INSTANCE.trace, [2, 1]), "keep"),
    "Claim statement": (lambda: _claim(statement=""), "statement"),
    "Claim title": (lambda: _claim(title=3), "title"),
    "Claim policy": (lambda: _claim(policy=5), "policy"),
    "Claim policy name": (lambda: _claim(policy="no/such"), "policy"),
    "Claim bound": (lambda: _claim(bound=3), "bound"),
    "Claim params": (lambda: _claim(params=3), "params"),
    "Claim subranges": (lambda: _claim(subranges=3), "subranges"),
    "Claim subrange test": (lambda: _claim(subranges={"small": 3}), "subranges",
                            "sub-range 'small'"),
    "Claim form": (lambda: _claim(form="eventually"), "form"),
    "Claim data": (lambda: _claim(data="locomo"), "data"),
    "Claim instances": (lambda: _claim(instances=None), "instances"),
    "Claim evidence": (lambda: theory.Claim(id="e", statement="s", evidence=3), "evidence"),
    "Claim evidence and policy": (lambda: _claim(evidence=_judge), "policy"),
    "check claim": (lambda: theory.check(3), "claim"),
    "check quick": (lambda: theory.check(_claim(), quick=2), "quick"),
    "check out_dir": (lambda: theory.check(_claim(), out_dir=3), "out_dir"),
    "check time_limit": (lambda: theory.check(_claim(), time_limit=-1), "time_limit"),
    "judge claim": (lambda: theory.kit.judge(3, INSTANCE), "claim"),
    "judge evidence claim": (lambda: theory.kit.judge(
        theory.Claim(id="e", statement="s", evidence=_judge), INSTANCE), "claim"),
    "judge time_limit": (lambda: theory.kit.judge(_claim(), INSTANCE, time_limit=0),
                         "time_limit"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_bad_argument_is_one_input_error_naming_it(case):
    call, param, *named = BAD[case]
    with pytest.raises(InputError) as caught:
        call()
    message = str(caught.value)
    assert caught.value.param == param, message
    assert (named or [param])[0] in message and "\n" not in message
    assert isinstance(caught.value, ValueError)  # code that catches ValueError still does


def test_the_claim_id_names_its_field():
    with pytest.raises(InputError, match="claim id '' must be") as caught:
        _claim(id="")
    assert caught.value.param == "id"


def test_an_error_inside_a_claim_keeps_the_argument_at_fault():
    with pytest.raises(InputError, match="claim 'c': instances: item 0 is 3") as caught:
        _claim(instances=[3])
    assert caught.value.param is None or caught.value.param == "instances"
