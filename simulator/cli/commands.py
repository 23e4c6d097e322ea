"""The ``semcache`` command line (docs/model.md §7): one module per subcommand, assembled here.

``semcache run``            one workload or trace file, one or more policies
``semcache workload list``  the registered workloads and their parameters
``semcache workload make``  write a workload's trace to an ``.npz`` file
``semcache workload show``  a workload's parameters and measured statistics of its trace
``semcache trace``          convert external traces to trace files
``semcache opt``            the exact offline optimum of a trace (docs/model.md §4)
``semcache ratio``          a policy's cost against OPT (Belady on paging) and their ratio
``semcache claims``         a verdict for every claim of the SOLAR paper
``semcache search``         a policy's worst case against the exact optimum, shrunk and grown
``semcache reproduce``      a table or figure of the SOLAR paper's synthetic experiments
``semcache sweep``          a grid of runs on Dask, into a resumable Parquet store
``semcache bench``          measured speed against the reference implementations
``semcache compile``        policies' loops compiled into the disk cache, in parallel
``semcache delay-study``    hit rate as feedback is delayed or lost (SimPy engine)
``semcache --version``      ``semcache <version>``, from the installed package's metadata

Every command takes ``--plugin PATH|MODULE`` (repeatable).  The commands that read the
registries (all but ``bench`` and ``trace``) load, once the arguments parse, the
``semcache.plugins`` entry points, ``SEMCACHE_PLUGINS`` and each ``--plugin``
(:mod:`simulator.experiments.plugins`): your policies, workloads, adversaries and claims
are then known to every option and registry.

A subcommand is one row of :data:`COMMANDS`: its name, its module and its one-line help.
Its module, which gives ``add_arguments(parser)`` and sets the parser's ``func``, is
imported only when the command line names it, so ``semcache --version`` and ``--help``
import none, and ``semcache run --help`` imports ``run`` alone.

With ``--json`` a command prints exactly one JSON object on stdout and nothing else.
Bad input of any kind (an option, a parameter, a trace file) ends the command with exit
code 2 and one line on stderr, ``semcache: error: ...``; Ctrl-C exits with 130.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NamedTuple

from simulator.cli.args import flagged, register_single_options
from simulator.errors import InputError


class Command(NamedTuple):
    """One subcommand: ``semcache NAME``, defined in ``module``."""

    name: str
    module: str
    help: str


# in the order of `semcache --help`
COMMANDS = (
    Command("run", "simulator.cli.run", "run policies over one workload or trace file"),
    Command("workload", "simulator.cli.workload",
            "list workloads, write one to a trace file, or show one"),
    Command("bench", "simulator.cli.bench", "measure speed against reference implementations"),
    Command("compile", "simulator.cli.compile", "compile policies' loops into the disk cache"),
    Command("delay-study", "simulator.cli.delay_study",
            "hit rate as feedback is delayed or lost (SimPy)"),
    Command("opt", "simulator.cli.opt", "the offline optimum of one workload or trace file"),
    Command("ratio", "simulator.cli.ratio",
            "one policy's cost, the offline optimum and their ratio"),
    Command("claims", "simulator.cli.claims",
            "test every claim of the SOLAR paper and print verdicts"),
    Command("search", "simulator.cli.search",
            "a policy's worst case against the exact optimum, grown"),
    Command("sweep", "simulator.cli.sweep",
            "a grid of runs on Dask, into a resumable Parquet store"),
    Command("reproduce", "simulator.cli.reproduce",
            "reproduce one of the SOLAR paper's experiments"),
    Command("trace", "simulator.cli.trace", "convert external traces to trace files"),
)
_BY_NAME = {command.name: command for command in COMMANDS}


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error becomes an InputError (one line, exit code 2), and an
    option given twice is a usage error (subcommands are built with this class too)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        register_single_options(self)
        # read from the command line itself (plugins.argv_plugins), wherever it stands;
        # declared so it parses
        self.add_argument("--plugin", metavar="PATH|MODULE", action="append", default=[],
                          help="load a plugin first: a .py file or a module that defines "
                               "policies, workloads, adversaries or claims (repeatable; "
                               "also SEMCACHE_PLUGINS)")

    def error(self, message):
        command = self.prog.removeprefix("semcache").strip()
        raise InputError(f"{command}: {message}" if command else message)


class _Version(argparse.Action):
    """``--version``: the installed version, read only when asked for."""

    def __init__(self, option_strings, dest, help=None):
        super().__init__(option_strings, dest, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        import simulator

        sys.stdout.write(f"semcache {simulator.__version__}\n")
        parser.exit()


def command_in(argv: list) -> str | None:
    """The subcommand a command line names: its first word that names one (a ``--plugin``
    value is no word), or None.

    >>> command_in(["--plugin", "run", "opt", "--trace", "run"])
    'opt'
    """
    after_plugin = False
    for arg in argv:
        if not after_plugin and arg in _BY_NAME:
            return arg
        # argparse reads "--plug" as --plugin too, taking the next word
        after_plugin = len(arg) > 2 and "--plugin".startswith(arg)
    return None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``semcache``, with the arguments of subcommand ``command`` (the others
    are listed with their help only: their modules stay unimported)."""
    parser = _Parser(prog="semcache",
                     description="Semantic-cache simulator (see README.md and docs/).")
    parser.add_argument("--version", action=_Version,
                        help="show program's version number and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for row in COMMANDS:
        p = sub.add_parser(row.name, help=row.help)
        if row.name == command:
            importlib.import_module(row.module).add_arguments(p)
    return parser


def _error(message: str) -> int:
    sys.stderr.write("semcache: error: " + " ".join(str(message).split()) + "\n")
    return 2


def main(argv: list | None = None) -> int:
    """Run the command line; returns the exit code (0, 2 on bad input, 130 on Ctrl-C)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        try:
            args = build_parser(command_in(argv)).parse_args(argv)
        except SystemExit as exc:  # --help and --version exit through argparse
            return exc.code if isinstance(exc.code, int) else 0
        # every subcommand takes --plugin, and loads it: after parsing, so --help and a usage
        # error answer without importing your code
        from simulator.experiments import plugins

        plugins.load_all(plugins.argv_plugins(argv))
        return args.func(args)
    except InputError as exc:
        return _error(flagged(exc))
    except KeyboardInterrupt:
        sys.stderr.write("semcache: interrupted\n")
        return 130
