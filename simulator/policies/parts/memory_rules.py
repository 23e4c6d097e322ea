"""Addition and deletion rules of the memory-management study (Xiong et al.), shared by
``fixed``, ``add_all``, ``strict``, ``coarse``, ``periodic``, ``history`` and ``combined``.

Not a policy by itself.  A record's *utility* is read from the steps that retrieved it
("future task evaluations as free quality labels"): each retrieval into R_t counts, and it
is a good one when the record was relevant to step t.  On the ``agent`` workload every
record retrieved for an execution the evaluator accepts is relevant, so a record's mean
utility is the acceptance rate of the executions that followed it; on topic workloads it
is how often the record answered the queries that retrieved it.

Rules (t = step; K = capacity):

* **warm-up** (``warmup``, default 0): steps t < warmup stream an initial memory; every
  arrival is admitted, retrievals and feedback are ignored, nothing is deleted.  The
  ``agent`` workload sets it to its ``init_size`` (its unscored prefix).
* **addition** (``addition``): ``"all"``; ``"none"`` (``fixed``); ``"strict"`` — admit
  e_t iff step t's own feedback says quality_t = 1 (on ``agent``: the evaluator accepted
  execution t; on topic workloads at ``quality=hit``: a hit); ``"coarse"`` — a noisy
  judge re-reads the same feedback: it passes when quality_t ≥ ``threshold``, then a pass
  turns into a fail with probability ``false_negative`` and a fail into a pass with
  probability ``false_positive`` (one draw per step after warm-up, from the run's seed).
  Feedback that has not arrived when e_t is decided (SimPy ``feedback_delay``) is no
  verdict, so e_t is not admitted by the gated rules.
* **history deletion** (the paper's code, ``find_worst_memory``): after each
  decision, delete the record of lowest mean utility among those retrieved at least
  ``min_retrievals`` times whose mean utility is below ``beta`` (ties: older admission,
  then smaller key).
* **periodic deletion** (the paper's ``find_dead_memory2``): every ``period`` steps a
  sweep starts; while it runs, each step deletes the oldest record admitted at least
  ``stale_after`` steps ago and retrieved fewer than ``min_uses`` times in the last
  ``stale_after`` steps, until none is left.  (Engines delete at most one record a step.)
* deletions never shrink the memory below ``min_size`` records (history before periodic).
* **capacity**: an admission into a full memory evicts the least useful record: lowest
  (good retrievals + 1) / (retrievals + 2), the mean utility under a uniform prior, ties to
  the older admission, then the smaller key.  An untested record counts as 1/2, so records
  proven useful outlive new ones (the paper's code ranks untested records first, which on
  ``agent`` replaces the well-tested initial memory by fresh, noisier executions).  So a
  strategy run with capacity K is its "under a capacity limit" variant.

**Sizes** (docs/model.md §1.8, §2.5; ours, the study counts records): a record's size plays
no part in any rule.  The addition rules judge step t's feedback, never the size (and the
judge draws once a step either way); an arrival larger than the budget is not offered.
An admission that needs room evicts the least useful record, then the next least useful
of those left, until the arrival fits: utilities do not change within a step, so the
victims are the first of one ranking by (mean utility under the prior, admission, key).
Deletions remove one record a step whatever its size, and ``min_size`` counts records.

Defaults: ``threshold`` 0.5, ``false_positive`` 0.2, ``false_negative`` 0 (the judge);
``min_retrievals`` 5, ``beta`` 0.4 (history); ``period`` 100, ``stale_after`` 500,
``min_uses`` 1 (periodic, the paper's window and count); ``min_size`` 1.
"""

import numpy as np

from simulator import rng
from simulator.config import njit
from simulator.policies.base import Traits, admission_steps, cached_count, slot_keys

ADDITIONS = ("none", "all", "strict", "coarse")
JUDGE = {"threshold": 0.5, "false_positive": 0.2, "false_negative": 0.0}
HISTORY = {"min_retrievals": 5, "beta": 0.4}
PERIODIC = {"period": 100, "stale_after": 500, "min_uses": 1}
_SALT = 0xC0A25E  # the judge's random stream, apart from every other stream of a run
# cfg slots: fixed settings, then the mutable feedback and sweep flags
(_WARMUP, _ADD, _THRESHOLD, _FP, _FN, _HIST, _MINRET, _BETA, _PERIOD, _STALE, _MINSIZE,
 _FB_STEP, _FB_PASS, _SWEEP) = range(14)


def params_for(addition: bool = False, history: bool = False, periodic: bool = False) -> dict:
    """The documented parameters (with defaults) of a strategy made of these rules."""
    out = {"warmup": 0}
    if addition:
        out.update(addition="strict", **JUDGE)
    if history:
        out.update(HISTORY)
    if periodic:
        out.update(PERIODIC)
    if history or periodic:
        out["min_size"] = 1
    return out


def check(p: dict) -> str | None:
    """A problem sentence for bad rule parameters, or None."""
    if p["warmup"] < 0:
        return f"parameter 'warmup' must be >= 0, got {p['warmup']}"
    if p.get("addition", "strict") not in ADDITIONS[1:]:
        return (f"parameter 'addition' must be one of all, strict, coarse, "
                f"got {p['addition']!r}")
    for name in ("threshold", "false_positive", "false_negative", "beta"):
        if name in p and not 0.0 <= p[name] <= 1.0:
            return f"parameter '{name}' must be in [0, 1], got {p[name]}"
    for name in ("min_retrievals", "period", "stale_after", "min_uses", "min_size"):
        if name in p and p[name] < 1:
            return f"parameter '{name}' must be >= 1, got {p[name]}"
    return None


def traits(p: dict, addition: str | None = None):
    """A strategy's declared traits: it draws from the seed only through a judge that can
    err (``addition`` — the parameter unless given — is ``"coarse"`` with a false-positive
    or false-negative rate above 0)."""
    judged = (addition or p.get("addition")) == "coarse"
    return Traits(randomized=judged and (p["false_positive"] > 0 or p["false_negative"] > 0))


def state_bytes(p: dict, slots: int, n_keys: int) -> int:
    """Rough bytes of :func:`new_state`: a ring of ``min_uses`` steps per slot."""
    return 8 * slots * (int(p.get("min_uses", PERIODIC["min_uses"])) + 4)


# The state tuple's fields by position, read as state[NAME] (base.py: named state)
_CFG = 0  # the settings and flags above (float64)
_RETRIEVALS = 1  # per slot: the retrievals since admission
_GOOD = 2  # per slot: those that were relevant
_LAST_USES = 3  # per slot: the steps of its last min_uses retrievals, a ring (-1: none)
_RING_POS = 4  # per slot: where the ring writes next
_STREAM = 5  # the coarse judge's random stream


def new_state(ctx, addition: str) -> tuple:
    """(cfg, retrievals, good retrievals, last ``min_uses`` retrieval steps, ring position,
    judge stream) for ``ctx.capacity`` slots; ``addition`` overrides the parameter."""
    p = {**JUDGE, **HISTORY, **PERIODIC, "min_size": 1, **ctx.params}
    history = "beta" in ctx.params
    period = ctx.params["period"] if "period" in ctx.params else 0
    cfg = np.array([p["warmup"], ADDITIONS.index(addition), p["threshold"],
                    p["false_positive"], p["false_negative"], float(history),
                    p["min_retrievals"], p["beta"], period, p["stale_after"], p["min_size"],
                    -1.0, 0.0, 0.0])
    slots, uses = ctx.slots, int(p["min_uses"])
    return (cfg, np.zeros(slots, np.int64), np.zeros(slots, np.int64),
            np.full((slots, uses), -1, np.int64), np.zeros(slots, np.int64),
            rng.new_stream(ctx.seed, _SALT))


@njit
def on_hit(state, slot, t, relevant):
    cfg, n_ret, n_good = state[_CFG], state[_RETRIEVALS], state[_GOOD]
    last, pos = state[_LAST_USES], state[_RING_POS]
    if t < cfg[_WARMUP]:
        return
    n_ret[slot] += 1
    if relevant:
        n_good[slot] += 1
    last[slot, pos[slot]] = t
    pos[slot] = (pos[slot] + 1) % last.shape[1]


@njit
def on_feedback(state, t, loss, quality):
    cfg = state[_CFG]
    if t < cfg[_WARMUP]:
        return
    passed = quality >= (1.0 if cfg[_ADD] != 3 else cfg[_THRESHOLD])
    if cfg[_ADD] == 3:  # the coarse judge: one draw per step, whatever the verdict
        u = rng.uniform(state[_STREAM])
        passed = u >= cfg[_FN] if passed else u < cfg[_FP]
    cfg[_FB_STEP] = t
    cfg[_FB_PASS] = 1.0 if passed else 0.0


@njit
def admit(state, t, key, x, cache):
    cfg = state[_CFG]
    if t < cfg[_WARMUP] or cfg[_ADD] == 1:
        return True
    if cfg[_ADD] == 0:
        return False
    return cfg[_FB_STEP] == t and cfg[_FB_PASS] == 1.0  # step t's own verdict only


@njit
def on_insert(state, slot, key, t):
    state[_RETRIEVALS][slot] = 0
    state[_GOOD][slot] = 0
    state[_LAST_USES][slot, :] = -1
    state[_RING_POS][slot] = 0


@njit
def _lower_mean(a, b, n_ret, n_good):
    """Is the mean utility of slot ``a`` below that of ``b``?  (both retrieved)"""
    return n_good[a] * n_ret[b] < n_good[b] * n_ret[a]


@njit
def _before(a, b, slot_key, slot_adm):
    """Tie-break: the older admission, then the smaller key."""
    if slot_adm[a] != slot_adm[b]:
        return slot_adm[a] < slot_adm[b]
    return slot_key[a] < slot_key[b]


@njit
def victim(state, t, key, x, cache):
    """The least useful cached record: lowest (good + 1) / (retrievals + 2)."""
    slot_key, slot_adm = slot_keys(cache), admission_steps(cache)
    n_ret, n_good = state[_RETRIEVALS], state[_GOOD]
    best = -1
    for s in range(slot_key.shape[0]):
        if slot_key[s] < 0:
            continue
        if best < 0:
            best = s
            continue
        lhs = (n_good[s] + 1) * (n_ret[best] + 2)
        rhs = (n_good[best] + 1) * (n_ret[s] + 2)
        if lhs < rhs or (lhs == rhs and _before(s, best, slot_key, slot_adm)):
            best = s
    return best


@njit
def _worst_history(cfg, n_ret, n_good, slot_key, slot_adm):
    best = -1
    for s in range(slot_key.shape[0]):
        if slot_key[s] < 0 or n_ret[s] < cfg[_MINRET] or not n_good[s] / n_ret[s] < cfg[_BETA]:
            continue  # (the float mean, so 2/5 is not below beta = 0.4)
        if best < 0 or _lower_mean(s, best, n_ret, n_good) or (
                not _lower_mean(best, s, n_ret, n_good)
                and _before(s, best, slot_key, slot_adm)):
            best = s
    return best


@njit
def _oldest_stale(cfg, last, pos, t, slot_key, slot_adm):
    best = -1
    window = cfg[_STALE]
    for s in range(slot_key.shape[0]):
        if slot_key[s] < 0 or t - slot_adm[s] < window:
            continue
        if last[s, pos[s]] > t - window:  # its min_uses-th latest retrieval is recent
            continue
        if best < 0 or _before(s, best, slot_key, slot_adm):
            best = s
    return best


@njit
def delete(state, t, cache):
    cfg = state[_CFG]
    slot_key, slot_adm = slot_keys(cache), admission_steps(cache)
    if t < cfg[_WARMUP]:
        return -1
    if cfg[_PERIOD] > 0 and t % cfg[_PERIOD] == 0:
        cfg[_SWEEP] = 1.0
    if cached_count(cache) <= cfg[_MINSIZE]:
        return -1
    if cfg[_HIST] == 1.0:
        s = _worst_history(cfg, state[_RETRIEVALS], state[_GOOD], slot_key, slot_adm)
        if s >= 0:
            return s
    if cfg[_SWEEP] == 1.0:
        s = _oldest_stale(cfg, state[_LAST_USES], state[_RING_POS], t, slot_key, slot_adm)
        if s >= 0:
            return s
        cfg[_SWEEP] = 0.0
    return -1
