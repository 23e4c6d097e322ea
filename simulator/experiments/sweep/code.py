"""What decides a sweep's row, hashed: the row's ``code``, and whether a store may go on.

A row's code covers, as labelled *parts* (docs/usage.md, Sweeps):

* ``semcache``: semcache's own sources (:func:`~simulator.experiments.code_id.code_id`);
* ``plugin:<path>``: each file of your code behind the row's policy, its workload, and any
  policy or adversary a workload parameter names (``target=``, ``adversary=``): the plugin
  that registered it, the files that define its functions, and the files of the compiled
  functions those call, by name or as a module's attribute, recursively
  (:func:`simulator.engine.kernel_cache.user_files`);
* ``trace:<path>``: each data file read while the row's trace was made, or named by a
  workload parameter; ``input:<path>``: each read by the run itself
  (:mod:`~simulator.experiments.file_reads`);
* ``nofile:<what>``: code with no file behind it (a notebook cell, ``exec``).

Files are hashed by content (SHA-256); a file of your code when a process first uses it,
so a hash is of the code the process runs.  A row's code is ``code_id()`` itself when it
depends on semcache alone, so a sweep of shipped policies and workloads keeps the code it
always had; otherwise a hash of its parts.  Each part file of a store keeps the parts of
its rows (the *manifest*, in the Parquet file's metadata, written with the rows in one
atomic rename), so a resume can name what changed (:func:`check_store`).

>>> row_code({SEMCACHE: code_id()}) == code_id()
True
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import stat
import sys

from simulator.engine import kernel_cache
from simulator.errors import InputError
from simulator.experiments import file_reads
from simulator.experiments.code_id import code_id, package_folders
from simulator.experiments.sweep.store import shown

SEMCACHE = "semcache"
KINDS = ("semcache", "plugin", "trace", "input", "nofile")  # the order differences are named
_WORDS = {"plugin": "plugin file", "trace": "trace file", "input": "input file"}
_HASHES: dict = {}  # (path, inode, size, mtime, ctime) -> hash
_FIRST_SEEN: dict = {}  # a file of your code -> its hash when this process first used it
_LABELS: dict = {}  # (kind, name, id of the registered object) -> its labels


def row_code(parts: dict) -> str:
    """The code of a row with ``parts`` (label → hash): ``code_id()`` for semcache alone,
    else 12 hex digits of a SHA-256 over the sorted parts."""
    if set(parts) == {SEMCACHE}:
        return parts[SEMCACHE]
    text = "\n".join(f"{label}\0{parts[label]}" for label in sorted(parts))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def file_hash(path: str) -> str | None:
    """16 hex digits of a SHA-256 of the file's bytes; None if it is not a regular file
    (gone, a folder, a FIFO that would block) or cannot be read."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return None
        key = (path, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if key not in _HASHES:
            digest = hashlib.sha256()
            with open(path, "rb") as file:
                for block in iter(lambda: file.read(1 << 20), b""):
                    digest.update(block)
            _HASHES[key] = digest.hexdigest()[:16]
        return _HASHES[key]
    except OSError:
        return None


def now(label: str) -> str | None:
    """What ``label`` hashes to in this process now; None when nothing can be told (a file
    gone or unreadable, code with no file)."""
    kind, _, path = label.partition(":")
    if kind == SEMCACHE:
        return code_id()
    if kind == "plugin":
        if _FIRST_SEEN.get(path) is None:
            _FIRST_SEEN[path] = file_hash(path)
        return _FIRST_SEEN[path]
    return file_hash(path) if kind in _WORDS else None


def describe(label: str) -> str:
    """``label`` in words: ``plugin file '/x/rules.py'``, ``semcache's own sources``."""
    kind, _, rest = label.partition(":")
    if kind == SEMCACHE:
        return "semcache's own sources"
    if kind in _WORDS:
        return f"{_WORDS[kind]} {shown(rest)}"
    return f"{shown(rest)[1:-1]}, whose code has no file"


def rank(label: str) -> tuple:
    """The order in which parts are named: semcache's sources, plugin, trace, input files."""
    kind = label.partition(":")[0]
    return (KINDS.index(kind) if kind in KINDS else len(KINDS), label)


def _registry(kind: str):
    import workloads
    from simulator import policies
    from workloads import adversaries

    return {"policy": policies, "workload": workloads, "adversary": adversaries}[kind]


def _labels(kind: str, name: str) -> frozenset:
    """The plugin and nofile labels of the registered ``kind`` ``name`` (none when it is
    semcache's own: its files are semcache's sources)."""
    registry = _registry(kind)
    obj = registry.REGISTRY[name]
    key = (kind, name, id(obj))
    if key not in _LABELS:
        _LABELS[key] = _own_labels(kind, name, obj, registry.origin(name))
    return _LABELS[key]


def _own_labels(kind: str, name: str, obj, origin: str | None) -> frozenset:
    files, labels = set(), set()
    if origin is not None:
        module = sys.modules.get(origin)  # a module plugin; else the path of a file plugin
        files.add(getattr(module, "__file__", None) if module is not None else origin)
    for field in dataclasses.fields(obj):
        fn = getattr(obj, field.name)
        if getattr(getattr(fn, "py_func", fn), "__code__", None) is None:
            continue  # a value, a class, a partial: no code of its own to hash
        found = kernel_cache.user_files([fn])
        if found is None:
            labels.add(f"nofile:{kind} '{name}'")
        else:
            files.update(found)
    ours = tuple(os.path.join(str(f), "") for f in package_folders().values())
    for path in filter(None, files):
        path = os.path.realpath(path)
        if os.path.isfile(path) and not path.startswith(ours):  # code_id covers semcache's
            labels.add(f"plugin:{path}")
    return frozenset(labels)


def task_labels(task: dict) -> frozenset:
    """The labels of semcache and of your code behind one run of a sweep's grid."""
    return _task_labels(*_what(task))


def _what(task: dict) -> tuple:
    """What a task's labels depend on: its policy, its workload and its text parameters."""
    return (task["policy"], task["workload"],
            tuple(v for v in task["params"].values() if isinstance(v, str)))


def _task_labels(policy: str, workload: str, texts: tuple) -> frozenset:
    labels = {SEMCACHE, *_labels("policy", policy), *_labels("workload", workload)}
    for value in texts:  # a policy or an adversary that a workload parameter names
        for kind in ("policy", "adversary"):
            if value in _registry(kind).REGISTRY:
                labels.update(_labels(kind, value))
    return frozenset(labels)


def named_origins(tasks: list) -> list:
    """The plugins of the policies and adversaries that workload parameters name, which a
    Dask worker loads besides those of the grid's policies and workloads."""
    found = []
    for params in {json.dumps(t["params"], sort_keys=True) for t in tasks}:
        for value in json.loads(params).values():
            for kind in ("policy", "adversary"):
                registry = _registry(kind)
                if isinstance(value, str) and value in registry.REGISTRY:
                    origin = registry.origin(value)
                    if origin is not None and origin not in found:
                        found.append(origin)
    return found


def expected(tasks: list) -> dict:
    """The parts (label → hash) that this process sees for the code behind ``tasks``; a
    file of your code that cannot be read is an InputError."""
    labels = set().union(*(_task_labels(*key) for key in {_what(t) for t in tasks})) \
        if tasks else {SEMCACHE}
    parts = {label: now(label) for label in sorted(labels, key=rank)}
    for label, value in parts.items():
        if value is None and label.startswith("plugin:"):
            raise InputError(f"{describe(label)} cannot be read now; restore it, or sweep "
                             "without the policy or workload it defines")
    return parts


def check_worker(parts: dict, worker: str) -> None:
    """Refuse to run a chunk on a worker that sees other code than the sweep (``parts``,
    from :func:`expected`), before anything runs there."""
    for label in sorted(parts, key=rank):
        if label.startswith("nofile:"):
            continue
        mine = now(label)
        if mine != parts[label]:
            raise conflict(label, parts[label], mine, worker)


def conflict(label: str, before, after, worker: str) -> InputError:
    """The error for a part of the code seen two ways during one sweep."""
    if label == SEMCACHE:
        return InputError(f"worker {worker} runs another version of semcache (code {after}; "
                          f"here {before}); install this one on every worker")
    if label.startswith("plugin:"):
        return InputError(f"worker {worker} has another {describe(label)} than this sweep "
                          "(or it changed during the sweep); give every worker the same file")
    return InputError(f"{describe(label)} changed during the sweep (worker {worker} read "
                      "another version); keep it unchanged while a sweep runs, then resume")


class ChunkCode:
    """The codes of one chunk's rows, and the manifest of the part they land in.

    ``trace_reads`` are the paths opened while the chunk's trace was made, ``params`` its
    workload parameters.
    """

    def __init__(self, trace_reads: list, params: dict):
        self._trace = self._hashed("trace", file_reads.data_files(trace_reads)
                                   + file_reads.named_files(params))
        self.parts, self.codes = {}, {}

    @staticmethod
    def _hashed(kind: str, paths: list) -> dict:
        found = {f"{kind}:{p}": file_hash(p) for p in paths}
        return {label: value for label, value in found.items() if value is not None}

    def row(self, task: dict, run_reads: list) -> str:
        """The code of ``task``'s row, whose run opened ``run_reads``."""
        parts = {label: now(label) for label in task_labels(task)}
        parts.update(self._trace)
        parts.update(self._hashed("input", file_reads.data_files(run_reads)))
        code = row_code(parts)
        self.parts.update(parts)
        self.codes[code] = sorted(parts, key=rank)
        return code

    def manifest(self) -> str:
        return json.dumps({"parts": self.parts, "codes": self.codes}, sort_keys=True)
