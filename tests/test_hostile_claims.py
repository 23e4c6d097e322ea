"""Hostile claims: a corpus of broken claims, each judged by ``theory.check`` and by
``semcache claims --file``, and the files a claim check writes.

Every case breaks one thing of a valid claim (its id, a bound's argument or what a bound's
function returns, the family, a sub-range, the policy, another field).  In Python the
case raises one :class:`~simulator.errors.InputError`, when the claim is built or when it
is checked, whose line names the claim (and the bound or sub-range) and keeps the user's
own message; from the command line it is the same line (after ``--file 'FILE': `` when
the file could not be loaded), with exit code 2, nothing on stdout and nothing written
(:mod:`helpers.hostile_contract`).  The policy is the shipped FIFO on tiny cycling traces,
so no loop is compiled for the corpus.
"""

from __future__ import annotations

import errno
import os
import sys

import numpy as np
import pytest

import theory
from helpers.hostile_contract import assert_rejected, snapshot
from simulator.errors import InputError
from simulator.experiments import plugins

PRELUDE = '''
import dataclasses, math
import numpy as np
import theory
from simulator.instance import Instance
from theory import bounds, families
FAM = families.grid("cycling", params={"topics": lambda K: K + 1, "items_per_topic": 1,
                                       "dim": 8}, capacity=[1, 2], top_k=[1], steps=[6])
TRACE = FAM.instances[0].trace
def boom(*args):
    raise ValueError("my own words")
'''
VALID = dict(statement='"s"', policy='"fifo"', instances="FAM",
             bound="bounds.modifications_at_most(lambda T: T)")
P = "bounds.predicate(lambda run, opt, inst: {}, 'p')"
STATIONARY = ('families.grid("stationary", params={"items": 4, "dim": 4}, capacity=[2], '
              'top_k=[2], steps=[20])')

# name: (fields of theory.Claim as source, words of the one line)
CASES = {
    # a claim id names files: anything but a registry name is refused when it is built
    "id-escape": (dict(id='"../../escape"'), ["claim id", "../../escape"]),
    "id-slash": (dict(id='"a/b"'), ["claim id"]),
    "id-empty": (dict(id='""'), ["claim id"]),
    "id-hidden": (dict(id='".hidden"'), ["claim id"]),
    "id-long": (dict(id='"x" * 65'), ["claim id"]),
    "id-space": (dict(id='"a b"'), ["claim id"]),
    "id-newline": (dict(id='"a\\nb"'), ["claim id"]),
    "id-number": (dict(id="3"), ["claim id must be a string"]),
    # a bound's own arguments, when it is made
    "ratio-additive-nan": (dict(bound="bounds.ratio_at_most(2, additive=math.nan)"),
                           ["ratio_at_most", "additive", "nan"]),
    "ratio-additive-inf": (dict(bound="bounds.ratio_at_most(2, additive=math.inf)"),
                           ["additive", "inf"]),
    "ratio-additive-text": (dict(bound="bounds.ratio_at_most(2, additive='1')"), ["additive"]),
    "ratio-c-nan": (dict(bound="bounds.ratio_at_most(math.nan)"), ["c must be", "nan"]),
    "ratio-c-bool": (dict(bound="bounds.ratio_at_most(True)"), ["c must be", "True"]),
    "ratio-c-zero": (dict(bound="bounds.ratio_at_most(0)"), ["c must be"]),
    "ratio-c-text": (dict(bound="bounds.ratio_at_most('2')"), ["c must be"]),
    "ratio-c-huge": (dict(bound="bounds.ratio_at_most(10 ** 400)"), ["c must be"]),
    "mod-f-number": (dict(bound="bounds.modifications_at_most(3)"), ["f must be a function"]),
    "regret-f-none": (dict(bound="bounds.regret_at_most(None)"), ["f must be a function"]),
    "pred-fn-text": (dict(bound="bounds.predicate('x', 'p')"), ["fn must be a function"]),
    "pred-no-text": (dict(bound="bounds.predicate(lambda r, o, i: True, '')"), ["text"]),
    "pred-needs-opt-text": (dict(bound="bounds.predicate(bool, 'p', needs_opt='yes')"),
                            ["needs_opt"]),
    "raw-no-text": (dict(bound="bounds.Bound('', boom)"), ["text"]),
    "not-a-bound": (dict(bound="3"), ["bound must be"]),
    # what a bound's function returns, at each instance: never a verdict
    "mod-nan": (dict(bound="bounds.modifications_at_most(lambda T: math.nan)"),
                ["bound 'N ≤ f(T)", "f(T) returned nan at T = 6"]),
    "mod-numpy-nan": (dict(bound="bounds.modifications_at_most(lambda T: np.float64('nan'))"),
                      ["f(T) returned", "nan"]),
    "mod-inf": (dict(bound="bounds.modifications_at_most(lambda T: math.inf)"), ["inf"]),
    "mod-bool": (dict(bound="bounds.modifications_at_most(lambda T: T > 3)"),
                 ["returned True"]),
    "mod-none": (dict(bound="bounds.modifications_at_most(lambda T: None)"),
                 ["returned None"]),
    "mod-text": (dict(bound="bounds.modifications_at_most(lambda T: '6')"), ["returned '6'"]),
    "mod-raises": (dict(bound="bounds.modifications_at_most(boom)"),
                   ["bound", "ValueError", "my own words"]),
    "mod-huge-int": (dict(bound="bounds.modifications_at_most(lambda T: 10 ** 400)"),
                     ["f(T) returned 1000"]),
    "mod-no-argument": (dict(bound="bounds.modifications_at_most(lambda: 3)"),
                        ["f(T) at T = 6 raised TypeError"]),
    "regret-nan": (dict(bound="bounds.regret_at_most(lambda K, T: math.nan)",
                        instances=STATIONARY), ["bound 'R_T", "f(K, T) returned nan"]),
    "pred-nan": (dict(bound=P.format("math.nan")), ["bound 'p'", "returned nan"]),
    "pred-numpy-nan": (dict(bound=P.format("np.float64('nan')")), ["returned", "nan"]),
    "pred-none": (dict(bound=P.format("None")), ["returned None"]),
    "pred-int": (dict(bound=P.format("1")), ["returned 1"]),
    "pred-text": (dict(bound=P.format("'yes'")), ["returned 'yes'"]),
    "pred-array": (dict(bound=P.format("np.array([True])")), ["returned ndarray"]),
    "pred-raises": (dict(bound="bounds.predicate(boom, 'p')"),
                    ["bound 'p'", "the predicate raised ValueError: my own words"]),
    "pred-triple": (dict(bound=P.format("(True, {}, 1)")), ["returned tuple"]),
    "pred-nan-holds": (dict(bound=P.format("(math.nan, {})")), ["returned tuple"]),
    "pred-numbers-list": (dict(bound=P.format("(True, [1])")), ["dict of names"]),
    "pred-numbers-nan": (dict(bound=P.format("(True, {'x': math.nan})")), ["x=nan"]),
    "pred-numbers-text": (dict(bound=P.format("(True, {'x': 'high'})")), ["x='high'"]),
    "pred-numbers-int-key": (dict(bound=P.format("(True, {1: 2})")), ["named 1"]),
    "pred-numbers-reserved": (dict(bound=P.format("(True, {'status': 1})")),
                              ["named 'status'"]),
    "raw-judge-status": (dict(bound="bounds.Bound('raw', lambda r, o, i: ('maybe', {}))"),
                         ["bound 'raw'", "status one of"]),
    "raw-judge-none": (dict(bound="bounds.Bound('raw', lambda r, o, i: None)"),
                       ["returned None"]),
    "raw-judge-raises": (dict(bound="bounds.Bound('raw', boom)"), ["my own words"]),
    # families: instances, at least one
    "no-instances": (dict(instances="[]"), ["no instances"]),
    "empty-grid": (dict(instances='families.grid("cycling", capacity=[])'), ["no instances"]),
    "ints": (dict(instances="[1, 2, 3]"), ["item 0 is 1, not a simulator.instance.Instance"]),
    "traces": (dict(instances="[TRACE]"), ["item 0 is a Trace"]),
    "one-trace": (dict(instances="TRACE"), ["one Trace"]),
    "one-instance": (dict(instances="FAM.instances[0]"), ["one Instance"]),
    "text": (dict(instances='"cycling"'), ["got str"]),
    "dict": (dict(instances='{"a": 1}'), ["got dict"]),
    "none": (dict(instances="None"), ["got NoneType"]),
    "list-trace": (dict(instances='[Instance([1, 2], {"capacity": 1})]'),
                   ["trace must be", "got list"]),  # refused by Instance itself
    "bad-capacity": (dict(instances='[Instance(TRACE, {"capacity": 0})]'),
                     ["options", "capacity"]),  # refused by Instance itself
    "family-kind": (dict(instances='families.Family(FAM.instances, "x", kind="proof")'),
                    ["family 'x'", "kind"]),
    "family-items": (dict(instances='families.Family((1, 2), "two")'),
                     ["family 'two'", "item 0"]),
    "grid-capacity": (dict(instances='families.grid("cycling", capacity=[0])'),
                      ["grid: capacity"]),
    "grid-param-raises": (dict(instances='families.grid("cycling", params={"topics": boom})'),
                          ["grid", "my own words"]),
    "family-fn-raises": (dict(instances="boom"),
                         ["instances(quick=False) raised ValueError: my own words"]),
    "family-fn-empty": (dict(instances="lambda quick: []"), ["no instances"]),
    "family-fn-ints": (dict(instances="lambda quick: [1]"), ["item 0"]),
    "family-fn-none": (dict(instances="lambda quick: None"), ["got NoneType"]),
    "family-fn-no-argument": (dict(instances="lambda: FAM"),
                              ["instances(quick=False) raised TypeError"]),
    # sub-ranges: a predicate on an instance that returns a bool
    "sub-raises": (dict(subranges='{"K = 1": boom}'), ["sub-range 'K = 1'", "my own words"]),
    "sub-nan": (dict(subranges='{"K = 1": lambda i: math.nan}'), ["sub-range", "nan"]),
    "sub-none": (dict(subranges='{"K = 1": lambda i: None}'), ["sub-range", "None"]),
    "sub-number": (dict(subranges='{"K = 1": 3}'), ["sub-range 'K = 1'"]),
    "sub-list": (dict(subranges="[lambda i: True]"), ["subranges must be a dict"]),
    "sub-no-name": (dict(subranges='{"": lambda i: True}'), ["name"]),
    # the other fields
    "policy-unknown": (dict(policy='"no_such_policy"'),
                       ["unknown policy 'no_such_policy'", "--plugin", "SEMCACHE_PLUGINS"]),
    "policy-number": (dict(policy="3"), ["policy must be"]),
    "policy-list": (dict(policy='"fifo,lru"'), ["policy name"]),
    # a class of policies: a list of them, or a function of quick returning one
    "class-empty": (dict(policy="[]"), ["at least one member"]),
    "class-number": (dict(policy='["fifo", 3]'), ["policy 1", "policy must be"]),
    "class-nested": (dict(policy='["fifo", ["lru"]]'), ["policy 1", "one policy"]),
    "class-twice": (dict(policy='["fifo", "fifo"]'), ["lists a policy twice"]),
    "class-unknown": (dict(policy='["fifo", "no_such_policy"]'),
                      ["unknown policy 'no_such_policy'"]),
    "class-fn-raises": (dict(policy="boom"), ["policies(quick=False) raised", "my own words"]),
    "class-fn-text": (dict(policy="lambda quick: 'fifo'"), ["must return a list"]),
    # a statement about some instance, and a growth bound's own conclusion
    "reach-c-zero": (dict(bound="bounds.ratio_reaches(0)"), ["ratio_reaches", "c must be"]),
    "pred-quantifier": (dict(bound="bounds.predicate(bool, 'p', quantifier='most')"),
                        ["quantifier"]),
    "some-asymptotic": (dict(bound="bounds.ratio_reaches(2)",
                             form="'asymptotic upper bound'"), ["some instance", "form"]),
    "growth-no-conclude": (dict(bound="bounds.Bound('g', boom, quantifier='growth')"),
                           ["needs conclude"]),
    "growth-conclude-raises": (
        dict(bound="bounds.Bound('g', lambda r, o, i: ('ok', {}), quantifier='growth', "
                   "conclude=boom)"), ["conclude(rows, scope) raised", "my own words"]),
    "growth-conclude-text": (
        dict(bound="bounds.Bound('g', lambda r, o, i: ('ok', {}), quantifier='growth', "
                   "conclude=lambda rows, scope: 'grows')"), ["must return a dict"]),
    "params-unknown": (dict(params='{"nope": 1}'), ["nope"]),
    "params-text": (dict(params='"x=1"'), ["params must be a dict"]),
    "form": (dict(form='"bogus"'), ["form"]),
    "statement-empty": (dict(statement='""'), ["statement"]),
    "statement-none": (dict(statement="None"), ["statement must be a string"]),
    "data-text": (dict(data='"locomo"'), ["data"]),
}


def claims_file(name: str, fields: dict) -> str:
    """The source of a claims file that builds one claim of the corpus, as ``CLAIM``."""
    given = {**VALID, "id": repr(name), **fields}
    args = ", ".join(f"{k}={v}" for k, v in given.items())
    return PRELUDE + f"CLAIM = theory.Claim({args})\n"


@pytest.fixture
def work(tmp_path, monkeypatch):
    """An empty folder to run ``semcache claims --file`` in; the registries, the loaded
    plugins and the import path as they were after the test, and no bytecode written
    beside the claims files (the contract compares the folder)."""
    from simulator import policies
    from theory import claims

    for module in (policies, claims):
        monkeypatch.setattr(module, "REGISTRY", dict(module.REGISTRY))
        monkeypatch.setattr(module, "ORIGINS", dict(module.ORIGINS))
    monkeypatch.setattr(plugins, "_LOADED", dict(plugins._LOADED))
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def in_python(source: str, out_dir) -> tuple:
    """("built" or "checked", the line) of the InputError that ``source``'s claim raises."""
    space = {}
    try:
        exec(compile(source, "claims.py", "exec"), space)
    except InputError as exc:
        return "built", str(exc)
    with pytest.raises(InputError) as caught:
        theory.check(space["CLAIM"], out_dir=str(out_dir))
    return "checked", str(caught.value)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_broken_claim_is_one_line_in_python_and_from_the_command_line(name, tmp_path,
                                                                        work):
    fields, words = CASES[name]
    source = claims_file(name, fields)
    stage, line = in_python(source, tmp_path / "py-out")
    assert "\n" not in line and not (tmp_path / "py-out").exists(), line
    for word in words:
        assert word in line, f"{word!r} not in {line!r}"
    if stage == "checked":
        assert f"claim '{name}'" in line, line
    (work / "claims.py").write_text(source)
    said = assert_rejected(["claims", "--file", "claims.py", "--out", "co"], work)
    loaded = "--file 'claims.py': " if stage == "built" else ""
    assert said == "semcache: error: " + loaded + " ".join(line.split())


FILES = {  # a claims file that cannot be loaded: the line says --file, never --plugin
    "missing": (None, "no such file"),
    "syntax": ("CLAIM = (\n", "SyntaxError"),
    "raises": ("x = 1 / 0\n", "importing it raised ZeroDivisionError"),
    "imports-nothing-beside": ("import not_beside_it\n", "ModuleNotFoundError"),
    "no-claims": ("x = 1\n", "defines no theory.Claim"),
    "shipped-id": (claims_file("thm5.1", {}), "claim 'thm5.1' is already registered"),
    "same-id-twice": (claims_file("twice", {}) + "AGAIN = dataclasses.replace(CLAIM)\n",
                      "claim 'twice' is already registered"),
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_claims_file_that_cannot_be_loaded_is_one_line_naming_file(name, work):
    source, word = FILES[name]
    if source is not None:
        (work / "claims.py").write_text(source)
    line = assert_rejected(["claims", "--file", "claims.py", "--out", "co"], work, word)
    assert line.startswith("semcache: error: --file 'claims.py'") and "--plugin" not in line


def test_a_claims_file_that_is_not_python_says_file(work):
    (work / "claims.txt").write_text("x = 1\n")
    assert_rejected(["claims", "--file", "claims.txt"], work, "--file 'claims.txt'")


# ------------------------------------------------------------------ what a check writes

VIOLATED = PRELUDE + '''
CLAIM = theory.Claim(id="never-changes", statement="FIFO never changes its cache",
                     policy="fifo", instances=FAM,
                     bound=bounds.modifications_at_most(lambda T: 0),
                     subranges={"K = 1": lambda i: i.options["capacity"] == 1,
                                "K = 2": lambda i: i.options["capacity"] == 2})
'''


def test_nothing_is_written_outside_out(work):
    """A violated claim with two violated sub-ranges: its three instances land in --out,
    and nothing else appears anywhere under the folder the command runs in."""
    from simulator.cli import main

    (work / "claims.py").write_text(VIOLATED)
    before = snapshot(work)
    cwd = os.getcwd()
    try:
        os.chdir(work)
        assert main(["claims", "--file", "claims.py", "--out", "deep/co", "--json"]) == 2
        os.mkdir("deep")
        assert main(["claims", "--file", "claims.py", "--out", "deep/co", "--json"]) == 0
    finally:
        os.chdir(cwd)
    new = sorted(set(snapshot(work)) - set(before))
    assert new == ["deep", "deep/co", "deep/co/never-changes.npz", "deep/co/never-changes_0.npz",
                   "deep/co/never-changes_1.npz"]


@pytest.mark.parametrize("name", ["../x", "a/b", "/abs", "", ".x", "a\\b", "x" * 201, 3])
def test_an_instance_name_that_is_a_path_is_refused(name, tmp_path):
    from theory.claims.base import save_instance

    trace = theory.families.grid("cycling", capacity=[1], steps=[4]).instances[0].trace
    with pytest.raises(InputError, match="letters, digits") as caught:
        save_instance(trace, str(tmp_path / "out"), name, {"capacity": 1})
    assert caught.value.param == "name" and not any(tmp_path.iterdir())


def _fault(monkeypatch, where: str, code: int):
    """Make ``where`` fail as a full or read-only disk would (after a partial write)."""
    import tempfile

    def savez(path, **arrays):
        with open(path, "wb") as fh:
            fh.write(b"PK partial")
        raise OSError(code, os.strerror(code))

    def fail(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    owner, name = {"savez": (np, "savez"), "rename": (os, "rename"),
                   "mkdtemp": (tempfile, "mkdtemp")}[where]
    monkeypatch.setattr(owner, name, savez if where == "savez" else fail)


@pytest.mark.parametrize("where, code, exists", [
    ("savez", errno.ENOSPC, False), ("savez", errno.ENOSPC, True),
    ("savez", errno.EDQUOT, False), ("rename", errno.EROFS, False),
    ("mkdtemp", errno.EACCES, False)])
def test_a_disk_that_fails_while_an_instance_is_saved_leaves_nothing(
        where, code, exists, tmp_path, monkeypatch):
    space = {}
    exec(compile(VIOLATED, "claims.py", "exec"), space)
    claim = space["CLAIM"]
    theory.check(claim, out_dir=str(tmp_path / "warm"))  # compiled before the fault
    out = tmp_path / "out"
    if exists:
        out.mkdir()
        (out / "earlier.npz").write_bytes(b"an earlier instance")
    before = snapshot(tmp_path)
    _fault(monkeypatch, where, code)
    with pytest.raises(InputError) as caught:
        theory.check(claim, out_dir=str(out))
    monkeypatch.undo()
    assert str(caught.value) == (f"out_dir '{out}': cannot save the instance "
                                 f"never-changes_0.npz: {os.strerror(code)}")
    assert snapshot(tmp_path) == before


def test_a_run_that_fails_on_its_second_claim_leaves_out_as_it_was(work):
    """The first claim is violated (its instances are saved), the second's bound returns
    NaN: the command fails in one line and --out stays as it was."""
    (work / "claims.py").write_text(
        VIOLATED + "LATER = theory.Claim(id='later', statement='s', policy='fifo', "
        "instances=FAM, bound=bounds.modifications_at_most(lambda T: math.nan))\n")
    (work / "co").mkdir()
    (work / "co" / "earlier.npz").write_bytes(b"an earlier instance")
    assert_rejected(["claims", "--file", "claims.py", "--out", "co"], work,
                    "claim 'later', bound")


def test_a_full_disk_in_a_command_is_one_line_naming_out(tmp_path, monkeypatch, work):
    from simulator.cli import main

    (work / "claims.py").write_text(VIOLATED)
    assert main(["claims", "--file", str(work / "claims.py"), "--out",
                 str(tmp_path / "warm"), "--json"]) == 0  # compiled before the fault
    _fault(monkeypatch, "savez", errno.ENOSPC)
    assert_rejected(["claims", "--file", "claims.py", "--out", "co"], work,
                    "--out 'co': cannot save the instance never-changes_0.npz: No space left")


def test_a_file_size_limit_while_saving_is_one_line(tmp_path):
    """A real process that reaches its file size limit (EFBIG, as a full disk) while it
    saves the first instance: one line naming --out, nothing left (the folder was left
    empty, after a traceback)."""
    import resource
    import signal
    import subprocess

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))

    (tmp_path / "claims.py").write_text(VIOLATED)
    before = snapshot(tmp_path)
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "claims", "--file",
                           "claims.py", "--out", "co"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, preexec_fn=limit,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr == ("semcache: error: --out 'co': cannot save the instance "
                           f"never-changes_0.npz: {os.strerror(errno.EFBIG)}\n")
    assert snapshot(tmp_path) == before


def test_an_instance_that_is_not_a_trace_is_staged_and_written_whole(tmp_path, monkeypatch):
    """A breaking loss sequence or a stylized model's pool (JSON, not a trace) is saved as
    trace instances are: into a run's staging folder, and whole or not at all."""
    import json

    from theory.claims import instance_files

    out = tmp_path / "out"
    with instance_files.staged(str(out)):
        instance_files.write_json({"losses": [1, 0]}, str(out), "gate.json")
        assert not out.exists()
    assert json.loads((out / "gate.json").read_text()) == {"losses": [1, 0]}
    before = snapshot(tmp_path)

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(json, "dump", full)
    for folder in (out, tmp_path / "new"):
        with pytest.raises(OSError):
            instance_files.write_json({"losses": [1]}, str(folder), "other.json")
    monkeypatch.undo()
    assert snapshot(tmp_path) == before
