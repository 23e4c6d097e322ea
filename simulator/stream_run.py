"""Paging runs over a libCacheSim trace file read as a stream, however long the file.

The file is read twice, one chunk at a time.  The first reading collects the distinct
object ids (:class:`~simulator.files.object_table.ObjectTable`), the number of requests and
whether any size is not 1; the second turns each chunk's ids into dense keys and feeds
the chunk to every policy's :class:`~simulator.live_run.LiveRun`, whose cache and state
carry over from chunk to chunk.  Keys are the ranks of the ids, as when the trace is
loaded whole, so a streamed run equals the loaded run request for request.

Memory is the runs' caches, one chunk (24 bytes a request in ``oracleGeneral``) and, per
distinct object, the id table (23 to 46 bytes), the sorted ids (8 bytes: the runs'
``object_ids``, which W-TinyLFU's sketch hashes), the engine's key-to-slot entry (4 bytes)
and whatever the policy keeps per object (ARC's ghost index: 8 bytes); it does not grow
with the number of requests.  Offline policies (Belady) read the whole trace in advance
and cannot be streamed.

Examples
--------
>>> import os, tempfile, numpy as np
>>> from simulator.trace_formats import oracle_general
>>> path = os.path.join(tempfile.mkdtemp(), "t.oracleGeneral")
>>> oracle_general.write(path, [(np.array([5, 6, 5, 7, 5], np.uint64), None)])
>>> streamed = stream_run(path, ["fifo", "lru"], capacity=1, chunk_requests=2)
>>> streamed.trace.steps, streamed.trace.objects, [r.hits for r in streamed.runs]
(5, 3, [0, 0])
"""

from __future__ import annotations

import dataclasses
import os
import time

import numpy as np

from simulator import policies
from simulator.errors import InputError
from simulator.live_run import LiveRun
from simulator.files.object_table import ObjectTable
from simulator.run_options import RunOptions
from simulator.runner import paging_record
from simulator.trace import PagingBuffer
from simulator.trace_formats import detect_format, request_chunks


@dataclasses.dataclass
class StreamedTrace:
    """What the first reading found: the file, its format, its requests (zero-size ones
    skipped), its distinct objects and whether some size is not 1."""

    source: str
    format: str
    steps: int
    objects: int
    sized: bool


@dataclasses.dataclass
class StreamResult:
    """One policy's tallies over a streamed trace (no per-request arrays are kept)."""

    config: dict
    steps: int
    hits: int
    admissions: int
    evictions: int
    max_occupancy: int
    too_large: int
    requested_size: int
    hit_size: int
    elapsed_s: float

    def summary(self) -> dict:
        """The run record of docs/model.md §7.2, as a loaded run's summary gives it."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return paging_record(fields.pop("config"), **fields)


@dataclasses.dataclass
class Streamed:
    """The result of :func:`stream_run`: the trace's description and one result a policy."""

    trace: StreamedTrace
    runs: list


def stream_run(path, policy_names, *, capacity=None, budget=None, seed: int = 0,
               params: dict | None = None, trace_format: str | None = None,
               trace_params: dict | None = None, ignore_sizes: bool = False,
               chunk_requests: int = 1 << 20, on_chunk=None) -> Streamed:
    """Run each policy of ``policy_names`` over the trace file ``path``, read as a stream.

    Parameters
    ----------
    path : str or path
        A trace in one of libCacheSim's formats (``oracleGeneral``, CSV, text; ``.zst`` or
        not), read as :func:`simulator.trace_formats.request_chunks` reads it.
    policy_names : str or list of str
        Registered policies defined in paging mode; one reading serves them all.
    capacity, budget, seed, params
        As for :func:`simulator.runner.run` (the same for every policy).
    chunk_requests : int
        Requests read and run at a time.
    on_chunk : callable, optional
        ``on_chunk(policy, first_step, hit)`` after each chunk of each policy, with the
        chunk's hits (int8), e.g. for a miss ratio over time.
    """
    names = [policy_names] if isinstance(policy_names, str) else policy_names
    if not isinstance(names, (list, tuple)) or not names or not all(
            isinstance(name, str) for name in names):
        raise InputError("policy_names must be a registered policy's name or a list of "
                         f"them, got {policy_names!r}"[:200], "policy_names")
    shared = RunOptions.build(capacity=capacity, budget=budget, seed=seed)
    return stream_with(path, [shared.with_policy(policies.get(name), params) for name in names],
                       trace_format=trace_format, trace_params=trace_params,
                       ignore_sizes=ignore_sizes, chunk_requests=chunk_requests,
                       on_chunk=on_chunk)


def stream_with(path, runs: list, *, trace_format: str | None = None,
                trace_params: dict | None = None, ignore_sizes: bool = False,
                chunk_requests: int = 1 << 20, on_chunk=None) -> Streamed:
    """:func:`stream_run` of ``runs``, one :class:`~simulator.run_options.RunOptions` a
    policy, built and checked once by the caller and not checked again; the other
    arguments as for :func:`stream_run`."""
    if isinstance(chunk_requests, bool) or not isinstance(chunk_requests, int) \
            or chunk_requests < 1:
        raise InputError(f"chunk_requests must be an integer >= 1, got {chunk_requests!r}",
                         "chunk_requests")
    if on_chunk is not None and not callable(on_chunk):
        raise InputError("on_chunk must be a function (policy, first_step, hit), or None",
                         "on_chunk")
    if not isinstance(ignore_sizes, bool):
        raise InputError(f"ignore_sizes must be True or False, got {ignore_sizes!r}"[:200],
                         "ignore_sizes")
    if not isinstance(path, (str, os.PathLike)):
        raise InputError(f"path must be a trace file's path, got {type(path).__name__}",
                         "path")
    for options in runs:
        if options.policy.traits_of(options.params).offline:
            raise InputError(f"policy '{options.policy.name}' reads the whole trace in "
                             "advance, so it cannot be streamed; load the trace instead",
                             "policy")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise InputError(f"trace file '{path}' does not exist; give the path of a trace file")
    reading = dict(trace_format=trace_format, trace_params=trace_params,
                   ignore_sizes=ignore_sizes, chunk_requests=chunk_requests)
    trace, table, ids = _first_reading(path, reading)
    lives = [LiveRun(PagingBuffer(np.zeros(0, np.int64), trace.objects, sized=trace.sized,
                                  object_ids=ids), options=options)
             for options in runs]
    names = [options.policy.name for options in runs]
    elapsed = [0.0] * len(lives)
    for live in lives:
        live.feed(np.zeros(0, np.int64))  # compiles, outside the timing
    done = 0
    for ids, sizes in request_chunks(path, **reading):
        keys = _second_reading(table, trace, ids, sizes, done)
        for i, live in enumerate(lives):
            t0 = time.perf_counter()
            hit = live.feed(keys, sizes)
            elapsed[i] += time.perf_counter() - t0
            if on_chunk is not None:
                on_chunk(names[i], done, hit)
        done += keys.shape[0]
    if done != trace.steps:
        raise _changed(path, f"{trace.steps} requests, then {done}")
    return Streamed(trace, [_result(live, name, s) for live, name, s in zip(lives, names,
                                                                           elapsed)])


def _changed(path: str, how: str) -> InputError:
    return InputError(f"trace file '{path}' changed between its two readings ({how}); a "
                      "streamed trace is read twice: leave the file as it is while it runs")


def _second_reading(table, trace: StreamedTrace, ids, sizes, done: int):
    """The keys of a chunk of the second reading, which must hold what the first found:
    the same ids, and sizes of 1 where the first found no other."""
    if done + ids.shape[0] > trace.steps:
        raise _changed(trace.source, f"more than the {trace.steps} requests first read")
    if not trace.sized and sizes.shape[0] and sizes.max() > 1:
        raise _changed(trace.source, f"a size of {int(sizes.max())} where the first reading "
                                     "found only sizes of 1")
    try:
        return table.keys_of(ids)
    except KeyError as exc:
        raise _changed(trace.source, f"object id {exc.args[0]} appears in the second "
                                     "only") from None


def _first_reading(path, reading):
    table, steps, sized = ObjectTable(), 0, False
    for ids, sizes in request_chunks(path, **reading):
        table.add(ids)
        steps += ids.shape[0]
        sized = sized or bool((sizes != 1).any())
    if not steps:
        raise InputError(f"trace file '{path}' holds no request", "trace")
    ids = table.finish()
    fmt = reading["trace_format"]
    fmt = detect_format(path) if fmt is None else fmt
    return StreamedTrace(path, fmt, steps, ids.shape[0], sized), table, ids


def _result(live, name, elapsed) -> StreamResult:
    out = live.outputs()
    return StreamResult(config=dict(live.config, policy=name, engine="fast"),
                        steps=live.requests_fed, hits=live.hits, admissions=out["admissions"],
                        evictions=out["evictions"], max_occupancy=out["max_occupancy"],
                        too_large=out["too_large"], requested_size=out["requested_size"],
                        hit_size=out["hit_size"], elapsed_s=elapsed)
