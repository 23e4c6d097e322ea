"""What an events file says beyond the trace arrays: topic labels and fields of its own.

docs/model.md §6.2 states both rules; :mod:`workloads.data.events` applies them.

* **Topic labels.**  A topic (``topic``, ``query_topic``, ``item_topic``) is an integer id
  or a text label.  When every topic of a file is an integer, the ids are kept as given.
  When some topic is text, every topic is a label (an integer is the label of its digits,
  so ``3`` and ``"3"`` are one topic), and the labels become ids 0, 1, … in the order they
  first appear: row by row, and in a row ``topic``, then ``query_topic``, then
  ``item_topic``.  Relevance is topic equality, so ids so made score exactly as the labels
  would; the same file gives the same ids on every machine.  :func:`topic_ids` gives the
  labels by id (the trace keeps them as ``meta["topic_labels"]``, saved in the trace file).
* **Fields of its own.**  A field that is no event field is refused (``refuse``, the
  default), dropped (``ignore``: the import counts them) or kept (``keep``): each such
  field becomes a list with one value per step (None where a row leaves it out), in
  ``meta["extra_fields"]``, saved in the trace file.  A kept value must be JSON (finite
  numbers, whole characters, no Parquet date or bytes), since that is how it is saved.

>>> steps = [("line 1", {"topic": "cooking"}), ("line 2", {"query_topic": 4,
...          "item_topic": "cooking"})]
>>> topic_ids(steps), [ev for _, ev in steps]
(['cooking', '4'], [{'topic': 0}, {'query_topic': 1, 'item_topic': 0}])
"""

from __future__ import annotations

import json
import re

from simulator.errors import InputError
from workloads.data.event_fields import FIELDS, surrogate_error, unknown_field

EXTRA_FIELDS = ("refuse", "keep", "ignore")
TOPICS = ("topic", "query_topic", "item_topic")


def topic_ids(steps: list) -> list | None:
    """The labels by id when some topic of ``steps`` (``(where, fields)``, checked) is text,
    every topic field then replaced by its id in place; None (ids as given) otherwise."""
    values = [ev[name] for _, ev in steps for name in TOPICS if name in ev]
    if all(isinstance(v, int) for v in values):
        return None
    ids: dict = {}
    for _, ev in steps:
        for name in TOPICS:
            if name in ev:
                ev[name] = ids.setdefault(str(ev[name]), len(ids))
    return list(ids)


def split(row: dict, where: str, mode: str) -> tuple:
    """``row``'s event fields and its own fields: under ``refuse`` one of its own is an
    error, under ``keep`` each is checked as JSON, under ``ignore`` they are only named."""
    known = {k: v for k, v in row.items() if k in FIELDS}
    if len(known) == len(row):
        return known, {}
    own = {k: v for k, v in row.items() if k not in FIELDS}
    for name, value in own.items():
        problem = surrogate_error(name, where, "a field name")
        if problem:
            raise problem
        if mode == "refuse":
            raise unknown_field(name, where)
        if mode == "keep":
            own[name] = _as_json(name, value, where)
    return known, own


def _as_json(name: str, value, where: str):
    """A kept field's value as it will be saved and read back (JSON: a tuple is a list, a
    key is text), or one line saying why it cannot be."""
    try:
        text = json.dumps(value, allow_nan=False, ensure_ascii=False)
        text.encode("utf-8")
        return json.loads(text)
    except RecursionError:
        why = "is nested too deeply"
    except UnicodeEncodeError:
        why = "holds a lone surrogate, which is no Unicode text"
    except ValueError:  # NaN or inf
        why = "holds NaN or inf, which JSON has no form for"
    except TypeError as exc:  # a Parquet date, bytes or decimal; a key that is a tuple
        kind = re.search(r"type (\w+)", str(exc))
        why = f"holds {f'a {kind[1]}' if kind else 'a key'}, which JSON has no form for"
    raise InputError(f"{where}: field {json.dumps(name)} (kept: --extra-fields keep) {why}; "
                     "write it as JSON text or numbers, or drop it (--extra-fields ignore)")


def columns(own: list) -> dict:
    """The fields of their own of the rows ``own`` (dicts, one a step) as ``{name: [value
    per step]}`` (None where a row has none), in the order the names first appear."""
    names = list(dict.fromkeys(name for fields in own for name in fields))
    return {name: [fields.get(name) for fields in own] for name in names}
