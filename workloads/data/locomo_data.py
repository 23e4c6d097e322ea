"""Read LoCoMo conversations (Maharana et al., ACL 2024) from a user's copy; the project ships none.

Two layouts are accepted, both as published by Snap Research:

* a folder of one JSON object per conversation (``26.json`` …): ``speaker_a``,
  ``speaker_b``, ``session_N`` (a list of turns ``{speaker, dia_id, text, …}``),
  ``session_N_date_time`` and ``qa``;
* the single file ``locomo10.json``: a list of ``{sample_id, qa, conversation: {…}}``.

A conversation is named by its file stem (folder layout) or by the number in its
``sample_id`` (``"conv-26"`` → ``"26"``); ``select`` picks conversations by either.

Turns are the sessions in numeric order, each session's turns in file order.  A QA item's
``evidence`` (a list of dialogue ids such as ``"D8:6"``) is resolved to turn indices.  The
data's quirks are handled and counted in :attr:`Conversation.quirks`, never fatal:

``split_ids``
    an evidence string holding several ids (``"D8:6; D9:17"``, ``"D9:1 D4:4"``): split on
    ``;``, ``,`` and blanks;
``repaired_ids``
    an id that resolves only after normalising its digits (``"D30:05"`` → ``D30:5``,
    ``"D:11:26"`` → ``D11:26``);
``unresolved_ids``
    an id naming no turn even then (``"D"``, ``"D10:19"`` past a session's end): dropped;
``qa_without_evidence``
    a QA item with an empty evidence list;
``qa_unresolved``
    a QA item with evidence ids none of which resolves (like the previous, it has no
    relevant turn, so the ``locomo`` workload leaves both out of its scored queries);
``non_string_answers``
    an answer that is not a string (integers such as ``2022``): kept as ``str``;
``adversarial_answers``
    a category-5 item carrying ``adversarial_answer`` instead of ``answer``;
``dates_without_session``
    a ``session_N_date_time`` with no ``session_N`` turns;
``undated_sessions``
    a session whose ``session_N_date_time`` is missing or does not read as LoCoMo writes
    it (``"1:56 pm on 8 May, 2023"``): it starts one day after the previous session's
    last turn (the first session of a conversation: at 0 s, the Unix epoch);
``sessions_out_of_order``
    a session dated before the previous session's last turn: it starts one minute after
    that turn, so that time never goes back.

Times (docs/model.md §1.9): a session's date and time is when its first turn is said, read
as UTC (LoCoMo gives no zone); LoCoMo gives no time for the other turns, so turn i of a
session (from 0) is set at the session's start + 60·i seconds, a minute a turn (ours).
:attr:`Turn.time` holds it, in seconds since the Unix epoch.

Examples
--------
>>> parse_id("D30:05"), parse_id("D:11:26"), parse_id("D")
((30, 5), (11, 26), None)
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import json
import pathlib
import re

from simulator.errors import InputError
from simulator.files.input_files import read_input
from workloads.data.data_home import dataset

ENV = "SEMCACHE_LOCOMO"
# numbers of sessions and turns: at most 18 digits (leading zeros aside), so int() never
# meets Python's 4,300-digit limit; an id with a longer number names no turn
_STRICT_ID = re.compile(r"D(\d{1,18}):(\d{1,18})")
_LOOSE_ID = re.compile(r"D:?0*(\d{1,18}):0*(\d{1,18})")
_SESSION = re.compile(r"session_(\d+)")
_DATED = re.compile(r"session_(\d+)_date_time")
_DIGITS = 18
QUIRKS = ("split_ids", "repaired_ids", "unresolved_ids", "qa_without_evidence",
          "qa_unresolved", "non_string_answers", "adversarial_answers",
          "dates_without_session", "undated_sessions", "sessions_out_of_order")
# turns of a session a minute apart (LoCoMo dates sessions, not turns); an undated
# session a day after the one before
TURN_SECONDS = 60.0
UNDATED_GAP_SECONDS = 86400.0


@dataclasses.dataclass(frozen=True)
class Turn:
    """One dialogue turn: its id (``D3:7``), speaker, text, session number and time
    (seconds since the Unix epoch, UTC; the module docstring says how it is set)."""

    dia_id: str
    speaker: str
    text: str
    session: int
    time: float = 0.0


@dataclasses.dataclass(frozen=True)
class QA:
    """One question with its answer (as text), category and evidence turn indices."""

    question: str
    answer: str
    category: int
    evidence: tuple


@dataclasses.dataclass(frozen=True)
class Conversation:
    """One conversation: turns in order, QA items, and the counts of the quirks met."""

    name: str
    sample_id: str
    speakers: tuple
    turns: tuple
    qa: tuple
    quirks: dict


def default_path() -> pathlib.Path | None:
    """``$SEMCACHE_LOCOMO``, else ``locomo`` under the data home if it is there
    (:mod:`workloads.data.data_home`)."""
    return dataset("locomo", ENV)


def parse_id(text: str):
    """(session, turn) of a dialogue id, tolerating zero padding and a stray colon; or None."""
    m = _LOOSE_ID.fullmatch(text.strip())
    return (int(m.group(1)), int(m.group(2))) if m else None


def _raw_objects(path: pathlib.Path) -> list:
    """(name, sample_id, conversation dict, qa list) for every conversation under ``path``."""
    if path.is_dir():
        files = sorted(path.glob("*.json"), key=lambda p: (not p.stem.isdigit(),
                                                           int(p.stem) if p.stem.isdigit() else 0,
                                                           p.stem))
        if not files:
            raise InputError(f"locomo path '{path}' holds no .json files; point path= at the "
                             "folder of per-conversation files or at locomo10.json")
        out = []
        for f in files:
            obj = _read_json(f)
            if isinstance(obj, list):  # locomo10.json inside a folder
                out += [_from_entry(e, f, i) for i, e in enumerate(obj)]
            else:
                obj = _need_dict(obj, f)
                out.append((f.stem, str(obj.get("sample_id", f.stem)), obj, obj.get("qa", [])))
        return out
    if path.is_file():
        obj = _read_json(path)
        if isinstance(obj, list):
            return [_from_entry(e, path, i) for i, e in enumerate(obj)]
        obj = _need_dict(obj, path)
        return [(path.stem, str(obj.get("sample_id", path.stem)), obj, obj.get("qa", []))]
    raise InputError(f"locomo path '{path}' does not exist; set path= (or ${ENV}) to a "
                     "LoCoMo folder or locomo10.json")


def _read_json(f: pathlib.Path):
    """The JSON value of the regular file ``f``.  A number of more than 4,300 digits
    (Python's limit, a ``ValueError``) and nesting deeper than the parser's recursion
    (a ``RecursionError``) are bad files too."""
    data = read_input(f, "locomo file")
    try:
        return json.loads(data.decode("utf-8"))
    except RecursionError:
        raise InputError(f"locomo file '{f}' is not readable JSON (nested too deeply); "
                         "replace it with a good copy") from None
    except (UnicodeDecodeError, ValueError) as exc:
        # a number past Python's digit limit: the sentence before the advice to raise it
        reason = str(exc) if isinstance(exc, json.JSONDecodeError) else str(exc).split(":")[0]
        raise InputError(f"locomo file '{f}' is not readable JSON ({exc.__class__.__name__}: "
                         f"{reason}); replace it with a good copy") from None


def _need_dict(obj, where) -> dict:
    if not isinstance(obj, dict):
        raise InputError(f"locomo file '{where}': a conversation must be a JSON object (or "
                         f"locomo10.json a list of them), got {type(obj).__name__}")
    return obj


def _from_entry(entry, f, i):
    if not isinstance(entry, dict) or not isinstance(entry.get("conversation"), dict):
        raise InputError(f"locomo file '{f}' entry {i}: expected {{sample_id, qa, "
                         "conversation: {...}}")
    sid = str(entry.get("sample_id", i))
    digits = re.findall(r"\d+", sid)
    return (digits[-1] if digits else sid, sid, entry["conversation"], entry.get("qa", []))


def _number(digits: str) -> int | None:
    """The value of a run of ASCII digits, or None past :data:`_DIGITS` significant ones."""
    return int(digits) if len(digits.lstrip("0")) <= _DIGITS else None


def session_start(text) -> float | None:
    """Seconds since the Unix epoch (UTC) of a LoCoMo session date such as ``"1:56 pm on
    8 May, 2023"``, or None when it does not read so.

    >>> session_start("1:56 pm on 8 May, 2023")
    1683554160.0
    >>> session_start("yesterday") is None
    True
    """
    if not isinstance(text, str):
        return None
    # one blank between words, and the comma before the year optional
    words = " ".join(text.replace(",", " ").split())
    try:
        when = datetime.datetime.strptime(words, "%I:%M %p on %d %B %Y")
    except ValueError:
        return None
    return when.replace(tzinfo=datetime.timezone.utc).timestamp()


def _timed(turns: list, conv: dict, keys: dict, quirks: collections.Counter) -> list:
    """``turns`` with their times (the module docstring: Times); ``keys`` maps a session
    number to its ``session_N`` key."""
    out, end = [], None  # end: the time of the previous session's last turn
    for s in sorted({t.session for t in turns}):
        start = session_start(conv.get(keys[s] + "_date_time"))
        if start is None:
            quirks["undated_sessions"] += 1
            start = 0.0 if end is None else end + UNDATED_GAP_SECONDS
        elif end is not None and start < end:
            quirks["sessions_out_of_order"] += 1
            start = end + TURN_SECONDS
        mine = [t for t in turns if t.session == s]
        out += [dataclasses.replace(t, time=start + TURN_SECONDS * i) for i, t in enumerate(mine)]
        end = out[-1].time
    return out


def _turns(conv: dict, name: str, quirks: collections.Counter) -> list:
    sessions = []  # (number, key): a key may pad its number ("session_05")
    for key in conv:
        if (m := _SESSION.fullmatch(key)) is not None:
            number = _number(m.group(1))
            if number is None:
                raise InputError(f"locomo conversation {name}: key '{key[:40]}...' numbers a "
                                 f"session with more than {_DIGITS} digits; sessions are "
                                 "session_1, session_2, ...")
            sessions.append((number, key))
    sessions.sort()
    dated = {_number(m.group(1)) for k in conv if (m := _DATED.fullmatch(k))}
    quirks["dates_without_session"] += len(dated - {n for n, _ in sessions})
    turns = []
    for s, key in sessions:
        rows = conv[key]
        if not isinstance(rows, list):
            raise InputError(f"locomo conversation {name}: {key} must be a list of turns")
        for j, row in enumerate(rows):
            if not isinstance(row, dict) or not all(
                    isinstance(row.get(f), str) for f in ("speaker", "dia_id", "text")):
                raise InputError(f"locomo conversation {name}: {key} turn {j} needs "
                                 "string fields speaker, dia_id and text")
            turns.append(Turn(row["dia_id"], row["speaker"], row["text"], s))
    if not turns:
        raise InputError(f"locomo conversation {name} has no dialogue turns (session_N lists)")
    return _timed(turns, conv, dict(sessions), quirks)


def _resolve(raw_ids, exact: dict, loose: dict, quirks: collections.Counter) -> tuple:
    found = []
    for raw in raw_ids:
        parts = [p for p in re.split(r"[;,\s]+", str(raw)) if p]
        if len(parts) > 1:
            quirks["split_ids"] += 1
        for p in parts:
            if p in exact:
                found.append(exact[p])
                continue
            key = parse_id(p)
            if key is not None and key in loose:
                quirks["repaired_ids"] += 1
                found.append(loose[key])
            else:
                quirks["unresolved_ids"] += 1
    return tuple(sorted(set(found)))


def _qa(items, turns: list, name: str, quirks: collections.Counter) -> list:
    exact = {t.dia_id: i for i, t in enumerate(turns)}
    loose = {}
    for i, t in enumerate(turns):
        m = _STRICT_ID.fullmatch(t.dia_id)
        if m:
            loose.setdefault((int(m.group(1)), int(m.group(2))), i)
    out = []
    for j, q in enumerate(items):
        if not isinstance(q, dict) or not isinstance(q.get("question"), str):
            raise InputError(f"locomo conversation {name}: qa item {j} needs a string question")
        if "answer" in q:
            answer = q["answer"]
        else:
            answer = q.get("adversarial_answer", "")
            quirks["adversarial_answers"] += "adversarial_answer" in q
        if not isinstance(answer, str):
            quirks["non_string_answers"] += 1
            answer = str(answer)
        raw = q.get("evidence") or []
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list):
            raise InputError(f"locomo conversation {name}: qa item {j} has evidence of type "
                             f"{type(raw).__name__}; evidence is a list of dialogue ids such "
                             "as \"D1:3\"")
        evidence = _resolve(raw, exact, loose, quirks)
        if not raw:
            quirks["qa_without_evidence"] += 1
        elif not evidence:
            quirks["qa_unresolved"] += 1
        try:
            category = int(q.get("category", 0))
        except (TypeError, ValueError, OverflowError):  # inf, text: no category
            category = 0
        out.append(QA(q["question"], answer, category, evidence))
    return out


def load(path=None, select=None) -> list:
    """The conversations under ``path`` (default :func:`default_path`), in file order.

    ``select``: names or sample ids (``["26", "conv-30"]``) to keep, in the order given;
    an unknown one raises InputError listing the names there are.
    """
    if path in (None, ""):
        path = default_path()
        if path is None:
            raise InputError(f"no LoCoMo data: set path= or ${ENV} to a LoCoMo folder or "
                             "locomo10.json, or put it in 'locomo' under $SEMCACHE_DATA "
                             "(the project ships no data)")
    objects = _raw_objects(pathlib.Path(path))
    if not objects:  # a locomo10.json of an empty list
        raise InputError(f"locomo path '{path}' holds no conversation; point path= at the "
                         "LoCoMo folder or at locomo10.json")
    if select:
        by_name = {}
        for obj in objects:
            by_name.setdefault(obj[0], obj)
            by_name.setdefault(obj[1], obj)
        missing = [s for s in select if str(s) not in by_name]
        if missing:
            raise InputError(f"conversations: {', '.join(map(str, missing))} not found under "
                             f"'{path}'; there are {', '.join(o[0] for o in objects)}")
        objects = list({by_name[str(s)][0]: by_name[str(s)] for s in select}.values())
    out = []
    for name, sid, conv, qa_items in objects:
        quirks = collections.Counter({q: 0 for q in QUIRKS})
        turns = _turns(_need_dict(conv, name), name, quirks)
        if not isinstance(qa_items, list):
            raise InputError(f"locomo conversation {name}: qa must be a list")
        qa = _qa(qa_items, turns, name, quirks)
        out.append(Conversation(name, sid, (conv.get("speaker_a"), conv.get("speaker_b")),
                                tuple(turns), tuple(qa), dict(quirks)))
    return out
