"""A policy's failure during a run, said in one line naming the policy and the hook.

What can go wrong once a run has started is the policy's: its ``init`` raises, a hook
raises (``raise ValueError(...)`` in compiled code, or a NumPy call inside it fails), a
``victim()`` or ``delete()`` names a slot that holds no item, or the policy's loop cannot
be compiled.  Each becomes one :class:`~simulator.errors.InputError` that names the
policy, the hook (or ``init``) and keeps the policy's own message; the original exception
is chained to it for a debugger.  An InputError that a user's ``init`` raises passes
through as it is: it is already a line for the user.

numba attaches to an exception raised in compiled code a traceback frame of the function
that raised it; the hook is found by matching that frame against the hooks' Python code.
A function a hook calls is named with the hook that calls it; a failure inside numba's
own code (``np.empty(-1)``) has no frame of the policy's, and is said to be in its
compiled code.
"""

from __future__ import annotations

import contextlib
import os
import traceback

import numpy as np
from numba.core.errors import NumbaError

from simulator.engine.counts import BAD_DELETE, BAD_VICTIM
from simulator.engine.fast import HOOKS
from simulator.errors import InputError
from simulator.engine.hook_source import PACKAGE_DIR, in_package
from simulator.engine.hook_types import key_phrase

_HOOKS = HOOKS + ("paging_loop",)


def _one_line(text: str, most: int = 300) -> str:
    """``text`` on one line, cut to ``most`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= most else flat[:most - 1] + "…"


def _raised(exc: BaseException) -> str:
    message = _one_line(exc)
    return type(exc).__name__ + (f": {message}" if message else "")


def _code(fn):
    return getattr(getattr(fn, "py_func", fn), "__code__", None)


def _where(frame) -> str:
    return f"{os.path.basename(frame.filename)}:{frame.lineno}"


def _engine_file(filename: str) -> bool:
    """Whether ``filename`` is the package's own, outside its policies."""
    path = os.path.abspath(filename)
    return in_package(path) and not path.startswith(os.path.join(PACKAGE_DIR, "policies", ""))


def culprit(policy, exc: BaseException) -> str:
    """Which of ``policy``'s functions raised ``exc``: ``hook victim (my_victim,
    rules.py:7)``, a function a hook calls, or its compiled code as a whole."""
    frames = traceback.extract_tb(exc.__traceback__)
    last = frames[-1] if frames else None
    # without a frame of compiled code, the last frame is the Python line that called it
    if last is None or _engine_file(last.filename):
        return "its compiled code (a hook, or a NumPy call in one: numba names no line)"
    codes = {hook: _code(getattr(policy, hook, None)) for hook in _HOOKS}
    for hook, code in codes.items():
        if code is not None and code.co_filename == last.filename \
                and code.co_name == last.name:
            return f"hook {hook} ({last.name}, {_where(last)})"
    callers = [hook for hook, code in codes.items()
               if code is not None and last.name in code.co_names]
    called_by = (f"called by hook {callers[0]}" if len(callers) == 1
                 else "called by the policy's hooks")
    return f"{last.name} ({_where(last)}, {called_by})"


@contextlib.contextmanager
def reported(policy, slots: int, stopped=None):
    """Run compiled code of ``policy`` (a run with ``slots`` slots); whatever the policy
    does wrong becomes one InputError (module docstring).  ``stopped(line)`` is called
    first, so the run can refuse further steps: its state is partly updated."""
    name = policy.name
    try:
        yield
    except InputError:
        raise
    except RuntimeError as exc:
        if exc.args and exc.args[0] in (BAD_VICTIM, BAD_DELETE) and len(exc.args) == 3:
            hook = "victim" if exc.args[0] == BAD_VICTIM else "delete"
            t, slot = exc.args[1:3]
            line = (f"policy '{name}': at step {t} {hook}() returned slot {slot}, which "
                    f"holds no item; it must return an occupied slot in 0 … {slots - 1} "
                    "(cache[0][slot] >= 0)" + (", or -1 to delete nothing"
                                               if hook == "delete" else ""))
            _stop(stopped, line)
            raise InputError(line) from None
        _stop(stopped, line := _fault_line(policy, exc))
        raise InputError(line) from exc
    except NumbaError as exc:  # the loop itself cannot be compiled
        line = (f"policy '{name}': its compiled loop cannot be built: {key_phrase(exc)}; "
                "check that init returns the documented state and each hook runs alone")
        _stop(stopped, line)
        raise InputError(line) from exc
    except Exception as exc:  # noqa: BLE001  (a hook may raise anything)
        _stop(stopped, line := _fault_line(policy, exc))
        raise InputError(line) from exc


def _fault_line(policy, exc) -> str:
    return f"policy '{policy.name}': {culprit(policy, exc)} raised {_raised(exc)}"


def _stop(stopped, line: str) -> None:
    if stopped is not None:
        stopped(line)


def _state_problem(value, depth: int = 0) -> str | None:
    """What in a state (part) is not a numpy array, a number or a tuple of them."""
    if isinstance(value, tuple) and depth < 4:
        return next((p for p in (_state_problem(v, depth + 1) for v in value) if p), None)
    if isinstance(value, np.ndarray):
        return None if value.dtype.kind in "biufc" else f"an array of dtype {value.dtype}"
    if isinstance(value, (bool, int, float, complex, np.bool_, np.number)):
        return None
    return f"a {type(value).__name__}"


def checked_state(policy, context):
    """The state ``policy.init(context)`` returns (its exception said in one line, an
    InputError passed on as it is), checked: a tuple of numpy arrays of numbers or
    booleans, with numbers and tuples of them allowed inside."""
    try:
        state = policy.init(context)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001  (the user's init may raise anything)
        raise InputError(f"policy '{policy.name}': init raised {_raised(exc)}") from exc
    if not isinstance(state, tuple):
        problem = f"returned a {type(state).__name__}"
    else:
        inner = _state_problem(state)
        problem = inner and f"returned a tuple holding {inner}"
    if problem:
        raise InputError(f"policy '{policy.name}': init must return a tuple of numpy arrays "
                         f"(the state its hooks update), but it {problem}; e.g. "
                         "(np.zeros(ctx.slots, np.int64),)")
    return state
