"""The fast engine equals the plain-Python reference engine exactly, for every policy.

Each policy is held to its twin (``tests/helpers/naive.py``) by
:func:`simulator.testing.assert_same_as_reference`: every per-step array and every summary
counter equal, floats bit for bit.  Random small traces (:func:`simulator.testing.instances`)
exercise every option of docs/model.md §1 and §6 — topics with −1, weights, re-streamed
``item_keys``, evidence, a scored mask — and vector pools that make exact similarity ties
common (duplicates, small integer vectors), so the retrieval tie-break and every policy's
own tie-breaks are compared, not only the easy cases.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from simulator.instance import Instance
from simulator.policies import REGISTRY
from simulator.runner import run
from simulator.testing import (assert_same_as_reference, instances, policy_params,
                               traces)
from simulator.trace import PagingTrace, Trace
from helpers.naive import POLICIES, naive_paging_run
from helpers.pinned_paging import PINNED_PAGING

SEMANTIC = [n for n, p in REGISTRY.items() if "semantic" in p.modes]
PAGING = [n for n, p in REGISTRY.items() if "paging" in p.modes]
# what the random cases draw: up to 40 steps, K up to 6, k up to 4, vectors in 2 to 8
# dimensions from small pools (ties) or around topic axes
CASES = instances(max_steps=40, max_capacity=6, max_top_k=4, dim=(2, 3, 4, 8))

# Parameter values worth trying (an omitted parameter keeps its default; None is not
# passed explicitly: params.resolve accepts only the string "none" for it).
PARAM_VALUES = {
    "tie": ["auto", "admission", "bucket"],
    "alpha": [0.0, 0.1, 0.5, 1.0],
    "tau0": [0.0, 0.5, 3.0],
    "tau": [0.5, 2.0],
    "delta": [1, 2, 5],
    "beta_step": [0.0, 0.05, 0.5],
    "gamma": [0.0, 0.1, 1.0],
    "novelty_scale": [1.0, 10.0],
    "reward": ["retrieved", "relevant"],
    "w_recency": [0.0, 0.4, 1.0],
    "w_use": [0.0, 0.3, 1.0],
    "w_novelty": [0.0, 0.3, 1.0],
    "age_scale": [1.0, 100.0],
    "small_ratio": [0.0, 0.1, 0.3, 1.0],
    "ghost_ratio": [0.0, 0.5, 0.9, 2.0],
    "move_threshold": [1, 2, 3],
    "in_ratio": [0.0, 0.25, 0.6, 1.0],
    "out_ratio": [0.0, 0.5, 2.0],
    "window_ratio": [0.0, 0.01, 0.3, 0.6],
    # the authors'-code variants (authors_gate, authors_thompson)
    "lam": [0.05, 5.0],
    "lipschitz": [2.0, 50.0],
    "window": [1, 3, 30],
    "tau_min": [0.01, 0.1],
    "tau_max": [0.2, 5.0],
    "ig_novelty": [0.6, 1.0],
    "ig_density": [0.0, 0.4],
    "bootstrap": [0, 1, 3],
    "prior_alpha": [0.5, 2.0],
    "prior_beta": [1.0, 3.0],
    "decay_every": [1, 2, 5],
    "decay_amount": [0.0, 0.05, 1.0],
    "novelty_bonus": [0.0, 0.3, 2.0],
    "neighbours": [0, 1, 3],
    # the memory-management study (memory_rules)
    "warmup": [0, 2, 5],
    "addition": ["all", "strict", "coarse"],
    "threshold": [0.0, 0.5, 1.0],
    "false_positive": [0.0, 0.3, 1.0],
    "false_negative": [0.0, 0.5],
    "min_retrievals": [1, 2, 3],
    "beta": [0.0, 0.5, 0.7, 1.0],
    "period": [1, 3, 7],
    "stale_after": [1, 3, 8],
    "min_uses": [1, 2],
    "min_size": [1, 2],
    # agent-memory rules (memoryos_segments, fact_updates); alpha, beta, gamma above
    "short_term_capacity": [1, 2, 3],
    "similarity_threshold": [0.0, 0.6, 0.95],
    "heat_threshold": [0.5, 2.0, 5.0],
    "tau_seconds": [1.0, 86400.0],
    "step_seconds": [1.0, 3600.0, 86400.0],
    "update_threshold": [-1.0, 0.5, 0.8],
    "noop_threshold": [0.9, 1.0],
    "top_s": [1, 2, 5],
    "deletes": [False, True],
    "add_contradicting": [False, True],
    # memorybank*, generative_agents, letta
    "strength_step": [0.0, 1.0],
    "recency": ["hours", "rank"],
    "trunc_token_frac": [0.5, 0.75],
    "keep_last_n": [0, 1, 3],
    "trigger_frac": [0.5, 1.0],
    "summary_share": [0.0, 0.3],
    # agent-memory rules (amem's neighbours are above, with solar_e_ref's)
    "evolve_similarity": [-1.0, 0.0, 0.5],
    "log_supersedes": [True, False],
    "contradiction_similarity": [-1.0, 0.0, 0.5, 0.9],
    "candidates": [1, 2, 10],
}


# --------------------------------------------------------------------------- comparison

def as_instance(arrays, options):
    """A pinned case's (arrays, options with the seed) as (Instance, seed)."""
    options = dict(options)
    seed = options.pop("seed")
    return Instance(Trace.from_arrays(**arrays), options), seed


def check_semantic(name, arrays, options, params):
    inst, seed = as_instance(arrays, options)
    assert_same_as_reference(name, POLICIES[name], inst, params=params, seed=seed)


def case(queries, items, options, **extra):
    arrays = {"queries": np.array(queries, np.float32), "items": np.array(items, np.float32)}
    arrays.update({k: np.array(v) for k, v in extra.items()})
    base = dict(capacity=2, top_k=2, switch_cost=0.0, quality="hit", seed=0)
    return arrays, {**base, **options}


# Pinned hard cases (valid for every policy, default parameters).
ALL_EQUAL = case([[1, 0]] * 8, [[1, 0]] * 8, {"capacity": 3, "top_k": 2},
                 query_topics=[0, 1, 0, 1, 2, 0, 1, 2], item_topics=[0, 1, 2, 0, 1, 2, 0, 1])
RESTREAM = case([[1, 1], [1, -1], [1, 1], [-1, 1], [1, 1], [1, -1], [1, 1], [1, 0], [0, 1]],
                [[1, 0], [0, 1], [1, 0], [1, 1], [0, 1], [1, 0], [1, 0], [1, 1], [0, 1]],
                {"capacity": 2, "top_k": 1, "switch_cost": 0.5},
                item_keys=[5, 9, 5, 4, 9, 5, 2, 4, 9], query_topics=[0, 1, 0, 1, 0, 1, 0, 1, 0],
                item_topics=[0, 1, 0, 1, 1, 0, 0, 1, 1])
EVIDENCE = case([[1, 2], [2, 1], [1, 2], [-1, -2], [2, 1], [1, 2]],
                [[1, 2], [2, 1], [2, 1], [1, 2], [-2, -1], [1, 2]],
                {"capacity": 2, "top_k": 3, "quality": "precision", "switch_cost": 2.0},
                query_topics=[-1, 0, -1, 0, -1, 0], item_topics=[0, -1, 0, -1, 0, 0],
                weights=[1.0, 0.0, 0.25, 1.0, 0.5, 1.0],
                scored=[False, True, True, False, True, True],
                evidence_indptr=[0, 0, 2, 3, 3, 5, 6], evidence_indices=[0, 1, 1, 3, 4, 2])
OPPOSITE = case([[1, 0], [-1, 0], [0, 1], [-1, -1], [1, 0]],
                [[-1, 0], [1, 0], [0, -1], [1, 1], [-1, 0]],
                {"capacity": 1, "top_k": 1, "quality": "similarity"})


def test_every_policy_has_a_naive_twin():
    missing = sorted(set(REGISTRY) - set(POLICIES))
    assert not missing, f"tests/helpers/naive.py has no reference for: {missing}"


def test_naive_defaults_match_the_registry():
    """The reference's parameter defaults (read from docstrings) are the policies' own."""
    for name, pol in REGISTRY.items():
        assert POLICIES[name].defaults == pol.params, name


@pytest.mark.parametrize("name", SEMANTIC)
@settings(max_examples=40)
@given(inst=CASES, seed=st.integers(0, 5), data=st.data())
@example(inst=as_instance(*ALL_EQUAL)[0], seed=0, data=None)
@example(inst=as_instance(*RESTREAM)[0], seed=0, data=None)
@example(inst=as_instance(*EVIDENCE)[0], seed=0, data=None)
@example(inst=as_instance(*OPPOSITE)[0], seed=0, data=None)
def test_semantic_engine_equals_naive(name, inst, seed, data):
    params = {} if data is None else data.draw(
        policy_params(REGISTRY[name], PARAM_VALUES), label="params")
    assert_same_as_reference(name, POLICIES[name], inst, params=params, seed=seed)


PINNED = {"all_equal": ALL_EQUAL, "restream": RESTREAM, "evidence": EVIDENCE,
          "opposite": OPPOSITE}


@pytest.mark.parametrize("name", SEMANTIC)
def test_pinned_cases_over_options(name, subtests):
    """Every pinned case at every K, k and quality: one test per policy (its loop compiles
    once), one subtest per combination, so a failure names its combination."""
    for case_name, (arrays, options) in PINNED.items():
        for k, capacity, quality in itertools.product(
                (1, 2, 5), (1, 2, 4), ("hit", "precision", "similarity")):
            with subtests.test(case=case_name, k=k, capacity=capacity, quality=quality):
                check_semantic(name, arrays, {**options, "capacity": capacity, "top_k": k,
                                              "quality": quality}, {})


def test_similarity_is_float32_in_index_order():
    """A retrieval that float64 accumulation would decide the other way.

    In float64, cos(q, a) and cos(q, b) tie exactly and b, admitted first, would win; the
    float32 sum of float32 products (kernels' definition) puts a ahead by one ulp."""
    q, a, b = [1, -1, -1], [3, 4, 2], [-4, 2, -3]
    arrays = {"queries": np.array([q, q, q], np.float32),
              "items": np.array([b, a, a], np.float32),
              "query_topics": np.array([1, 1, 1]), "item_topics": np.array([0, 1, 1])}
    options = dict(capacity=3, top_k=1, switch_cost=0.0, quality="hit", seed=0)
    assert run(Trace.from_arrays(**arrays), "fifo", **options).hit.tolist() == [0, 0, 1]
    for name in SEMANTIC:
        check_semantic(name, arrays, options, {})


# --------------------------------------------------------------------------- paging

@pytest.mark.parametrize("name", PAGING)
@settings(max_examples=60)
@given(trace=traces("paging", max_steps=60), capacity=st.integers(1, 5),
       seed=st.integers(0, 5), data=st.data())
@example(trace=PagingTrace.from_requests([0, 1, 2, 0, 3, 0, 4, 1, 0, 2, 1, 3, 3, 4, 0, 1]),
         capacity=3, seed=0, data=None)
@example(trace=PagingTrace.from_requests([0, 1, 0, 2, 3, 1, 4, 2, 0, 5, 1, 6, 0, 2, 3]),
         capacity=2, seed=1, data=None)
def test_paging_engine_equals_naive(name, trace, capacity, seed, data):
    params = {} if data is None else data.draw(
        policy_params(REGISTRY[name], PARAM_VALUES), label="params")
    result = run(trace, name, capacity=capacity, seed=seed, params=params)
    if name != "belady":
        assert_same_as_reference(name, POLICIES[name], Instance(trace, {"capacity": capacity}),
                                 params=params, seed=seed)
        summary = result.summary()  # paging admits only on a miss, and never deletes alone
        assert summary["modifications"] == summary["admissions"]
        return
    # Belady's victim among never-again objects is free: the same hits, not the same victims
    ref = naive_paging_run(trace.requests, name, capacity, seed, params,
                           object_ids=trace.object_ids)
    assert result.hit.tolist() == ref["hit"], (trace.requests, capacity, seed, params)


@settings(max_examples=60)
@given(requests=st.lists(st.integers(0, 13), min_size=1, max_size=80),
       capacity=st.sampled_from([7, 8, 9, 10, 12]))
def test_tinylfu_paging_drops_equal_the_twin(requests, capacity):
    """Capacities whose truncated segments leave part of main to neither: promotions
    overfill probation, and the item libCacheSim evicts during the hit leaves then (the
    capacities above draw at most 5, where the segments fill main, as at 11)."""
    trace = PagingTrace.from_requests(np.array(requests, np.int64))
    result = run(trace, "tinylfu", capacity=capacity)
    ref = naive_paging_run(trace.requests, "tinylfu", capacity, object_ids=trace.object_ids)
    assert result.hit.tolist() == ref["hit"]
    assert result.summary()["evictions"] == sum(e >= 0 for e in ref["evicted"])


# Cases found by mutating tests/helpers/naive.py: each one fails if the named rule is changed,
# and random search rarely reaches it.
LFU_BUCKET_IN_ONE_STEP = case(  # two items reach count 1 in one R_t: the worse one goes
    [[1, 2], [1, 2], [1, 1], [1, 0], [1, 0], [-1, 0], [1, 0], [0, 1], [0, 1]],
    [[1, 1], [1, -1], [1, 1], [0, 1], [1, 2], [-1, 1], [1, 2], [0, 1], [1, 0]],
    {"capacity": 4, "top_k": 2})
SOLAR_A_NN_FLOOR = case(  # an item whose every neighbour is opposite gets nn = 0, not < 0
    [[2, -1], [-1, -2], [-2, 1], [-1, 2], [0, 2]], [[0, 1], [2, -2], [1, 1], [-1, 0], [1, 1]],
    {"capacity": 3, "top_k": 1})
ARC_REARRIVAL = case(  # a re-arrival is an ARC hit (T1 -> T2), which changes the victim
    [[-1, 1], [2, 1], [1, 1], [-1, 0], [1, 2], [0, 1], [1, -1], [0, 1], [1, -1], [2, 1], [1, 0],
     [1, 0]],
    [[1, 2], [1, 1], [1, 1], [0, 1], [1, 0], [1, 2], [-1, 0], [1, 0], [-1, 0], [0, 1], [1, 2],
     [0, 1]],
    {"capacity": 2, "top_k": 1}, item_keys=[2, 0, 0, 3, 5, 2, 4, 5, 4, 3, 2, 3])
SOLAR_A_EXACT_TIES = case(  # keys 1, 2, 3 all score exactly 0: nn = 1 must be exact
    [[0, 0, 0, 1]] * 5, [[0, 0, 0, 1], [0, 0, 0, 1], [0, 1, 1, 2], [0, 1, 1, 2], [0, 0, 0, 1]],
    {"capacity": 4, "top_k": 1})
_KEYS = [4, 2, 0, 4, 1, 1, 0, 3, 2, 2, 4, 1, 4, 4, 5, 1, 4, 0, 3, 5]
SOLAR_A_REF_REARRIVAL = case(  # a re-arrival still runs the gate: τ drops below c, c resets
    [[-2, -2], [2, -2], [1, 0], [1, -1], [1, -1], [2, -2], [1, -1], [-2, -2], [1, 0], [1, 0],
     [1, 0], [1, -2], [1, 0], [1, -2], [2, -2], [2, -2], [-2, -2], [2, -2], [1, 0], [-2, -2]],
    [[-2, -2], [1, -1], [1, -2], [-2, -2], [1, 0], [1, 0], [1, -2], [2, -2], [1, -1], [1, -1],
     [-2, -2], [1, 0], [-2, -2], [-2, -2], [1, 0], [1, 0], [-2, -2], [1, -2], [2, -2], [1, 0]],
    {"capacity": 4, "top_k": 1}, item_keys=_KEYS, query_topics=[t % 2 for t in range(20)],
    item_topics=[k % 2 for k in _KEYS])
PINNED_SEMANTIC = {
    "lfu-bucket_in_one_step": ("lfu", LFU_BUCKET_IN_ONE_STEP, {"tie": "bucket"}),
    "solar_a-nn_floor": ("solar_a", SOLAR_A_NN_FLOOR, {}),
    "solar_a-exact_ties": ("solar_a", SOLAR_A_EXACT_TIES, {"w_recency": 0.0}),
    "arc-rearrival": ("arc", ARC_REARRIVAL, {}),
    "solar_a_ref-rearrival": ("solar_a_ref", SOLAR_A_REF_REARRIVAL,
                              {"window": 3, "bootstrap": 1, "tau_min": 0.01}),
}


@pytest.mark.parametrize("name, pinned, params", PINNED_SEMANTIC.values(),
                         ids=PINNED_SEMANTIC.keys())
def test_pinned_policy_cases(name, pinned, params):
    if name not in REGISTRY:
        pytest.skip(f"no {name}")
    arrays, options = pinned
    check_semantic(name, arrays, options, params)


@pytest.mark.parametrize("name, requests, capacity, params", PINNED_PAGING)
def test_pinned_paging_cases(name, requests, capacity, params):
    if name not in REGISTRY:
        pytest.skip(f"no {name}")
    trace = PagingTrace.from_requests(np.array(requests, np.int64))
    result = run(trace, name, capacity=capacity, params=params)
    assert result.hit.tolist() == naive_paging_run(trace.requests, name, capacity, 0, params,
                                                   object_ids=trace.object_ids)["hit"]


# --------------------------------------------------------------------------- numba cache

SOLAR_A_RUN = """
import numpy as np
from simulator.runner import run
from simulator.trace import Trace
c, a, b = [0.0, 1.0], [1.0, 0.0], [0.99, 0.14]
tr = Trace.from_arrays(queries=np.array([a] * 4, np.float32),
                       items=np.array([c, a, b, c], np.float32), item_keys=[0, 1, 2, 3])
r = run(tr, "solar_a", capacity=3, top_k=1,
        params={"w_recency": 0.0, "w_use": 0.0, "w_novelty": 1.0})
victim = int(r.evicted[3])
"""


def test_hooks_recompile_when_a_kernel_they_call_changes(tmp_path):
    """Change ``kernels.similarities`` in a copy of the package: solar_a's eviction must
    follow.

    solar_a evicts by novelty only here: C is far from A and B, so with the real cosine
    the victim is A (key 1; A and B tie, smaller key).  With ``similarities`` redefined as
    a constant every item scores the same and the victim is C (key 0).  (Retrieval is
    not affected: the fast loop scores all four steps as one block, with
    ``similarities4``.)  The run here puts solar_a's loop in the suite's numba cache (a
    loop the suite compiles anyway), and the copy takes that cache along, modification
    times kept, so numba's index holds the stale loop; the new process must not reuse it.
    """
    import os
    import pathlib
    import shutil

    import simulator
    from simulator.engine import kernel_cache

    here = {}
    exec(SOLAR_A_RUN, here)
    assert here["victim"] == 1
    src = pathlib.Path(simulator.__file__).parent
    root = tmp_path / "pkg"
    shutil.copytree(src, root / "simulator", ignore=shutil.ignore_patterns("*.lock"))
    env = dict(os.environ, PYTHONPATH=str(root))
    if env.pop("NUMBA_CACHE_DIR", None):  # the suite's cache is not the package's: a first
        assert _run_in(root, env, tmp_path) == 1  # process fills the copy's
    assert list((root / "simulator" / "engine" / "__pycache__").glob(
        f"fast._steps_solar_a_*_{kernel_cache.ENGINE_HASH}_*.nbi"))  # the stale loop
    with open(root / "simulator" / "engine" / "kernels.py", "a") as f:
        f.write("\n\n@njit\ndef similarities(q, vec_t, n, out):\n"
                "    out[:n] = np.float32(0.5)\n")
    assert _run_in(root, env, tmp_path) == 0


def _run_in(root, env, cwd):
    """solar_a's victim at step 3, in a new process importing the package copy ``root``."""
    import subprocess
    import sys

    script = (f"import simulator\nassert simulator.__file__.startswith({str(root)!r})\n"
              + SOLAR_A_RUN + "print(victim)\n")
    out = subprocess.run([sys.executable, "-c", script], env=env, cwd=cwd,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return int(out.stdout.split()[-1])
