"""Zep / Graphiti: a superseded fact is invalidated, never deleted; a filtered search skips it.

Rule, per step t (docs/model.md §1.5, §1.9):

* **admit**: always (Graphiti adds every extracted edge).
* **invalidate** (after the arrival, several at once: ``repeat_delete``): an invalidated
  item leaves what retrieval sees, which in our model is a deletion (each one an
  eviction; the step counts once in N).  Invalidated at step t, in this order:

  1. the item that the log says the arrival supersedes (``ctx.supersedes[t]``, the events
     field ``supersedes``), when ``log_supersedes`` (True) and that item is cached and is
     not the arrival itself;
  2. when ``contradiction_similarity`` is a number and e_t was admitted: of the
     ``candidates`` (10) cached items most similar to e_t (cosine, then the earlier
     admission, then the smaller key), each whose cosine is at least
     ``contradiction_similarity`` and whose time is strictly earlier than step t's
     (``ctx.times``; without times, the step order), most similar first.

* **full cache** (ours; Graphiti has no capacity): evict the oldest admission.

Rule 2 is our surrogate of an LLM call, not Graphiti: Graphiti shows the LLM the new fact
and up to 10 candidates found by a hybrid (BM25 and cosine) search, and the LLM names the
*contradicted* ones.  It is off by default (None) because similarity cannot tell a
contradiction from a duplicate or a paraphrase, which the same prompt keeps apart
(``duplicate_facts``): a threshold would invalidate restatements as often as changes.  A
log that records contradictions (``supersedes``) is the faithful input.  The time test is
Graphiti's: a new edge invalidates an old one only if the old one became valid strictly
earlier, so two facts of the same time never invalidate each other; only the order of
times matters, so the rule has no time unit.

Source, read at getzep/graphiti commit 993e081a6d7948a0d8851c12a5fbdbeb49fed862:
``graphiti_core/utils/maintenance/edge_operations.py`` (``resolve_extracted_edges``: the
invalidation candidates come from ``search(..., config=EDGE_HYBRID_SEARCH_RRF)``, limit
``DEFAULT_SEARCH_LIMIT`` = 10 in ``search/search_config.py``; ``resolve_extracted_edge``
reads the LLM's ``contradicted_facts``; ``resolve_edge_contradictions`` sets
``invalid_at`` and ``expired_at`` on an older contradicted edge and deletes nothing).
Capacity: Graphiti keeps invalidated edges in the graph, so its store only grows; in our
bounded buffer an invalidated item takes no slot (it is deleted from the retrievable
cache).  Retrieval: Graphiti's ``search`` passes ``SearchFilters()`` unless the caller
gives one, and the default filter does not test ``invalid_at`` or ``expired_at``
(``search/search_filters.py``): invalidated edges come back, marked, unless the caller
filters them out (``ComparisonOperator.is_null``).  ``zep`` models a caller that does, the
temporal memory the Zep paper describes; run ``fifo`` for one that does not (the same
admissions and evictions with nothing invalidated).

Left out: entities, episodes and the graph's edges between them (the related-edge search
of the same entity pair), the LLM's judgement (rule 2), BM25 and the cosine half's floor
(``sim_min_score``, ``DEFAULT_MIN_SCORE`` = 0.6 in ``search/search_utils.py``: below it a
candidate here is one only BM25 would find there), and a new edge that arrives
older than the edge it contradicts (Graphiti then expires the new one; online, arrivals
come in time order).  Sizes (§1.8): an admission evicts the oldest until the arrival fits.

>>> from simulator.policies import REGISTRY
>>> REGISTRY["zep"].params
{'log_supersedes': True, 'contradiction_similarity': None, 'candidates': 10}
"""

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy, admission_steps, slot_keys
from simulator.policies.parts.admission_order import oldest
from simulator.policies.parts.append_only import cosines, scratch

PARAMS = {"log_supersedes": True, "contradiction_similarity": None, "candidates": 10}

# The fields of the state tuple, by position (base.py says why)
_CFG = 0  # the settings, then what the current step has told so far
_X = 1  # the vector of the item admit() was last asked about (float32, [dim])
_SIMS = 2  # scratch: the arrival's cosine to every slot (float32, [slots])
_SUPERSEDES = 3  # ctx.supersedes (int64, [T]; empty without it or with log_supersedes off)
_TIMES = 4  # ctx.times (float64, [T]; empty without it: the step order stands in)
_QUEUE = 5  # the slots to invalidate at the current step, in order (int64, [slots])
(_SURROGATE, _THRESHOLD, _CANDIDATES, _STEP, _ARRIVAL_KEY, _INSERTED_SLOT, _HEAD,
 _LENGTH) = range(8)


def _check(p: dict) -> str | None:
    c = p["contradiction_similarity"]
    if c is not None and not -1.0 <= c <= 1.0:
        return (f"parameter 'contradiction_similarity' must be in [-1, 1], or none to leave "
                f"the surrogate off, got {c}")
    if p["candidates"] < 1:
        return f"parameter 'candidates' must be >= 1, got {p['candidates']}"
    return None


def _init(ctx):
    p = ctx.params
    supersedes, times = ctx.supersedes, ctx.times
    threshold = p["contradiction_similarity"]
    cfg = np.array([float(threshold is not None),
                    0.0 if threshold is None else threshold, p["candidates"],
                    -1.0, -1.0, -1.0, 0.0, 0.0])
    x, sims = scratch(ctx)
    log = supersedes if supersedes is not None and p["log_supersedes"] else None
    return (cfg, x, sims,
            np.zeros(0, np.int64) if log is None else np.asarray(log, np.int64),
            np.zeros(0, np.float64) if times is None else np.asarray(times, np.float64),
            np.zeros(ctx.slots, np.int64))


@njit
def _begin(cfg, t):
    """First news of step t: forget what the previous step told."""
    if cfg[_STEP] != t:
        cfg[_STEP] = t
        cfg[_ARRIVAL_KEY] = -1.0
        cfg[_INSERTED_SLOT] = -1.0
        cfg[_HEAD] = -1.0  # the queue is not built yet
        cfg[_LENGTH] = 0.0


@njit
def _admit(state, t, key, x, cache):
    _begin(state[_CFG], t)
    state[_CFG][_ARRIVAL_KEY] = key
    state[_X][:] = x
    return True


@njit
def _on_rearrival(state, slot, t):
    _begin(state[_CFG], t)
    state[_CFG][_INSERTED_SLOT] = -2.0 - slot  # the arrival's slot, marked not inserted


@njit
def _on_insert(state, slot, key, t):
    _begin(state[_CFG], t)
    state[_CFG][_INSERTED_SLOT] = slot


@njit
def _victim(state, t, key, x, cache):
    return oldest(cache)


@njit
def _earlier(times, adm, t):
    """Did the item admitted at step ``adm`` become valid strictly before step t?"""
    if times.shape[0] == 0:
        return adm < t
    return times[adm] < times[t]


@njit
def _build_queue(state, t, cache):
    cfg, queue = state[_CFG], state[_QUEUE]
    slot_key, slot_adm = slot_keys(cache), admission_steps(cache)
    marked = int(cfg[_INSERTED_SLOT])
    arrival = marked if marked >= 0 else (-2 - marked if marked <= -2 else -1)
    n = 0
    log = state[_SUPERSEDES]
    if log.shape[0] > t and log[t] >= 0 and log[t] != cfg[_ARRIVAL_KEY]:
        for s in range(slot_key.shape[0]):
            if slot_key[s] == log[t] and s != arrival:
                queue[n] = s
                n += 1
                break
    threshold = cfg[_THRESHOLD]
    if marked >= 0 and cfg[_SURROGATE] == 1.0:
        sims = cosines(state[_X], cache, state[_SIMS])
        taken = np.zeros(slot_key.shape[0], np.bool_)
        taken[marked] = True
        for _ in range(int(cfg[_CANDIDATES])):  # the next most similar candidate
            best = -1
            for s in range(slot_key.shape[0]):
                if slot_key[s] < 0 or taken[s]:
                    continue
                if best < 0 or sims[s] > sims[best] or (sims[s] == sims[best] and (
                        slot_adm[s] < slot_adm[best] or (slot_adm[s] == slot_adm[best]
                                                         and slot_key[s] < slot_key[best]))):
                    best = s
            if best < 0:
                break
            taken[best] = True
            if sims[best] >= threshold and _earlier(state[_TIMES], slot_adm[best], t) and (
                    n == 0 or queue[0] != best):
                queue[n] = best
                n += 1
    cfg[_HEAD] = 0.0
    cfg[_LENGTH] = n


@njit
def _delete(state, t, cache):
    cfg = state[_CFG]
    _begin(cfg, t)
    if cfg[_HEAD] < 0:
        _build_queue(state, t, cache)
    if cfg[_HEAD] >= cfg[_LENGTH]:
        return -1
    s = state[_QUEUE][int(cfg[_HEAD])]
    cfg[_HEAD] += 1
    return s


POLICY = Policy(name="zep", summary="Zep/Graphiti: always append; invalidate (delete from "
                "retrieval) what an arrival supersedes; evict the oldest",
                init=_init, victim=_victim, admit=_admit, on_insert=_on_insert,
                on_rearrival=_on_rearrival, delete=_delete, params=PARAMS,
                modes=("semantic",), check_params=_check, repeat_delete=True)
