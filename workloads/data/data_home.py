"""Where the datasets are: a parameter, else an environment variable, else the data home.

semcache ships loaders, not data.  A data-backed workload reads its folder from its own
parameter when given (``path=`` for ``locomo``, ``root=`` for ``solar_published``), else
from its environment variable (``SEMCACHE_LOCOMO``, ``SEMCACHE_SOLAR_DATA``), else from
its folder under the *data home*: ``$SEMCACHE_DATA``, by default
``$XDG_DATA_HOME/semcache`` (``~/.local/share/semcache``).  Nothing depends on where
the project itself was cloned or installed.

>>> import os
>>> os.environ["SEMCACHE_DATA"] = "/data/semcache"
>>> str(data_home())
'/data/semcache'
"""

from __future__ import annotations

import os
import pathlib

ENV = "SEMCACHE_DATA"


def data_home() -> pathlib.Path:
    """``$SEMCACHE_DATA``, else ``$XDG_DATA_HOME/semcache``, else ``~/.local/share/semcache``."""
    if os.environ.get(ENV):
        return pathlib.Path(os.environ[ENV])
    xdg = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                          "share")
    return pathlib.Path(xdg) / "semcache"


def dataset(folder: str, env: str) -> pathlib.Path | None:
    """A dataset's location: ``$env`` if set, else ``<data home>/<folder>`` if it exists."""
    if os.environ.get(env):
        return pathlib.Path(os.environ[env])
    home = data_home() / folder
    return home if home.is_dir() else None
