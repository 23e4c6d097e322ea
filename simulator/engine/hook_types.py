"""A policy's hooks compiled one by one against a run's own argument types, before its loop.

The engine's loop inlines every hook, so a hook that numba cannot type fails the loop's
compilation (seconds later, in about forty lines of numba's report), and a hook that types
but returns the wrong kind of value runs wrong (``admit`` returning None never admits).
:func:`check_hooks` compiles each hook alone with the types the loop will call it with
(``numba.typeof`` of the state ``init`` returned, of the cache and of the arrival) and
checks what it returns:

* ``admit``: a boolean (True admits).  An integer is refused, though Python would take
  its truth: ``-1`` ("no", as ``delete`` says it) would admit;
* ``victim`` and ``delete``: an integer slot (signed, or unsigned of at most 32 bits:
  numba turns a mix of int64 and uint64 into a float);
* ``paging_loop``: a tuple of three integers.

A hook numba cannot compile is one line naming the policy, the hook, numba's reason
(:func:`key_phrase`) and the likely fix.  The loop then reuses these compilations, so a
policy that passes pays nothing more.  The package's own hooks are compiled here only on
the state of a user's own ``init`` (the suite holds them to the same rules), so the
shipped policies start as fast as before.
"""

from __future__ import annotations

import os
import re

import numba
import numpy as np
from numba.core import types
from numba.core.errors import NumbaError

from simulator.engine.fast import HOOKS
from simulator.errors import InputError
from simulator.engine.hook_source import in_package

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LOCATION = re.compile(r'File "([^"]+)", line (\d+)')
# numba's reason, and the fix a hook's author most likely needs
_FIXES = (("Untyped global name", "a hook can call only @simulator.njit functions, not "
           "plain Python ones"),
          ("NameError", "define the name, or pass the value in the state"),
          ("Unknown attribute", "numba supports only some attributes and methods of "
           "NumPy arrays (numba's docs: Supported NumPy features)"),
          ("Cannot unify", "return one type on every path"),
          ("readonly", "init must return writable arrays"),
          ("tuple", "the hook reads a state of another shape than init returns"),
          ("No implementation of function", "an operation numba does not support on "
           "these types (an index must be an integer)"))
_WANTS = {"admit": "True or False (whether to admit the arriving item)",
          "victim": "an integer: the occupied slot to evict",
          "delete": "an integer: an occupied slot to delete, or -1 for none",
          "paging_loop": "a tuple of three integers (hits, admissions, evictions)"}


def key_phrase(exc: BaseException) -> str:
    """The line of numba's report that says what went wrong, with the file and line of
    the code it is about."""
    lines = [_ANSI.sub("", line).strip() for line in str(exc).splitlines()]
    lines = [line for line in lines if line and not line.startswith("Failed in ")]
    reason = lines[0] if lines else type(exc).__name__
    if reason.endswith("signature:") and len(lines) > 1:  # the call numba could not type
        reason += " " + lines[1].lstrip("> ")
    found = _LOCATION.search(str(exc))
    where = f" ({os.path.basename(found[1])}:{found[2]})" if found else ""
    return (reason if len(reason) <= 160 else reason[:159] + "…") + where


def _fix(reason: str) -> str:
    return next((fix for key, fix in _FIXES if key in reason),
                "rewrite it with what numba supports in nopython mode")


def _own(fn) -> bool:
    """Whether ``fn`` (compiled or not) is one of the package's own functions."""
    code = getattr(getattr(fn, "py_func", fn), "__code__", None)
    return code is not None and in_package(code.co_filename)


def _argument_types(mode: str, state, arrival, cache) -> dict:
    """Each hook's argument types, as the loop of ``mode`` calls it."""
    i64, f64, boolean = types.int64, types.float64, types.boolean
    st = numba.typeof(state)
    # a paging run's key-to-slot map is int32 (simulator.live_run), so are its slots there,
    # and its on_hit is told True, a constant numba compiles as such
    found = types.int32 if mode == "paging" else i64
    relevant = types.literal(True) if mode == "paging" else boolean
    return {"on_hit": (st, found, i64, relevant), "on_feedback": (st, i64, f64, f64),
            "admit": (st, i64, i64, arrival, cache), "victim": (st, i64, i64, arrival, cache),
            "on_insert": (st, i64, i64, i64), "on_evict": (st, i64, i64, i64),
            "on_rearrival": (st, found, i64), "delete": (st, i64, cache)}


def _returns_right(hook: str, rt) -> bool:
    if hook == "admit":
        return isinstance(rt, types.Boolean)
    if hook in ("victim", "delete"):
        return isinstance(rt, types.Integer) and (rt.signed or rt.bitwidth <= 32)
    if hook == "paging_loop":
        return isinstance(rt, types.BaseTuple) and len(rt) == 3 and all(
            isinstance(item, types.Integer) for item in rt)
    return True


def check_hooks(policy, mode: str, state, cache: tuple, items=None, paging_args=None,
                packaged: bool = False) -> None:
    """Compile each of ``policy``'s own hooks alone with the argument types of a run in
    ``mode`` and check what it returns (module docstring); one InputError otherwise.

    ``cache`` is the cache tuple the hooks get, ``items`` the trace's 2-D array of
    arrivals (None in paging mode, where an arrival has no vector), ``paging_args`` the
    values a paging run passes its own ``paging_loop``.  ``packaged``: check the
    package's own hooks too (the suite does); a run does not, so a shipped policy's
    start pays nothing here.
    """
    # the package's hooks on a state of the user's own init are checked too
    packaged = packaged or not _own(policy.init)
    hooks = [h for h in HOOKS if packaged or not _own(getattr(policy, h))]
    own_loop = policy.paging_loop is not None and paging_args is not None and (
        packaged or not _own(policy.paging_loop))
    if not hooks and not own_loop:
        return
    arrival = _NO_ARRIVAL if items is None else _row_type(items)
    signatures = _argument_types(mode, state, arrival, numba.typeof(cache))
    if own_loop:
        hooks.append("paging_loop")
        signatures["paging_loop"] = tuple(numba.typeof(a) for a in paging_args)
    for hook in hooks:
        _check_one(policy, hook, getattr(policy, hook), signatures[hook])


def _check_one(policy, hook: str, fn, args: tuple) -> None:
    where = f"policy '{policy.name}': hook {hook} ({fn.py_func.__name__})"
    try:
        fn.compile(args)
    except NumbaError as exc:
        reason = key_phrase(exc)
        raise InputError(f"{where} cannot be compiled: {reason}; {_fix(reason)}") from None
    rt = next(s.return_type for s in fn.nopython_signatures if s.args == args)
    if _returns_right(hook, rt):
        return
    if isinstance(rt, types.NoneType):
        got = "returns nothing (None)"
    elif isinstance(rt, types.Optional):
        got = f"returns {rt.type} on some paths and None on others (a path ends without return)"
    else:
        got = f"returns {types.unliteral(rt)}"
    raise InputError(f"{where} {got}; on every path it must return {_WANTS[hook]}")


def _row_type(items) -> types.Array:
    """The numba type of one row of the 2-D array ``items`` (``items[t]`` in the loop)."""
    whole = numba.typeof(items)
    return whole.copy(ndim=1, layout="C" if whole.layout == "C" else "A")


_NO_ARRIVAL = numba.typeof(np.zeros(0, np.float32))  # what a paging request passes as x
