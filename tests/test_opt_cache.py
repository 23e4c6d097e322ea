"""The exact optimum's compiled functions, and the engine's kernels they call, load from
numba's disk cache in a new process, under names that change when anything compiled into
them changes (simulator.engine.cached_kernel)."""

import json
import subprocess
import sys

import numpy as np

from simulator.engine import kernel_cache
from simulator.engine.cached_kernel import cached_kernel
from theory.opt.model import set_loss


@cached_kernel
def _first_loss(members, sim, rel, w):
    # a kernel of this file calling one of theory/opt/model.py (which calls the engine's)
    return set_loss(0, members, members.size, sim, rel, w, 1, 0)


def test_a_cached_kernel_is_named_after_the_files_it_reaches_and_the_engine():
    files, _ = kernel_cache.reached([_first_loss])
    assert {f.name for f in files} == {"test_opt_cache.py", "model.py"}
    one = np.zeros((1, 1))
    assert _first_loss(np.zeros(0, np.int64), one.astype(np.float32), one.astype(bool),
                       np.ones(1)) == 1.0  # an empty cache misses the scored step
    salt = _first_loss.cache_name.split("_")
    assert salt[-2:] == [kernel_cache.ENGINE_HASH, kernel_cache.reach_hash([_first_loss])]


# the three methods of theory.opt's doctest (flow, items under a budget, bounds with the
# beam search): every compiled function of theory.opt they call
SOLVE = """
import json, sys
import numba.core.event as ev
import numpy as np
from simulator.trace import Trace
from theory.opt import opt

compiled = []


class Compiles(ev.Listener):
    def on_start(self, event):
        pass

    def on_end(self, event):
        compiled.append(event.data["dispatcher"].py_func.__module__)


topics = np.array([0, 1, 0, 1, 0, 1])
tr = Trace.from_arrays(queries=np.eye(2, dtype=np.float32)[topics],
                       items=np.eye(2, dtype=np.float32)[topics], query_topics=topics,
                       item_topics=topics, item_sizes=[2, 1, 2, 1, 2, 1])
with ev.install_listener("numba:compile", Compiles()):
    costs = [opt(tr, capacity=1, top_k=1, switch_cost=0.5).opt_cost,
             opt(tr, capacity=None, top_k=1, switch_cost=0.5, budget=1).opt_cost,
             opt(tr, capacity=1, top_k=1, switch_cost=0.5, method="bounds").upper_bound]
print(json.dumps({"costs": costs, "compiled": compiled}))
"""


def test_a_new_process_loads_the_optimums_kernels_from_disk():
    """This process solves first (compiling into the disk cache what is not there yet);
    a new process solving the same then compiles nothing."""
    here = {}
    exec(SOLVE.replace("print(", "result = ("), here)
    done = subprocess.run([sys.executable, "-c", SOLVE], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    there = json.loads(done.stdout)
    assert there["costs"] == json.loads(here["result"])["costs"] == [4.5, 4.5, 4.5]
    assert there["compiled"] == []  # nor the engine's kernels (each cached on its own)
