"""The ``semcache`` command line: the application's outer floor (see :mod:`simulator.cli.commands`)."""

from simulator.cli.commands import main

__all__ = ["main"]
