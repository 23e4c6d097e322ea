"""The bad-input contract, asserted once for every generated hostile input.

A command given bad input must: exit with code 2; print nothing on stdout; print exactly
one line on stderr, starting ``semcache: error: ``, with no traceback; finish within a
deadline; leave an existing ``--out`` file byte for byte unchanged; and leave no new file
or folder behind in the folder it was run in (``workdir``).

:func:`assert_rejected` runs the command in-process (fast: the hypothesis suites use
it); :func:`assert_rejected_in_process` is the same with a real interpreter, for the few
cases where a crash could only show in a fresh process.
"""

from __future__ import annotations

import contextlib
import io
import os
import pathlib
import stat
import subprocess
import sys
import threading

DEADLINE_S = 60.0


def snapshot(folder) -> dict:
    """Every file under ``folder`` (relative path → bytes), every folder (→ None) and
    anything else (→ its kind, never read: a FIFO would block, ``/dev/zero`` never ends).

    ``__pycache__`` folders are left out: Python writes the bytecode of a plugin file it
    imports beside it (``make test`` lets it), which is not a file semcache wrote."""
    folder = pathlib.Path(folder)
    found = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if "__pycache__" in path.relative_to(folder).parts:
            continue
        if path.is_dir():
            found[rel] = None
        elif path.is_file():
            found[rel] = path.read_bytes()
        else:  # a FIFO, a device, a dangling link
            found[rel] = f"<not a regular file: {stat.filemode(path.lstat().st_mode)}>"
    return found


def _check(code, out, err, before, workdir, word):
    lines = err.splitlines()
    assert code == 2, f"exit code {code}, stderr: {err!r}"
    assert out == "", f"stdout not empty: {out[:200]!r}"
    assert "Traceback" not in err, err
    assert len(lines) == 1, f"{len(lines)} lines on stderr: {err[:500]!r}"
    assert lines[0].startswith("semcache: error: "), lines[0]
    if word is not None:
        assert word.lower() in lines[0].lower(), f"{word!r} not in {lines[0]!r}"
    after = snapshot(workdir)
    assert after == before, ("files changed: "
                             f"{sorted(set(after) ^ set(before)) or 'contents differ'}")
    return lines[0]


def assert_rejected(argv: list, workdir, word: str | None = None,
                    deadline: float = DEADLINE_S) -> str:
    """Run ``semcache argv`` in-process inside ``workdir``; assert the contract; return the line.

    ``workdir`` should hold every input file and any pre-existing ``--out`` target: its
    whole content is compared before and after.  ``word`` (optional) must appear in the
    error line (the file, member, option or field at fault).
    """
    from simulator.cli import main

    before = snapshot(workdir)
    out, err = io.StringIO(), io.StringIO()
    result = {}

    def target():
        cwd = os.getcwd()
        try:
            os.chdir(workdir)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                result["code"] = main([str(a) for a in argv])
        except BaseException as exc:  # noqa: BLE001 - the contract forbids any escape
            result["exc"] = exc
        finally:
            os.chdir(cwd)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(deadline)
    assert not thread.is_alive(), f"no answer within {deadline:.0f} s: semcache {argv}"
    if "exc" in result:
        raise AssertionError(f"semcache {argv} raised {result['exc']!r}") from result["exc"]
    return _check(result["code"], out.getvalue(), err.getvalue(), before, workdir, word)


def assert_rejected_in_process(argv: list, workdir, word: str | None = None,
                               deadline: float = DEADLINE_S) -> str:
    """:func:`assert_rejected` through a real ``python -m simulator.cli`` process."""
    before = snapshot(workdir)
    proc = subprocess.run([sys.executable, "-m", "simulator.cli", *map(str, argv)],
                          capture_output=True, text=True, cwd=workdir, timeout=deadline)
    return _check(proc.returncode, proc.stdout, proc.stderr, before, workdir, word)
