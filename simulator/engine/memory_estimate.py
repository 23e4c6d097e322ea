"""Rough memory estimates, checked before a trace or a run is allocated.

A request that is legal but needs more memory than the machine has is refused with one
line giving the estimate, ``policy 'fifo' at capacity 10^12 over 10^12 items needs 611
TiB of policy state; about 23 GiB is available``, instead of failing inside numpy or
numba.  The estimates are rough but honest: they count the arrays that grow with the
request, at their real element sizes, and leave out constants and Python overheads, so
they err low; a request let through may still need up to about twice its estimate.

The model, in bytes:

* a semantic trace of T steps and V generated vectors of dimension d:
  ``20·(T + V)·d + 40·T`` (each vector is drawn and normalised in float64, then kept in
  float32; per step a query key, two topics and a relevance entry);
* a paging trace of T requests over N objects: ``24·T + 24·N`` (ids drawn as int64, a
  copy, the keys; popularity and its cumulative sum per object);
* a run over T steps with S slots, n keys, dimension d and depth k:
  ``S·(4·d + 4·BLOCK + 64) + 8·n + 72·T + 16·k`` (slot vectors and a block of scores per
  slot, the slot and key tables, the per-step records, the retrieval buffers), plus the
  policy's own state: its declared ``Policy.state_bytes(params, slots, n_keys)``, else
  ``64·S + 8·n``.

Available memory is ``MemAvailable`` of ``/proc/meminfo``, else the free physical pages
(``os.sysconf``), else no limit is known and only the representable ranges apply.
"""

from __future__ import annotations

import math
import os

from simulator.errors import InputError
from simulator.engine.kernels import BLOCK  # rows of the engine's block of scores

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB")


def available() -> float:
    """Bytes this process can still allocate, roughly; ``inf`` when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return math.inf


def human(nbytes: float) -> str:
    """``nbytes`` in binary units with two significant figures.

    >>> human(8 * 10**12), human(23 * 2**30), human(512)
    ('7.3 TiB', '23 GiB', '512 B')
    """
    value, unit = float(nbytes), 0
    while value >= 1024 and unit < len(_UNITS) - 1:
        value, unit = value / 1024, unit + 1
    return f"{value:.2g} {_UNITS[unit]}" if value < 10 else f"{value:.0f} {_UNITS[unit]}"


def power(value) -> str:
    """A large integer as ``10^k`` when it is one, else as it is (for error lines)."""
    if isinstance(value, int) and value >= 10**6 and str(value).rstrip("0") == "1":
        return f"10^{len(str(value)) - 1}"
    return str(value)


def require(nbytes: float, what: str, kind: str, param: str | None = None,
            free: float | None = None) -> None:
    """Raise InputError when ``nbytes`` (of ``kind``, asked by ``what``) exceeds memory
    (``free``: the available bytes when the caller has read them already)."""
    free = available() if free is None else free
    if nbytes > free:
        raise InputError(f"{what} needs {human(nbytes)} of {kind}; about {human(free)} is "
                         "available", param)


def semantic_trace(steps: int, vectors: int, dim: int) -> int:
    """Bytes to generate a semantic trace (module docstring)."""
    return 20 * (steps + vectors) * dim + 40 * steps


def paging_trace(steps: int, objects: int) -> int:
    """Bytes to generate a paging trace (module docstring)."""
    return 24 * steps + 24 * objects


def run_bytes(steps: int, slots: int, n_keys: int, dim: int, top_k: int) -> int:
    """Bytes of the engine's arrays for one run, without the policy's state."""
    return slots * (4 * dim + 4 * BLOCK + 64) + 8 * n_keys + 72 * steps + 16 * top_k


def policy_state(policy, params: dict, slots: int, n_keys: int) -> int:
    """Bytes of ``policy``'s state: its declaration, else the default per-slot model."""
    declared = policy.state_size(params, slots, n_keys)  # checked: a number >= 0
    return 64 * slots + 8 * n_keys if declared is None else declared


def check_run(trace, options) -> None:
    """Refuse a run of ``options`` (a :class:`~simulator.run_options.RunOptions` with its
    policy) on ``trace`` whose arrays cannot fit in memory."""
    policy, params = options.policy, options.params
    capacity, budget = options.run_limits()
    n_keys = max(int(trace.n_keys), 1)
    # an unbounded policy has a slot per item; else K, or as many items as the budget holds
    slots = n_keys if policy.unbounded else min(int(capacity or budget), n_keys)
    dim = int(getattr(trace, "dim", 0))
    top_k = options.top_k
    k = top_k if dim else 0  # paging runs retrieve nothing
    changed = [f"{k}={power(v)}" for k, v in params.items()
               if type(v) is int and v != policy.params.get(k)]
    what = (f"policy '{policy.name}'" + (f" with {', '.join(changed)}" if changed else "")
            + (f" at capacity {power(capacity)}" if capacity is not None else "")
            + f" over {power(n_keys)} items")
    free = available()  # read once: every run passes here (/proc/meminfo is not free)
    require(policy_state(policy, params, slots, n_keys) + run_bytes(0, slots, n_keys, dim, 0),
            what, "policy state", free=free)
    if 16 * k > 72 * trace.steps:
        require(run_bytes(trace.steps, 0, 0, 0, k), f"top_k {power(top_k)}",
                "retrieval buffers", "top_k", free=free)
    else:
        require(run_bytes(trace.steps, 0, 0, 0, k), f"a run of {trace.steps} steps",
                "per-step records", free=free)
