"""Plain-Python twins of MemoryBank (paper and shipped), Generative Agents and Letta.

Written from the docstrings of ``simulator/policies/parts/ebbinghaus.py``,
``generative_agents.py`` and ``letta.py``, by item key, never by slot.  The Letta twin
plans with ``ctx.capacity`` as its window and counts each message at its size: the
reference engine gives it the count limit, or the budget when the run has no count
limit.  That is the policy's rule on runs with a budget alone, and on runs without a
budget whose sizes are all 1 (without a budget the policy counts every message as one);
it is not held to others.
"""

from __future__ import annotations

import math

from simulator.testing import SplitMix64, Twin
from simulator.testing.reference_model import dot32
from helpers.twins import twin_of

DAY, HOUR = 86400.0, 3600.0
FORGET_SALT = 0xEB81A5


def step_time(twin, t):
    """The step's time: the trace's, else ``t * step_seconds``."""
    times = twin.ctx.times
    return times[t] if times is not None else t * twin.p["step_seconds"]


class Ebbinghaus(Twin):
    """A pass at the first step of each new day over the memory as it stood before that
    step, one draw per memory in key order; forgotten when u > R."""

    repeat_delete = True
    defaults = {"strength_init": 1.0, "strength_step": 1.0, "step_seconds": DAY}

    def __init__(self, ctx):
        super().__init__(ctx)
        self.draws = SplitMix64(ctx.seed, FORGET_SALT)
        self.strength, self.recalled, self.forgotten = {}, {}, set()
        self.last_t, self.pass_day = -1, -math.inf

    def retention(self, days, strength):
        return math.exp(-days / strength)

    def day(self, t):
        return math.floor(step_time(self, t) / DAY)

    def begin(self, t):
        if t <= self.last_t:
            return
        self.last_t = t
        today = self.day(t)
        if today <= self.pass_day:
            return
        self.pass_day = today
        for key in sorted(self.strength):
            r = self.retention(today - self.recalled[key], self.strength[key])
            if self.draws.uniform() > r:
                self.forgotten.add(key)

    def on_retrieve(self, t, keys, relevant):
        self.begin(t)
        for key in keys:
            self.strength[key] += self.p["strength_step"]
            self.recalled[key] = self.day(t)

    def on_feedback(self, t, loss, quality):
        self.begin(t)

    def on_insert(self, t, key):
        self.strength[key] = self.p["strength_init"]
        self.recalled[key] = self.day(t)

    def on_evict(self, t, key):
        del self.strength[key], self.recalled[key]
        self.forgotten.discard(key)

    def victim(self, t, key, x, cache):
        self.begin(t)
        if self.forgotten:
            return min(self.forgotten)
        today = self.day(t)
        return min(cache, key=lambda k: (
            self.retention(today - self.recalled[k], self.strength[k]), cache[k].adm, k))

    def delete(self, t, cache):
        self.begin(t)
        return min(self.forgotten) if self.forgotten else None


@twin_of("memorybank")
class MemoryBank(Ebbinghaus):
    pass


@twin_of("memorybank_shipped")
class MemoryBankShipped(Ebbinghaus):
    defaults = {**Ebbinghaus.defaults, "divisor": 5.0}

    def retention(self, days, strength):
        return math.exp(-days / self.p["divisor"] * strength)  # -t / 5*S, as Python reads it


@twin_of("generative_agents")
class GenerativeAgents(Twin):
    """Evict the lowest w·(recency, relevance to the arrival, importance), each min-max
    normalised over the cached items."""

    defaults = {"recency_decay": 0.995, "w_recency": 0.5, "w_relevance": 3.0,
                "w_importance": 2.0, "recency": "hours", "step_seconds": HOUR}

    def __init__(self, ctx):
        super().__init__(ctx)
        self.access, self.importance, self.feedback = {}, {}, None

    def on_retrieve(self, t, keys, relevant):
        for key in keys:
            self.access[key] = step_time(self, t)

    def on_feedback(self, t, loss, quality):
        self.feedback = (t, quality)

    def on_insert(self, t, key):
        self.access[key] = step_time(self, t)
        fed = self.feedback is not None and self.feedback[0] == t
        self.importance[key] = 1.0 - self.feedback[1] if fed else 0.0

    def on_evict(self, t, key):
        del self.access[key], self.importance[key]

    @staticmethod
    def normalised(values):
        lo, hi = min(values.values()), max(values.values())
        return {k: 0.5 if hi - lo == 0 else (v - lo) / (hi - lo) for k, v in values.items()}

    def victim(self, t, key, x, cache):
        decay = self.p["recency_decay"]
        if self.p["recency"] == "rank":
            order = sorted(cache, key=lambda k: (self.access[k], cache[k].adm))
            recency = {k: decay ** float(i + 1) for i, k in enumerate(order)}
        else:
            now = step_time(self, t)
            recency = {k: decay ** ((now - self.access[k]) / HOUR) for k in cache}
        rec = self.normalised(recency)
        rel = self.normalised({k: dot32(x, cache[k].vec) for k in cache})
        imp = self.normalised({k: self.importance[k] for k in cache})
        p = self.p
        return min(cache, key=lambda k: (p["w_recency"] * rec[k] + p["w_relevance"] * rel[k]
                                         + p["w_importance"] * imp[k], cache[k].adm, k))


@twin_of("letta")
class Letta(Twin):
    """A FIFO queue of messages; on overflow the oldest ~trunc_token_frac of the buffer's
    tokens (summary first, the last keep_last_n entries kept) leave for one summary."""

    repeat_delete = True
    defaults = {"trunc_token_frac": 0.75, "keep_last_n": 3, "trigger_frac": 1.0,
                "summary_share": 0.016}

    def __init__(self, ctx):
        super().__init__(ctx)
        self.window = ctx.capacity
        self.summary_size = min(math.ceil(self.p["summary_share"] * self.window),
                                self.window - 1)
        self.summary = False
        self.queue, self.size, self.leaving = [], {}, []  # oldest first
        self.arrived = (-1, -1)  # (step, key) of the latest insertion

    def on_insert(self, t, key):
        self.queue.append(key)
        self.size[key] = self.arriving_size(t)
        self.arrived = (t, key)

    def on_evict(self, t, key):
        self.queue.remove(key)
        del self.size[key]
        if key in self.leaving:
            self.leaving.remove(key)

    def compact(self, t, arriving):
        """Mark the span; False when it holds no message (Letta gives up).  The step's
        arrival (``arriving`` tokens not yet queued, or queued at step t) is never in it."""
        fresh = self.arrived[1] if self.arrived[0] == t and arriving == 0 else None
        buffer = ([("summary", self.summary_size)] if self.summary else []) + \
            [("arrival" if k == fresh else k, self.size[k]) for k in self.queue] + \
            ([("arrival", arriving)] if arriving else [])
        desired = math.floor(sum(s for _, s in buffer) * self.p["trunc_token_frac"])
        candidates = buffer[:max(len(buffer) - self.p["keep_last_n"], 0)]
        span, running = [], 0
        for entry, size in candidates:
            if entry == "arrival":
                break
            span.append(entry)
            running += size
            if running > desired:
                break
        messages = [k for k in span if k != "summary"]
        if not messages:
            return False
        self.leaving = messages
        self.summary = True
        self.note_rewrites(1)  # the summary, written anew
        return True

    def victim(self, t, key, x, cache):
        if self.leaving:
            return self.leaving[0]
        if not self.compact(t, self.arriving_size(t)):
            return self.queue[0]
        return self.leaving[0]

    def delete(self, t, cache):
        if self.leaving:
            return self.leaving[0]
        held = sum(self.size.values()) + (self.summary_size if self.summary else 0)
        if not self.queue or held <= self.p["trigger_frac"] * self.window:
            return None
        return self.leaving[0] if self.compact(t, 0) else None
