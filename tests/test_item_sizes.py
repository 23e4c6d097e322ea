"""Seeded sizes of the synthetic workloads (workloads.data.item_sizes): only the sizes change."""

import numpy as np
import pytest

import workloads
from simulator.errors import InputError
from simulator.runner import run
from simulator.trace import PagingTrace

SIZED = [name for name, w in workloads.REGISTRY.items() if w.sized]
SMALL = {"clusters": {"steps": 300}, "zipf_paging": {"steps": 2000, "objects": 300},
         "drift": {"phases": 3}, "stationary": {"steps": 300}}


def test_every_synthetic_workload_takes_sizes():
    assert set(SIZED) == {"clusters", "zipf_paging", "cycling", "working_set", "noise_pool",
                          "drift", "stationary"}


@pytest.mark.parametrize("name", SIZED)
def test_lognormal_sizes_change_nothing_but_the_sizes(name):
    wl = workloads.get(name)
    plain = wl.generate(SMALL.get(name, {}), seed=5)
    sized = wl.generate(dict(SMALL.get(name, {}), sizes="lognormal", size_median=64), seed=5)
    again = wl.generate(dict(SMALL.get(name, {}), sizes="lognormal", size_median=64), seed=5)
    assert not plain.sized and sized.sized
    field = "request_sizes" if isinstance(plain, PagingTrace) else "item_sizes"
    for key, value in plain.arrays().items():
        if key != field:
            assert np.array_equal(value, sized.arrays()[key]), key
    sizes = getattr(sized, field)
    assert np.array_equal(sizes, getattr(again, field)) and sizes.min() >= 1
    assert 20 < np.median(sizes) < 200  # about the median asked for
    keys = sized.requests if isinstance(sized, PagingTrace) else sized.item_keys
    for k in np.unique(keys)[:50]:  # one size per key
        assert len(set(sizes[keys == k].tolist())) == 1


@pytest.mark.parametrize("given, field", [({"sizes": "pareto"}, "'sizes'"),
                                          ({"sizes": "lognormal", "size_median": 0},
                                           "'size_median'"),
                                          ({"size_sigma": -1}, "'size_sigma'")])
def test_bad_size_parameters_are_named(given, field):
    with pytest.raises(InputError, match=f"^workload 'clusters': parameter {field}"):
        workloads.get("clusters").generate(given)


def test_a_sized_workload_runs_under_a_budget():
    trace = workloads.get("clusters").generate({"steps": 400, "sizes": "lognormal"}, seed=1)
    s = run(trace, "solar", budget=2000).summary()
    assert s["max_occupancy"] <= 2000 and s["too_large"] == int((trace.item_sizes > 2000).sum())
