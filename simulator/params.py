"""Named parameters of policies and workloads: defaults, coercion, and clear errors."""

from __future__ import annotations

import math

from simulator.errors import InputError


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
    try:
        number = float(value)
        if isinstance(default, int):
            if number != int(number):
                raise ValueError
            return int(number)
    except (TypeError, ValueError, OverflowError):
        kind = "an integer" if isinstance(default, int) else "a number"
        raise InputError(f"{what} must be {kind}, got {value!r}") from None
    if not math.isfinite(number):
        raise InputError(f"{what} must be finite, got {value!r}")
    return number
