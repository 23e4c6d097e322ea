"""The memory-management study's strategies as wrappers around another policy's rule.

:func:`with_study` puts the study's quality-gated addition (``strict``, ``coarse``) and
its history-based deletion (``history``) around a rule such as ``fifo``, ``amem`` or
``zep`` (docs/model.md §2.2; the rules are :mod:`~simulator.policies.parts.memory_rules`).
The wrapped policy decides as follows, per step:

* **admit**: the study's gate first; only an arrival it passes is offered to the rule's
  own ``admit``, and e_t is admitted when both say yes.  The rule never hears of an
  arrival the gate refuses, as if it had not come (a regret-gated rule would otherwise
  count it).  Without ``addition`` the gate passes everything.
* **victim**: the rule's.  The study's own capacity rule (evict the least useful record)
  is not used: the rule's eviction is what is being wrapped.
* **delete**: the rule's deletions first (all of them, with the rule's
  ``repeat_delete``); when the rule names none, the study's history deletion, at most
  one record a step, as in the study.  The rule's ``on_evict`` hears of every item that
  leaves.
* **feedback and retrievals** reach both; an admission resets the study's counters of
  the record (``on_insert``) and reaches the rule.

Where they do not compose, :func:`with_study` refuses, or the result changes the rule:

* a rule that decides admission by its own miss-cost accounting (regret-gated, the SOLAR
  paper's Alg. 1) or that reads the whole trace (offline): two admission rules whose
  accounting the other cannot see; refused;
* a rule that updates by replacement (an arrival admitted with the memory it updates as
  the victim, mem0's UPDATE): behind a gate a refused update is lost, and the stale
  memory stays where the rule would have replaced it;
* a rule with its own deletion pass (a forgetting curve, Zep's invalidation): the two
  forgetting rules stack, the rule's first; the history rule then judges only what the
  rule kept;
* paging traces: the study's rules read retrievals and feedback, so the result runs in
  semantic mode only.

>>> pol = with_study("fifo", addition="strict", deletion="history")
>>> pol.name, sorted(pol.params)[:3]
('fifo-strict-history', ['addition', 'beta', 'false_negative'])
"""

from __future__ import annotations

import dataclasses

import numpy as np

from simulator.config import njit
from simulator.errors import InputError
from simulator.policies.base import Policy, Traits
from simulator.policies.parts import memory_rules as mr

ADDITIONS = (None, "strict", "coarse")
DELETIONS = (None, "history")

# The fields of the wrapped policy's state tuple, by position (base.py says why)
_RULE = 0  # the rule's own state
_STUDY = 1  # the study's state (memory_rules.new_state)
_ASKED = 2  # [the last step whose study deletion was asked] (int64)


def with_study(policy, addition: str | None = None, deletion: str | None = None,
               name: str | None = None) -> Policy:
    """A new :class:`Policy`: ``policy``'s rule inside the study's gate and deletion.

    Parameters
    ----------
    policy : str or Policy
        The rule to wrap: a registered name or a :class:`Policy` (semantic mode).
    addition : {None, "strict", "coarse"}
        The study's quality-gated addition (None: the rule admits as it would).
    deletion : {None, "history"}
        The study's history-based deletion (None: only the rule's own deletions).
    name : str, optional
        The new policy's name; by default the rule's and the strategies', joined by
        ``-`` (``fifo-strict-history``).

    Returns
    -------
    Policy
        Its parameters are the rule's and the study's (``warmup``, the gate's, the
        history rule's); a study parameter named as one of the rule's is
        ``study_<name>`` (MemoryOS's ``beta`` and the history rule's: ``study_beta``).
        The module docstring gives its decisions.
    """
    from simulator.policies import resolve

    rule = resolve(policy)
    if addition not in ADDITIONS:
        raise InputError(f"addition must be one of None, 'strict', 'coarse', got "
                         f"{addition!r}"[:200], "addition")
    if deletion not in DELETIONS:
        raise InputError(f"deletion must be None or 'history', got {deletion!r}"[:200],
                         "deletion")
    if addition is None and deletion is None:
        raise InputError("addition or deletion must name one of the study's strategies: "
                         "addition='strict' or 'coarse', deletion='history'", "addition")
    if "semantic" not in rule.modes:
        raise InputError(f"policy '{rule.name}' runs in paging mode only; the study's "
                         "strategies read retrievals and feedback (semantic mode)", "policy")
    traits = rule.traits_of()
    if traits.regret_gated or traits.offline:
        what = "decides admission by its own miss-cost accounting (regret-gated)" \
            if traits.regret_gated else "reads the whole trace (offline)"
        raise InputError(f"policy '{rule.name}' {what}: the study's strategies do not "
                         "compose with it", "policy")
    study = mr.params_for(addition=addition is not None, history=deletion is not None)
    if addition is not None:
        study["addition"] = addition
    # a study parameter named as one of the rule's is exposed as study_<name>
    exposed = {("study_" + k if k in rule.params else k): k for k in study}
    if set(exposed) & set(rule.params):
        raise InputError(f"policy '{rule.name}' has parameters named as the study's "
                         f"(study_...): rename them to wrap it", "policy")
    hooks = _hooks(rule)
    label = "-".join([rule.name] + [s for s in (addition, deletion) if s])

    def split(p: dict) -> tuple:
        """(the rule's parameters, the study's under their own names)."""
        return ({k: v for k, v in p.items() if k not in exposed},
                {exposed[k]: v for k, v in p.items() if k in exposed})

    def init(ctx):
        mine, theirs = split(ctx.params)
        gate = theirs["addition"] if addition is not None else "all"
        # each half sees only its own parameters (memory_rules reads which rules are on
        # from the names present)
        return (rule.init(_with_params(ctx, mine)),
                mr.new_state(_with_params(ctx, theirs), gate), np.full(1, -1, np.int64))

    def check(p):
        mine, theirs = split(p)
        problem = mr.check(theirs)
        for shown, name in exposed.items():  # the study's sentence names what the user set
            if problem and shown != name:
                problem = problem.replace(f"'{name}'", f"'{shown}'")
        return problem or (rule.check_params(mine) if rule.check_params else None)

    def declared(p):
        mine, theirs = split(p)
        judged = mr.traits(theirs) if addition is not None else Traits()
        return Traits(randomized=rule.traits_of(mine).randomized or judged.randomized)

    def state_bytes(p, slots, n_keys):
        mine, theirs = split(p)
        return (rule.state_size(mine, slots, n_keys) or 0) + mr.state_bytes(theirs, slots,
                                                                             n_keys)

    return Policy(name=name or label,
                  summary=f"{rule.name} inside the memory study's "
                  + " and ".join(s for s in (addition and f"{addition} addition",
                                             deletion and f"{deletion} deletion") if s),
                  init=init, params={**rule.params,
                                     **{k: study[exposed[k]] for k in exposed}},
                  modes=("semantic",),
                  check_params=check, traits=declared, state_bytes=state_bytes,
                  repeat_delete=rule.repeat_delete, **_choose(hooks, deletion))


def _choose(hooks: dict, deletion) -> dict:
    """The hooks of the wrapped policy: the rule's own delete alone without ``deletion``."""
    out = {k: v for k, v in hooks.items() if k != "delete_rule"}
    if deletion is None:
        out["delete"] = hooks["delete_rule"]
    return out


def _with_params(ctx, params: dict):
    """``ctx`` with only ``params``."""
    return dataclasses.replace(ctx, params=params)


def _hooks(rule: Policy) -> dict:
    """Compiled hooks that call the rule's and the study's, on their halves of the state."""
    r_hit, r_feedback, r_admit = rule.on_hit, rule.on_feedback, rule.admit
    r_victim, r_insert, r_evict = rule.victim, rule.on_insert, rule.on_evict
    r_rearrival, r_delete = rule.on_rearrival, rule.delete
    s_hit, s_feedback, s_admit = mr.on_hit, mr.on_feedback, mr.admit
    s_insert, s_delete = mr.on_insert, mr.delete

    @njit
    def on_hit(state, slot, t, relevant):
        s_hit(state[_STUDY], slot, t, relevant)
        r_hit(state[_RULE], slot, t, relevant)

    @njit
    def on_feedback(state, t, loss, quality):
        s_feedback(state[_STUDY], t, loss, quality)
        r_feedback(state[_RULE], t, loss, quality)

    @njit
    def admit(state, t, key, x, cache):
        if not s_admit(state[_STUDY], t, key, x, cache):
            return False
        return r_admit(state[_RULE], t, key, x, cache)

    @njit
    def victim(state, t, key, x, cache):
        return r_victim(state[_RULE], t, key, x, cache)

    @njit
    def on_insert(state, slot, key, t):
        s_insert(state[_STUDY], slot, key, t)
        r_insert(state[_RULE], slot, key, t)

    @njit
    def on_evict(state, slot, key, t):
        r_evict(state[_RULE], slot, key, t)

    @njit
    def on_rearrival(state, slot, t):
        r_rearrival(state[_RULE], slot, t)

    @njit
    def delete_rule(state, t, cache):
        return r_delete(state[_RULE], t, cache)

    @njit
    def delete(state, t, cache):
        s = r_delete(state[_RULE], t, cache)
        if s >= 0:
            return s
        if state[_ASKED][0] == t:  # the study deletes at most one record a step
            return -1
        state[_ASKED][0] = t
        return s_delete(state[_STUDY], t, cache)

    return {"on_hit": on_hit, "on_feedback": on_feedback, "admit": admit, "victim": victim,
            "on_insert": on_insert, "on_evict": on_evict, "on_rearrival": on_rearrival,
            "delete": delete, "delete_rule": delete_rule}
