"""Old module paths keep working: each imports, with a DeprecationWarning naming the new
path, and is the very module at the new path (docs/development.md, "The tree")."""

import importlib
import importlib.util
import pathlib
import sys
import warnings

import pytest

from simulator import moved as simulator_moved
from theory import moved as theory_moved

# every package's table: one finder class serves both (simulator.moved.Aliases)
MOVED = {**simulator_moved.MOVED, **theory_moved.MOVED}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_name_is_the_module_at_its_new_path(old):
    new = importlib.import_module(MOVED[old])
    sys.modules.pop(old, None)  # a test before may have imported it: import it anew
    with pytest.warns(DeprecationWarning, match=MOVED[old].replace(".", r"\.")):
        assert importlib.import_module(old) is new


def test_the_old_forms_of_import_still_work():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from simulator import engine_fast
        import simulator.policy_checks.semantic as semantic
        from workloads.adversary import Adversary
    import simulator
    from simulator.engine import fast
    from simulator.testing.contract import check_policy
    from simulator.testing.contract import semantic as new_semantic
    from workloads.adversaries.builder import Adversary as NewAdversary
    assert engine_fast is fast and semantic is new_semantic and Adversary is NewAdversary
    assert simulator.check_policy is check_policy  # the front door's name, loaded when asked


def test_no_old_path_is_left_on_disk():
    """A moved module exists at its new path only: two copies would drift apart."""
    for old, new in MOVED.items():
        assert importlib.util.find_spec(new) is not None, new
        root = importlib.util.find_spec(old.split(".")[0]).submodule_search_locations[0]
        rel = old.split(".", 1)[1].replace(".", "/")
        assert not (pathlib.Path(root) / f"{rel}.py").exists(), old
