"""The ``semcache`` command line, the application's outer floor (:mod:`simulator.cli.commands`)."""

from simulator.cli.commands import main

__all__ = ["main"]
