"""Named parameters of policies and workloads: defaults, coercion, and clear errors.

Every integer parameter is at most :data:`MAX_INT` = 2**53 in magnitude: beyond it a
float no longer holds every integer (``1e16`` would silently become another number), and
products the kernels form with it (a count times a ratio of at most 1000, a step index
plus a count) stay within int64.  Floats must be finite.  Each policy and workload checks
its own narrower ranges; what is legal but too large for this machine's memory is
:mod:`simulator.memory_estimate`'s to refuse.
"""

from __future__ import annotations

import math
import re

from simulator.errors import InputError

MAX_INT = 2**53  # see the module docstring
_INTEGER = re.compile(r"[+-]?\d+")


def resolve(kind: str, name: str, defaults: dict, given: dict | None) -> dict:
    """``defaults`` overlaid with ``given``, each value coerced to its default's type.

    ``None`` defaults accept a number (or ``none``); string defaults accept any string.

    Examples
    --------
    >>> resolve("policy", "solar", {"alpha": 0.1, "tau": None}, {"tau": "2"})
    {'alpha': 0.1, 'tau': 2.0}
    """
    given = dict(given or {})
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        valid = ", ".join(sorted(defaults)) or "none"
        raise InputError(f"{kind} '{name}' has no parameter '{unknown[0]}'; "
                         f"valid parameters: {valid}")
    out = dict(defaults)
    for key, value in given.items():
        out[key] = _coerce(f"{kind} '{name}' parameter '{key}'", defaults[key], value)
    return out


def _integer(what: str, value) -> int:
    """``value`` as an integer of magnitude at most MAX_INT: digits exactly, else a float
    with an integral value (``1e6``)."""
    text = value.strip() if isinstance(value, str) else None
    if text is not None and _INTEGER.fullmatch(text):
        # more than 20 digits is past MAX_INT whatever they are (and int() of thousands of
        # digits is refused by Python itself)
        number = MAX_INT + 1 if len(text.lstrip("+-")) > 20 else int(text)
    else:
        try:
            number = float(value)
            if number != int(number):
                raise ValueError
            number = int(number)
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"{what} must be an integer, got {value!r}") from None
    if abs(number) > MAX_INT:
        raise InputError(f"{what} must be an integer of magnitude at most 2**53 "
                         f"({MAX_INT}), got {_short(value)}")
    return number


def _short(value) -> str:
    """``value`` for an error line: long digit strings cut in the middle."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:18]}…{text[-18:]} ({len(text) - 2} chars)"


def _coerce(what: str, default, value):
    if value is None and default is None:
        return None
    if isinstance(default, str):
        return str(value)
    if isinstance(value, str) and value.strip().lower() in ("none", ""):
        if default is None:
            return None
        raise InputError(f"{what} needs a value")
    if isinstance(default, bool):
        text = str(value).strip().lower()
        if text in ("1", "true", "yes"):
            return True
        if text in ("0", "false", "no"):
            return False
        raise InputError(f"{what} must be true or false, got {value!r}")
    if isinstance(default, int):
        return _integer(what, value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise InputError(f"{what} must be finite, got {value!r}")
    return number
