"""Hostile numbers and options: generated from valid command lines.

Each test starts from a command line that works and corrupts one number: inflated to
10^k, past 2**53 or 2**64, negated, nan or inf, a fraction where an integer is due, or
the option repeated.  Every corrupted line must meet the bad-input contract of
:mod:`helpers.hostile_contract` (exit 2, one line naming the option or parameter, nothing
on stdout, an existing ``--out`` untouched, nothing left behind).  The strategies only
make values that must be rejected; :func:`test_legal_extremes_run` holds the other side:
values that are legal and cheap (a capacity beyond the trace's keys) still run.

The ``@example`` lines pin the instances that used to crash with a memory, overflow or
numba error.
"""

import contextlib
import io
import json
import os
import pathlib
import tempfile

from hypothesis import example, given, settings
from hypothesis import strategies as st

import workloads
from simulator import policies
from simulator.cli import main
from helpers.hostile_contract import assert_rejected

SMALL = ["--param", "steps=50", "--param", "dim=8"]
OLD = b'{"old": true}\n'  # an existing --out file, which a rejected command must keep

# --- hostile values ------------------------------------------------------------------

# Integers no count may take: beyond 2**53 (not exact as a float) and beyond 64 bits.
_beyond = st.one_of(st.integers(16, 40).map(lambda k: str(10**k)),
                    st.integers(16, 40).map(lambda k: f"1e{k}"),
                    st.sampled_from([str(2**64), str(2**100), str(2**53 + 1)]))
_not_finite = st.sampled_from(["nan", "inf", "-inf", "NaN", "1e400"])
_fraction = st.integers(0, 10**6).map(lambda n: f"{n}.5")
_negative = st.integers(1, 10**30).map(lambda n: f"-{n}")
# Counts whose arrays need at least 160 TB: refused by memory on any machine we run on.
_memory_huge = st.integers(13, 15).map(lambda k: str(10**k))

HOSTILE_INT = st.one_of(_beyond, _not_finite, _fraction, _negative)
# Seeds are in [0, 2**63 - 1]; beyond it, or anything but an integer, is refused.
HOSTILE_SEED = st.one_of(st.integers(19, 40).map(lambda k: str(10**k)),
                         st.sampled_from([str(2**63), str(2**64), str(2**100)]),
                         _not_finite, _fraction, _negative)
HOSTILE_FLOAT = _not_finite


def _run_cli(argv, workdir):
    """Run ``semcache argv`` in ``workdir``: (exit code, stdout, stderr)."""
    out, err, cwd = io.StringIO(), io.StringIO(), os.getcwd()
    try:
        os.chdir(workdir)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([str(a) for a in argv])
    finally:
        os.chdir(cwd)
    return code, out.getvalue(), err.getvalue()


def _rejected(argv, word, out_name=None):
    """``argv`` run in a fresh folder (with an existing ``out_name``) meets the contract."""
    with tempfile.TemporaryDirectory() as tmp:
        if out_name is not None:
            (pathlib.Path(tmp) / out_name).write_bytes(OLD)
        return assert_rejected(argv, tmp, word)


def _with(argv, option, value):
    """``argv`` with ``option``'s value replaced by (or, if absent, given as) ``value``."""
    argv = list(argv)
    if option in argv:
        argv[argv.index(option) + 1] = value
        return argv
    return argv + [option, value]


# --- the valid command lines and their numeric options --------------------------------

RUN = ["run", "--workload", "clusters", *SMALL, "--policy", "fifo", "--capacity", "5",
       "--out", "out.json"]
OPT = ["opt", "--workload", "cycling", "--param", "steps=20", "--param", "topics=4",
       "--param", "dim=8", "--capacity", "3", "--json"]
DELAY = ["delay-study", "--quick", *SMALL, "--policy", "fifo", "--seeds", "2",
         "--delays", "0,1", "--losses", "0,0.5", "--plot", "plot.png"]
COUNTS = {  # option: the word its error line must name
    "--capacity": "capacity", "--top-k": "top-k", "--seed": "seed", "--seeds": "seeds",
    "--sessions": "sessions"}


def _cases(*options):
    """(option, hostile value) pairs; a seed's hostile values start past 2**63 - 1."""
    return st.one_of(*[st.tuples(st.just(o), HOSTILE_SEED if o == "--seed" else HOSTILE_INT)
                       for o in options])


@settings(max_examples=40)
@given(case=_cases("--capacity", "--top-k", "--seed"))
@example(case=("--top-k", str(10**12)))
@example(case=("--seed", str(2**64)))
@example(case=("--capacity", str(2**100)))
@example(case=("--seed", "-1"))
def test_run_count_options(case):
    option, value = case
    _rejected(_with(RUN, option, value), COUNTS[option], "out.json")


@settings(max_examples=25)
@given(case=_cases("--capacity", "--top-k", "--seed"))
@example(case=("--top-k", str(10**13)))
def test_opt_count_options(case):
    option, value = case
    _rejected(_with(OPT, option, value), COUNTS[option])


@settings(max_examples=25)
@given(case=_cases("--capacity", "--top-k", "--seed", "--seeds"))
@example(case=("--seeds", str(10**12)))
@example(case=("--seed", str(2**63)))
def test_delay_study_count_options(case):
    option, value = case
    _rejected(_with(DELAY, option, value), COUNTS[option], "plot.png")


@settings(max_examples=10)
@given(value=st.one_of(_not_finite, _fraction, _negative))
def test_sessions_option(value):
    """A huge --sessions is legal and cheap (sessions beyond the steps stay idle)."""
    _rejected(_with(DELAY, "--sessions", value), "sessions", "plot.png")


@settings(max_examples=15)
@given(option=st.sampled_from(["--delays", "--losses", "--latency", "--switch-cost"]),
       value=st.one_of(_not_finite, _negative))
def test_delay_study_float_options(option, value):
    _rejected(_with(DELAY, option, value), option.lstrip("-").split("-")[0], "plot.png")


@settings(max_examples=10)
@given(value=st.one_of(_beyond, _not_finite, _fraction, _negative))
def test_claims_only_numbers(value):
    """``claims --only`` takes claim ids; a number is none of them (and --out stays)."""
    with tempfile.TemporaryDirectory() as tmp:
        (pathlib.Path(tmp) / "claims-out").mkdir()
        (pathlib.Path(tmp) / "claims-out" / "old.json").write_bytes(OLD)
        assert_rejected(["claims", "--only", value, "--out", "claims-out"], tmp, "only")


# --- workload parameters: every numeric one of every workload -------------------------

def _numeric(params: dict, kind) -> list:
    return sorted(k for k, v in params.items() if type(v) is kind)


WORKLOAD_INTS = [(w, k) for w, wl in workloads.REGISTRY.items() for k in _numeric(wl.params, int)]
WORKLOAD_FLOATS = [(w, k) for w, wl in workloads.REGISTRY.items()
                   for k in _numeric(wl.params, float)]


@settings(max_examples=60)
@given(case=st.sampled_from(WORKLOAD_INTS), value=HOSTILE_INT)
@example(case=("clusters", "steps"), value="1e30")
@example(case=("drift", "phase_length"), value=str(2**64))
def test_workload_int_parameters(case, value):
    name, key = case
    _rejected(["workload", "show", name, "--param", f"{key}={value}"], key)


@settings(max_examples=30)
@given(case=st.sampled_from(WORKLOAD_FLOATS), value=HOSTILE_FLOAT)
def test_workload_float_parameters(case, value):
    name, key = case
    _rejected(["workload", "show", name, "--param", f"{key}={value}"], key)


# Counts that size a generated trace: 10^13..10^15 is representable but needs petabytes.
SIZING = [("clusters", "steps"), ("clusters", "topics"), ("clusters", "dim"),
          ("zipf_paging", "objects"), ("cycling", "items_per_topic"), ("working_set", "topics"),
          ("noise_pool", "queries"), ("drift", "phase_length"), ("stationary", "steps"),
          ("agent", "tasks")]


@settings(max_examples=20)
@given(case=st.sampled_from(SIZING), value=_memory_huge,
       command=st.sampled_from(["show", "make", "run"]))
@example(case=("clusters", "steps"), value="1e15", command="run")
@example(case=("clusters", "dim"), value="1e12", command="run")
@example(case=("zipf_paging", "objects"), value="1e15", command="make")
@example(case=("drift", "phase_length"), value="1e15", command="show")
def test_workload_sizes_beyond_memory(case, value, command):
    name, key = case
    if command == "run":
        argv, out = ["run", "--workload", name, "--policy", "fifo", "--out", "out.json"], "out.json"
    else:
        argv, out = ["workload", command, name], "t.npz" if command == "make" else None
        argv += ["--out", "t.npz"] if command == "make" else []
    line = _rejected(argv + ["--param", f"{key}={value}"], key, out)
    assert "needs" in line and "available" in line, line


# --- policy parameters: every numeric one of every policy -----------------------------

POLICY_INTS = [(p, k) for p, pol in policies.REGISTRY.items() for k in _numeric(pol.params, int)]
POLICY_FLOATS = [(p, k) for p, pol in policies.REGISTRY.items()
                 for k in _numeric(pol.params, float)]


def _policy_run(name, key, value):
    mode = "semantic" if "semantic" in policies.get(name).modes else "paging"
    source = (["--workload", "clusters", *SMALL] if mode == "semantic" else
              ["--workload", "zipf_paging", "--param", "steps=50", "--param", "objects=20"])
    return ["run", *source, "--policy", name, "--capacity", "5", "--policy-param",
            f"{key}={value}", "--out", "out.json"]


@settings(max_examples=40)
@given(case=st.sampled_from(POLICY_INTS), value=HOSTILE_INT)
@example(case=("solar_ref", "window"), value="1e30")
@example(case=("fixed", "warmup"), value="1e30")
@example(case=("periodic", "min_uses"), value=str(2**64))
def test_policy_int_parameters(case, value):
    _rejected(_policy_run(*case, value), case[1], "out.json")


@settings(max_examples=30)
@given(case=st.sampled_from(POLICY_FLOATS), value=HOSTILE_FLOAT)
@example(case=("twoq", "out_ratio"), value="inf")
def test_policy_float_parameters(case, value):
    _rejected(_policy_run(*case, value), case[1], "out.json")


def test_policy_parameters_beyond_their_ranges():
    """Ratios sized as counts, and counts that size the state, are refused before init."""
    for name, key, value in [("s3fifo", "ghost_ratio", "1e12"), ("twoq", "out_ratio", "1e30"),
                             ("solar_ref", "bootstrap", "1e30"),
                             ("solar_ref", "neighbours", "1e12"),
                             ("periodic", "min_uses", "1e12"),
                             ("solar_a_ref", "window", "1e15")]:
        _rejected(_policy_run(name, key, value), key, "out.json")


# --- repeated options ----------------------------------------------------------------

SINGLE = {"run": (RUN, ["--capacity", "--top-k", "--seed", "--policy", "--switch-cost",
                        "--workload", "--out", "--json", "--budget"]),
          "opt": (OPT, ["--capacity", "--top-k", "--seed", "--method", "--json"]),
          "delay-study": (DELAY, ["--seeds", "--seed", "--delays", "--capacity", "--quick"])}
VALID = {"--capacity": "5", "--top-k": "2", "--seed": "1", "--policy": "fifo",
         "--switch-cost": "0", "--workload": "clusters", "--out": "out.json", "--seeds": "2",
         "--delays": "0,1", "--method": "auto", "--budget": "100"}
FLAGS = ("--json", "--quick")


@settings(max_examples=20)
@given(command=st.sampled_from(sorted(SINGLE)), data=st.data())
def test_single_valued_options_given_twice(command, data):
    argv, options = SINGLE[command]
    option = data.draw(st.sampled_from(options))
    once = [option] if option in FLAGS else [option, VALID[option]]
    argv = argv + once if option not in argv else argv
    line = _rejected(argv + once, option.lstrip("-"),
                     {"run": "out.json", "delay-study": "plot.png"}.get(command))
    assert "twice" in line, line


def test_capacity_given_twice():
    line = _rejected(RUN + ["--capacity", "7"], "capacity", "out.json")
    assert "given twice" in line, line


def test_repeated_param_key():
    _rejected(RUN + ["--param", "steps=60"], "steps", "out.json")


# --- the other side: legal extremes that are cheap still run ------------------------

@settings(max_examples=8)
@given(extra=st.sampled_from([["--capacity", str(10**12)], ["--capacity", str(2**53)],
                              ["--param", "zipf=1e30"], ["--seed", str(2**63 - 1)],
                              ["--param", "topics=1e2"]]))
@example(extra=["--capacity", str(10**12)])
def test_legal_extremes_run(extra):
    argv = ["run", "--workload", "clusters", *SMALL, "--json", "--policy", "fifo", *extra]
    with tempfile.TemporaryDirectory() as tmp:
        code, out, err = _run_cli(argv, tmp)
    assert (code, err) == (0, ""), err
    assert json.loads(out)["runs"]


def test_streamed_trace_beyond_disk():
    """A streamed trace is not held in memory, but still has to fit where it is written."""
    line = _rejected(["workload", "make", "zipf_paging", "--param", "steps=1e15", "--out",
                      "z.oracleGeneral.zst"], "disk", "z.oracleGeneral.zst")
    assert "--out" in line, line


def test_valid_starting_points_run():
    """The command lines corrupted above are valid as they stand (so no test passes on a
    line that was already bad)."""
    for argv in (RUN, DELAY, ["workload", "show", "clusters", *SMALL]):  # opt: 10 s
        with tempfile.TemporaryDirectory() as tmp:
            code, _, err = _run_cli(argv, tmp)
        assert (code, err) == (0, ""), (argv, err)
