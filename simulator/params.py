"""Named parameters of policies and workloads: defaults, coercion, and clear errors.

Every integer parameter is at most :data:`MAX_INT` = 2**53 in magnitude: beyond it a
float no longer holds every integer (``1e16`` would silently become another number), and
products the kernels form with it (a count times a ratio of at most 1000, a step index
plus a count) stay within int64.  Floats must be finite.  Each policy and workload checks
its own narrower ranges; what is legal but too large for this machine's memory is
:mod:`simulator.engine.memory_estimate`'s to refuse.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from simulator.errors import InputError

MAX_INT = 2**53  # see the module docstring
_INTEGER = re.compile(r"[+-]?\d+")
# a parameter's name: what ``--param KEY=VALUE`` and ``--policy-param`` can give
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def check_defaults(kind: str, name: str, defaults) -> None:
    """Refuse, in one line, parameter defaults that :func:`resolve` cannot take: a name
    that is not an identifier, or a default that is not None, a string, a bool, an
    integer of magnitude at most :data:`MAX_INT` or a finite float (each given value is
    coerced to its default's type, so the default must be one of these).

    >>> check_defaults("policy", "mine", {"alpha": float("nan")})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    simulator.errors.InputError: policy 'mine' parameter 'alpha' has default nan; a ...
    """
    if not isinstance(defaults, dict):
        raise InputError(f"{kind} '{name}': params must be a dict of parameter names to "
                         f"defaults, got {type(defaults).__name__}")
    for key, value in defaults.items():
        if not isinstance(key, str) or not _NAME.fullmatch(key):
            raise InputError(f"{kind} '{name}': parameter name {key!r} must be an identifier "
                             "(letters, digits and '_', not starting with a digit)")
        ok = value is None or isinstance(value, (str, bool)) or (
            type(value) is int and abs(value) <= MAX_INT) or (
            isinstance(value, float) and math.isfinite(value))
        if not ok:
            raise InputError(f"{kind} '{name}' parameter '{key}' has default {_short(value)}; "
                             "a default must be None, a string, a bool, an integer of "
                             "magnitude at most 2**53 or a finite float")


def resolve(kind: str, name: str, defaults: dict, given: dict | None) -> dict:
    """``defaults`` overlaid with ``given``, each value coerced to its default's type.

    ``None`` defaults accept a number (or ``none``); string defaults accept any string.

    Examples
    --------
    >>> resolve("policy", "solar", {"alpha": 0.1, "tau": None}, {"tau": "2"})
    {'alpha': 0.1, 'tau': 2.0}
    """
    if given is not None and not isinstance(given, Mapping):
        raise InputError(f"{kind} '{name}': its parameters must be a mapping of parameter "
                         f"names to values (e.g. {{'alpha': 0.2}}), got "
                         f"{type(given).__name__} {_short(given)}")
    given = dict(given or {})
    odd = [key for key in given if not isinstance(key, str)]
    if odd:
        raise InputError(f"{kind} '{name}': parameter names are strings, got {odd[0]!r}")
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
            raise InputError(f"{what} must be an integer, got {_short(value)}") from None
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
    if isinstance(value, bool) and not isinstance(default, bool):
        raise InputError(f"{what} must be a number, got {value!r}")  # True is no count
    if isinstance(default, bool):
        text = str(value).strip().lower()
        if text in ("1", "true", "yes"):
            return True
        if text in ("0", "false", "no"):
            return False
        raise InputError(f"{what} must be true or false, got {_short(value)}")
    if isinstance(default, int):
        return _integer(what, value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a number, got {_short(value)}") from None
    if not math.isfinite(number):
        raise InputError(f"{what} must be finite, got {_short(value)}")
    return number
