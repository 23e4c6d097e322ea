"""The Dask side of a sweep: a local cluster in a helper process, and Ctrl-C between chunks.

The local cluster (scheduler, nannies, worker processes) runs in a helper process started
with SIGINT ignored, and its worker processes inherit that (Python keeps an ignored SIGINT
ignored at startup, while a blocked one is unblocked by multiprocessing's spawn).  So a
Ctrl-C in a terminal, which goes to the whole process group, reaches only the sweep's own
process: it stops at the next safe point, closes the cluster and exits 130, and no worker
prints a traceback.  The helper stops when the sweep closes its stdin, or dies.  While it
starts, the sweep's process compiles the kernels the workers will load
(:func:`compile_kernels`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import select
import signal
import subprocess
import sys
import threading
import time

from simulator.errors import InputError

SCHEDULER_TIMEOUT_S = 5
_SERVE = ("import sys; from simulator.experiments.sweep.cluster import serve; "
          "serve(int(sys.argv[1]))")


def connect_scheduler(scheduler: str):
    """A client of the running scheduler at ``scheduler``; InputError if unreachable.

    A ``tcp://host:port`` address is first probed with a plain socket, so a refused or
    malformed address fails at once instead of after Dask's retries.
    """
    from distributed import Client

    _probe(scheduler)
    try:
        return Client(scheduler, timeout=SCHEDULER_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(f"scheduler '{scheduler}': cannot connect ({reason[:160]})",
                         "scheduler") from None


def _probe(scheduler: str) -> None:
    """Refuse a ``tcp://`` address with no valid port, or one nothing listens on."""
    import socket
    from urllib.parse import urlsplit

    if not scheduler.startswith("tcp://"):
        return  # another transport (tls://, inproc://): Dask's own connect decides
    try:
        parts = urlsplit(scheduler)
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if not host or port is None:
        raise InputError(f"scheduler '{scheduler}' is not an address like "
                         "tcp://HOST:PORT", "scheduler")
    try:
        socket.create_connection((host, port), timeout=SCHEDULER_TIMEOUT_S).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InputError(f"scheduler '{scheduler}': cannot connect ({reason})",
                         "scheduler") from None


def start_local(workers: int) -> subprocess.Popen:
    """Start the helper process of a local cluster; :func:`connect_local` waits for it."""
    with _sigint_ignored():  # around the fork only: the helper keeps it ignored, we do not
        return subprocess.Popen([sys.executable, "-c", _SERVE, str(workers)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def connect_local(helper: subprocess.Popen, stop: threading.Event):
    """A client of the helper's cluster, once it is up; a set ``stop`` raises KeyboardInterrupt."""
    from distributed import Client

    while not select.select([helper.stdout], [], [], 0.05)[0]:
        if stop.is_set():
            raise KeyboardInterrupt
    kind, _, value = helper.stdout.readline().strip().partition(" ")
    if kind != "address":
        raise RuntimeError(f"the local Dask cluster did not start: {value or 'exited'}")
    return Client(value)


def compile_kernels(tasks: list) -> None:
    """Compile (or load) the kernels ``tasks`` use, in this process and numba's disk cache.

    Kernels depend on argument types only, so a two-step trace of the workload's mode
    suffices.  Done while the local cluster starts, it lets the workers load each kernel
    from the disk cache instead of all compiling the same code at once.
    """
    import numpy as np

    import workloads
    from simulator import runner
    from simulator.trace import PagingTrace, Trace

    first = tasks[0]
    if isinstance(workloads.get(first["workload"]).build(first["params"], first["seed"]),
                  PagingTrace):
        tiny = PagingTrace.from_requests(np.arange(2))
    else:
        tiny = Trace.from_arrays(queries=np.eye(2, dtype=np.float32),
                                 items=np.eye(2, dtype=np.float32))
    seen = set()
    for task in tasks:
        key = (task["policy"], json.dumps(task["policy_params"], sort_keys=True),
               "budget" in task)
        if key not in seen:
            seen.add(key)
            runner.run(tiny, task["policy"], capacity=1, top_k=1,
                       params=task["policy_params"], engine=task["engine"],
                       budget=1 if "budget" in task else None)


def serve(workers: int) -> None:
    """The helper's main: run a LocalCluster until stdin closes; print its address first."""
    import dask
    from distributed import LocalCluster

    # Dask sets MALLOC_TRIM_THRESHOLD_ in workers against fragmentation; it also stops glibc
    # from reusing the large blocks a trace's arrays need (20 000-step chunks ran ~25% slower).
    dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})
    try:
        # Processes, one thread each: the runs hold the GIL outside numba's loop.  The
        # scheduler's HTTP server on a free port: 8787 may belong to another cluster.
        # Logs only when critical: a failed chunk raises in the sweep anyway, while
        # shutting down mid-run makes workers log harmless heartbeat errors.
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.CRITICAL,
                               scheduler_kwargs={"dashboard": False,
                                                 "dashboard_address": ":0"})
    except Exception as exc:  # noqa: BLE001 (whatever it is, the sweep raises it)
        print("error", " ".join(f"{type(exc).__name__}: {exc}".split()), flush=True)
        return
    with cluster:
        print("address", cluster.scheduler_address, flush=True)
        sys.stdin.read()  # until the sweep closes its end or dies


def stop_local(helper: subprocess.Popen) -> None:
    """Stop the helper's cluster (close its stdin) and wait for it to exit."""
    helper.stdin.close()
    try:
        helper.wait(timeout=30)
    except subprocess.TimeoutExpired:
        helper.kill()
        helper.wait()
    helper.stdout.close()


def run_chunks(client, fn, work: list, done, stop: threading.Event) -> None:
    """Submit ``fn(chunk)`` for every chunk; call ``done(*result)`` as each finishes.

    Polls rather than blocks, so a set ``stop`` raises KeyboardInterrupt between chunks
    (between two of a batch found done at once, too);
    the chunks not yet finished are cancelled on the way out.
    """
    from distributed import as_completed

    futures = [client.submit(fn, chunk, pure=False) for chunk in work]
    try:
        results = as_completed(futures)
        while not results.is_empty():
            if stop.is_set():
                raise KeyboardInterrupt
            batch = results.next_batch(block=False)
            for future in batch:  # a busy client may find many chunks done at once
                if stop.is_set():
                    raise KeyboardInterrupt
                done(*future.result())
            if not batch:
                time.sleep(0.05)
    finally:
        client.cancel(futures)


@contextlib.contextmanager
def deferred_sigint(enabled: bool = True):
    """Turn Ctrl-C into a flag (an Event) for the loop to check where stopping is safe.

    A KeyboardInterrupt raised inside a blocking Dask call trips distributed's own
    cancellation, which logs tracebacks; the flag avoids that.
    """
    flag = threading.Event()
    if not enabled or threading.current_thread() is not threading.main_thread():
        yield flag
        return
    saved = signal.signal(signal.SIGINT, lambda signum, frame: flag.set())
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, saved)


@contextlib.contextmanager
def _sigint_ignored():
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be changed from the main thread
        return
    saved = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, saved)
