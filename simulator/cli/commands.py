"""The ``semcache`` command line (docs/model.md §7): one module per subcommand, assembled here.

``semcache run``            one workload or trace file, one or more policies
``semcache workload list``  the registered workloads and their parameters
``semcache workload make``  write a workload's trace to an ``.npz`` file
``semcache workload show``  a workload's parameters and measured statistics of its trace
``semcache trace``          convert external traces to trace files
``semcache opt``            the exact offline optimum of a trace (docs/model.md §4)
``semcache claims``         a verdict for every claim of the SOLAR paper
``semcache reproduce``      a table or figure of the SOLAR paper's synthetic experiments
``semcache sweep``          a grid of runs on Dask, into a resumable Parquet store
``semcache bench``          measured speed against the reference implementations
``semcache compile``        policies' loops compiled into the disk cache, in parallel
``semcache delay-study``    hit rate as feedback is delayed or lost (SimPy engine)
``semcache --version``      ``semcache <version>``, from the installed package's metadata

Every command takes ``--plugin PATH|MODULE`` (repeatable), loaded before anything else,
with ``SEMCACHE_PLUGINS`` and the ``semcache.plugins`` entry points
(:mod:`simulator.experiments.plugins`): your policies, workloads, adversaries and claims
are then known to every option and registry.

With ``--json`` a command prints exactly one JSON object on stdout and nothing else.
Bad input of any kind (an option, a parameter, a trace file) ends the command with exit
code 2 and one line on stderr, ``semcache: error: ...``; Ctrl-C exits with 130.
"""

from __future__ import annotations

import argparse
import sys

from simulator.cli import (bench, claims, compile, delay_study, opt, reproduce, run, sweep,
                           trace, workload)
from simulator.cli.args import flagged, register_single_options
from simulator.errors import InputError

# in the order of `semcache --help`
SUBCOMMANDS = (run, workload, bench, compile, delay_study, opt, claims, sweep, reproduce,
               trace)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error becomes an InputError (one line, exit code 2), and an
    option given twice is a usage error (subcommands are built with this class too)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        register_single_options(self)
        # read before the parser is built (plugins.argv_plugins); declared so it parses
        self.add_argument("--plugin", metavar="PATH|MODULE", action="append", default=[],
                          help="load a plugin first: a .py file or a module that defines "
                               "policies, workloads, adversaries or claims (repeatable; "
                               "also SEMCACHE_PLUGINS)")

    def error(self, message):
        command = self.prog.removeprefix("semcache").strip()
        raise InputError(f"{command}: {message}" if command else message)


def _version() -> str:
    """The installed distribution's version (``pyproject.toml`` is read only at install)."""
    from importlib import metadata

    try:
        return metadata.version("semcache")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="semcache",
                     description="Semantic-cache simulator (see README.md and docs/).")
    parser.add_argument("--version", action="version", version=f"semcache {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in SUBCOMMANDS:
        command.add_parser(sub)
    return parser


def _error(message: str) -> int:
    sys.stderr.write("semcache: error: " + " ".join(str(message).split()) + "\n")
    return 2


def main(argv: list | None = None) -> int:
    """Run the command line; returns the exit code (0, 2 on bad input, 130 on Ctrl-C)."""
    from simulator.experiments import plugins

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        plugins.load_all(plugins.argv_plugins(argv))  # their names are known to the parser
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help and --version exit through argparse
            return exc.code if isinstance(exc.code, int) else 0
        return args.func(args)
    except InputError as exc:
        return _error(flagged(exc))
    except KeyboardInterrupt:
        sys.stderr.write("semcache: interrupted\n")
        return 130


