"""A sweep's unit of work, a *chunk*: the pending runs on one trace (one parameter
combination and seed).  The trace is generated once, on the worker, and every policy and
model option runs on it; its rows land in one part file when it finishes.  When the grid
has fewer traces than twice the workers, each trace's runs are split by policy (the trace
is then made once per policy, which is cheap next to the runs) so that every worker has
work.

>>> runs = [dict(workload="clusters", params={"steps": 50}, seed=s, policy=p)
...         for s in (0, 1) for p in ("fifo", "lru")]
>>> len(chunks(runs)), len(chunks(runs, split_by_policy=True))
(2, 4)
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time

from simulator import policies as registry
from simulator import runner
from simulator.experiments import file_reads, plugins
from simulator.experiments.sweep import code as sweep_code


def chunks(tasks: list, split_by_policy: bool = False) -> list:
    """Group runs into units of work: one per trace, or one per trace and policy."""
    groups = {}
    for task in tasks:
        key = (json.dumps(task["params"], sort_keys=True), task["seed"])
        if split_by_policy:
            key += (task["policy"],)
        groups.setdefault(key, []).append(task)
    return [dict(workload=runs[0]["workload"], params=runs[0]["params"],
                 seed=runs[0]["seed"], runs=runs) for runs in groups.values()]


_CHUNKS_IN_PROCESS = 0


def run_chunk(chunk: dict) -> tuple:
    """Generate the chunk's trace and run every one of its runs (this runs on a worker).

    Returns ``(rows, info)``; ``info`` names the worker process and gives the chunk's
    seconds, whether it was the first in that process (kernels loaded or compiled) and the
    code manifest of its rows.  A worker that sees other code than the sweep (the chunk's
    ``code``) refuses before it runs anything.
    """
    global _CHUNKS_IN_PROCESS
    import workloads

    plugins.ensure(chunk.get("plugins", ()))  # a worker loads what the sweep's process did
    worker = f"{socket.gethostname()}:{os.getpid()}"
    sweep_code.check_worker(chunk.get("code", {}), worker)
    start = time.perf_counter()
    with file_reads.watching() as reads:  # the data files the trace is made from
        trace = workloads.get(chunk["workload"]).generate(chunk["params"], chunk["seed"])
    codes = sweep_code.ChunkCode(reads, chunk["params"])
    rows = []
    for task in chunk["runs"]:
        unbounded = registry.get(task["policy"]).unbounded
        with file_reads.watching() as reads:
            result = runner.run(trace, task["policy"],
                                capacity=1 if unbounded else task["capacity"],
                                top_k=task["top_k"], switch_cost=task["switch_cost"],
                                quality=task["quality"], seed=task["seed"],
                                params=task["policy_params"], engine=task["engine"],
                                budget=task.get("budget"))
        record = result.summary()
        record["params"] = json.dumps(record["params"], allow_nan=False)
        rows.append({"task_id": task["task_id"], "workload": task["workload"],
                     **{f"param.{k}": v for k, v in task["params"].items()}, **record,
                     "code": codes.row(task, reads)})  # the code that ran it, on the worker
    info = {"worker": worker, "first": _CHUNKS_IN_PROCESS == 0,
            "seconds": time.perf_counter() - start, "manifest": codes.manifest()}
    _CHUNKS_IN_PROCESS += 1
    return rows, info


def part_name(rows: list) -> str:
    """The name of the part of ``rows``: a hash of their task ids."""
    return hashlib.sha256("".join(sorted(r["task_id"] for r in rows)).encode()).hexdigest()[:20]

