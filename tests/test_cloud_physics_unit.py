"""LFU and W-TinyLFU on libCacheSim's CloudPhysics trace with unit sizes, against the
``libcachesim`` package: equal miss counts at K = 100, 1000 and 5000.

libCacheSim reads the ``oracleGeneral`` file with its sizes ignored, so its W-TinyLFU
sketch hashes the file's object ids, as ours does.  LFU runs with its default tie, which in
paging mode is libCacheSim's rule (``tie="bucket"``: each count a FIFO list); the semantic
mode's rule, the oldest admission, would change one hit at K = 1000 on this trace.  At K = 100 the
main cache (99) is not a multiple of 5, so libCacheSim's SLRU segments (19 + 79) leave a
slot to neither and it evicts during hits: there the runs are compared request for
request.
"""

import pytest

from helpers.cloud_physics import NEEDED, file, unit_trace
from simulator.live_run import LiveRun
from simulator.policies import tinylfu
from simulator.runner import run

libcachesim = pytest.importorskip("libcachesim")
pytestmark = NEEDED
CAPACITIES = (100, 1000, 5000)
OURS = {"lfu": ("LFU", {}), "tinylfu": ("WTinyLFU", {})}


@pytest.fixture(scope="module")
def trace():
    return unit_trace()


def their_misses(name, capacity, steps):
    init = libcachesim.ReaderInitParam()
    init.ignore_obj_size = True
    reader = libcachesim.TraceReader(str(file("bin")),
                                     libcachesim.TraceType.ORACLE_GENERAL_TRACE, init)
    return round(getattr(libcachesim, name)(capacity).process_trace(reader)[0] * steps)


@pytest.mark.parametrize("capacity", CAPACITIES)
@pytest.mark.parametrize("policy", sorted(OURS))
def test_misses_equal_libcachesims(trace, policy, capacity):
    name, params = OURS[policy]
    ours = run(trace, policy, capacity=capacity, params=params).summary()
    assert trace.steps - ours["hits"] == their_misses(name, capacity, trace.steps)


def test_tinylfu_evicts_during_hits_as_libcachesim_does(trace):
    """K = 100: hit for hit, and items left during hits (none at K = 1000, whose
    segments fill main)."""
    cache = libcachesim.WTinyLFU(100)
    ids = trace.object_ids[trace.requests].tolist()
    theirs = [int(cache.get(libcachesim.Request(obj_size=1, obj_id=i, clock_time=t)))
              for t, i in enumerate(ids)]
    live = LiveRun(trace, "tinylfu", capacity=100)
    live.run_all()
    assert live.hit.tolist() == theirs
    assert tinylfu.deferrals(live.state) > 0
    other = LiveRun(trace, "tinylfu", capacity=1000)
    other.run_all()
    assert tinylfu.deferrals(other.state) == 0
