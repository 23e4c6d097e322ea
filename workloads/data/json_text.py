"""JSON from a user's file, trusting nothing: one value parsed, or one line of error.

The readers of JSON files (the SOLAR authors' traces, agent-memory events) parse with
:func:`parse_json` and show a bad value with :func:`shown`, so every such file refuses bad
UTF-8, ``NaN`` and ``Infinity`` (no JSON has them), an object naming one key twice (which
Python's parser would resolve silently, keeping the last), nesting deeper than the parser's
recursion and numbers of more than 4,300 digits (Python's limit) in the same words.

>>> parse_json(b'{"a": [1, 2.5]}', "'f.json'")
{'a': [1, 2.5]}
"""

from __future__ import annotations

import json

from simulator.errors import InputError


def shown(value) -> str:
    """A value as one short line of JSON (a value JSON has no form for: its type).

    >>> shown([1.5, "a"]), shown(list(range(40)))
    ('[1.5, "a"]', '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11...')
    """
    try:
        text = json.dumps(value, allow_nan=True)
    except RecursionError:
        return "a deeply nested value"
    except (TypeError, ValueError):  # a Parquet cell: a date, bytes, a decimal
        return f"a {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


class _KeyTwice(ValueError):
    """An object names one key twice; ``key`` is the key."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        raise _KeyTwice(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return out


def parse_json(data: bytes, where: str):
    """The JSON value in ``data``, without ``NaN`` or ``Infinity``; ``where`` names the
    file (and line) in errors, which are one InputError (bad UTF-8, bad JSON, nesting
    deeper than the parser's recursion, a number of more than 4,300 digits, a key given
    twice in one object)."""
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant,
                          object_pairs_hook=_unique_keys)
    except UnicodeDecodeError as exc:
        raise InputError(f"{where} is not UTF-8 text (byte {exc.start}); save it as "
                         "UTF-8") from None
    except RecursionError:
        raise InputError(f"{where} is not valid JSON (nested too deeply)") from None
    except _KeyTwice as exc:
        raise InputError(f"{where} gives key {shown(exc.key)} twice in one object; give "
                         "each once") from None
    except ValueError as exc:
        # a number past Python's digit limit: the sentence before the advice to raise it
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc).split(":")[0]
        raise InputError(f"{where} is not valid JSON ({reason.splitlines()[0][:80]})") from None
