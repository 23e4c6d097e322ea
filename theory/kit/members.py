"""The policies a claim speaks of: one policy, or every member of a class.

A claim's ``policy`` is a registered name or a :class:`simulator.Policy` (one policy), a
list of those (a class that is exactly its members), or a function of ``quick``
returning such a list (a generator, whose members are a sample of a larger class).  Each
is checked when the claim is built (a generator when it is called), and a member given as
a ``Policy`` is registered under its name when the claim is checked.

>>> check_policy("claim 'x'", ["fifo", "lru"]); is_generator(lambda quick: ["fifo"])
True
>>> check_policy("claim 'x'", [])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
simulator.errors.InputError: claim 'x': a class of policies needs at least one member, ...
"""

from __future__ import annotations

from simulator.errors import InputError
from simulator.registration import check_name
from theory.claims.base import plugin_of
from theory.kit.user_code import call, shown


def is_generator(policy) -> bool:
    """Whether ``policy`` is a function of ``quick`` giving a class's members."""
    from simulator.policies.base import Policy

    return callable(policy) and not isinstance(policy, (Policy, str))


def check_policy(who: str, policy) -> None:
    """InputError (naming ``who``) unless ``policy`` is one policy or a class of them."""
    from simulator.policies.base import Policy

    if isinstance(policy, (list, tuple)):
        if not policy:
            raise InputError(f"{who}: a class of policies needs at least one member, got "
                             "an empty list", "policy")
        for i, member in enumerate(policy):
            if isinstance(member, (list, tuple)) or is_generator(member):
                raise InputError(f"{who}, policy {i}: a member of a class is one policy, "
                                 f"got a {type(member).__name__}", "policy")
            check_policy(f"{who}, policy {i}", member)
    elif isinstance(policy, str):
        try:
            check_name("policy", policy)
        except InputError as exc:
            raise InputError(f"{who}: {exc}", "policy") from None
    elif not (isinstance(policy, Policy) or is_generator(policy)):
        raise InputError(f"{who}: policy must be a registered policy's name or a "
                         "simulator.Policy, a list of them (a class), or a function "
                         f"policies(quick) returning one, got {type(policy).__name__}",
                         "policy")


def generated(who: str, policies, quick: bool) -> tuple:
    """The members a generator ``policies(quick)`` gives, checked, in its order."""
    try:
        found = call(policies, f"policies(quick={quick})", quick)
    except InputError as exc:
        raise InputError(f"{who}: {exc}", "policy") from None
    if not isinstance(found, (list, tuple)):
        raise InputError(f"{who}: policies(quick={quick}) returned {shown(found)}; it must "
                         "return a list of policies", "policy")
    check_policy(f"{who}: policies(quick={quick})", tuple(found))
    return tuple(found)


def registered(who: str, policy) -> tuple:
    """``policy``'s registered name and the plugin that defines it (None: semcache's, or
    no file defines it); a ``Policy`` not registered yet is registered."""
    from simulator import policies
    from simulator.policies.base import Policy

    if isinstance(policy, Policy):
        if policies.REGISTRY.get(policy.name) is not policy:
            try:
                policies.register(policy, origin=plugin_of(policy))
            except InputError as exc:
                raise InputError(f"{who}: {exc}", exc.param) from None
        name = policy.name
    elif policy not in policies.REGISTRY:
        raise InputError(f"{who}: unknown policy '{policy}'; define it "
                         "in the claims file or in a plugin that --plugin FILE or "
                         "SEMCACHE_PLUGINS loads (docs/extending.md), or give the "
                         f"simulator.Policy itself; valid policies: {', '.join(policies.REGISTRY)}")
    else:
        name = policy
    if policies.shipped(name):
        return name, None
    return name, policies.origin(name) or plugin_of(policies.REGISTRY[name])
