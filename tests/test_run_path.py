"""One path for a run: a front door takes keywords or built options (never both), a run
is one object of its mode's class made by ``LiveRun``, and its result one of its mode's
type; how often each check runs is counted in test_run_options.py."""

import dataclasses
import inspect
import pickle

import numpy as np
import pytest

import simulator
from simulator.errors import InputError
from simulator.live_run import LiveRun
from simulator.paging_run import PagingRun
from simulator.run_options import UNSET, RunOptions, Unset
from simulator.run_result import PagingResult, RunResult, SemanticResult
from simulator.semantic_run import SemanticRun
from simulator.trace import PagingTrace, Trace

PAGING = PagingTrace.from_requests([7, 8, 7, 9, 7])


def semantic_trace(steps: int = 12) -> Trace:
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(3, 4)).astype(np.float32)
    topics = np.arange(steps) % 3
    return Trace.from_arrays(queries=centres[topics], items=centres[topics],
                             query_topics=topics, item_topics=topics)


# every front door that takes built options; the others (stream_run, theory.opt.opt)
# take keywords only and hand built options to their *_with twins
DOORS = {"run": simulator.run, "LiveRun": simulator.LiveRun}
KEYWORDS = ("capacity", "top_k", "switch_cost", "quality", "seed", "params", "budget")


@pytest.mark.parametrize("door", sorted(DOORS))
def test_keywords_beside_built_options_are_refused_at_every_door(door):
    built = RunOptions.build(policy="lru", capacity=2)
    defaults = RunOptions.build.__kwdefaults__
    for name in KEYWORDS:  # each at build()'s default value: given all the same
        with pytest.raises(InputError) as err:
            DOORS[door](PAGING, options=built, **{name: defaults[name]})
        assert str(err.value) == f"pass either options= or keywords ({name}), not both"
        assert err.value.param == "options"
    with pytest.raises(InputError, match=r"^pass either options= or keywords \(policy, "
                                         r"seed\), not both$"):
        DOORS[door](PAGING, "fifo", seed=0, options=built)


@pytest.mark.parametrize("door", sorted(DOORS))
def test_every_door_leaves_its_model_keywords_unset(door):
    params = inspect.signature(DOORS[door]).parameters
    assert all(params[name].default is UNSET for name in KEYWORDS)


def test_unset_is_one_marker():
    assert Unset() is UNSET and repr(UNSET) == "UNSET"
    assert pickle.loads(pickle.dumps(UNSET)) is UNSET


def test_built_options_alone_or_keywords_alone_run_alike():
    built = simulator.run(PAGING, options=RunOptions.build(policy="lru", capacity=2))
    given = simulator.run(PAGING, "lru", capacity=2)
    assert built.summary() | {"elapsed_s": 0} == given.summary() | {"elapsed_s": 0}


def test_live_run_makes_the_run_of_the_trace_mode():
    paging = LiveRun(PAGING, "lru", capacity=2)
    semantic = LiveRun(semantic_trace(), "fifo", capacity=2)
    assert type(paging) is PagingRun and type(semantic) is SemanticRun
    assert isinstance(paging, LiveRun) and isinstance(semantic, LiveRun)
    assert (paging.mode, semantic.mode) == ("paging", "semantic")
    # a mode's class may be asked for directly, for a trace of its mode only
    assert type(SemanticRun(semantic_trace(), "fifo", capacity=2)) is SemanticRun
    with pytest.raises(InputError, match="^a SemanticRun runs semantic traces, and this "
                                         "trace is paging: make the run with LiveRun$"):
        SemanticRun(PAGING, "lru", capacity=2)


def test_a_run_refuses_what_only_the_other_mode_does():
    paging = LiveRun(PAGING, "lru", capacity=2)
    semantic = LiveRun(semantic_trace(), "fifo", capacity=2)
    with pytest.raises(InputError, match="^retrieve\\(\\) reads a semantic run's query; "
                                         "this run is paging$"):
        paging.retrieve(0)
    with pytest.raises(InputError, match="^feed\\(\\) runs paging requests; this run is "
                                         "semantic$"):
        semantic.feed(np.zeros(1, np.int64))
    with pytest.raises(InputError, match="^requests_fed is kept by paging runs"):
        semantic.requests_fed
    assert not hasattr(paging, "loss")  # a paging run keeps its hits only


def test_each_result_type_carries_its_mode_fields():
    base = {"config", "hit", "elapsed_s", "max_occupancy", "too_large", "feedback"}
    names = {kind: {f.name for f in dataclasses.fields(kind)}
             for kind in (RunResult, SemanticResult, PagingResult)}
    assert names[RunResult] == base
    assert names[SemanticResult] - base == {"loss", "precision", "quality", "admitted",
                                            "evicted", "deleted", "size", "scored",
                                            "evict_log", "retrieved", "delete_log",
                                            "rewrites"}
    assert names[PagingResult] - base == {"admissions", "evictions", "requested_size",
                                          "hit_size"}


def test_a_result_is_of_its_mode_and_names_the_mode_of_a_field_it_lacks():
    paging = simulator.run(PAGING, "lru", capacity=2)
    semantic = simulator.run(semantic_trace(), "fifo", capacity=2, top_k=1)
    assert type(paging) is PagingResult and type(semantic) is SemanticResult
    assert isinstance(paging, RunResult) and isinstance(semantic, RunResult)
    with pytest.raises(AttributeError, match="^loss is kept by semantic runs' results; "
                                             "this run is paging$"):
        paging.loss
    with pytest.raises(AttributeError, match="^hit_size is kept by paging runs' results; "
                                             "this run is semantic$"):
        semantic.hit_size
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        paging.nothing
    assert getattr(paging, "retrieved", None) is None
    # a semantic result's counts are its run record's (they were 0 when both modes had
    # one type, whose paging counters a semantic run never set)
    record = semantic.summary()
    assert (semantic.admissions, semantic.evictions) == (record["admissions"],
                                                         record["evictions"])
    assert semantic.evict_log is None and semantic.feedback is None  # documented Nones
    assert pickle.loads(pickle.dumps(paging)).summary() == paging.summary()
