"""Sweeps: a grid of runs, in parallel on Dask or in-process, resumable (docs/model.md §7).

The grid is workload parameter values × seeds × policies × capacities × top_k ×
switch_cost × quality.  Each grid point is one run of :func:`simulator.runner.run` and one
row of the store (:mod:`simulator.experiments.sweep.store`): the run record of ``summary()`` (its
``params``, the policy's parameters, as JSON text), plus ``workload``, one
``param.<name>`` column per workload parameter, ``task_id``, a hash of the run's
canonical configuration, and ``code``, a hash of everything that decided the row:
semcache's sources, the files of your code behind its policy and workload, the data files
its trace was made from (:mod:`~simulator.experiments.sweep.code`).  A store is only
resumed when all of these are as its rows had them
(:mod:`~simulator.experiments.sweep.manifest`).  Because the id names one run, a resumed
sweep skips exactly the runs already stored, even when the grid has grown since (say, one
more capacity).

Unit of work.  A *chunk* is the pending runs on one trace, run on a worker; its rows land
in one part file when it finishes (:mod:`~simulator.experiments.sweep.chunks`).

Compilation.  Workers load the compiled loops from numba's on-disk cache (they inherit
``NUMBA_CACHE_DIR``).  While a local cluster starts, this process compiles, or loads,
every kernel the sweep needs (:func:`compile_kernels`), so after a source change the
workers do not all compile the same code at once; the seconds of each worker's first
chunk are reported as ``first_chunk_s``.  The cluster itself and Ctrl-C handling live in
:mod:`simulator.experiments.sweep.cluster`.

Examples
--------
>>> import tempfile, os
>>> grid = Grid("clusters", params={"steps": [100], "topics": [4, 8]}, seeds=[0, 1],
...             policies=["fifo", "lru"], capacities=[5])
>>> len(grid.tasks())
8
>>> res = sweep(grid, os.path.join(tempfile.mkdtemp(), "store"), workers=0)
>>> res.rows_written, res.rows_skipped
(8, 0)
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import itertools
import json
import os
import statistics
import sys
import time

from simulator import policies as registry
from simulator.run_options import (budget_value, check_capacity, check_quality,
                                   check_switch_cost, check_top_k)
from simulator.experiments import plugins
from simulator.experiments.sweep import checks as sweep_checks
from simulator.experiments.sweep import cluster as sweep_cluster
from simulator.experiments.sweep import code as sweep_code
from simulator.experiments.sweep import manifest as sweep_manifest
from simulator.experiments.sweep import store as sweep_store
from simulator.experiments.sweep.chunks import chunks, part_name, run_chunk
from simulator.experiments.sweep.cluster import compile_kernels
from simulator.errors import InputError

ENGINE = "fast"  # sweeps run the compiled loop; part of every task id


@dataclasses.dataclass(frozen=True)
class Grid:
    """A sweep's grid: every combination of the listed values is one run.

    ``params`` maps workload parameter names to lists of values (strings are coerced as
    ``--param`` values are); unnamed parameters keep their defaults.  ``policies=None``
    means every policy defined for the workload's mode; ``policy_params`` go to every
    policy.  ``budgets`` are total sizes (docs/model.md §1.8; None: no budget, text such
    as ``"128MiB"`` allowed); a capacity of None means no count limit and needs a budget.
    An unbounded policy runs once per point, whatever the capacities and budgets.
    """

    workload: str
    params: dict = dataclasses.field(default_factory=dict)
    seeds: tuple = (0,)
    policies: tuple | None = None
    capacities: tuple = (10,)
    top_ks: tuple = (3,)
    switch_costs: tuple = (0.0,)
    qualities: tuple = ("hit",)
    policy_params: dict = dataclasses.field(default_factory=dict)
    budgets: tuple = (None,)

    def tasks(self) -> list:
        """Every run of the grid as a canonical config dict with its ``task_id``.

        Raises InputError, naming the option, for an empty or invalid dimension.
        """
        import workloads

        wl = workloads.get(self.workload)
        for field in ("seeds", "capacities", "top_ks", "switch_costs", "qualities", "policies",
                      "budgets"):
            values = getattr(self, field)
            if values is not None and len(values) == 0:
                raise InputError(f"{field} is empty: the grid has no runs", field)
        for name, values in self.params.items():
            if len(values) == 0:
                raise InputError(f"params: {name} has no values: the grid has no runs",
                                 "params")
        for seed in self.seeds:
            sweep_checks.check_seed(seed)
        lengths = {"seeds": len(self.seeds), "capacities": len(self.capacities),
                   "budgets": len(self.budgets), "top_ks": len(self.top_ks),
                   "switch_costs": len(self.switch_costs), "qualities": len(self.qualities),
                   "policies": len(self.policies or ()) or 1,
                   **{f"params {k}": len(v) for k, v in self.params.items()}}
        sweep_checks.check_size(lengths)  # before a single task is built
        for K in self.capacities:
            check_capacity(K)
        budgets = [budget_value(b) for b in self.budgets]
        if None in self.capacities and None in budgets:
            raise InputError("capacities has none (no count limit) while budgets has none: "
                             "a run needs a capacity or a budget", "capacities")
        for k in self.top_ks:
            check_top_k(k)
        for lam in self.switch_costs:
            check_switch_cost(lam)
        for q in self.qualities:
            check_quality(q)
        names = list(self.params)
        combos = [wl.resolve_params(dict(zip(names, values)))
                  for values in itertools.product(*self.params.values())]
        pols = self._policies(wl, combos[0])
        sweep_checks.check_size(dict(lengths, policies=len(pols)))
        tasks = {}
        for prm, seed, name in itertools.product(combos, self.seeds, pols):
            pol = registry.get(name)
            caps = [None] if pol.unbounded else self.capacities
            sizes = [None] if pol.unbounded else budgets
            for K, k, lam, q, B in itertools.product(caps, self.top_ks, self.switch_costs,
                                                     self.qualities, sizes):
                if K is None and B is None and not pol.unbounded:
                    continue  # no limit at all: not a run of this grid
                task = dict(workload=wl.name, params=prm, seed=int(seed), policy=name,
                            policy_params=pol.resolve_params(self.policy_params),
                            capacity=None if K is None else int(K), top_k=int(k),
                            switch_cost=float(lam), quality=q, engine=ENGINE)
                if B is not None:  # so that a task without a budget keeps its id
                    task["budget"] = B
                tasks.setdefault(task_id(task), task)  # equal after coercion: one run
        return [dict(t, task_id=i) for i, t in tasks.items()]

    def _policies(self, wl, params) -> list:
        """The policy names, checked against the workload's mode (found from one trace)."""
        names = list(self.policies or [])
        for name in names:
            registry.get(name)
            if names.count(name) > 1:
                raise InputError(f"policies names '{name}' twice", "policies")
        if names and all(len(registry.get(n).modes) > 1 for n in names):
            return names  # every mode is fine: no need to build a trace
        from simulator.trace import PagingTrace

        mode = "paging" if isinstance(wl.build(params, 0), PagingTrace) else "semantic"
        if not names:
            return [n for n, p in registry.REGISTRY.items() if mode in p.modes]
        for name in names:
            if mode not in registry.get(name).modes:
                raise InputError(f"policies: {name} is not defined in {mode} mode (workload "
                                 f"'{wl.name}'); it runs in: "
                                 + ", ".join(registry.get(name).modes), "policies")
        return names


# policy parameters added after sweep stores first held task ids (see task_id)
ADDED_POLICY_PARAMS = ("evict_rank",)


def task_id(task: dict) -> str:
    """A stable id of one run: a hash of its canonical JSON (sorted keys, no ``task_id``).

    Parameters added after ids were first stored are left out of the hash while they
    keep their default, as a run without a budget leaves out ``budget``, so a task keeps
    the id it had before them and a resumed store still recognises it: an unsized run's
    size parameters (``sizes=none`` and the unused median and sigma) and the policies'
    parameters in :data:`ADDED_POLICY_PARAMS`.  A parameter added later joins that list.
    """
    from workloads.data import item_sizes

    body = {k: v for k, v in task.items() if k != "task_id"}
    if body.get("params", {}).get("sizes") == "none":
        body["params"] = {k: v for k, v in body["params"].items()
                          if k not in item_sizes.PARAMS}
    if "policy_params" in body:
        defaults = registry.get(body["policy"]).params
        body["policy_params"] = {k: v for k, v in body["policy_params"].items()
                                 if not (k in ADDED_POLICY_PARAMS and v == defaults.get(k))}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


@dataclasses.dataclass
class SweepResult:
    """What a sweep did: rows written and skipped (and, resuming, the duplicate rows
    dropped from the store), workers, and timings in seconds.

    ``cluster_start_s`` runs from starting (or connecting to) the cluster to a connected
    client; a local cluster's includes :func:`compile_kernels`, done meanwhile.
    ``first_chunk_s`` maps each worker process to the seconds of its first chunk (which
    includes loading the kernels); ``median_chunk_s`` is over all chunks.
    """

    path: str
    rows_total: int
    rows_written: int
    rows_skipped: int
    duplicates_dropped: int
    chunks: int
    workers: int
    scheduler: str | None
    cluster_start_s: float
    first_chunk_s: dict
    median_chunk_s: float | None
    elapsed_s: float

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def sweep(grid: Grid, out: str, resume: bool = False, workers: int | None = None,
          scheduler: str | None = None, client=None, progress: bool | None = False
          ) -> SweepResult:
    """Run ``grid`` and append its rows to the store ``out`` as each chunk finishes.

    Parameters
    ----------
    grid : Grid
    out : str
        The store directory (made when the work starts if missing; its parent must exist).
        The grid and the costs are checked first; the store is then held against any other
        sweep (a second one is refused in one line) and checked; bad input found from then
        on (the store, a scheduler, a worker's InputError) removes the parts this call
        wrote, and the folder if this call made it.
    resume : bool
        Continue a store: skip the runs whose ``task_id`` it holds, and drop any run it
        holds twice (``duplicates_dropped``).  Without it a non-empty store is an error.
        A store whose rows were made with other code than this sweep's (semcache, a file
        of your code, a trace file: :mod:`~simulator.experiments.sweep.manifest`) is an
        error that names it, found before the store changes.
    workers : int, optional
        Local Dask workers (processes, one thread each); default one per core; ``0`` runs
        in this process without Dask.
    scheduler : str, optional
        Address of a running Dask scheduler (``tcp://host:port``) to use instead.
    client : distributed.Client, optional
        An open client to use (not closed here).
    progress : bool or None
        A progress bar on stderr; ``None``: only when stderr is a terminal.

    Ctrl-C (KeyboardInterrupt) stops the sweep with every finished chunk kept and any
    cluster started here shut down; the interrupt is then re-raised.
    """
    start = time.perf_counter()
    if workers is not None and (isinstance(workers, bool) or workers < 0):
        raise InputError(f"workers must be an integer >= 0, got {workers!r}", "workers")
    if workers is not None and (scheduler is not None or client is not None):
        raise InputError("workers sets up a local cluster; it cannot be used with a "
                         "scheduler", "workers")
    tasks = grid.tasks()
    needed = [*plugins.needed({t["policy"] for t in tasks}, {t["workload"] for t in tasks}),
              *sweep_code.named_origins(tasks)] if workers != 0 else []
    sweep_checks.check_costs(tasks)
    serial = workers == 0
    n_workers = 1 if serial else (workers or default_workers())
    cluster_s = 0.0
    infos = []
    written = []  # the parts of this call, removed if bad input stops it
    # unwinds in reverse: bar, client, Ctrl-C, cluster, this call's parts, the store's lock
    with contextlib.ExitStack() as cleanup:
        made = cleanup.enter_context(sweep_store.locked(out))  # no other sweep writes here
        cleanup.push(lambda kind, exc, tb: _undo(kind, out, made, written))
        done = sweep_store.open_store(out, resume)
        # the code of the stored rows, held to this process's before the store changes
        seen = sweep_manifest.stored_parts(out, sweep_store.part_codes(out))
        sweep_manifest.check_store(out, seen)
        if resume:
            sweep_store.remove_temps(out)
        dropped = sweep_store.drop_duplicates(out) if resume else 0
        pending = [t for t in tasks if t["task_id"] not in done]
        seen.update(sweep_code.expected(pending))  # as stored (checked above), or new
        local = bool(pending) and not serial and client is None and scheduler is None
        t0 = time.perf_counter()
        if local:
            helper = sweep_cluster.start_local(n_workers)
            cleanup.callback(sweep_cluster.stop_local, helper)
            compile_kernels(pending)  # while the cluster starts
        stop = cleanup.enter_context(sweep_cluster.deferred_sigint(enabled=not serial))
        if local or (pending and scheduler is not None):
            client = (sweep_cluster.connect_local(helper, stop) if local
                      else sweep_cluster.connect_scheduler(scheduler))
            cleanup.callback(client.close)
        if client is not None:
            cluster_s = time.perf_counter() - t0
            n_workers = max(1, sum(client.nthreads().values()))
        work = chunks(pending, split_by_policy=not serial
                      and len(chunks(pending)) < 2 * n_workers)
        for chunk in work:  # what a worker loads, and the code it must see before it runs
            chunk["plugins"] = needed
            chunk["code"] = sweep_code.expected(chunk["runs"])
        from tqdm import tqdm

        bar = cleanup.enter_context(tqdm(total=len(pending), unit="run", desc="sweep",
                                         file=sys.stderr, disable=None if progress is None
                                         else not progress))

        def finished(rows, info):
            manifest = info.get("manifest")  # none from a worker of an older version
            sweep_manifest.merge(seen, json.loads(manifest)["parts"] if manifest
                                 else {sweep_code.SEMCACHE: rows[0]["code"]}, info["worker"])
            written.append(part_name(rows))
            sweep_store.write_part(out, written[-1], rows, manifest)
            infos.append(dict(info, rows=len(rows)))
            bar.update(len(rows))

        if serial:
            for chunk in work:
                finished(*run_chunk(chunk))
        elif work:
            sweep_cluster.run_chunks(client, run_chunk, work, finished, stop)
    firsts = {i["worker"]: round(i["seconds"], 4) for i in infos if i["first"]}
    return SweepResult(
        path=out, rows_total=len(tasks), rows_written=sum(i["rows"] for i in infos),
        rows_skipped=len(tasks) - len(pending), duplicates_dropped=dropped,
        chunks=len(infos), workers=n_workers,
        scheduler=scheduler, cluster_start_s=round(cluster_s, 4), first_chunk_s=firsts,
        median_chunk_s=(round(statistics.median(i["seconds"] for i in infos), 4)
                        if infos else None),
        elapsed_s=round(time.perf_counter() - start, 4))


def _undo(kind, out: str, made: bool, written: list) -> bool:
    """On bad input found once the store is held (its state, a scheduler, a worker's
    InputError), remove this call's parts, and the store if this call made it: the failed
    command leaves nothing behind.  Ctrl-C and other failures keep the finished chunks, for
    ``resume``, and remove a store this call made only while it is still empty."""
    if kind is not None and issubclass(kind, InputError):
        sweep_store.remove_parts(out, written, remove_folder=made)
    elif kind is not None and made and not written:
        sweep_store.remove_parts(out, [], remove_folder=True)
    return False
