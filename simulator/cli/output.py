"""Output of the ``semcache`` command: JSON documents, rich tables, atomic file writes.

Everything the command prints on stdout goes through here, so ``--json`` can promise one
JSON object and nothing else.
"""

from __future__ import annotations

import json
import os
import sys

from simulator.files.atomic_write import write_atomically
from simulator.errors import InputError
from simulator.trace_formats import save


def to_json(doc: dict) -> str:
    """The text of one JSON document (NaN and inf are bugs here, so they raise)."""
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


def check_given(path: str, option: str = "--out") -> None:
    """An empty path names no file (``os.path.abspath('')`` is the current folder)."""
    if path == "":
        raise InputError(f"{option} is empty; give a path")


def check_writable(path: str, option: str = "--out") -> None:
    """Fail before any work when ``path`` cannot be written: empty, a directory, a missing
    folder, or a folder that takes no new file (tried: access bits do not bind root)."""
    check_given(path, option)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise InputError(f"{option} '{path}' is a directory; give a file name")
    _check_parent(folder, path, option)
    _try_writing(folder, f"{option} '{path}'")


def check_folder(path: str, option: str = "--out") -> bool:
    """Fail before any work unless ``path`` is a folder that takes new files, or can be
    made as one (its parent exists and takes new files); returns whether it exists."""
    check_given(path, option)
    where = os.path.abspath(path)
    if os.path.exists(where) or os.path.islink(where):
        if not os.path.isdir(where):
            raise InputError(f"{option} '{path}' is a file, not a folder; give a folder")
        _try_writing(where, f"{option} '{path}'")
        return True
    parent = os.path.dirname(where)
    _check_parent(parent, path, option)
    _try_writing(parent, f"{option} '{path}'")
    return False


def _check_parent(folder: str, path: str, option: str) -> None:
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise InputError(f"{option} '{path}': '{folder}' is a file, not a folder")
    if not os.path.isdir(folder):
        raise InputError(f"{option} '{path}': folder '{folder}' does not exist")


def _try_writing(folder: str, what: str) -> None:
    """Create and remove a file in ``folder``, or raise an InputError naming ``what``."""
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(prefix=".semcache-", suffix=".tmp", dir=folder)
        os.close(fd)
        os.remove(tmp)
    except OSError as exc:
        raise InputError(f"{what}: cannot write in '{folder}': {exc.strerror}") from None


def write_atomic(path: str, text: str, option: str = "--out") -> None:
    """Write ``text`` to a temporary file beside ``path`` and rename it into place.

    A failure leaves an existing ``path`` untouched.  The file gets the usual
    ``0o666 & ~umask`` mode rather than the private mode of a temporary file.
    """
    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)

    try:
        write_atomically(path, write)
    except OSError as exc:
        raise InputError(f"cannot write {option} '{path}': {exc.strerror}") from None


def save_trace(trace, path: str) -> None:
    """Write a trace file (atomically) for ``--out``; a failure is an InputError."""
    try:
        save(trace, path)
    except OSError as exc:
        raise InputError(f"cannot write --out '{path}': {exc.strerror}") from None


def emit_json(doc: dict) -> None:
    sys.stdout.write(to_json(doc))
    sys.stdout.flush()


def console():
    from rich.console import Console  # rich is only needed for human-readable output

    return Console(file=sys.stdout)


def _print_whole(table) -> None:
    """Print a rich ``table``; where the output is no terminal (a pipe, a file, a captured
    stream) it is as wide as the table needs, so no name is cut short (a terminal keeps its
    own width)."""
    from rich.measure import Measurement

    out = console()
    if not out.is_terminal:
        out.width = max(out.width, Measurement.get(out, out.options.update_width(4096),
                                                   table).maximum)
    out.print(table)


def _table(title, columns):
    from rich.table import Table

    table = Table(title=title)
    for name, justify in columns:
        table.add_column(name, justify=justify)
    return table


def _fmt(value, spec):
    return "—" if value is None else format(value, spec)


def describe_source(source: dict) -> str:
    """One line naming the workload (or trace file) of a run."""
    where = (f"workload {source['name']} (seed {source['seed']})" if "name" in source
             else f"trace {source['trace']}")
    size = f"{source['steps']} steps"
    if source.get("dim") is not None:
        size += f", d = {source['dim']}"
    return f"{where}: {source['mode']} mode, {size}"


def print_runs(doc: dict) -> None:
    """The readable form of ``semcache run``: one table row per policy."""
    runs = doc["runs"]
    first = runs[0]
    bounded = [r["capacity"] for r in runs if r["capacity"] is not None]
    title = f"{describe_source(doc['workload'])}\nK = {bounded[0] if bounded else '∞'}"
    if first.get("budget") is not None:
        title += f", budget {_size_text(first['budget'])}"
    if first["mode"] == "semantic":
        title += (f", k = {first['top_k']}, λ = {first['switch_cost']:g}, "
                  f"quality = {first['quality']}")
    # a byte hit rate only says something when the requests' sizes are not all 1
    sized = first["mode"] == "paging" and any(r.get("requested_size", r["steps"]) != r["steps"]
                                              for r in runs)
    columns = [("policy", "left"), ("hit rate", "right")]
    columns += [("byte hit rate", "right")] if sized else [("mean precision", "right")]
    table = _table(title, columns + [("modifications", "right"), ("cost", "right"),
                                     ("elapsed", "right")])
    for r in runs:
        second = r.get("size_hit_rate") if sized else r.get("mean_precision")
        table.add_row(r["policy"], _fmt(r["hit_rate"], ".4f"), _fmt(second, ".4f"),
                      _fmt(r.get("modifications"), "d"), _fmt(r.get("cost"), ".2f"),
                      f"{r['elapsed_s'] * 1e3:.2f} ms")
    _print_whole(table)  # policy names such as memoryos_shipped would be cut at 80 columns
    if first.get("scored_steps") == 0:
        print_line("no step is scored: the runs have no hit rate or precision (—, null in "
                   "the JSON); the cost counts the cache changes only")


def _size_text(size: int) -> str:
    """``size`` with the largest binary suffix that divides it (what ``--budget`` reads)."""
    for unit, name in ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if size % unit == 0:
            return f"{size // unit} {name}"
    return str(size)


def print_workloads(rows: list) -> None:
    table = _table("workloads", [("name", "left"), ("summary", "left"), ("parameters", "left")])
    for w in rows:
        table.add_row(w["name"], w["summary"],
                      ", ".join(f"{k}={v}" for k, v in w["params"].items()))
    console().print(table)


def print_benchmarks(rows: list, quick: bool = False) -> None:
    table = _table("semcache bench (million requests per second; a start in seconds; a "
                   "search, the best score)",
                   [("benchmark", "left"), ("baseline", "left"), ("semcache", "right"),
                    ("baseline", "right"), ("ratio", "right"), ("target", "left")])
    for r in rows:
        # speed is only compared between runs that count the same hits
        if not r.get("hits_equal"):
            verdict = "hits differ"
        else:
            verdict = f"{r['target_ratio']:g}x " + ("met" if r["meets_target"] else "missed")
        if "ours_score" in r:  # a search (search-…): the best scores found
            ours, base = _fmt(r["ours_score"], ".4g"), _fmt(r["baseline_score"], ".4g")
        elif "ours_s" in r:  # a process start (startup-version): its seconds
            ours, base = _fmt(r["ours_s"], ".3f") + " s", _fmt(r["baseline_s"], ".3f") + " s"
        elif "ours_ms" in r:  # a time per step against the paper's stated one
            ours, base = _fmt(r["ours_ms"], ".4f") + " ms", _fmt(r["baseline_ms"], ".3f") + " ms"
        else:
            ours = _fmt(r["ours_req_per_s"] / 1e6, ".2f")
            base = _fmt(r["baseline_req_per_s"] / 1e6, ".2f")
        table.add_row(str(r["name"]), str(r.get("baseline", "")), ours, base,
                      _fmt(r["ratio"], ".2f"), verdict)
    console().print(table)
    if quick:
        print_line("quick: traces a tenth of the size, a smoke test; the targets are set for "
                   "the full run")


def print_line(text: str) -> None:
    sys.stdout.write(text + "\n")
