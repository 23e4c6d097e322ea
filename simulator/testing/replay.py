"""What a failed assertion of :mod:`simulator.testing` tells: the instance, saved, and the
``semcache`` lines that replay it as printed.

A failure is raised as a :class:`Failure`, an ``AssertionError`` whose message is
rendered, and the instance saved, the first time the message is read.  Hypothesis reads
the message of the example it reports (the shrunk one) and not those of the examples it
tries while shrinking, so a failing property test leaves one file, the one its message
names; a failure nobody reads (``hypothesis.find``, a caught assertion) leaves none.

A replay line runs in a new process, so it names the ``--plugin`` that defines the
policy: the plugin that registered it (:func:`simulator.policies.origin`), or else the
Python file that holds the Policy object at its top level, which a plugin load registers.
A policy with neither (defined in a notebook or inside a function) is said so, in words.

>>> from simulator.instance import Instance
>>> from simulator.trace import PagingTrace
>>> inst = Instance(PagingTrace.from_requests([0, 1]), {"capacity": 1})
>>> " ".join(replay_commands(inst, "i.npz", "lru", {"tie": "admission"})[0])
'semcache run --trace i.npz --policy lru --policy-param tie=admission --capacity 1'
"""

from __future__ import annotations

import functools
import hashlib
import os
import shlex
import tempfile

import numpy as np

from simulator import policies, registration
from simulator.trace import Trace
from simulator.trace_formats import save


class Failure(AssertionError):
    """An assertion's failure: ``headline`` now, the rest of the message (and the saved
    instance) when the message is first read."""

    def __init__(self, headline: str, details):
        super().__init__(headline)
        self.details = details  # () -> str, called once
        self.rendered = None

    def __str__(self) -> str:
        if self.rendered is None:
            self.rendered = f"{self.args[0]}\n{self.details()}"
        return self.rendered

    def __reduce__(self):  # a copy or a pickle carries the message, not the instance
        return _plain_type(type(self)), (str(self),)


def _plain_type(cls) -> type:
    """The public exception type a Failure subclass stands for."""
    return next(base for base in cls.__mro__ if base is not Failure
                and not issubclass(base, Failure))


def describe(instance, policy, params=None, seed=0, folder=None, with_opt=True) -> str:
    """The instance saved as an ``.npz`` under ``folder``, its options, and the commands
    that replay it, one a line.

    ``policy`` is the :class:`~simulator.policies.base.Policy` that ran.  The default
    folder is one temporary folder per process.  The file is named by the policy, T and
    a digest of the instance, so an instance is saved once however often it is described.
    A save that fails (a full disk) is said on the instance's line.
    """
    folder = folder or _temporary_folder()
    path = os.path.join(folder, f"{policy.name}-T{instance.steps}-{_digest(instance)}.npz")
    try:
        os.makedirs(folder, exist_ok=True)
        if not os.path.exists(path):
            save(instance.trace, path)
        where = f"instance: {path} ({_steps(instance)}) with {instance.options}"
    except OSError as exc:
        where = (f"instance: NOT SAVED to {path} ({type(exc).__name__}: {exc}), so the "
                 f"lines below cannot replay it; {_steps(instance)} with {instance.options}")
    plugin, note = plugin_of(policy)
    run, best = replay_commands(instance, path, policy.name, params, seed, plugin)
    lines = [where, shlex.join(run)]
    if with_opt and isinstance(instance.trace, Trace):
        lines.append(shlex.join(best))
    if note:
        lines.append(note)
    return "\n".join(lines)


def replay_commands(instance, path, policy, params=None, seed=0, plugin=None) -> tuple:
    """(``semcache run`` argv, ``semcache opt`` argv) of ``instance`` saved at ``path``,
    ``policy`` a registered name, ``plugin`` the ``--plugin`` that registers it (or None).
    Floats are written exactly (``repr``)."""
    model = []
    for key, value in instance.options.items():
        if value is None and key != "capacity":
            continue  # no budget: the default
        flag = "--" + key.replace("_", "-")
        model += [flag, "none" if value is None else repr(float(value))
                  if isinstance(value, (float, np.floating)) else str(value)]
    pp = [part for k, v in (params or {}).items() for part in ("--policy-param", f"{k}={v}")]
    seeded = ["--seed", str(seed)] if seed else []
    plug = ["--plugin", plugin] if plugin else []
    return (["semcache", "run", *plug, "--trace", path, "--policy", policy, *pp, *model,
             *seeded],
            ["semcache", "opt", "--trace", path, *model])


def plugin_of(policy) -> tuple:
    """``(plugin, note)``: the ``--plugin`` a new process needs to run ``policy`` (None
    for the package's own), or a note saying why no plugin can register it."""
    name = policy.name
    held = policies.REGISTRY.get(name)
    if held is policy:
        if policies.shipped(name):
            return None, None
        if policies.origin(name):
            return policies.origin(name), None
    elif held is not None:
        by = "semcache" if policies.shipped(name) else (policies.origin(name) or "your code")
        return None, (f"replay: the name '{name}' is registered to another policy (by {by}), "
                      "so these lines run that one; give your policy its own name")
    hooks = (getattr(policy, "victim"), getattr(policy, "init"))
    path = registration.defining_plugin(policy, first=[
        getattr(getattr(f, "py_func", f), "__module__", None) or "" for f in hooks])
    if path is None:
        return None, (f"replay: policy '{name}' is defined in no file a new process can load"
                      " (a notebook, a function): the replay needs it registered, e.g. "
                      "defined at the top level of a plugin file (--plugin, "
                      "docs/extending.md)")
    return path, None


def _steps(instance) -> str:
    return f"{instance.steps} step{'s' * (instance.steps != 1)}"


@functools.lru_cache(maxsize=None)
def _temporary_folder() -> str:
    return tempfile.mkdtemp(prefix="semcache-instances-")


def _digest(instance) -> str:
    h = hashlib.sha256(repr(sorted(instance.options.items())).encode())
    for name, array in sorted(instance.trace.arrays().items()):
        h.update(name.encode() + np.ascontiguousarray(array).tobytes())
    return h.hexdigest()[:12]
