"""How fast the command line answers (``semcache bench``, row ``startup-version``).

``semcache --version`` in a fresh interpreter (``python -m simulator.cli --version``, the
same interpreter as the baseline) against ``python -c pass``, the least a Python command
can cost: the seconds from starting the process to its exit, best of several rounds
taken in turns.  The version is read from the installed metadata and the subcommands are
imported only when named (:mod:`simulator.cli.commands`), so the difference is the
command line's own cost.
"""

from __future__ import annotations

import math
import subprocess
import sys
import time

COMMANDS = {"version": [sys.executable, "-m", "simulator.cli", "--version"],
            "pass": [sys.executable, "-c", "pass"]}


def _clocked(argv: list) -> tuple:
    """``(stdout, exit code, seconds)`` of one process."""
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    return done.stdout, done.returncode, time.perf_counter() - t0


def measure(repeats: int = 7) -> dict:
    """Both commands, in turns: ``{"seconds": {...}, "answer": ...}``, the seconds keyed
    ``version`` and ``pass`` (best of ``repeats``), ``answer`` what ``--version`` printed
    (empty unless it exited 0)."""
    best, answer = {name: math.inf for name in COMMANDS}, ""
    for _ in range(repeats):
        for name, argv in COMMANDS.items():
            out, code, seconds = _clocked(argv)
            best[name] = min(best[name], seconds)
            if name == "version":
                answer = out.strip() if code == 0 else ""
    return {"seconds": best, "answer": answer}
