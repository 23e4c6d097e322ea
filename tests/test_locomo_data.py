"""The two helpers of the ``locomo`` workload: the LoCoMo loader and the text-embedding cache.

They run on the fixture ``tests/data/locomo`` (see ``locomo_fixture.py``); the workload
itself is tested in ``test_locomo.py``.
"""

import json

import numpy as np
import pytest

import workloads
from helpers.locomo_fixture import FIXTURE, QUIRKS_1, QUIRKS_2
from simulator.cli import main
from simulator.errors import InputError
from workloads.data import locomo_data
from workloads.data.text_embed import TextEmbedder, cache_root, load_model

LOCOMO = workloads.get("locomo")
# The fixture's expected content (see tests/data/locomo/*.json).
ORDER_1 = ["D1:1", "D1:2", "D1:3", "D1:4", "D1:5", "D1:6", "D2:1", "D2:2", "D2:3", "D2:4",
           "D2:5", "D10:1", "D10:2", "D10:3", "D10:4", "D10:5"]
EVIDENCE_1 = [(1, 8), (3, 12), (10,), (3,), (4,), (), (), (15,), (6, 11)]
EVIDENCE_2 = [(2,), (6,), (9,), (0, 8)]
SENTENCES = ["The cat sat on the mat.", "Caroline: I went to a support group yesterday.",
             "Quarterly revenue grew by four percent.", "Where did Bruno go hiking?",
             "Zebras are striped."]


def _write(path, obj):
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


def _single_file(tmp_path):
    """The fixture rewritten as ``locomo10.json`` (sample ids ``conv-1``, ``conv-2``)."""
    entries = []
    for f in sorted(FIXTURE.glob("*.json")):
        obj = json.loads(f.read_text(encoding="utf-8"))
        qa = obj.pop("qa")
        entries.append({"sample_id": f"conv-{f.stem}", "qa": qa, "conversation": obj})
    return _write(tmp_path / "locomo10.json", entries)



# ---------------------------------------------------------------- loader


def test_fixture_turns_evidence_and_quirks():
    one, two = locomo_data.load(FIXTURE)
    assert (one.name, one.sample_id, one.speakers) == ("1", "1", ("Ada", "Bruno"))
    assert (two.name, two.sample_id, two.speakers) == ("2", "2", ("Chen", "Dana"))
    # sessions numerically (session_10 after session_2, though it comes first in the file)
    assert [t.dia_id for t in one.turns] == ORDER_1
    assert [t.session for t in one.turns] == [1] * 6 + [2] * 5 + [10] * 5
    assert [t.dia_id for t in two.turns] == [f"D1:{i}" for i in range(1, 6)] + [
        f"D2:{i}" for i in range(1, 6)]
    # the image turn keeps its text only (the caption is not part of it)
    pixel = one.turns[4]
    assert pixel.text == "Meet Pixel, my new kitten, she sleeps all day."
    assert pixel.speaker == "Ada"
    assert [q.evidence for q in one.qa] == EVIDENCE_1
    assert [q.evidence for q in two.qa] == EVIDENCE_2
    assert one.quirks == QUIRKS_1
    assert two.quirks == QUIRKS_2
    assert set(one.quirks) == set(locomo_data.QUIRKS)
    # integer answers become text; category 5 carries its adversarial answer
    assert one.qa[2].answer == "2019" and two.qa[1].answer == "3"
    assert all(isinstance(q.answer, str) for c in (one, two) for q in c.qa)
    assert (one.qa[7].category, one.qa[7].answer) == (5, "Frame it")
    assert [q.category for q in one.qa] == [1, 2, 3, 4, 1, 2, 4, 5, 1]


def test_parse_id_tolerates_padding_and_stray_colon():
    assert locomo_data.parse_id("D2:03") == (2, 3)
    assert locomo_data.parse_id("D:1:4") == (1, 4)
    assert locomo_data.parse_id(" D10:5 ") == (10, 5)
    assert locomo_data.parse_id("D") is None
    assert locomo_data.parse_id("X1:2") is None


def test_selection_by_name_in_the_order_given():
    assert [c.name for c in locomo_data.load(FIXTURE, ["2"])] == ["2"]
    assert [c.name for c in locomo_data.load(FIXTURE, ["2", "1"])] == ["2", "1"]
    assert [c.name for c in locomo_data.load(FIXTURE, ["1", "1"])] == ["1"]


def test_unknown_conversation_lists_the_names_there_are():
    with pytest.raises(InputError) as err:
        locomo_data.load(FIXTURE, ["1", "7"])
    message = str(err.value)
    assert "conversations" in message and "7" in message
    assert "there are 1, 2" in message
    assert "\n" not in message


def test_single_file_layout_equals_folder_layout(tmp_path):
    single = _single_file(tmp_path)
    folder = locomo_data.load(FIXTURE)
    for loaded in (locomo_data.load(single), locomo_data.load(tmp_path)):
        assert [c.name for c in loaded] == ["1", "2"]
        assert [c.sample_id for c in loaded] == ["conv-1", "conv-2"]
        for a, b in zip(loaded, folder):
            assert a.turns == b.turns
            assert a.qa == b.qa
            assert a.quirks == b.quirks
            assert a.speakers == b.speakers
    by_name = locomo_data.load(single, ["1"])
    by_sid = locomo_data.load(single, ["conv-1"])
    assert [c.name for c in by_name] == [c.name for c in by_sid] == ["1"]
    assert by_name[0].turns == by_sid[0].turns == folder[0].turns
    with pytest.raises(InputError, match="there are 1, 2"):
        locomo_data.load(single, ["conv-3"])


# ---------------------------------------------------------------- bad input


def test_missing_path_names_path(tmp_path):
    with pytest.raises(InputError, match="path") as err:
        locomo_data.load(tmp_path / "nowhere")
    assert "nowhere" in str(err.value)
    with pytest.raises(InputError, match="path"):
        LOCOMO.generate({"path": str(tmp_path / "nowhere"), "cache": str(tmp_path)})
    with pytest.raises(InputError, match="no .json files"):
        locomo_data.load(tmp_path)


def test_non_json_file_names_the_file(tmp_path):
    bad = tmp_path / "3.json"
    bad.write_text("{ this is not json", encoding="utf-8")
    with pytest.raises(InputError) as err:
        locomo_data.load(tmp_path)
    message = str(err.value)
    assert "3.json" in message and "JSON" in message and "\n" not in message
    with pytest.raises(InputError, match="3.json"):
        locomo_data.load(bad)


def test_turn_without_text_names_the_field(tmp_path):
    obj = json.loads((FIXTURE / "2.json").read_text(encoding="utf-8"))
    del obj["session_2"][1]["text"]
    _write(tmp_path / "2.json", obj)
    with pytest.raises(InputError) as err:
        locomo_data.load(tmp_path)
    message = str(err.value)
    assert "text" in message and "session_2 turn 1" in message and "\n" not in message


@pytest.mark.parametrize("params, word", [
    ({"placement": "bogus"}, "placement"),
    ({"categories": "0,9"}, "categories"),
    ({"categories": "one"}, "categories"),
    ({"max_turns": -1}, "max_turns"),
    ({"max_turns": "1.5"}, "max_turns"),
    ({"text": "x"}, "text"),
    ({"no_such_param": 1}, "no_such_param"),
])
def test_bad_workload_params_name_the_field(params, word, tmp_path):
    with pytest.raises(InputError) as err:
        LOCOMO.generate({"path": str(FIXTURE), "cache": str(tmp_path), **params})
    message = str(err.value)
    assert word in message and "locomo" in message and "\n" not in message
    assert not (tmp_path / "embeddings").exists()  # rejected before embedding anything


def test_cli_bad_param_is_one_line_exit_2(capsys):
    code = main(["run", "--workload", "locomo", "--param", "placement=bogus", "--policy",
                 "fifo"])
    out, err = capsys.readouterr()
    assert code == 2
    assert err.count("\n") == 1 and "placement" in err and "bogus" in err
    assert "Traceback" not in err and "Traceback" not in out


# ---------------------------------------------------------------- embedding cache


def test_embedding_cache_round_trip_and_model_agreement(tmp_path, capsys):
    first = TextEmbedder(tmp_path)
    a = first.encode(SENTENCES)
    assert (first.computed, first.cached) == (5, 0)
    assert a.dtype == np.float32 and a.shape == (5, 384)
    assert list(cache_root(tmp_path).glob("part-*.npz"))
    np.testing.assert_allclose(np.linalg.norm(a.astype(np.float64), axis=1), 1.0, atol=1e-6)
    model = load_model()
    for s, v in zip(SENTENCES, a):
        direct = model.encode([s], normalize_embeddings=True)[0]
        # batches hold texts of one token count only (no padding): bit-equal to one at a time
        assert v.tobytes() == direct.astype(np.float32).tobytes(), s

    second = TextEmbedder(tmp_path)
    b = second.encode(SENTENCES)
    assert (second.computed, second.cached) == (0, 5)
    assert np.array_equal(a, b) and a.tobytes() == b.tobytes()
    # order and repetition follow the request; unique texts are counted once
    c = second.encode([SENTENCES[3], SENTENCES[0], SENTENCES[3]])
    assert np.array_equal(c, a[[3, 0, 3]])
    assert (second.computed, second.cached) == (0, 7)
    capsys.readouterr()

    (cache_root(tmp_path) / "part-bad.npz").write_bytes(b"\x00garbage, not a zip\xff" * 10)
    third = TextEmbedder(tmp_path)
    d = third.encode(SENTENCES)
    err = capsys.readouterr().err
    assert "part-bad.npz" in err and "ignoring" in err
    assert (third.computed, third.cached) == (0, 5)
    assert np.array_equal(a, d)


def test_corrupt_only_part_is_reembedded_bit_identically(tmp_path, capsys):
    ref = TextEmbedder(tmp_path / "ref").encode(SENTENCES)
    folder = cache_root(tmp_path / "bad")
    folder.mkdir(parents=True)
    (folder / "part-bad.npz").write_bytes(b"PK\x03\x04 truncated")
    emb = TextEmbedder(tmp_path / "bad")
    got = emb.encode(SENTENCES)
    assert "part-bad.npz" in capsys.readouterr().err
    assert (emb.computed, emb.cached) == (5, 0)
    # a fresh cache filled by the same request is bit-identical (canonical batch order)
    assert np.array_equal(ref, got)
    assert TextEmbedder(tmp_path).encode([]).shape == (0, 384)


def test_vectors_do_not_depend_on_what_was_cached_before(tmp_path):
    """A text's vector is a function of the text: a cache filled piecemeal, in another order,
    equals one filled at once, bit for bit (unpadded batches: no dependence on companions)."""
    texts = [f"{t.speaker}: {t.text}" for c in locomo_data.load(FIXTURE) for t in c.turns]
    at_once = TextEmbedder(tmp_path / "a").encode(texts)
    piecemeal = TextEmbedder(tmp_path / "b")
    piecemeal.encode(texts[::3])
    piecemeal.encode(texts[::-2])
    assert piecemeal.encode(texts).tobytes() == at_once.tobytes()


@pytest.mark.parametrize("content", ["42", "\"a string\"", "null"])
def test_top_level_json_of_the_wrong_kind_is_an_input_error(tmp_path, content):
    (tmp_path / "3.json").write_text(content, encoding="utf-8")
    for where in (tmp_path, tmp_path / "3.json"):
        with pytest.raises(InputError) as err:
            locomo_data.load(where)
        assert "3.json" in str(err.value) and "JSON object" in str(err.value)
