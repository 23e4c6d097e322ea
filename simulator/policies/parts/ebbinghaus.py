"""MemoryBank's forgetting, shared by ``memorybank`` (the paper's curve) and
``memorybank_shipped`` (the curve its code evaluates).  Not a policy by itself.

Each cached memory has a strength S (``strength_init`` when written, + ``strength_step``
each time it is recalled) and the day of its last recall (its writing day until then).
Its retention on day d is R = curve(d - last recall day, S), days counted as whole
calendar days: day(t) = floor(time_t / 86400), the source's ``(d2 - d1).days`` on
dates.  The curve is the paper's ``exp(-t / S)`` (``divisor = 0``) or the shipped
``math.exp(-t / 5*S)``, which Python evaluates as ``(-t / 5) * S`` (``divisor = 5``).

* **Recall**: every item retrieved into R_t is recalled (the source's
  ``update_memory_when_searched`` raises the strength of every memory its search
  returns, relevant or not): S += ``strength_step``, last recall day = day(t).
* **Forgetting pass**: the source forgets when it loads the memory, once per session
  (``initial_load_forget_and_save``, run when the user logs in), dated today.  Here a pass
  runs at the first step of each new day, decided on the memory as it stood before that
  step (the arrival of that step is not in it): for each cached memory in increasing key
  order, one uniform draw u from the run's seed; the memory is forgotten when u > R.
  The forgotten memories leave at that step's ``delete`` (the model deletes only after
  the arrival, docs/model.md §1.5), all of them (``repeat_delete``), smallest key first;
  so a memory forgotten that day can still be retrieved by that one step's query.
* **Capacity** (ours: the source has none): always admit; an arrival into a full cache
  evicts a memory forgotten in today's pass if any (smallest key), else the memory of
  lowest retention now, ties to the older admission, then the smaller key.  With a budget
  the same rule names each further victim among the items left (sizes play no part).

Without times each step is ``step_seconds`` (default 86400: one step a day).
"""

import numpy as np

from simulator import rng
from simulator.config import njit
from simulator.policies.base import Traits, admission_steps
from simulator.policies.parts.step_clock import DAY, check_step_seconds, clock_of, seconds_at

FORGET_SALT = 0xEB81A5  # the forgetting draws' stream, apart from every other stream of a run

# cfg fields
_STEP_SECONDS, _S_INIT, _S_STEP, _DIVISOR, _PASS_DAY, _LAST_T = range(6)
# The state tuple's fields by position (base.py: named state)
_CFG = 0  # the settings above, then the day of the last pass and the last step seen
_CLOCK = 1  # the trace's step times (empty: none)
_KEY = 2  # per slot: the cached key, -1 free
_STRENGTH = 3  # per slot: S
_RECALL_DAY = 4  # per slot: the day of its last recall (or of its writing)
_FORGOTTEN = 5  # per slot: 1 when today's pass forgot it
_STREAM = 6  # the forgetting draws


def params_for(shipped: bool) -> dict:
    """The documented parameters: ``divisor`` only for the shipped curve."""
    out = {"strength_init": 1.0, "strength_step": 1.0, "step_seconds": DAY}
    if shipped:
        out["divisor"] = 5.0
    return out


def check(p: dict) -> str | None:
    """A problem sentence for bad parameters, or None."""
    if not p["strength_init"] > 0:
        return f"parameter 'strength_init' must be > 0, got {p['strength_init']}"
    if not p["strength_step"] >= 0:
        return f"parameter 'strength_step' must be >= 0, got {p['strength_step']}"
    if "divisor" in p and not p["divisor"] > 0:
        return f"parameter 'divisor' must be > 0, got {p['divisor']}"
    return check_step_seconds(p)


TRAITS = Traits(randomized=True)


def new_state(ctx) -> tuple:
    p = ctx.params
    cfg = np.array([p["step_seconds"], p["strength_init"], p["strength_step"],
                    p.get("divisor", 0.0), -np.inf, -1.0])
    slots = ctx.slots
    return (cfg, clock_of(ctx.times), np.full(slots, -1, np.int64),
            np.zeros(slots), np.zeros(slots), np.zeros(slots, np.int8),
            rng.new_stream(ctx.seed, FORGET_SALT))


@njit
def retention(days, strength, divisor):
    """R after ``days`` whole days at strength S: the paper's curve when ``divisor`` is 0,
    else the shipped ``exp(-t / divisor*S)`` in Python's reading."""
    if divisor == 0.0:
        return np.exp(-days / strength)
    return np.exp(-days / divisor * strength)


@njit
def _day(state, t):
    cfg = state[_CFG]
    return np.floor(seconds_at(state[_CLOCK], cfg[_STEP_SECONDS], t) / DAY)


@njit
def _begin(state, t):
    """At the first hook of a step: the pass, if this step opens a new day."""
    cfg = state[_CFG]
    if t <= cfg[_LAST_T]:
        return
    cfg[_LAST_T] = t
    today = _day(state, t)
    if today <= cfg[_PASS_DAY]:
        return
    cfg[_PASS_DAY] = today
    keys = state[_KEY]
    for s in np.argsort(keys):  # increasing key order; free slots (-1) come first
        if keys[s] < 0:
            continue
        r = retention(today - state[_RECALL_DAY][s], state[_STRENGTH][s], cfg[_DIVISOR])
        if rng.uniform(state[_STREAM]) > r:
            state[_FORGOTTEN][s] = 1


@njit
def on_hit(state, slot, t, relevant):
    _begin(state, t)
    state[_STRENGTH][slot] += state[_CFG][_S_STEP]
    state[_RECALL_DAY][slot] = _day(state, t)


@njit
def on_feedback(state, t, loss, quality):
    _begin(state, t)


@njit
def on_insert(state, slot, key, t):
    state[_KEY][slot] = key
    state[_STRENGTH][slot] = state[_CFG][_S_INIT]
    state[_RECALL_DAY][slot] = _day(state, t)
    state[_FORGOTTEN][slot] = 0


@njit
def on_evict(state, slot, key, t):
    state[_KEY][slot] = -1
    state[_FORGOTTEN][slot] = 0


@njit
def _first_forgotten(state):
    keys, gone = state[_KEY], state[_FORGOTTEN]
    best = -1
    for s in range(keys.shape[0]):
        if keys[s] >= 0 and gone[s] == 1 and (best < 0 or keys[s] < keys[best]):
            best = s
    return best


@njit
def victim(state, t, key, x, cache):
    _begin(state, t)
    s = _first_forgotten(state)
    if s >= 0:
        return s
    cfg, keys, adm = state[_CFG], state[_KEY], admission_steps(cache)
    today = _day(state, t)
    best, best_r = -1, 0.0
    for s in range(keys.shape[0]):
        if keys[s] < 0:
            continue
        r = retention(today - state[_RECALL_DAY][s], state[_STRENGTH][s], cfg[_DIVISOR])
        if best < 0 or r < best_r or (r == best_r and (
                adm[s] < adm[best] or (adm[s] == adm[best] and keys[s] < keys[best]))):
            best, best_r = s, r
    return best


@njit
def delete(state, t, cache):
    _begin(state, t)
    return _first_forgotten(state)
