"""Bad input never shows a traceback: exit code 2, one line on stderr naming it, no stdout.

Each case builds its files under ``tmp_path`` and returns the ``semcache`` arguments and a
word the error line must contain (the array, option or parameter at fault).
"""

import subprocess
import sys
import zipfile

import numpy as np
import pytest

from simulator import policies
from simulator.cli import main

T, D = 6, 4
RUN = ["run", "--policy", "fifo"]
SMALL = ["--workload", "clusters", "--param", "steps=50", "--param", "dim=8"]


def _arrays(**changes):
    rng = np.random.default_rng(0)
    arrays = {"queries": rng.normal(size=(T, D)).astype(np.float32),
              "items": rng.normal(size=(T, D)).astype(np.float32),
              "query_topics": np.arange(T, dtype=np.int64) % 3,
              "item_topics": np.arange(T, dtype=np.int64) % 3}
    arrays.update(changes)
    return {k: v for k, v in arrays.items() if v is not None}


def _with(name, index, value, dtype=np.float32):
    arr = _arrays()[name].astype(dtype)
    arr[index] = value
    return arr


def _npz(**changes):
    """A trace file with ``changes`` applied to a valid trace (``None`` drops an array)."""
    def build(tmp):
        path = tmp / "trace.npz"
        np.savez(path, **_arrays(**changes))
        return [*RUN, "--trace", str(path)]
    return build


def _file(content: bytes, name="trace.npz"):
    def build(tmp):
        path = tmp / name
        path.write_bytes(content)
        return [*RUN, "--trace", str(path)]
    return build


def _pickled_object_array(tmp):
    path = tmp / "trace.npz"
    ragged = np.empty(T, dtype=object)
    ragged[:] = [np.ones(D - i % 2, np.float32) for i in range(T)]
    np.savez(path, queries=ragged, items=_arrays()["items"])  # savez pickles object arrays
    return [*RUN, "--trace", str(path)]


def _truncated_npz(tmp):
    path = tmp / "trace.npz"
    np.savez(path, **_arrays())
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return [*RUN, "--trace", str(path)]


def _npy_file(tmp):
    path = tmp / "trace.npy"
    np.save(path, _arrays()["queries"])
    return [*RUN, "--trace", str(path)]


def _args(*argv):
    return lambda tmp: list(argv)


def _run_small(*extra):
    return _args("run", *SMALL, *extra)


def _policy_with_numeric_param():
    for name, pol in policies.REGISTRY.items():
        for key, default in pol.params.items():
            if isinstance(default, (int, float)) and not isinstance(default, bool):
                return name, key
    return None, None


PNAME, PKEY = _policy_with_numeric_param()
CSR = {"evidence_indptr": np.array([0, 1, 1, 2, 2, 2, 2], np.int64),
       "evidence_indices": np.array([0, 3], np.int64)}
CASES = [
    # --- trace arrays ---------------------------------------------------------------
    ("nan_in_queries", _npz(queries=_with("queries", (2, 1), np.nan)), "'queries'"),
    ("inf_in_items", _npz(items=_with("items", (3, 0), np.inf)), "'items'"),
    ("zero_query_vector", _npz(queries=_with("queries", 1, 0.0)), "zero vector"),
    ("float64_queries", _npz(queries=_arrays()["queries"].astype(np.float64)), "'queries'"),
    ("int_queries", _npz(queries=np.ones((T, D), np.int64)), "'queries'"),
    ("string_queries", _npz(queries=np.full((T, D), "x")), "'queries'"),
    ("bool_items", _npz(items=np.ones((T, D), bool)), "'items'"),
    ("object_array", _pickled_object_array, "trace.npz"),
    ("length_mismatch", _npz(items=_arrays()["items"][:-1]), "'items'"),
    ("dim_mismatch", _npz(items=np.ones((T, D + 1), np.float32)), "'items'"),
    ("queries_1d", _npz(queries=np.ones(T, np.float32)), "'queries'"),
    ("queries_3d", _npz(queries=np.ones((T, D, 1), np.float32)), "'queries'"),
    ("empty_queries", _npz(queries=np.ones((0, D), np.float32),
                           items=np.ones((0, D), np.float32), query_topics=None,
                           item_topics=None), "'queries'"),
    ("missing_items", _npz(items=None), "'items'"),
    ("topics_length", _npz(query_topics=np.zeros(T + 1, np.int64)), "'query_topics'"),
    ("topics_below_minus_one", _npz(item_topics=_with("item_topics", 4, -2, np.int64)),
     "'item_topics'"),
    ("float_topics", _npz(query_topics=np.zeros(T, np.float64)), "'query_topics'"),
    ("weight_above_one", _npz(weights=np.array([1, 1, 1.5, 1, 1, 1.0])), "'weights'"),
    ("weight_negative", _npz(weights=np.array([1, 1, 1, -0.1, 1, 1.0])), "'weights'"),
    ("weight_nan", _npz(weights=np.array([1, np.nan, 1, 1, 1, 1.0])), "'weights'"),
    ("scored_not_bool", _npz(scored=np.ones(T, np.int64)), "'scored'"),
    ("negative_item_key", _npz(item_keys=np.array([0, 1, -5, 2, 3, 4], np.int64)),
     "'item_keys'"),
    ("csr_bad_start", _npz(evidence_indptr=np.array([1, 1, 1, 2, 2, 2, 2], np.int64),
                           evidence_indices=CSR["evidence_indices"]), "'evidence_indptr'"),
    ("csr_decreasing", _npz(evidence_indptr=np.array([0, 2, 1, 2, 2, 2, 2], np.int64),
                            evidence_indices=CSR["evidence_indices"]), "'evidence_indptr'"),
    ("csr_wrong_length", _npz(evidence_indptr=np.array([0, 1, 2], np.int64),
                              evidence_indices=CSR["evidence_indices"]), "'evidence_indptr'"),
    ("csr_end_mismatch", _npz(evidence_indptr=CSR["evidence_indptr"],
                              evidence_indices=np.array([0, 3, 4], np.int64)),
     "'evidence_indptr'"),
    ("csr_unknown_item", _npz(evidence_indptr=CSR["evidence_indptr"],
                              evidence_indices=np.array([0, 99], np.int64)),
     "'evidence_indices'"),
    ("csr_half", _npz(evidence_indptr=CSR["evidence_indptr"]), "evidence_indices"),
    ("unknown_array", _npz(extra_stuff=np.zeros(3)), "'extra_stuff'"),
    ("paging_negative_id", _npz(queries=None, items=None, query_topics=None, item_topics=None,
                                requests=np.array([1, -1, 2], np.int64)), "'requests'"),
    ("paging_mixed", _npz(requests=np.array([1, 2], np.int64)), "'requests'"),
    # --- files ----------------------------------------------------------------------
    ("missing_file", _args(*RUN, "--trace", "/nonexistent/dir/trace.npz"), "does not exist"),
    ("random_bytes", _file(np.random.default_rng(1).bytes(4096)), "trace.npz"),
    ("empty_file", _file(b""), "trace.npz"),
    ("truncated_npz", _truncated_npz, "trace.npz"),
    ("directory_as_trace", lambda tmp: [*RUN, "--trace", str(tmp)], "trace file"),
    ("npy_instead_of_npz", _npy_file, "trace.npy"),
    # --- model options ----------------------------------------------------------------
    ("capacity_zero", _run_small("--capacity", "0"), "--capacity"),
    ("capacity_negative", _run_small("--capacity", "-3"), "--capacity"),
    ("capacity_not_int", _run_small("--capacity", "ten"), "--capacity"),
    ("top_k_zero", _run_small("--top-k", "0"), "--top-k"),
    ("switch_cost_negative", _run_small("--switch-cost", "-1"), "--switch-cost"),
    ("switch_cost_nan", _run_small("--switch-cost", "nan"), "--switch-cost"),
    ("switch_cost_inf", _run_small("--switch-cost", "inf"), "--switch-cost"),
    ("unknown_quality", _run_small("--quality", "recall"), "--quality"),
    ("negative_seed", _run_small("--seed", "-1"), "--seed"),
    ("engine_bogus", _run_small("--engine", "bogus"), "--engine"),
    ("opt_unknown_method", _args("opt", *SMALL, "--method", "bogus"), "--method"),
    ("opt_method_not_applicable", _args("opt", *SMALL, "--quality", "precision",
                                        "--method", "flow"), "flow"),
    # --- policies ---------------------------------------------------------------------
    ("unknown_policy", _run_small("--policy", "fifo,bogus"), "bogus"),
    ("empty_policy_name", _run_small("--policy", "fifo,,lru"), "--policy"),
    ("duplicate_policy", _run_small("--policy", "fifo,fifo"), "fifo"),
    ("unknown_policy_param", _run_small("--policy", "lru", "--policy-param", "zeta=1"), "zeta"),
    ("policy_param_no_equals", _run_small("--policy-param", "zeta"), "--policy-param"),
    ("policy_not_in_mode", _args("run", "--workload", "zipf_paging", "--param", "steps=100",
                                 "--policy", "unlimited"), "unlimited"),
    # --- workloads --------------------------------------------------------------------
    ("unknown_workload", _args("run", "--workload", "bogus"), "bogus"),
    ("unknown_workload_param", _run_small("--param", "colour=red"), "colour"),
    ("workload_param_not_number", _run_small("--param", "topics=many"), "topics"),
    ("workload_param_out_of_range", _run_small("--param", "item_noise=-1"), "item_noise"),
    ("workload_param_no_equals", _run_small("--param", "steps"), "--param"),
    ("workload_param_twice", _run_small("--param", "steps=20"), "twice"),  # SMALL sets it
    ("param_with_trace", _args("run", "--trace", "x.npz", "--param", "steps=3"), "--param"),
    ("workload_and_trace", _args("run", "--workload", "clusters", "--trace", "x.npz"),
     "--trace"),
    ("no_source", _args("run", "--policy", "fifo"), "--workload"),
    ("paging_with_semantic_workload", _run_small("--paging"), "--paging"),
    ("paging_with_semantic_trace", lambda tmp: _npz()(tmp) + ["--paging"], "--paging"),
    # --- command line -----------------------------------------------------------------
    ("no_command", _args(), "COMMAND"),
    ("unknown_command", _args("fly"), "fly"),
    ("unknown_option", _run_small("--bogus-flag"), "--bogus-flag"),
    ("make_without_out", _args("workload", "make", "clusters"), "--out"),
    ("make_unknown_workload", lambda tmp: ["workload", "make", "nope", "--out",
                                           str(tmp / "x.npz")], "nope"),
    ("make_out_missing_folder", _args("workload", "make", "clusters", "--out",
                                      "/nonexistent/dir/x.npz"), "--out"),
    ("run_out_missing_folder", _run_small("--out", "/nonexistent/dir/x.json"), "--out"),
    ("run_out_is_directory", lambda tmp: [*_run_small()(tmp), "--out", str(tmp)], "--out"),
]
if PNAME is not None:
    CASES.append(("bad_policy_param_value",
                  _run_small("--policy", PNAME, "--policy-param", f"{PKEY}=abc"), PKEY))
PARAMS = [pytest.param(*c, id=c[0]) for c in CASES]


@pytest.mark.parametrize("name, build, word", PARAMS)
def test_bad_input_is_one_line_and_exit_code_2(name, build, word, tmp_path, capsys):
    argv = build(tmp_path)
    code = main(argv)
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("semcache: error: ")
    assert word.lower() in lines[0].lower(), lines[0]
    assert code == 2


def test_the_corpus_is_large():
    assert len(PARAMS) >= 25


def _subprocess_case(name, tmp_path):
    build = next(c.values[1] for c in PARAMS if c.values[0] == name)
    return subprocess.run([sys.executable, "-m", "simulator.cli", *build(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)


@pytest.mark.parametrize("name, word", [
    ("nan_in_queries", "'queries'"), ("random_bytes", "trace.npz"),
    ("capacity_zero", "--capacity"), ("capacity_not_int", "--capacity"),
    ("unknown_policy_param", "zeta"), ("unknown_workload", "bogus")])
def test_real_process_shows_no_traceback(name, word, tmp_path):
    proc = _subprocess_case(name, tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("semcache: error: ")
    assert word in lines[0]


@pytest.mark.parametrize("failing", [
    ["--capacity", "0"],                                   # fails before any work
    ["--policy", "fifo", "--policy-param", "zeta=1"],      # fails after the workload is built
])
def test_failed_run_keeps_an_existing_out_file(failing, tmp_path, capsys):
    out = tmp_path / "result.json"
    out.write_text('{"precious": true}\n')
    assert main(["run", *SMALL, *failing, "--json", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert out.read_text() == '{"precious": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json"]


def test_zip_member_that_is_not_npy_is_an_input_error(tmp_path, capsys):
    path = tmp_path / "trace.npz"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("queries.npy", b"not an npy header")
    assert main([*RUN, "--trace", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "'queries'" in err  # np.load reads it as bytes


def _small_trace():
    import workloads

    return workloads.get("clusters").generate({"steps": 50, "dim": 8}, seed=0)


def _call_run(**options):
    from simulator.runner import run

    return lambda: run(_small_trace(), "fifo", **options)


def _call_study(**options):
    from simulator.experiments import delay_study

    return lambda: delay_study.study(quick=True, **options)


def _call_claims(ids):
    from theory.claims import select

    return lambda: select(ids)


@pytest.mark.parametrize("call, argv, param, flag", [
    (_call_run(capacity=0), ["run", *SMALL, "--capacity", "0"], "capacity", "--capacity"),
    (_call_run(top_k=0), ["run", *SMALL, "--top-k", "0"], "top_k", "--top-k"),
    (_call_run(switch_cost=-1.0), ["run", *SMALL, "--switch-cost", "-1"], "switch_cost",
     "--switch-cost"),
    (_call_run(quality="best"), ["run", *SMALL, "--quality", "best"], "quality", "--quality"),
    (_call_run(engine_options={"feedback_delay": 2.0}),
     ["run", *SMALL, "--feedback-delay", "2"], "feedback_delay", "--feedback-delay"),
    (_call_run(engine="simpy", engine_options={"sessions": 0}),
     ["run", *SMALL, "--engine", "simpy", "--sessions", "0"], "sessions", "--sessions"),
    (_call_study(seeds=1), ["delay-study", "--quick", "--seeds", "1"], "seeds", "--seeds"),
    (_call_study(delays=(-1,)), ["delay-study", "--quick", "--delays", "-1"], "delays",
     "--delays"),
    (_call_claims(["nope"]), ["claims", "--only", "nope"], "ids", "--only"),
], ids=lambda v: v if isinstance(v, str) and not v.startswith("-") else None)
def test_the_library_names_the_parameter_and_the_command_line_its_flag(call, argv, param, flag,
                                                                      capsys):
    from simulator.errors import InputError

    with pytest.raises(InputError) as err:
        call()
    text = str(err.value)
    assert err.value.param == param and text.startswith(param) and text[len(param)] in " :"
    assert main(argv) == 2
    line = capsys.readouterr().err.strip()
    assert line.startswith(f"semcache: error: {flag} ") or \
        line.startswith(f"semcache: error: {flag}: "), line
