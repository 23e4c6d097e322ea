"""Plugins: your policies, workloads, adversaries and claims in every command.

A plugin is a Python file (a path ending in ``.py``) or an importable module name.
Loading it imports it once per process; every top-level :class:`simulator.Policy`,
:class:`workloads.base.Workload`, :class:`workloads.adversaries.Adversary` and
:class:`theory.Claim` it defines is registered under its own name, so a plugin is just a
module that defines them (it may also call the registries' ``register`` itself).  A name
that is already registered by something else is refused, in one line.

Where plugins come from, in this order (docs/extending.md): the entry-point group
``semcache.plugins`` of installed packages (an entry point names a module), the
environment variable ``SEMCACHE_PLUGINS`` (paths or module names separated by
``os.pathsep``), then each ``--plugin PATH|MODULE`` of the command line.  Each registry
remembers which plugin registered a name (``origin``), so a replay command that a result
prints names the ``--plugin`` it needs, and a Dask worker loads the same plugins before it
runs a task (:func:`ensure`).

>>> spec_of("my_package.rules")  # a module name stays; a file becomes its absolute path
'my_package.rules'
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import pathlib
import sys

from simulator.errors import InputError

ENV = "SEMCACHE_PLUGINS"
GROUP = "semcache.plugins"
_LOADED: dict = {}  # spec -> module, in loading order


def spec_of(text: str, option: str = "--plugin") -> str:
    """A plugin's canonical spec: an absolute path for a file, else the module name.
    ``option`` is what the errors name (``--file`` for ``semcache claims --file``)."""
    if not isinstance(text, str):
        raise InputError(f"{option} needs a file path or a module name, got "
                         f"{type(text).__name__}", "plugin")
    text = text.strip()
    if not text:
        raise InputError(f"{option} needs a file path or a module name, got ''", "plugin")
    if text.endswith(".py") or os.sep in text or (os.altsep and os.altsep in text):
        path = pathlib.Path(text).expanduser()
        if not path.is_file():
            raise InputError(f"{option} '{text}': no such file; give a .py file"
                             + (" or an importable module name" if option == "--plugin"
                                else ""), "plugin")
        return str(path.resolve())
    return text


def _module_name(path: str) -> str:
    """The name a file plugin is imported under: the same in every process (Dask workers
    unpickle its functions by it) and distinct for distinct files."""
    stem = "".join(c if c.isalnum() else "_" for c in pathlib.Path(path).stem)
    return f"semcache_plugin_{stem}_{hashlib.sha1(path.encode()).hexdigest()[:8]}"


def _import(spec: str):
    if not spec.startswith(os.sep) and not (len(spec) > 1 and spec[1] == ":"):
        return importlib.import_module(spec)
    name = _module_name(spec)
    if name in sys.modules:
        return sys.modules[name]
    # the file's folder first on the import path, as Python does for a script, so that it
    # imports the modules beside it (and keeps them reachable while its hooks run)
    folder = os.path.dirname(spec)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    # one module per file: ``import stem`` beside it (a claims file importing this plugin)
    # must not run the file a second time, with objects of its own (a policy registered
    # twice), so the plugin answers to its plain name too, and a file imported already by
    # that name is the plugin
    stem = pathlib.Path(spec).stem
    held = sys.modules.get(stem)
    if held is not None and _file_of(held) == spec:
        sys.modules[name] = held
        return held
    alias = stem.isidentifier() and held is None
    found = importlib.util.spec_from_file_location(name, spec)
    module = importlib.util.module_from_spec(found)
    sys.modules[name] = module
    if alias:
        sys.modules[stem] = module
    try:
        found.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        if alias:
            del sys.modules[stem]
        raise
    return module


def _file_of(module) -> str | None:
    path = getattr(module, "__file__", None)
    return str(pathlib.Path(path).resolve()) if isinstance(path, str) else None


def load(text: str, option: str = "--plugin"):
    """Import one plugin (once per process) and register what it defines; the module.

    A file plugin's folder goes first on the import path (``sys.path``) for the rest of
    the process, as Python puts a script's, so the file may import the modules beside it.
    ``option`` is what the errors name (``--file`` for ``semcache claims --file``).
    """
    spec = spec_of(text, option)
    if spec in _LOADED:
        return _LOADED[spec]
    try:
        module = _import(spec)
        _register_all(module, spec)
    except InputError as exc:
        raise InputError(f"{option} '{text}': {exc}", "plugin") from None
    except (ImportError, SyntaxError) as exc:
        raise InputError(f"{option} '{text}': cannot import it: {type(exc).__name__}: "
                         f"{' '.join(str(exc).split())}", "plugin") from None
    except Exception as exc:  # noqa: BLE001 (the plugin's own code failed while importing)
        raise InputError(f"{option} '{text}': importing it raised {type(exc).__name__}: "
                         f"{' '.join(str(exc).split())}", "plugin") from None
    _LOADED[spec] = module
    return module


def _register_all(module, spec: str) -> None:
    """Register every top-level policy, workload, adversary and claim of ``module``."""
    import theory
    import workloads
    from simulator import policies
    from simulator.policies.base import Policy
    from theory.claims import register as register_claim
    from workloads import adversaries
    from workloads.base import Workload

    for value in list(vars(module).values()):
        if isinstance(value, Policy):
            policies.register(value, origin=spec)
        elif isinstance(value, Workload):
            workloads.register(value, origin=spec)
        elif isinstance(value, adversaries.Adversary):
            adversaries.register(value, origin=spec)
        elif isinstance(value, theory.Claim):
            register_claim(value, origin=spec)
            held = value.policy
            if isinstance(held, Policy) and policies.REGISTRY.get(held.name) is not held:
                policies.register(held, origin=spec)  # a claim's own policy replays too


def from_environment() -> list:
    """The plugin specs of installed entry points and of ``SEMCACHE_PLUGINS``."""
    found = [ep.value.split(":")[0] for ep in importlib.metadata.entry_points(group=GROUP)]
    found += [p for p in os.environ.get(ENV, "").split(os.pathsep) if p.strip()]
    return found


def load_all(given=()) -> list:
    """Load the environment's plugins and then ``given`` (``--plugin`` values); their specs."""
    return [spec_of(text) for text in [*from_environment(), *given] if load(text)]


def ensure(specs) -> None:
    """Load ``specs`` in this process (a Dask worker) unless they are loaded already."""
    for spec in specs:
        load(spec)


def loaded() -> list:
    """The specs loaded in this process, in loading order."""
    return list(_LOADED)


def needed(policy_names, workload_names) -> list:
    """The plugins another process (a Dask worker) must load to run these policies and
    workloads, their origins; one registered by other means cannot reach it (InputError)."""
    import workloads
    from simulator import policies

    found = []
    for kind, names, registry in (("policy", policy_names, policies),
                                  ("workload", workload_names, workloads)):
        for name in sorted(names):
            origin = registry.origin(name)
            if origin is None and not registry.shipped(name):
                raise InputError(f"{kind} '{name}' is registered in this process only, so "
                                 "Dask workers cannot run it; define it in a plugin file "
                                 "(--plugin, docs/extending.md) or sweep with workers=0")
            if origin is not None and origin not in found:
                found.append(origin)
    return found


def argv_plugins(argv: list) -> list:
    """The ``--plugin`` values of a command line, wherever they stand (read before the
    parser is built, so that the plugins' names are known to it)."""
    found = []
    for i, arg in enumerate(argv):
        if arg == "--plugin" and i + 1 < len(argv):
            found.append(argv[i + 1])
        elif arg.startswith("--plugin="):
            found.append(arg.split("=", 1)[1])
    return found
