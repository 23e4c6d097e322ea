"""The SOLAR authors' published synthetic traces, imported as docs/model.md §6 traces.

The authors' repository (ysunbp/SOLAR, ``synthetic_workloads/datasets``) stores each trace as
a folder ``<family>/<variant>/seed<seed>/`` holding ``meta.json``, ``embeddings.npz``
(``item_ids``, ``item_embs``, ``query_ids``, ``query_embs``), ``items.jsonl``
(``id, topic_id, created_at``), ``queries.jsonl`` (``id, topic_id, timestep,
relevant_item_ids``) and ``stream.jsonl`` (``t, streamed_item_id``).

:func:`import_variant` reads one folder the way the authors' runner
(``synthetic_workloads/runners.py``, ``BaseRunner.run`` / ``step``) replays it: at step t the
query with ``timestep`` t is answered from the cache first, then the item streamed at t
arrives.  So the the model's order (query, then arrival) is the runner's order.

* ``item_keys`` is the item's line in ``items.jsonl``: the pools are fixed, so an item
  streams more than once and its re-arrivals are the same key.
* ``item_topics`` / ``query_topics`` are the files' ``topic_id``; ``evidence`` is each
  query's ``relevant_item_ids`` (restricted to items that ever arrive: no other item can be
  cached).  The runner scores by those ids.  On every published trace they are exactly the
  items of the query's topic, so topic and evidence relevance agree and the trace carries
  both (docs/model.md §1.3); where they would not agree, the query topics are dropped (−1) so the
  ids alone decide, and ``meta["relevance"]`` says which happened.
* ``scored`` is false for the runner's ``n_warmup_steps`` (none in the published traces).
* ``meta`` holds the folder (``source``), the authors' ``meta.json`` (``authors_meta``) and
  ``relevance``.

Every field read is checked first (:mod:`workloads.data.solar_files` states the rules): a bad one
is an error naming the file, the line and the field.  The runner loops over the queries in
file order; the importer pairs by ``timestep`` and refuses a file whose order differs, so
both readings give the same trace.  A stream longer
than the queries is cut to them (the runner never reads the rest); a step without an item
or a prefill (the retrieval-noise traces) is refused: docs/model.md §1 has an arrival every step.

The ``solar_published`` workload loads one folder by name (``family``, ``variant``,
``trace_seed``) under ``root``: the parameter, else ``$SEMCACHE_SOLAR_DATA``, else
``solar-synthetic`` under the data home (:mod:`workloads.data.data_home`).  ``trace_seed`` is
one of the authors' seeds (42, 1337, 2024); the default 0 picks one by the workload seed,
``(42, 1337, 2024)[seed % 3]``, so seeds 0, 1, 2 are the three published traces.  Nothing
else is random: the files are the trace.
"""

from __future__ import annotations

import pathlib

import numpy as np

from simulator.errors import InputError
from simulator.trace import Trace
from workloads.data import solar_files as files
from workloads.base import Workload
from workloads.data.data_home import dataset

FILES = ("meta.json", "embeddings.npz", "items.jsonl", "queries.jsonl", "stream.jsonl")
FAMILIES = ("cycling", "working_set", "topic_drift")
ENV = "SEMCACHE_SOLAR_DATA"
AUTHOR_SEEDS = (42, 1337, 2024)
PARAMS = {"family": "cycling", "variant": "m20", "trace_seed": 0, "root": ""}


def default_root() -> pathlib.Path | None:
    """``$SEMCACHE_SOLAR_DATA``, else ``solar-synthetic`` under the data home if it is
    there (:mod:`workloads.data.data_home`)."""
    return dataset("solar-synthetic", ENV)


def available() -> bool:
    """Whether the default root holds the traces (registry-wide tests skip them if not)."""
    root = default_root()
    return root is not None and root.is_dir()


def _lookup(table: dict, key, where: str):
    try:
        return table[key]
    except KeyError:
        raise InputError(f"{where} names unknown id {key!r}") from None


def import_variant(path) -> Trace:
    """One folder of the authors' published traces as a validated :class:`Trace`.

    Raises InputError naming the folder and file when a file is missing or malformed.

    Examples
    --------
    >>> import_variant("/no/such/folder")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    simulator.errors.InputError: solar trace folder '/no/such/folder' does not exist; ...
    """
    folder = pathlib.Path(path)
    if not folder.is_dir():
        raise InputError(f"solar trace folder '{folder}' does not exist; give a folder such as "
                         "solar-synthetic/cycling/m20/seed42")
    for name in FILES:
        if not (folder / name).is_file():
            raise InputError(f"solar trace folder '{folder}' has no {name} (the authors' "
                             "repository lacks some files in some folders); need "
                             + ", ".join(FILES))
    meta = files.read_meta(folder / "meta.json")
    if meta.get("has_prefill"):
        raise InputError(f"solar trace folder '{folder}' has a prefill ('{folder / 'meta.json'}'"
                         " says has_prefill: true, as the retrieval-noise traces do); traces "
                         "have one arrival per step, so it is not supported")
    item_vec, query_vec = files.read_embeddings(folder / "embeddings.npz")
    items, item_lines = files.read_jsonl(folder / "items.jsonl", ("id", "topic_id"))
    queries, query_lines = files.read_jsonl(folder / "queries.jsonl",
                                            ("id", "topic_id", "timestep", "relevant_item_ids"))
    stream, stream_lines = files.read_jsonl(folder / "stream.jsonl", ("t", "streamed_item_id"))
    at = {name: f"'{folder / name}' line " for name in FILES}
    T = len(queries)
    if T == 0:
        raise InputError(f"'{folder / 'queries.jsonl'}' holds no query; a trace needs a step")
    late = next((i for i, q in enumerate(queries) if q["timestep"] != i), None)
    if late is not None:
        raise InputError(f"{at['queries.jsonl']}{query_lines[late]}: timestep "
                         f"{queries[late]['timestep']} where {late} is due; the file is not in "
                         f"timestep order 0 .. {T - 1} (the authors' runner pairs queries with "
                         "steps by file order)")
    late = next((i for i, s in enumerate(stream[:T]) if s["t"] != i), None)
    if len(stream) < T or late is not None:
        raise InputError(f"'{folder / 'stream.jsonl'}' must list t = 0 .. {T - 1} in order, "
                         f"one item per query; it has {len(stream)} lines"
                         + ("" if late is None else f", and line {stream_lines[late]} has "
                            f"t = {stream[late]['t']}"))
    gap = next((t for t, s in enumerate(stream[:T]) if s["streamed_item_id"] is None), None)
    if gap is not None:
        raise InputError(f"{at['stream.jsonl']}{stream_lines[gap]} has no item at t={gap}; "
                         "traces need an arrival every step")
    index = {}
    for row, n in zip(items, item_lines):
        if row["id"] in index:
            raise InputError(f"{at['items.jsonl']}{n}: id {row['id']!r} is listed twice; "
                             "item ids are unique")
        index[row["id"]] = len(index)
    keys = np.array([_lookup(index, s["streamed_item_id"], f"{at['stream.jsonl']}{n}")
                     for s, n in zip(stream[:T], stream_lines)], np.int64)
    arriving = set(keys.tolist())
    item_topic = np.array([row["topic_id"] for row in items], np.int64)
    evidence = []
    agree = True
    for q, n in zip(queries, query_lines):
        ids = {_lookup(index, i, f"{at['queries.jsonl']}{n}: field 'relevant_item_ids'")
               for i in q["relevant_item_ids"]}
        ev = sorted(ids & arriving)
        evidence.append(ev)
        agree &= set(ev) == {k for k in arriving if item_topic[k] == q["topic_id"]}
    qtopic = np.array([q["topic_id"] for q in queries], np.int64)
    if not agree:
        qtopic[:] = -1  # relevance must come from the ids alone, as the runner scores
    warm = meta.get("n_warmup_steps") or 0
    ivecs = [_lookup(item_vec, items[k]["id"], f"{at['items.jsonl']}{item_lines[k]} (its id "
                     "in embeddings.npz item_ids)") for k in keys.tolist()]
    qvecs = [_lookup(query_vec, q["id"], f"{at['queries.jsonl']}{n} (its id in embeddings.npz "
                     "query_ids)") for q, n in zip(queries, query_lines)]
    return Trace.from_arrays(
        queries=np.array(qvecs, np.float32), items=np.array(ivecs, np.float32),
        query_topics=qtopic, item_topics=item_topic[keys], item_keys=keys,
        scored=np.arange(T) >= warm,
        evidence_indptr=np.cumsum([0] + [len(e) for e in evidence]),
        evidence_indices=np.array([k for e in evidence for k in e], np.int64),
        meta={"source": str(folder), "authors_meta": meta,
              "relevance": "topic and evidence (they agree)" if agree else "evidence only"})


def variant_folder(params: dict, seed: int = 0) -> pathlib.Path:
    """The folder of the variant named by the workload parameters (InputError if absent)."""
    root = pathlib.Path(params["root"]) if params["root"] else default_root()
    trace_seed = params["trace_seed"] or AUTHOR_SEEDS[seed % len(AUTHOR_SEEDS)]
    if root is None or not root.is_dir():
        where = f"'{root}'" if root is not None else "no folder"
        raise InputError(f"the SOLAR authors' traces are not available ({where}); set "
                         f"{ENV}=DIR or the parameter root=DIR to the solar-synthetic folder, or "
                         "put it under $SEMCACHE_DATA")
    folder = root / params["family"] / params["variant"] / f"seed{trace_seed}"
    if not folder.is_dir():
        have = sorted(p.relative_to(root).as_posix()
                      for p in root.glob(f"{params['family']}/*/seed*"))
        raise InputError(f"no trace '{folder.relative_to(root).as_posix()}' under '{root}'; "
                         f"available: {', '.join(have) or 'none'}")
    return folder


def _check(p: dict) -> str | None:
    if p["family"] not in FAMILIES:
        return f"parameter 'family' must be one of {', '.join(FAMILIES)}, got {p['family']!r}"
    if p["trace_seed"] < 0:
        return f"parameter 'trace_seed' must be >= 0 (0: by the seed), got {p['trace_seed']}"
    return None


WORKLOAD = Workload(
    name="solar_published",
    summary="the SOLAR authors' published synthetic traces (cycling, working_set, topic_drift)",
    make=lambda p, seed: import_variant(variant_folder(p, seed)), params=PARAMS,
    check_params=_check, available=available)
