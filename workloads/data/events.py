"""Agent-memory events as a semantic trace: a user's own steps from JSONL, CSV or Parquet.

One row is one step (docs/model.md §6.2 defines every field): the step's query and the
item that arrives, as text (``query``, ``item``, embedded offline by
:mod:`workloads.data.text_embed`, cached by content) or as vectors (``query_vector``,
``item_vector``), with optional ``item_id``, topics, ``evidence``, ``weight``, ``scored``,
``size``, ``time`` and ``supersedes``.  :mod:`workloads.data.event_files` reads the
rows, :mod:`workloads.data.event_fields` checks each field; this module checks what spans
rows and builds the :class:`~simulator.trace.Trace`:

* **one kind a file**: every row text (the first row has ``query``) or every row vectors
  (``query_vector``), every vector of one dimension;
* **items**: equal ``item_id`` values are one item (``item_keys``); a row without one
  brings a new item; a row whose ``item_id`` arrived before may leave out the item (text
  or vector), its topic and its size, which are then those of the item's previous
  arrival; ``evidence`` names item ids that some row of the file has;
* **topics**: an integer id or a text label (:mod:`workloads.data.event_labels`: labels become
  ids in order of first appearance, kept as ``meta["topic_labels"]``);
* **no step without an arrival**: a row with no item and no ``item_id`` is refused (the
  model's step is a query, then an arrival);
* **labels**: a step is *labelled* when it has a query topic (``topic`` or
  ``query_topic``) or non-empty ``evidence``.  An unlabelled step could never be a hit,
  so it is unscored unless the row says ``scored: true`` (a choice, e.g. for
  ``--quality similarity``), never a silent guaranteed miss; ``scored: false`` makes a
  labelled step unscored;
* **time** (seconds, docs/model.md §1.9): every row has a ``time`` or none does; a
  number of seconds from any origin, or an ISO 8601 date and time (a text without a zone
  is read as UTC), one way for the whole file; rows come in time order, so a time that
  decreases is refused, naming the row.  The trace's ``times`` are those seconds (a date
  and time as seconds since the Unix epoch);
* **supersedes**: the ``item_id`` of an earlier row whose item this row's arrival
  supersedes (a contradiction the log records); absent means none;
* **sizes**: ``size`` where given (1 for a new item without one), or, with
  ``sizes=tokens``, the item text's token count under the model's tokenizer (at least 1,
  :func:`workloads.data.text_embed.token_counts`); an item has one size.

Parameters (``--trace-param``): ``model`` (the text model: the ``text`` extra's
all-MiniLM-L6-v2, the default, or a sentence-transformers model installed locally, by
folder or name: :func:`workloads.data.text_embed.load_named_model`), ``sizes`` (``given`` or
``tokens``) and ``extra_fields`` (``refuse``, ``keep`` or ``ignore`` the fields that are
no event field: :mod:`workloads.data.event_labels`; ``--extra-fields``).  The trace's
``meta["report"]`` counts the steps labelled by topic and by evidence, the unlabelled ones
and the scored ones, and gives the topic labels and the fields kept or ignored.
"""

from __future__ import annotations

import os

import numpy as np

from simulator.errors import InputError
from simulator.params import resolve
from simulator.engine.size_limits import MAX_TOTAL
from simulator.trace import Trace
from workloads.data import event_files
from workloads.data.event_fields import Instant, check
from workloads.data.event_labels import EXTRA_FIELDS, columns, split, topic_ids

FORMAT = "events"
EXTENSIONS = (".jsonl", ".parquet")  # .csv is libCacheSim's CSV unless --trace-format events
PARAMS = {"model": "all-MiniLM-L6-v2", "sizes": "given", "extra_fields": "refuse"}
SIZES = ("given", "tokens")


def recognised(path, trace_format: str | None) -> bool:
    """Whether a trace file is read as events: ``trace_format`` says ``events``, or none is
    given and the name ends in ``.jsonl`` or ``.parquet`` (any case).

    >>> recognised("a.jsonl", None), recognised("a.csv", None), recognised("a.csv", "events")
    (True, False, True)
    """
    if trace_format is not None:
        return trace_format == FORMAT
    return os.fspath(path).lower().endswith(EXTENSIONS)


def _params(given: dict | None) -> dict:
    params = resolve("trace format", FORMAT, PARAMS, given)
    for name, valid in (("sizes", SIZES), ("extra_fields", EXTRA_FIELDS)):
        if params[name] not in valid:
            flag = " (--extra-fields)" if name == "extra_fields" else ""
            raise InputError(f"trace format 'events' parameter '{name}'{flag} must be one of "
                             f"{', '.join(valid)}, got {params[name]!r}", "trace_params")
    return params


def _kind(steps: list) -> str:
    """``text`` or ``vectors``: what the first row's query is; every row must agree."""
    kind = "vectors" if "query_vector" in steps[0][1] else "text"
    text, vectors = ("query", "item"), ("query_vector", "item_vector")
    own, other = (text, vectors) if kind == "text" else (vectors, text)
    for where, ev in steps:
        if own[0] not in ev:
            also = f" (the file's first row has '{own[0]}')" if other[0] in ev else ""
            raise InputError(f"{where}: no field '{own[0]}'{also}; every event has a query: "
                             f"'query' (text) or 'query_vector', one kind for the whole file")
        for name in other:
            if name in ev:
                raise InputError(f"{where}: field '{name}' mixes text and vectors (the "
                                 f"file's first row has '{own[0]}'); use one kind for the "
                                 "whole file")
    return kind


def _vectors(steps: list, arrivals: list) -> tuple:
    """Query and item vectors [T, d], every one of the first query's dimension."""
    dim = len(steps[0][1]["query_vector"])
    for (where, ev), (_, content) in zip(steps, arrivals):
        for name, vec in (("query_vector", ev["query_vector"]), ("item_vector", content)):
            if len(vec) != dim:
                raise InputError(f"{where}: field '{name}' has {len(vec)} numbers, the first "
                                 f"row's query_vector {dim}; every vector of a file has one "
                                 "dimension")
    return (np.stack([ev["query_vector"] for _, ev in steps]),
            np.stack([content for _, content in arrivals]))


def _items(steps: list, kind: str) -> tuple:
    """Per step: the item key, its content (text or vector), its topic and its given size
    (None: not given); the item id → key table."""
    field = "item" if kind == "text" else "item_vector"
    keys, last, out = {}, {}, []  # item id -> key; key -> (content, topic, size) as last
    for where, ev in steps:
        iid = ev.get("item_id")
        key = len(last) if iid is None else keys.setdefault(iid, len(last))
        prev = last.get(key)
        content = ev.get(field, None if prev is None else prev[0])
        if content is None:
            raise _no_arrival(where, field, iid)
        if "topic" in ev and ("query_topic" in ev or "item_topic" in ev):
            raise InputError(f"{where}: fields 'topic' and 'query_topic'/'item_topic' both "
                             "given; give topic (query and item) or the two apart")
        topic = ev.get("item_topic", ev.get("topic", -1 if prev is None else prev[1]))
        size = ev.get("size", None if prev is None else prev[2])
        last[key] = (content, topic, size)
        out.append((key, content, topic, size))
    return out, keys


def _no_arrival(where: str, field: str, iid) -> InputError:
    """A row with a query and no arriving item: the model has no such step (§6.2 says why)."""
    if iid is not None:
        return InputError(f"{where}: no field '{field}', and item_id {iid!r} has not arrived "
                          "before; give the arriving item, or the item_id of one that arrived "
                          "before")
    return InputError(f"{where}: no item arrives (no '{field}', no 'item_id'), but every step "
                      "of the model is a query, then an arrival (docs/model.md §6.2); give the "
                      "item this step brings, or the item_id of one that arrived before (a "
                      "re-arrival of a cached item changes nothing)")


def _sizes(steps: list, items: list, kind: str, params: dict, ignore: bool):
    """``item_sizes`` (None: every size 1) and how they were given."""
    given = any("size" in ev for _, ev in steps)
    if params["sizes"] == "tokens":
        if kind != "text" or given or ignore:
            why = ("the file's items are vectors" if kind != "text" else
                   "the file has a 'size' field" if given else "--ignore-sizes is given")
            raise InputError(f"trace format 'events' parameter 'sizes=tokens' counts the "
                             f"tokens of text items, but {why}; drop one of the two",
                             "trace_params")
        from workloads.data.text_embed import token_counts

        counted = np.maximum(token_counts([c for _, c, _, _ in items], params["model"]), 1)
        return _one_size_an_item(steps, items, counted, "tokens"), "tokens"
    if ignore or not given:
        return None, "unit"
    sizes = np.array([1 if s is None else s for _, _, _, s in items], np.int64)
    return _one_size_an_item(steps, items, sizes, "size"), "given"


def _one_size_an_item(steps: list, items: list, sizes: np.ndarray, what: str) -> np.ndarray:
    """``sizes``, checked: one size an item, adding up to at most 2**61."""
    first, total = {}, 0
    for t, ((where, ev), (key, _, _, _)) in enumerate(zip(steps, items)):
        was = first.setdefault(key, (where, int(sizes[t])))
        if was[1] != sizes[t]:
            raise InputError(f"{where}: item_id {ev.get('item_id')!r} has {what} "
                             f"{int(sizes[t])}, but {was[1]} where it first arrived "
                             f"({was[0]}); an item has one size")
        total += int(sizes[t])
        if total > MAX_TOTAL:
            raise InputError(f"{where}: the sizes so far add up past 2**61; a trace's sizes "
                             "add up to at most 2**61 (docs/model.md §1.8)")
    return sizes


def _evidence(steps: list, keys: dict) -> list:
    """Per step, the item keys its evidence names (each once, in order)."""
    out = []
    for where, ev in steps:
        named = []
        for iid in ev.get("evidence", ()):
            if iid not in keys:
                raise InputError(f"{where}: field 'evidence' names item id {iid!r}, which no "
                                 "row's item_id has; evidence lists the ids of items in the "
                                 "file")
            named.append(keys[iid])
        out.append(list(dict.fromkeys(named)))
    return out


def _labels(steps: list, evidence: list) -> tuple:
    """Query topics, ``scored`` and the report's counts (module docstring: labels)."""
    topics = np.array([ev.get("query_topic", ev.get("topic", -1)) for _, ev in steps],
                      np.int64)
    has_topic, has_evidence = topics >= 0, np.array([bool(e) for e in evidence])
    labelled = has_topic | has_evidence
    said = [ev.get("scored") for _, ev in steps]
    scored = np.array([lab if s is None else s for lab, s in zip(labelled, said)], np.bool_)
    counts = {"labelled": {"topic": int(has_topic.sum()), "evidence": int(has_evidence.sum())},
              "unlabelled": int((~labelled).sum()), "scored": int(scored.sum()),
              "unlabelled_scored": int((scored & ~labelled).sum())}
    return topics, scored, counts


def _times(steps: list) -> dict:
    """``times`` when some row has a ``time`` (then every row must, in one kind: numbers
    of seconds, or dates and times, never both; never decreasing), else nothing."""
    timed = [(where, ev["time"]) for where, ev in steps if "time" in ev]
    if not timed:
        return {}
    if len(timed) < len(steps):
        where = next(where for where, ev in steps if "time" not in ev)
        raise InputError(f"{where}: no field 'time', but {_row(timed[0][0])} has one; give "
                         "every row a time, or none")
    first_where, first = timed[0]
    for (where, now), (_, before) in zip(timed[1:], timed):
        if isinstance(now, Instant) != isinstance(first, Instant):
            kinds = ("an ISO 8601 date and time", "a number of seconds")
            this, that = kinds if isinstance(now, Instant) else kinds[::-1]
            raise InputError(f"{where}: field 'time' is {this}, but {_row(first_where)}'s is "
                             f"{that}; give every row's time one way (their origins differ)")
        if now < before:
            raise InputError(f"{where}: field 'time' goes back ({now!r} s after {before!r} s "
                             "on the row before); rows come in time order, so times must not "
                             "decrease")
    return {"times": np.array([float(x) for _, x in timed], np.float64)}


def _row(where: str) -> str:
    """The line or row part of ``where`` ("events file 'f.jsonl' line 3": "line 3")."""
    return where.rsplit(" ", 2)[-2] + " " + where.rsplit(" ", 2)[-1]


def _supersedes(steps: list, keys: dict) -> dict:
    """``supersedes`` (item keys, -1 for none) when some row has the field, else nothing;
    each names the ``item_id`` of an earlier row (a contradiction the log records)."""
    if not any("supersedes" in ev for _, ev in steps):
        return {}
    seen, out = set(), []
    for where, ev in steps:
        old = ev.get("supersedes")
        if old is not None and old not in seen:
            raise InputError(f"{where}: field 'supersedes' names item id {old!r}, which no "
                             "earlier row's item_id has; it names the item this row's "
                             "arrival supersedes, which arrived before")
        out.append(-1 if old is None else keys[old])
        if "item_id" in ev:
            seen.add(ev["item_id"])
    return {"supersedes": np.array(out, np.int64)}


def _csr(evidence: list) -> dict:
    return {"evidence_indptr": np.cumsum([0] + [len(e) for e in evidence]).astype(np.int64),
            "evidence_indices": np.array([k for e in evidence for k in e], np.int64)}


def load(path, trace_params: dict | None = None, ignore_sizes: bool = False) -> Trace:
    """The events file at ``path`` (JSONL, CSV or Parquet by its name) as a validated
    :class:`~simulator.trace.Trace` (module docstring).

    ``trace_params``: ``model`` and ``sizes``; ``ignore_sizes``: every size 1.  Raises
    :class:`~simulator.errors.InputError` naming the file, the line (or row), the field
    and the fix on any problem.
    """
    path = os.fspath(path)
    params = _params(trace_params)
    mode, steps, own = params["extra_fields"], [], []
    for where, row in event_files.rows(path, unknown=mode != "refuse"):
        known, extra = split(row, where, mode)
        steps.append((where, check(known, where)))
        own.append(extra)
    if not steps:
        raise InputError(f"events file '{path}' holds no event; give one event a row "
                         "(docs/model.md §6.2)", "trace")
    kind = _kind(steps)
    if kind == "vectors" and "model" in (trace_params or {}):
        raise InputError("trace format 'events' parameter 'model' embeds text, but the "
                         f"events of '{path}' are vectors; drop model=", "trace_params")
    labels = topic_ids(steps)
    items, keys = _items(steps, kind)
    sizes, sized_by = _sizes(steps, items, kind, params, ignore_sizes)
    evidence = _evidence(steps, keys)
    topics, scored, counts = _labels(steps, evidence)
    arrivals = [(key, content) for key, content, _, _ in items]
    if kind == "text":
        from workloads.data.text_embed import TextEmbedder

        texts = [ev["query"] for _, ev in steps] + [c for _, c in arrivals]
        vecs = TextEmbedder(model=params["model"]).encode(texts)
        queries, arriving = vecs[:len(steps)], vecs[len(steps):]
    else:
        queries, arriving = _vectors(steps, arrivals)
    report = {"rows": len(steps), "kind": kind, **counts, "sizes": sized_by}
    if kind == "text":
        report["model"] = params["model"]
    meta = {"source": path, "format": FORMAT, "report": report}
    if labels is not None:
        report["topic_labels"] = meta["topic_labels"] = labels
    if any(own):
        names = list(dict.fromkeys(name for extra in own for name in extra))
        given = sum(any(v is not None for v in extra.values()) for extra in own)
        report["extra_fields"] = {mode: names, "rows": given}  # rows giving one a value
        if mode == "keep":
            meta["extra_fields"] = columns(own)
    return Trace.from_arrays(
        queries=queries, items=arriving, query_topics=topics,
        item_topics=np.array([topic for _, _, topic, _ in items], np.int64),
        weights=np.array([ev.get("weight", 1.0) for _, ev in steps], np.float64),
        scored=scored, item_keys=np.array([key for key, _ in arrivals], np.int64),
        **(_csr(evidence) if any(evidence) else {}), item_sizes=sizes,
        **_times(steps), **_supersedes(steps, keys), meta=meta)
