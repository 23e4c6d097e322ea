"""``python -m simulator.cli`` is ``semcache``."""

from simulator.cli.commands import main

raise SystemExit(main())
