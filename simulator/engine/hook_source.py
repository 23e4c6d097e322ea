"""What building a :class:`~simulator.policies.base.Policy` checks of its hooks, before
anything is compiled: each is a numba function taking the documented arguments, and each
hook whose value the engine uses (``admit``, ``victim``, ``delete``) returns one.

The return is checked in the hook's Python source (its ``ast``): a hook with no
``return <value>``, or with a bare ``return`` or ``return None``, would hand the engine
None, which numba reads as False (``admit`` would never admit).  A hook without source
(``exec``'d code) is not read; what each path really returns is checked again, with
types, before the run's loop is compiled (:mod:`simulator.engine.hook_types`).
"""

from __future__ import annotations

import ast
import inspect
import os
import textwrap

from simulator.errors import InputError

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # simulator/

# what each hook whose value the engine reads must return
RETURNS = {"admit": "True or False", "victim": "the slot to evict",
           "delete": "a slot to delete, or -1"}


def in_package(filename: str) -> bool:
    """Whether the source file ``filename`` is one of the package's own."""
    return os.path.abspath(filename).startswith(PACKAGE_DIR + os.sep)


def check_signature(where: str, hook: str, fn, names: tuple) -> None:
    """One line naming the hook when it is not compiled or takes other arguments."""
    py = getattr(fn, "py_func", None)
    if py is None:
        raise InputError(f"{where}: hook {hook} must be compiled with @simulator.njit, got "
                         f"{type(fn).__name__} {getattr(fn, '__name__', '')!r}".rstrip())
    got = list(inspect.signature(py).parameters)
    if len(got) != len(names):
        raise InputError(f"{where}: hook {hook} takes ({', '.join(names)}), but "
                         f"{py.__name__} takes ({', '.join(got)})")


def _returns(node) -> list:
    """The ``return`` statements of a function's own body (not of functions inside it)."""
    found = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                              ast.ClassDef)):
            continue
        if isinstance(child, ast.Return):
            found.append(child)
        found += _returns(child)
    return found


def _function_node(py):
    """The ``def`` of ``py`` in its own source, or None when it has none to read."""
    try:
        source = textwrap.dedent(inspect.getsource(py))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None
    return next((node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                 and node.name == py.__name__), None)


def check_returns(where: str, hook: str, fn, packaged: bool = False) -> None:
    """One line when hook ``hook`` (``fn``, compiled) visibly returns nothing.  The
    package's own hooks are read only when ``packaged`` (the suite holds them to it;
    reading them at import would slow every start)."""
    py = fn.py_func
    if not packaged and in_package(py.__code__.co_filename):
        return
    node = _function_node(py)
    if node is None:
        return
    first = py.__code__.co_firstlineno - min(
        [node.lineno] + [d.lineno for d in node.decorator_list])
    returns = _returns(node)
    empty = [r for r in returns if r.value is None or (
        isinstance(r.value, ast.Constant) and r.value.value is None)]
    if returns and not empty:
        return
    if empty:
        at = f"has a return without a value at line {first + empty[0].lineno}"
    else:
        at = "has no return statement"
    raise InputError(f"{where}: hook {hook} must return {RETURNS[hook]} on every path, but "
                     f"{py.__name__} {at} (None would reach the engine)")
