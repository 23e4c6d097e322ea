"""Plain-Python twins of the agent-memory rules ``amem`` and ``zep`` (see naive.py).

Written from the policies' docstrings, by item key: both evict the oldest admission;
``amem`` rewrites min(neighbours, others) notes after each admission whose nearest
neighbour passes ``evolve_similarity``; ``zep`` invalidates (deletes) the item the log
says the arrival supersedes, then, with ``contradiction_similarity``, the earlier items
among the arrival's ``candidates`` nearest whose cosine reaches it.
"""

from __future__ import annotations

import dataclasses

from simulator.testing import Twin, similarity
from helpers.twins import twin_of


class Appending(Twin):
    """Always admit; the victim is the oldest admission, then the smaller key."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.x = None  # the vector of the latest arrival offered
        self.inserted = None  # (step, key) of the latest admission

    def admit(self, t, key, x, cache):
        self.x = x
        return True

    def victim(self, t, key, x, cache):
        return min(cache, key=lambda k: (cache[k].adm, k))

    def on_insert(self, t, key):
        self.inserted = (t, key)

    def admitted_now(self, t):
        """The key admitted at step t, or None."""
        return self.inserted[1] if self.inserted and self.inserted[0] == t else None


@twin_of("amem")
class Amem(Appending):
    defaults = {"neighbours": 5, "evolve_similarity": -1.0}

    def delete(self, t, cache):
        key = self.admitted_now(t)
        if key is None:
            return None
        others = [k for k in cache if k != key]
        n = min(self.p["neighbours"], len(others))
        if n == 0:
            return None
        threshold = self.p["evolve_similarity"]
        if threshold > -1.0 and max(similarity(self.x, cache[k].vec) for k in others) < threshold:
            return None
        self.note_rewrites(n)
        return None


@twin_of("zep")
class Zep(Appending):
    defaults = {"log_supersedes": True, "contradiction_similarity": None, "candidates": 10}
    repeat_delete = True

    def __init__(self, ctx):
        super().__init__(ctx)
        self.arrival = None  # (step, key) of the latest arrival, admitted or cached already
        self.queue = {}  # step -> the keys it invalidates, in order

    def admit(self, t, key, x, cache):
        self.arrival = (t, key)
        return super().admit(t, key, x, cache)

    def on_rearrival(self, t, key):
        self.arrival = (t, key)

    def invalidated(self, t, cache):
        """The keys step t invalidates, in the docstring's order."""
        arrival = self.arrival[1] if self.arrival and self.arrival[0] == t else None
        out = []
        log = self.ctx.supersedes
        if self.p["log_supersedes"] and log is not None and log[t] >= 0 and \
                log[t] != arrival and log[t] in cache:
            out.append(log[t])
        threshold = self.p["contradiction_similarity"]
        key = self.admitted_now(t)
        if threshold is None or key is None:
            return out
        times = self.ctx.times
        ranked = sorted((k for k in cache if k != key),
                        key=lambda k: (-similarity(self.x, cache[k].vec), cache[k].adm, k))
        for k in ranked[:self.p["candidates"]]:
            adm = cache[k].adm
            earlier = adm < t if times is None else times[adm] < times[t]
            if similarity(self.x, cache[k].vec) >= threshold and earlier and k not in out:
                out.append(k)
        return out

    def delete(self, t, cache):
        if t not in self.queue:
            self.queue = {t: self.invalidated(t, cache)}
        return self.queue[t].pop(0) if self.queue[t] else None


def studied(rule: type, study: type) -> type:
    """The twin of ``compose.with_study``: ``rule``'s twin inside ``study``'s (a twin of
    naive_policies_memory), from compose's docstring.  The gate asks the rule only about
    arrivals it passes; the victim is the rule's; the rule's deletions come first, then
    at most one of the study's a step."""

    # a study parameter named as one of the rule's is study_<name>
    exposed = {("study_" + k if k in rule.defaults else k): k for k in study.defaults}

    class Studied(Twin):
        defaults = {**rule.defaults, **{k: study.defaults[exposed[k]] for k in exposed}}
        repeat_delete = rule.repeat_delete

        def __init__(self, ctx):
            super().__init__(ctx)
            own = {k: v for k, v in ctx.params.items() if k not in exposed}
            self.rule = rule(dataclasses.replace(ctx, params=own))
            self.study = study(dataclasses.replace(ctx, params={
                exposed[k]: v for k, v in ctx.params.items() if k in exposed}))
            self.asked = None  # the step whose study deletion was asked

        @property
        def rewrites(self):
            return self.rule.rewrites

        def on_retrieve(self, t, keys, relevant):
            self.study.on_retrieve(t, keys, relevant)
            self.rule.on_retrieve(t, keys, relevant)

        def on_feedback(self, t, loss, quality):
            self.study.on_feedback(t, loss, quality)
            self.rule.on_feedback(t, loss, quality)

        def admit(self, t, key, x, cache):
            return self.study.admit(t, key, x, cache) and self.rule.admit(t, key, x, cache)

        def victim(self, t, key, x, cache):
            return self.rule.victim(t, key, x, cache)

        def on_insert(self, t, key):
            self.study.on_insert(t, key)
            self.rule.on_insert(t, key)

        def on_evict(self, t, key):
            self.study.on_evict(t, key)
            self.rule.on_evict(t, key)

        def on_rearrival(self, t, key):
            self.rule.on_rearrival(t, key)

        def delete(self, t, cache):
            gone = self.rule.delete(t, cache)
            if gone is not None or self.asked == t:
                return gone
            self.asked = t
            return self.study.delete(t, cache)

    return Studied
