"""Calling a user's function, and saying in one line what it gave.

The claim kit calls your code (a bound's ``f``, a predicate, a family function, a
sub-range's test); :func:`call` turns any exception it raises into one
:class:`~simulator.errors.InputError` that keeps your message, and :func:`shown` puts a
value it returned into an error line.

>>> call(lambda T: 1 / T, "f(T) at T = 0", 0)
Traceback (most recent call last):
...
simulator.errors.InputError: f(T) at T = 0 raised ZeroDivisionError: division by zero
>>> shown(float("nan")), shown(None), is_number(True), is_bool(np.bool_(False))
('nan', 'None', False, True)
>>> is_finite(10 ** 400), is_nan(np.float64("nan"))
(False, True)
"""

from __future__ import annotations

import math
import numbers
from typing import Callable

import numpy as np

from simulator.errors import InputError


def call(fn: Callable, what: str, *args):
    """``fn(*args)``: an exception it raises becomes one InputError naming ``what``."""
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 (your code: any exception is one line)
        raise InputError(f"{what} raised {type(exc).__name__}: "
                         f"{' '.join(str(exc).split()) or '(no message)'}") from None


def is_bool(value) -> bool:
    """Whether ``value`` is a bool, Python's or numpy's."""
    return isinstance(value, (bool, np.bool_))


def is_number(value) -> bool:
    """Whether ``value`` is a real number, not a bool (Python's or numpy's)."""
    return isinstance(value, numbers.Real) and not is_bool(value)


def is_finite(value) -> bool:
    """Whether ``value`` is a real number (not a bool) that a float holds finitely: not
    NaN, not infinite, not an integer too large for a float."""
    try:
        return is_number(value) and math.isfinite(value)
    except OverflowError:
        return False


def is_nan(value) -> bool:
    """Whether ``value`` is a real number that is NaN (a huge integer is not)."""
    try:
        return is_number(value) and math.isnan(value)
    except OverflowError:
        return False


def shown(value) -> str:
    """``value`` for an error line: a plain value's short repr, else its type's name (with
    the short repr of a numpy scalar or a small container)."""
    text = " ".join(repr(value).split())
    text = text if len(text) <= 60 else text[:57] + "..."
    if type(value) in (bool, int, float, str, type(None)):
        return text
    name = type(value).__name__
    if isinstance(value, (np.generic, np.ndarray, tuple, list, dict)) and len(text) <= 60:
        return f"{name} {text}"
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"
