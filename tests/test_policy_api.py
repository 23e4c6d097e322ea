"""The policy API hides the engine: policies read the cache through named accessors, the
hook call order is stated and held, a Context is built with keywords, and a twin
registers itself."""

from __future__ import annotations

import pathlib
import pickle
import re
import warnings

import numpy as np
import pytest

from simulator import policies
from simulator.engine.counts import ARRIVING, SIZE, new_counts
from simulator.config import njit
from simulator.policies import base, fifo
from simulator.policies.context import Context
from simulator.testing.contract import check_hook_order, hook_order
from helpers.naive import POLICIES
from helpers.twins import TWINS, twin_of

POLICY_DIR = pathlib.Path(policies.__file__).parent


def _policy_sources():
    return [p for p in sorted(POLICY_DIR.rglob("*.py")) if p.name != "base.py"]


def test_no_policy_reads_the_cache_by_position():
    """Only policies/base.py's accessors know the layout of the engine's cache tuple and
    its counts array."""
    positional = re.compile(r"\bcache\s*\[|=\s*cache\s*$|\bcounts\s*\[|cache_slots|engine\.counts",
                            re.M)
    found = {p.relative_to(POLICY_DIR).as_posix(): m.group(0)
             for p in _policy_sources()
             for m in [positional.search(p.read_text(encoding="utf-8"))] if m}
    assert not found, f"read the engine's cache through policies.base instead: {found}"
    assert len(_policy_sources()) > 20  # the walk found the policies


def test_the_grep_would_see_an_index():
    positional = re.compile(r"\bcache\s*\[|=\s*cache\s*$|\bcounts\s*\[", re.M)
    for line in ("    size = cache[3][7]", "    a, b, c, d = cache\n", "n = counts[0]"):
        assert positional.search(line)


@njit
def _read_all(cache):
    return (base.slot_keys(cache)[1], base.slot_vectors(cache)[0, 1],
            base.admission_steps(cache)[1], base.cached_count(cache),
            base.cache_capacity(cache), base.arriving_size(cache))


def test_accessors_read_the_engine_cache():
    keys = np.array([-1, 7, -1], np.int64)
    vecs = np.arange(6, dtype=np.float32).reshape(2, 3)
    adm = np.array([0, 5, 0], np.int64)
    counts = new_counts(3, 3, 100, 1 << 62)
    counts[SIZE], counts[ARRIVING] = 1, 4
    cache = (keys, vecs, adm, counts)
    assert _read_all(cache) == (7, 1.0, 5, 1, 3, 4)
    assert base.arriving_size(cache) == 4  # also called from Python
    assert new_counts(3, 3, None, 1 << 62)[ARRIVING] == 1  # a unit-size run: size 1


def test_hook_order_holds_in_both_engines():
    checked = check_hook_order()
    assert len(checked) == 18
    assert any("repeating deletions" in c and "SimPy" in c for c in checked)
    assert any("SimPy" in c and "budget" in c and "paging" in c for c in checked)


def test_the_hook_order_check_can_fail(monkeypatch):
    wrong = dict(base.HOOK_ORDER, semantic=r"(on_hit )*on_feedback "
                 r"(on_rearrival |admit (on_insert (victim on_evict )*)?)?delete (on_evict )?")
    monkeypatch.setattr(hook_order, "HOOK_ORDER", wrong)
    with pytest.raises(AssertionError, match=r"^semantic, fast engine: step \d+ called "
                                             r".*victim on_evict on_insert"):
        check_hook_order()


def test_hook_order_names_every_hook():
    named = set(re.findall(r"[a-z_]+", " ".join(base.HOOK_ORDER.values())))
    assert named == set(base.HOOK_ARGUMENTS) == set(hook_order.HOOKS)


def test_context_takes_keywords():
    ctx = Context(capacity=3, n_keys=10, dim=2, params={}, seed=1, mode="paging")
    assert (ctx.slots, ctx.mode, ctx.budget) == (3, "paging", None)
    assert pickle.loads(pickle.dumps(ctx)) == ctx
    assert base.Context is Context  # where it was defined before


def test_positional_context_still_works_with_a_warning():
    with pytest.warns(DeprecationWarning, match=r"Context\(\) takes keywords: Context\("
                                                r"capacity=\.\.\., n_keys=\.\.\., dim=\.\.\., "
                                                r"params=\.\.\., seed=\.\.\., switch_cost"):
        ctx = Context(3, 10, 2, {}, 1, 0.5, budget=7)
    assert ctx == Context(capacity=3, n_keys=10, dim=2, params={}, seed=1, switch_cost=0.5,
                          budget=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match="'seed' twice"):
            Context(3, 10, 2, {}, 1, seed=2)
        with pytest.raises(TypeError, match="at most 11 arguments"):
            Context(*range(12))
    with pytest.raises(TypeError):
        Context(capacity=3)  # the required fields stay required


def test_fifo_state_is_named():
    ctx = Context(capacity=2, n_keys=5, dim=0, params={}, seed=0)
    state = fifo.POLICY.init(ctx)
    assert isinstance(state, fifo.Ring) and state.ring.shape == (2,)
    assert isinstance(state, tuple)  # the engines and the contract take any tuple


def test_every_registered_policy_has_exactly_one_twin():
    shipped = [name for name in policies.REGISTRY if policies.shipped(name)]
    assert sorted(shipped) == sorted(TWINS)
    assert len(set(TWINS.values())) == len(TWINS)  # no twin serves two names
    assert POLICIES is TWINS


def test_a_second_twin_is_refused():
    with pytest.raises(ValueError, match="policy 'fifo' has two twins: Fifo and Other"):
        @twin_of("fifo")
        class Other:
            pass
