"""Generative Agents' retrieval score as an eviction rule: evict the lowest score.

Park et al., "Generative Agents: Interactive Simulacra of Human Behavior" (UIST 2023),
§4.1: a memory's score is recency + importance + relevance, each min-max normalised to
[0, 1] over the candidate memories; recency decays exponentially, by 0.995 per game hour
since the memory was last retrieved.  Code: joonspk-research/generative_agents,
``reverie/backend_server/persona/cognitive_modules/retrieve.py`` at commit
51072d422e28abb7cd3fdf2b92f1d6e90a7cced8 (``new_retrieve``): score =
recency_w·gw[0]·recency + relevance_w·gw[1]·relevance + importance_w·gw[2]·importance with
``gw = [0.5, 3, 2]`` and ``recency_w = relevance_w = importance_w = 1``
(``persona/memory_structures/scratch.py``; the paper sets every weight to 1);
``normalize_dict_floats`` maps every value to 0.5 when all are equal; the retrieved nodes'
``last_accessed`` becomes the current time.

What the code does differently from the paper, found there: its recency is not by hours.
``extract_recency`` gives the i-th node (i = 1, 2, ...) of the memories sorted by
``last_accessed`` *ascending* the value ``recency_decay ** i``: a rank, not a time, and
the least recently accessed memory gets the largest recency.  ``recency="rank"`` runs
that; ``recency="hours"`` (the default) runs the paper's decay^(hours since last access).
``recency_decay`` is 0.995 as in the paper and in the shipped personas' ``scratch.json``
(the ``Scratch`` class default, overridden there, is 0.99).

As an eviction rule (ours; the source never deletes a memory): always admit; an arrival
into a full cache evicts the cached item of lowest score, ties to the older admission,
then the smaller key.  The components, over the cached items:

* recency: ``recency_decay`` ** (hours since the item was admitted or last retrieved
  into some R_t), or, with ``recency="rank"``, ** (its 1-based place in the order of last
  access, oldest first; equal times by admission);
* relevance: the cosine (float32, docs/model.md §1.2) of the item to the *arriving* item.
  The source scores relevance to the agent's current focal point, the event it just
  perceived; the hooks see no query, and the arrival is that step's new content, so it
  stands in for the focal point (ours);
* importance: the source asks the LLM for a poignancy of 1 to 10 when a memory is
  written.  A policy sees neither that nor the trace's weights, so the stand-in is
  1 − quality_t of the step that brought the item: new content the memory could not
  answer that step's query without (1 on a miss at ``quality=hit``; 0 when the feedback
  had not arrived; ours).  Not the miss cost ℓ_t = w_t·(1 − quality_t): a rule that is
  not regret-gated must not change its decisions with the miss cost (docs/model.md
  §2.4), and w_t reaches a policy only through ℓ_t.

Each component is min-max normalised over the cached items (all equal: 0.5 each, as the
source) and the score is w_recency·recency + w_relevance·relevance + w_importance·importance,
in that order.  With a budget each further victim is scored afresh over the items left.

Time unit: hours.  Parameters: ``recency_decay`` (0.995), ``w_recency`` (0.5),
``w_relevance`` (3.0), ``w_importance`` (2.0), ``recency`` ("hours"), ``step_seconds``
(3600: without times in the trace, one step is one hour).
"""

import numpy as np

from simulator.config import njit
from simulator.engine.kernels import dot
from simulator.policies.base import Policy, admission_steps, slot_keys, slot_vectors
from simulator.policies.parts.step_clock import HOUR, check_step_seconds, clock_of, seconds_at

RECENCY = ("hours", "rank")
PARAMS = {"recency_decay": 0.995, "w_recency": 0.5, "w_relevance": 3.0,
          "w_importance": 2.0, "recency": "hours", "step_seconds": HOUR}

# cfg fields
(_STEP_SECONDS, _DECAY, _W_REC, _W_REL, _W_IMP, _RANK, _FB_STEP, _FB_QUALITY) = range(8)
# The state tuple's fields by position (base.py: named state)
_CFG = 0  # the settings above, then the step and quality of the latest feedback
_CLOCK = 1  # the trace's step times (empty: none)
_ACCESS = 2  # per slot: the time (seconds) of its admission or last retrieval
_IMPORTANCE = 3  # per slot: 1 - quality of the step that brought it
_SCORE = 4  # [3, slots] scratch: recency, relevance, importance of the cached items


def _check(p: dict) -> str | None:
    if not 0.0 < p["recency_decay"] <= 1.0:
        return f"parameter 'recency_decay' must be in (0, 1], got {p['recency_decay']}"
    for name in ("w_recency", "w_relevance", "w_importance"):
        if not p[name] >= 0:
            return f"parameter '{name}' must be >= 0, got {p[name]}"
    if p["recency"] not in RECENCY:
        return f"parameter 'recency' must be 'hours' or 'rank', got {p['recency']!r}"
    return check_step_seconds(p)


def _init(ctx):
    p = ctx.params
    cfg = np.array([p["step_seconds"], p["recency_decay"], p["w_recency"], p["w_relevance"],
                    p["w_importance"], float(p["recency"] == "rank"), -1.0, 0.0])
    return (cfg, clock_of(ctx.times), np.zeros(ctx.slots),
            np.zeros(ctx.slots), np.zeros((3, ctx.slots)))


@njit
def _now(state, t):
    return seconds_at(state[_CLOCK], state[_CFG][_STEP_SECONDS], t)


@njit
def _on_hit(state, slot, t, relevant):
    state[_ACCESS][slot] = _now(state, t)


@njit
def _on_feedback(state, t, loss, quality):
    state[_CFG][_FB_STEP] = t
    state[_CFG][_FB_QUALITY] = quality


@njit
def _on_insert(state, slot, key, t):
    cfg = state[_CFG]
    state[_ACCESS][slot] = _now(state, t)
    state[_IMPORTANCE][slot] = 1.0 - cfg[_FB_QUALITY] if cfg[_FB_STEP] == t else 0.0


@njit
def _normalise(values, keys):
    """Min-max to [0, 1] over the cached slots, in place; 0.5 each when all are equal."""
    lo, hi = np.inf, -np.inf
    for s in range(keys.shape[0]):
        if keys[s] >= 0:
            lo = min(lo, values[s])
            hi = max(hi, values[s])
    for s in range(keys.shape[0]):
        if keys[s] >= 0:
            values[s] = 0.5 if hi - lo == 0 else (values[s] - lo) / (hi - lo)


@njit
def _rank_recency(state, keys, adm, out):
    """decay ** (1-based place in the order of last access, oldest first; ties: the older
    admission): the shipped ``extract_recency``."""
    decay, access = state[_CFG][_DECAY], state[_ACCESS]
    for s in range(keys.shape[0]):
        if keys[s] < 0:
            continue
        place = 1
        for o in range(keys.shape[0]):
            if keys[o] >= 0 and o != s and (access[o] < access[s] or (
                    access[o] == access[s] and adm[o] < adm[s])):
                place += 1
        out[s] = decay ** float(place)


@njit
def _victim(state, t, key, x, cache):
    cfg, keys, adm = state[_CFG], slot_keys(cache), admission_steps(cache)
    vectors, score = slot_vectors(cache), state[_SCORE]
    rec, rel, imp = score[0], score[1], score[2]
    now = _now(state, t)
    if cfg[_RANK] == 1.0:
        _rank_recency(state, keys, adm, rec)
    for s in range(keys.shape[0]):
        if keys[s] < 0:
            continue
        if cfg[_RANK] == 0.0:
            rec[s] = cfg[_DECAY] ** ((now - state[_ACCESS][s]) / HOUR)
        rel[s] = np.float64(dot(x, vectors[:, s]))
        imp[s] = state[_IMPORTANCE][s]
    _normalise(rec, keys)
    _normalise(rel, keys)
    _normalise(imp, keys)
    best, best_score = -1, 0.0
    for s in range(keys.shape[0]):
        if keys[s] < 0:
            continue
        v = cfg[_W_REC] * rec[s] + cfg[_W_REL] * rel[s] + cfg[_W_IMP] * imp[s]
        if best < 0 or v < best_score or (v == best_score and (
                adm[s] < adm[best] or (adm[s] == adm[best] and keys[s] < keys[best]))):
            best, best_score = s, v
    return best


POLICY = Policy(name="generative_agents",
                summary="evict the lowest recency + importance + relevance (Park et al.)",
                init=_init, victim=_victim, on_hit=_on_hit, on_feedback=_on_feedback,
                on_insert=_on_insert, params=PARAMS, modes=("semantic",), check_params=_check)
