"""MemoryOS's short-term queue and mid-term segments, shared by ``memoryos`` (the paper's
rule) and ``memoryos_shipped`` (the code's rule).

Not a policy by itself.  Sources: the paper, Kang et al., "Memory OS of AI Agent" (2025),
§3.2–3.3 and §4.1, as the PDF shipped in BAI-LAB/MemoryOS (``Paper-MemoryOS.pdf``); the
code, BAI-LAB/MemoryOS ``memoryos-pypi/`` at commit
1d717060350931af33d1d0dc3d4e50a72c125a48 (``short_term.py``, ``mid_term.py``,
``updater.py``, ``memoryos.py``).

How the two tiers map onto one cache of K items (ours)
-----------------------------------------------------
Every cached item is a dialogue *page*.  The ``short_term_capacity`` newest pages form the
short-term memory (STM), a FIFO; every other cached page belongs to one mid-term *segment*,
so the mid-term memory (MTM) holds at most K − ``short_term_capacity`` pages.  (The sources
bound the MTM in segments, 200 in the paper, ``mid_term_capacity=2000`` in the code, and
never in pages; a cache of K items has to bound pages.)  With K ≤ ``short_term_capacity``
there is no MTM and the rule is FIFO.

The rule, per arrival e_t (t's time: ``ctx.times[t]`` in seconds, or t · ``step_seconds``
when the trace has no times)
------------------------------------------------------------------------------------
1. **STM overflow** (``Memoryos.add_memory``, ``Updater.process_short_term_to_mid_term``):
   before e_t joins the STM, if the STM already holds ``short_term_capacity`` pages its
   oldest page moves to the MTM.
2. **Segment merge** (``MidTermMemory.insert_pages_into_session``): the moved page joins the
   segment with the best score if that score ≥ ``similarity_threshold`` (0.6), else it
   founds a new segment.  The source's score is cos(summary of the new pages, segment
   summary) + Jaccard(their keywords); our vectors carry no keywords and no summaries, so
   the score is the cosine of the page's vector with the vector of the segment's founding
   page (the code's summary embedding is set when a segment is founded and never changed
   by a merge), and the keyword term is 0, as in the code whenever either keyword set is
   empty.  Ties: the older segment (the code keeps the first best of its session dict).
   One page joins one segment (the code inserts a batch into each LLM-found theme).
3. **Eviction** when the cache is full: the MTM is over its room, so one whole segment
   leaves: every page of it is evicted, oldest admission first and the founder last (the
   first page answers ``victim``, the others ``delete``, all in this step).
   ``memoryos`` evicts the segment of lowest heat (paper §3.3: "segments with the
   lowest heat are evicted"), the code the segment of fewest visits
   (``MidTermMemory.evict_lfu``: ``min`` over ``access_frequency``, the first, i.e.
   oldest, on ties); heat ties also go to the older segment.  With no MTM the oldest STM page goes.
4. **Transfer to long-term memory** (paper §3.3, ``_trigger_profile_and_knowledge_update``):
   after an admission, the hottest segment is analysed if its heat ≥ ``heat_threshold``
   (5) and pages joined it since its last analysis: its L resets to 0 (the paper), and
   its N too in ``memoryos_shipped`` (the code); its last visit becomes now.  One segment
   per arrival, as in the code (the paper does not say how many).

**Heat** = α·N + β·L + γ·R with N the segment's visits, L its pages added since its last
transfer, R = exp(−Δt/τ) and Δt the seconds since its last visit (its founding, a merge,
a transfer or a retrieval); computed at step t (the code keeps the heat as computed at a
segment's last change).  A **visit**: a step whose R_t holds one of the segment's pages
(the code counts a search whose top segments have a page above its similarity floor); it
counts once per step and bumps N, the LFU count (the code's ``access_frequency``, which
a transfer leaves alone) and the last visit.  STM pages keep no counts.
"""

import numpy as np

from simulator.config import njit
from simulator.engine.kernels import dot
from simulator.policies.base import admission_steps, slot_keys, slot_vectors
from simulator.policies.parts.admission_order import oldest

# Defaults shared by both rules (each cited where the rule's module sets the rest).
PARAMS = {"similarity_threshold": 0.6, "alpha": 1.0, "beta": 1.0, "gamma": 1.0,
          "heat_threshold": 5.0}

# The state tuple's fields by position (base.py: named state)
_CFG = 0  # float64 settings, below
_TIMES = 1  # float64 step times (seconds), or empty
_SEG = 2  # per slot: -2 free, -1 STM page, else the founding slot of its segment
_DOOMED = 3  # per slot: 1 while its segment is being evicted
_SEGF = 4  # float64 [slot, 2]: per founding slot, visits N and last visit (seconds)
_SEGI = 5  # int64 [slot, 7]: per founding slot, the integer fields below
_META = 6  # int64: founding counter, step of the last transfer check, last insertion
# cfg fields
_STM, _THETA, _ALPHA, _BETA, _GAMMA, _TAU, _HEAT, _STEP, _LFU, _RESET_N = range(10)
# segi fields
_ALIVE, _L, _PAGES, _BORN, _VISIT_STEP = range(5)
_FRESH = 5  # segi: pages added since the last transfer (the code's "analyzed" flags)
_COUNT = 6  # segi: visits ever, the code's ``access_frequency`` (a transfer keeps it)
_N, _LAST = 0, 1  # segf fields


def check(p: dict) -> str | None:
    """A problem sentence for bad parameters, or None."""
    if p["short_term_capacity"] < 1:
        return f"parameter 'short_term_capacity' must be >= 1, got {p['short_term_capacity']}"
    for name in ("tau_seconds", "step_seconds"):
        if not p[name] > 0:
            return f"parameter '{name}' must be > 0 (seconds), got {p[name]}"
    if not -1.0 <= p["similarity_threshold"] <= 2.0:
        return ("parameter 'similarity_threshold' must be in [-1, 2] (a cosine, plus the "
                f"source's keyword term), got {p['similarity_threshold']}")
    for name in ("alpha", "beta", "gamma"):
        if p[name] < 0:
            return f"parameter '{name}' must be >= 0, got {p[name]}"
    return None


def new_state(ctx, lfu: bool, reset_visits: bool):
    """The state for one run; ``lfu`` picks the code's eviction, ``reset_visits`` the
    code's transfer (N reset with L)."""
    p = ctx.params
    cfg = np.array([p["short_term_capacity"], p["similarity_threshold"], p["alpha"],
                    p["beta"], p["gamma"], p["tau_seconds"], p["heat_threshold"],
                    p["step_seconds"], float(lfu), float(reset_visits)], np.float64)
    times = np.zeros(0, np.float64) if ctx.times is None else np.asarray(ctx.times, np.float64)
    n = ctx.slots
    segi = np.zeros((n, 7), np.int64)
    return (cfg, times, np.full(n, -2, np.int64), np.zeros(n, np.int64),
            np.zeros((n, 2), np.float64), segi, np.array([0, -1, -1], np.int64))


@njit
def _now(state, t):
    times = state[_TIMES]
    if times.shape[0] > 0:
        return times[t]
    return t * state[_CFG][_STEP]


@njit
def heat(state, f, now):
    """Segment ``f``'s heat at time ``now`` (seconds)."""
    cfg, segf = state[_CFG], state[_SEGF]
    recency = np.exp(-(now - segf[f, _LAST]) / cfg[_TAU])
    return cfg[_ALPHA] * segf[f, _N] + cfg[_BETA] * state[_SEGI][f, _L] + cfg[_GAMMA] * recency


@njit
def _live(state, f):
    return state[_SEGI][f, _ALIVE] == 1 and state[_DOOMED][f] == 0


@njit
def _move_oldest(state, t, cache):
    """Step 1–2: the oldest STM page joins the best segment or founds one."""
    seg, keys, adm = state[_SEG], slot_keys(cache), admission_steps(cache)
    n_stm, oldest = 0, -1
    for s in range(seg.shape[0]):
        if keys[s] >= 0 and seg[s] == -1:
            n_stm += 1
            if oldest < 0 or adm[s] < adm[oldest]:
                oldest = s
    if n_stm < state[_CFG][_STM]:
        return
    vecs, segi, segf = slot_vectors(cache), state[_SEGI], state[_SEGF]
    now = _now(state, t)
    best, best_score = -1, -np.inf
    for f in range(seg.shape[0]):
        if _live(state, f):
            score = dot(vecs[:, oldest], vecs[:, f])
            if score > best_score or (score == best_score and segi[f, _BORN] < segi[best, _BORN]):
                best, best_score = f, score
    if best >= 0 and best_score >= state[_CFG][_THETA]:
        seg[oldest] = best
    else:
        best = oldest
        seg[best] = best
        segi[best, _ALIVE] = 1
        segi[best, _L] = 0
        segi[best, _PAGES] = 0
        segi[best, _FRESH] = 0
        segi[best, _BORN] = state[_META][0]
        segi[best, _VISIT_STEP] = -1
        segi[best, _COUNT] = 0
        segf[best, _N] = 0.0
        state[_META][0] += 1
    segi[best, _L] += 1
    segi[best, _PAGES] += 1
    segi[best, _FRESH] += 1
    segf[best, _LAST] = now


@njit
def admit(state, t, key, x, cache):
    """Always admit; first the STM overflow (steps 1–2)."""
    _move_oldest(state, t, cache)
    return True


@njit
def _doomed_slot(state, cache):
    """A page of the segment being evicted, the oldest admission first and its founder
    last; -1 if none."""
    seg, doomed, keys, adm = state[_SEG], state[_DOOMED], slot_keys(cache), admission_steps(cache)
    pick, founder = -1, -1
    for s in range(seg.shape[0]):
        if keys[s] >= 0 and doomed[s] == 1:
            if seg[s] == s:
                founder = s
            elif pick < 0 or adm[s] < adm[pick]:
                pick = s
    return pick if pick >= 0 else founder


@njit
def victim(state, t, key, x, cache):
    """Step 3: a page of the segment being evicted; else the coldest segment (heat or
    visits) starts going; with no MTM, the oldest STM page."""
    s = _doomed_slot(state, cache)
    if s >= 0:
        return s
    seg, segi, cfg = state[_SEG], state[_SEGI], state[_CFG]
    now = _now(state, t)
    pick, pick_score = -1, np.inf
    for f in range(seg.shape[0]):
        if _live(state, f):
            score = float(segi[f, _COUNT]) if cfg[_LFU] == 1.0 else heat(state, f, now)
            if score < pick_score or (score == pick_score and segi[f, _BORN] < segi[pick, _BORN]):
                pick, pick_score = f, score
    if pick >= 0:
        for s in range(seg.shape[0]):
            if seg[s] == pick:
                state[_DOOMED][s] = 1
        return _doomed_slot(state, cache)
    return oldest(cache)


@njit
def on_hit(state, slot, t, relevant):
    f = state[_SEG][slot]
    segi = state[_SEGI]
    if f >= 0 and segi[f, _VISIT_STEP] != t:
        segi[f, _VISIT_STEP] = t
        segi[f, _COUNT] += 1
        state[_SEGF][f, _N] += 1.0
        state[_SEGF][f, _LAST] = _now(state, t)


@njit
def on_insert(state, slot, key, t):
    state[_SEG][slot] = -1
    state[_DOOMED][slot] = 0
    state[_META][2] = t


@njit
def on_evict(state, slot, key, t):
    seg = state[_SEG]
    f = seg[slot]
    if f >= 0:
        state[_SEGI][f, _PAGES] -= 1
        if f == slot:
            state[_SEGI][f, _ALIVE] = 0
            # a segment leaves whole: if its founder goes first (a removal the rule did
            # not choose), the rest of it follows
            for s in range(seg.shape[0]):
                if seg[s] == f and s != slot:
                    state[_DOOMED][s] = 1
    seg[slot] = -2
    state[_DOOMED][slot] = 0


@njit
def _transfer(state, t):
    """Step 4: the hottest segment at or above the threshold, with pages not analysed."""
    seg, segi, segf, cfg = state[_SEG], state[_SEGI], state[_SEGF], state[_CFG]
    now = _now(state, t)
    hot, hot_heat = -1, -np.inf
    for f in range(seg.shape[0]):
        if _live(state, f):
            h = heat(state, f, now)
            if h > hot_heat or (h == hot_heat and segi[f, _BORN] < segi[hot, _BORN]):
                hot, hot_heat = f, h
    if hot >= 0 and hot_heat >= cfg[_HEAT] and segi[hot, _FRESH] > 0:
        segi[hot, _L] = 0
        segi[hot, _FRESH] = 0
        if cfg[_RESET_N] == 1.0:
            segf[hot, _N] = 0.0
        segf[hot, _LAST] = now


@njit
def delete(state, t, cache):
    """After an admission, the transfer check (once a step); then the rest of a segment
    being evicted, one page per call."""
    meta = state[_META]
    if meta[2] == t and meta[1] != t:
        meta[1] = t
        _transfer(state, t)
    return _doomed_slot(state, cache)
