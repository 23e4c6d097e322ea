"""Agent-memory events files written from rows, and six valid rows that use every field.

``ROWS`` are vector events (docs/model.md §6.2) with re-arrivals, topics, evidence naming a
later item, weights, both overrides of ``scored`` and sizes; :func:`write_events` writes
rows as a JSONL, CSV or Parquet events file.  Used by ``test_events_vectors``,
``test_events`` and ``test_hostile_events``.
"""

from __future__ import annotations

import csv
import json
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq

# six steps that use every field: re-arrivals (one without its vector), a topic for both,
# topics apart, evidence naming an item that arrives later, weights, both overrides of
# `scored`, sizes (the re-arrival keeps its item's)
ROWS = [
    {"query_vector": [1, 0, 0], "item_vector": [0, 1, 0], "item_id": "a", "topic": 0,
     "size": 4},
    {"query_vector": [0, 2, 0], "item_vector": [1, 1, 0], "item_id": 7, "query_topic": 1,
     "item_topic": 0, "weight": 0.5},
    {"query_vector": [0, 0, 1], "item_vector": [0, 0, 3], "evidence": ["a", "later"]},
    {"query_vector": [1, 1, 1], "item_id": "a", "scored": False, "topic": 2},
    {"query_vector": [1, 0, 1], "item_vector": [1, 0, 1], "item_id": "later", "scored": True},
    {"query_vector": [0, 1, 1], "item_vector": [2, 0, 0], "item_id": "7", "weight": 0},
]


def write_events(path: pathlib.Path, rows: list) -> pathlib.Path:
    """``rows`` as the events file ``path`` says (.jsonl, .csv: lists as JSON cells, or
    .parquet, one column per field that some row has)."""
    names = list(dict.fromkeys(k for row in rows for k in row))
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    elif path.suffix == ".csv":
        with open(path, "w", newline="", encoding="utf-8") as f:
            out = csv.writer(f)
            out.writerow(names)
            for row in rows:
                out.writerow(["" if row.get(n) is None else
                              json.dumps(row[n]) if isinstance(row[n], (list, bool)) else
                              row[n] for n in names])
    else:
        columns = {n: [row.get(n) for row in rows] for n in names}
        # an id column of strings and integers is strings in Parquet: ids compare as text
        for n in ("item_id", "evidence"):
            if n in columns:
                columns[n] = [v if v is None else [str(x) for x in v] if isinstance(v, list)
                              else str(v) for v in columns[n]]
        pq.write_table(pa.table(columns), path)
    return path
