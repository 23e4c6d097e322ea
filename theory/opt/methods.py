"""Which exact method of :func:`theory.opt.opt` can solve an instance, found without
solving: each method's size limits (the module docstring of :mod:`theory.opt` states them),
why a method is refused, and the plan an ``auto`` or ``bounds`` call says before its work.
"""

from __future__ import annotations

from theory import opt_bounds, opt_clock, opt_counts, opt_dp, opt_sized, opt_topics, opt_upper

EXACT = ("flow", "topics", "counts", "items")
FLOW_MAX_T = 10**6
TOPICS_MAX_M = 16
TOPICS_MAX_BACK = 5 * 10**7
TOPICS_MAX_T_SEPARATION = 30_000
COUNTS_MAX_STATES = 2 * 10**5
COUNTS_MAX_BACK = 3 * 10**7
ITEMS_MAX_T = 3_000
ITEMS_MAX_BACK = 4 * 10**7
ITEMS_MAX_K = 62  # set_loss keeps a bitmask of the cached members


def _flow_fits(trace, capacity, top_k):
    if trace.steps > FLOW_MAX_T:
        return f"flow: T = {trace.steps} > {FLOW_MAX_T}"
    if top_k < capacity and trace.steps > TOPICS_MAX_T_SEPARATION:
        return f"flow: k < K needs a separation check, limited to T <= " \
               f"{TOPICS_MAX_T_SEPARATION}"
    return None


def _topics_fits(trace, capacity, top_k):
    m = opt_topics.useful_topics(trace).size
    if m > TOPICS_MAX_M or trace.steps * 2**m > TOPICS_MAX_BACK:
        return f"topics: {m} useful topics over {trace.steps} steps (limit m <= {TOPICS_MAX_M}, " \
               f"T·2^m <= {TOPICS_MAX_BACK:.0e})"
    if top_k < capacity and trace.steps > TOPICS_MAX_T_SEPARATION:
        return f"topics: k < K needs a separation check, limited to T <= " \
               f"{TOPICS_MAX_T_SEPARATION}"
    return None


def _counts_fits(trace, capacity):
    n_types = opt_counts.types_of(trace)[1].size
    if n_types >= trace.steps:
        return "counts: no two arrivals share a type"
    states = opt_counts.count_states(n_types, min(capacity, trace.steps))
    if states > COUNTS_MAX_STATES or trace.steps * states > COUNTS_MAX_BACK:
        return f"counts: {states} count vectors over {trace.steps} steps (limit " \
               f"{COUNTS_MAX_STATES:.0e} states, {COUNTS_MAX_BACK:.0e} state-steps)"
    return None


def _items_fits(trace, capacity):
    T, K = trace.steps, min(capacity, trace.steps)
    if T > ITEMS_MAX_T:
        return f"items: T = {T} > {ITEMS_MAX_T}"
    if K > ITEMS_MAX_K:
        return f"items: K = {K} > {ITEMS_MAX_K}"
    n = opt_dp.state_steps(T, K)
    if n > ITEMS_MAX_BACK:
        return f"items: {n} state-steps for T = {T}, K = {K} (limit {ITEMS_MAX_BACK:.0e})"
    return None


def refusal(name, trace, K, k, quality, sized, topical) -> str | None:
    """Why the exact method ``name`` cannot solve the instance, or None.  ``topical`` keeps
    opt_topics.applies for flow and topics, which share it (its separation check is slow)."""
    if sized and name != "items":
        return opt_sized.refusal(name)
    if name in ("flow", "topics"):
        why = (_flow_fits if name == "flow" else _topics_fits)(trace, K, k)
        if why is None and not topical:
            opt_clock.phase("checking topic separation (O(T²·d))")
            topical["why"] = opt_topics.applies(trace, K, k, quality)
        return why if why is not None else topical["why"]
    if name == "counts":
        return _counts_fits(trace, K) or opt_counts.applies(trace)
    return _items_fits(trace, K)


def describe_plan(trace, K, k, quality, method, sized, budget=None,
                  compiling: bool = True) -> list:
    """What ``auto`` or ``bounds`` will run on this instance, in words, found without
    solving: the exact methods it may try, in order (a condition that only trying shows
    is said), those that cannot apply and why, then the bounds computed when none does,
    and (``compiling``) the policies' loops their upper bound would compile, unless an
    exact method surely applies (``budget``: the run's, which picks the loops)."""
    lines = []
    tries, certain = [], False
    if method == "auto":
        not_tried = []
        for name in EXACT:
            if sized and name != "items":
                not_tried.append(f"{name}: item sizes bind, only the item DP takes them")
                continue
            if name in ("flow", "topics"):
                why = (_flow_fits if name == "flow" else _topics_fits)(trace, K, k) \
                    or opt_topics.applies(trace, K, k, quality, separation=False)
                note = " if the topics prove separated" if k < K else ""
            elif name == "counts":
                why, note = _counts_fits(trace, K), " if its types are interchangeable"
            else:
                why, note = _items_fits(trace, K), ""
            if why is None:
                tries.append(name + note)
                certain = certain or not note
            else:
                not_tried.append(f"{name}: {why.removeprefix(name + ': ')}")
        lines.append("exact methods, the first that applies: " + (", ".join(tries) or "none")
                     + (f" (not {'; '.join(not_tried)})" if not_tried else ""))
    head = "else certified bounds" if method == "auto" else "certified bounds (forced)"
    lines.append(f"{head}: " + opt_bounds.describe(trace, K, quality, sized))
    if compiling and not certain:
        lines += opt_upper.compiling_line(trace, budget, surely=not tries)
    return lines
