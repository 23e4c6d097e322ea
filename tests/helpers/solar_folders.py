"""Folders in the SOLAR authors' trace format, written from a seed.

:func:`write_variant` writes what ``trace import-solar`` reads (``meta.json``,
``embeddings.npz`` and three JSON Lines files), small enough for CI, with options to drop a
file or add ``meta.json`` fields.  Used by ``test_solar_published`` (imports and the
authors' runner loop) and ``test_hostile_imports`` (corrupted copies).
"""

from __future__ import annotations

import json
import pathlib

import numpy as np


def write_variant(folder, seed=0, topics=6, per_topic=4, steps=80, dim=16, drop=None,
                  **meta_extra):
    """A trace folder in the authors' format: a fixed pool, topics drawn at random, each
    topic's pool streamed round-robin (so items re-arrive)."""
    rng = np.random.default_rng(seed)
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    centres = rng.normal(size=(topics, dim))
    ids = [f"t{a}_i{i}" for a in range(topics) for i in range(per_topic)]
    embs = np.repeat(centres, per_topic, axis=0) + 0.6 * rng.normal(size=(len(ids), dim))
    qt = rng.integers(0, topics, steps)
    qemb = centres[qt] + 0.3 * rng.normal(size=(steps, dim))
    def unit(v):
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)
    np.savez_compressed(folder / "embeddings.npz", item_ids=np.array(ids), item_embs=unit(embs),
                        query_ids=np.array([f"q{t}" for t in range(steps)]),
                        query_embs=unit(qemb))
    nxt = [0] * topics
    stream = []
    for a in qt.tolist():
        stream.append(f"t{a}_i{nxt[a] % per_topic}")
        nxt[a] += 1
    files = {
        "items.jsonl": [{"id": i, "topic_id": int(i[1:i.index("_")]), "created_at": 0}
                        for i in ids],
        "queries.jsonl": [{"id": f"q{t}", "topic_id": int(a), "timestep": t,
                           "relevant_item_ids": [i for i in ids if i.startswith(f"t{a}_")]}
                          for t, a in enumerate(qt.tolist())],
        "stream.jsonl": [{"t": t, "streamed_item_id": s} for t, s in enumerate(stream)]}
    for name, rows in files.items():
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    meta = {"workload_type": "fixture", "params": {"seed": seed}, "n_items": len(ids),
            "n_queries": steps, "n_stream_steps": steps, "embedding_dim": dim,
            "has_prefill": False, "n_warmup_steps": None, **meta_extra}
    (folder / "meta.json").write_text(json.dumps(meta))
    if drop:
        (folder / drop).unlink()
    return folder
