"""The checks every public function of :mod:`simulator.testing` applies to its arguments.

Each raises one :class:`~simulator.errors.InputError` (a ``ValueError``) whose ``param``
is the argument's name and whose one-line message starts with it and says what is
expected, so a bad argument to a strategy, an assertion or a twin stops at the call, not
inside hypothesis or halfway through a run.

>>> integer("max_steps", 0)  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
simulator.errors.InputError: max_steps must be an integer >= 1 and <= 2**53, got 0
>>> names("qualities", "hit", ("hit", "precision"))
('hit',)
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping

import numpy as np

from simulator.errors import InputError
from simulator.params import MAX_INT

_LIMIT_TEXT = {MAX_INT: "2**53"}


def shown(value) -> str:
    """``value``'s repr on one line, at most 60 characters.

    >>> shown("a\\nb"), shown(list(range(30)))
    ("'a\\\\nb'", '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16...')
    """
    try:
        text = " ".join(repr(value).split())
    except Exception:  # noqa: BLE001 (a value whose own repr fails is still named)
        text = f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def _whole(value) -> bool:
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer))


def integer(name: str, value, low: int = 1, high: int = MAX_INT, none: bool = False):
    """``value`` as an int in [low, high] (None too when ``none``)."""
    if none and value is None:
        return None
    if not _whole(value) or not low <= value <= high:
        bounds = [f">= {low}"] * (low > -math.inf) + [
            f"<= {_LIMIT_TEXT.get(high, str(high))}"] * (high < math.inf)
        raise InputError(f"{name} must be an integer{' ' * bool(bounds)}"
                         f"{' and '.join(bounds)}{' or None' if none else ''}, got "
                         f"{shown(value)}", name)
    return int(value)


def flag(name: str, value) -> bool:
    """``value`` as a bool: True or False, not a value that is merely truthy."""
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{name} must be True or False, got {shown(value)}", name)
    return bool(value)


def number(name: str, value, low: float | None = None, above: float | None = None,
           none: bool = False):
    """``value`` as a finite float, >= ``low`` or > ``above`` if given (None too when
    ``none``)."""
    if none and value is None:
        return None
    real = not isinstance(value, (bool, np.bool_)) and isinstance(
        value, (int, float, np.integer, np.floating))
    if not real or not math.isfinite(value) or (low is not None and value < low) \
            or (above is not None and value <= above):
        where = (f" >= {low:g}" if low is not None else "") + (
            f" > {above:g}" if above is not None else "")
        raise InputError(f"{name} must be a finite number{where}"
                         f"{' or None' if none else ''}, got {shown(value)}", name)
    return float(value)


def sequence(name: str, value, single=(str,), param: str | None = None) -> tuple:
    """``value`` as a non-empty tuple; one value of a ``single`` type stands for itself.
    ``param`` is the argument ``name`` is part of (default: ``name``)."""
    if isinstance(value, single):
        return (value,)
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise InputError(f"{name} must be a list of values, got {shown(value)}",
                         param or name)
    if isinstance(value, np.ndarray):
        items = tuple(value.ravel().tolist())
    elif isinstance(value, (set, frozenset)):  # in one order in every process
        items = tuple(sorted(value, key=repr))
    else:
        items = tuple(value)
    if not items:
        raise InputError(f"{name} must hold at least one value, got {shown(value)}",
                         param or name)
    return items


def names(name: str, value, valid) -> tuple:
    """``value``, one or a list of names from ``valid``, as a tuple."""
    given = sequence(name, value)
    wrong = [v for v in given if not isinstance(v, str) or v not in valid]
    if wrong:
        raise InputError(f"{name} must be some of {', '.join(valid)}, got {shown(wrong[0])}",
                         name)
    return given


def mapping(name: str, value, none: bool = True) -> dict:
    """``value`` as a dict (None as an empty one when ``none``)."""
    if none and value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(f"{name} must be a dict{' or None' if none else ''}, got "
                         f"{type(value).__name__} {shown(value)}", name)
    return dict(value)


def folder(name: str, value):
    """``value`` as a folder path (str or path-like) or None; an existing file is
    refused."""
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
        raise InputError(f"{name} must be a folder path (str or pathlib.Path) or None, got "
                         f"{shown(value)}", name)
    path = os.fspath(value)
    if not isinstance(path, str) or "\0" in path:
        raise InputError(f"{name} must be a folder path of text, got {shown(value)}", name)
    if os.path.exists(path) and not os.path.isdir(path):
        raise InputError(f"{name} {path!r} is a file, not a folder", name)
    return path


def policy(name: str, value):
    """The :class:`~simulator.policies.base.Policy` that ``value`` (a registered name or a
    Policy) stands for."""
    from simulator import policies
    from simulator.policies.base import Policy

    if isinstance(value, Policy):
        return value
    if not isinstance(value, str):
        raise InputError(f"{name} must be a registered policy name or a simulator.Policy, "
                         f"got {type(value).__name__} {shown(value)}", name)
    try:
        return policies.get(value)
    except InputError as exc:
        raise InputError(f"{name}: {exc}", name) from None


def instance(name: str, value, semantic: bool = False):
    """``value`` if it is an :class:`~simulator.instance.Instance` (of a semantic trace
    when ``semantic``)."""
    from simulator.instance import Instance
    from simulator.trace import Trace

    if not isinstance(value, Instance):
        raise InputError(f"{name} must be a simulator.testing.Instance (a trace and its "
                         f"options), got {type(value).__name__} {shown(value)}", name)
    if semantic and not isinstance(value.trace, Trace):
        raise InputError(f"{name} must hold a semantic trace: OPT is defined for semantic "
                         "traces only (hold a paging policy to its twin with "
                         "assert_same_as_reference)", name)
    return value


def policy_params(name: str, pol, given) -> dict:
    """``given`` (a mapping or None) checked against ``pol``'s parameters, as a dict."""
    given = mapping(name, given)
    try:
        pol.resolve_params(given)
    except InputError as exc:
        raise InputError(f"{name}: {exc}", name) from None
    return given


def param_values(name: str, pol, values, none: bool = True) -> dict:
    """``values`` (parameter name -> the values worth drawing: a list, or one value) as a
    dict of ``pol``'s parameters to non-empty tuples of values it accepts.

    One table may serve several policies, so a name that is another registered policy's
    parameter is left out; a name that is no policy's parameter (a typo) is refused.
    """
    from simulator import policies

    values = mapping(name, values, none)
    known = set(pol.params).union(*(p.params for p in policies.REGISTRY.values()))
    out = {}
    for key, given in values.items():
        if key not in known:
            valid = ", ".join(sorted(pol.params)) or "none"
            raise InputError(f"{name}: {shown(key)} is a parameter of no registered policy "
                             f"(policy '{pol.name}' has: {valid})", name)
        given = sequence(f"{name}[{key!r}]", given, _SCALARS, name)
        if key not in pol.params:
            continue
        for value in given:
            try:
                pol.resolve_params({key: value})
            except InputError as exc:
                raise InputError(f"{name}[{key!r}]: {exc}", name) from None
        out[key] = given
    return out


_SCALARS = (str, bytes, int, float, bool, np.generic, type(None))


def twin_params(name: str, twin, params) -> dict:
    """``params`` (a mapping or None) checked against the twin class's ``defaults``."""
    params = mapping(name, params)
    unknown = sorted(map(str, set(params) - set(twin.defaults)))
    if unknown:
        valid = ", ".join(sorted(twin.defaults)) or "none"
        raise InputError(f"{name}: twin {twin.__name__} has no parameter {unknown[0]!r} "
                         f"(its defaults: {valid})", name)
    return params


def int_list(name: str, value, low: int = 0, high: int = MAX_INT, length=None) -> list:
    """``value`` (a list, tuple or 1-D array of integers in [low, high]) as a list of
    ints, of ``length`` items when given."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise InputError(f"{name} must be a list of integers, got {shown(value)}", name)
    items = np.asarray(value).tolist() if isinstance(value, np.ndarray) else list(value)
    bad = next((v for v in items if not _whole(v) or not low <= v <= high), _NONE)
    if bad is not _NONE:
        most = _LIMIT_TEXT.get(high, str(high))
        raise InputError(f"{name} must hold integers in {low} .. {most}, got {shown(bad)}",
                         name)
    if length is not None and len(items) != length:
        raise InputError(f"{name} must hold {length} values (one a request), got "
                         f"{len(items)}", name)
    return [int(v) for v in items]


_NONE = object()


def model_options(**given):
    """The model options of a run (``capacity``, ``top_k``, ``switch_cost``,
    ``quality``, ``budget``, ``seed``) checked as :func:`simulator.run` checks them: a
    :class:`~simulator.run_options.RunOptions` with no policy."""
    from simulator.run_options import RunOptions

    return RunOptions.build(**given)


def semantic_trace(name: str, value):
    """``value`` if it is a semantic :class:`~simulator.trace.Trace`."""
    from simulator.trace import Trace

    if not isinstance(value, Trace):
        raise InputError(f"{name} must be a semantic simulator.Trace (a paging trace runs "
                         f"with reference_paging_run), got {type(value).__name__}", name)
    return value
