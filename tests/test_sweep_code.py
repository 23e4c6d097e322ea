"""A sweep store holds rows of one version of everything that decides them: a resume after
an edit of a plugin's hook, of a trace file or of semcache refuses in one line naming it,
and a damaged or foreign store is one line too; a store reads back without pandas."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from helpers.hostile_contract import assert_rejected, snapshot
from simulator import policies
from simulator.cli import main
from simulator.errors import InputError
from simulator.experiments import file_reads, plugins
from simulator.experiments.sweep import code as sweep_code
from simulator.experiments.sweep import store as sweep_store
from simulator.experiments.code_id import code_id
from simulator.experiments.sweep import Grid, sweep
from simulator.experiments.sweep.code import SEMCACHE, row_code

# a paging policy: its loop compiles faster than a semantic one (once per module)
RULES = '''
import simulator
from simulator.policies.base import empty_state


@simulator.njit
def _victim(state, t, key, x, cache):
    slot_key = cache[0]
    for s in range(slot_key.shape[0]):
        if slot_key[s] >= 0:
            return s
    return -1


POLICY = simulator.Policy(name="first_full_slot", summary="evict the first full slot",
                          init=lambda ctx: empty_state(), victim=_victim, modes=("paging",))
'''
EDITED = RULES.replace("for s in range(slot_key.shape[0]):",
                       "for s in range(slot_key.shape[0] - 1, -1, -1):")
# a workload that reads its requests from a file: named by a parameter, or known to the code
FROM_FILE = '''
import pathlib

import numpy as np
from simulator.trace import PagingTrace
from workloads.base import Workload


def _named(p, seed):
    return PagingTrace.from_requests(np.load(p["path"]))


def _beside(p, seed):
    return PagingTrace.from_requests(np.load(pathlib.Path(__file__).with_name("beside.npy")))


NAMED = Workload(name="requests_named", summary="a .npy file", make=_named,
                 params={"path": ""})
BESIDE = Workload(name="requests_beside", summary="beside.npy", make=_beside, params={})
'''
OPTIONS = ["--policy", "fifo", "--capacity", "3", "--workers", "0", "--out", "st"]
SWEEP = ["sweep", "--workload", "clusters", "--param", "steps=40", *OPTIONS, "--resume"]


@pytest.fixture
def forget(monkeypatch):
    """Registries and loaded plugins as they were, after the test."""
    import workloads

    from workloads import adversaries

    monkeypatch.setattr(policies, "REGISTRY", dict(policies.REGISTRY))
    monkeypatch.setattr(workloads, "REGISTRY", dict(workloads.REGISTRY))
    monkeypatch.setattr(adversaries, "REGISTRY", dict(adversaries.REGISTRY))
    monkeypatch.setattr(plugins, "_LOADED", dict(plugins._LOADED))


def _main_in(folder, argv) -> int:
    cwd = os.getcwd()
    try:
        os.chdir(folder)
        return main(argv)
    finally:
        os.chdir(cwd)


def _semcache(argv, cwd, env=None):
    return subprocess.run([sys.executable, "-m", "simulator.cli", *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=600,
                          env=None if env is None else dict(os.environ, **env))


def test_a_resume_after_a_plugin_edit_refuses_until_it_is_restored(tmp_path, forget):
    """The issue's case, as a user meets it: three runs on one store, the two resumes each
    in a new process (the first runs here: a process of its own would add nothing the
    second's reading of its store does not show)."""
    plugin = tmp_path / "rules.py"
    plugin.write_text(RULES)
    argv = ["--plugin", str(plugin), "sweep", "--workload", "zipf_paging", "--param",
            "steps=40", "--policy", "first_full_slot", "--workers", "0", "--out", "st"]
    assert _main_in(tmp_path, [*argv, "--capacity", "3"]) == 0
    stored = snapshot(tmp_path / "st")
    plugin.write_text(EDITED)
    # a numba cache of its own: whatever the refused command compiled would be saved there
    numba_cache = tmp_path / "numba-cache"
    refused = _semcache([*argv, "--capacity", "3,4", "--resume"], tmp_path,
                        env={"NUMBA_CACHE_DIR": str(numba_cache)})
    assert (refused.returncode, refused.stdout) == (2, "")
    line, = refused.stderr.splitlines()
    assert line == (f"semcache: error: --out 'st': plugin file '{plugin}' changed since the "
                    "store's runs; restore it to resume, or sweep into another folder")
    assert snapshot(tmp_path / "st") == stored
    # refused before anything compiles
    assert not [p for p in numba_cache.rglob("*") if p.suffix in (".nbi", ".nbc")]
    plugin.write_text(RULES)
    again = _semcache([*argv, "--capacity", "3,4", "--resume"], tmp_path)
    assert again.returncode == 0 and "wrote 1 rows, skipped 1" in again.stdout, again.stderr
    codes = {row["code"] for row in sweep_store.load_rows(str(tmp_path / "st"))}
    assert len(codes) == 1 and codes != {code_id()}  # the plugin file is in the code


@pytest.mark.parametrize("workload", ["requests_named", "requests_beside"])
def test_a_resume_after_a_trace_file_edit_refuses_until_it_is_restored(tmp_path, forget,
                                                                     workload):
    (tmp_path / "wl.py").write_text(FROM_FILE)
    data = tmp_path / ("requests.npy" if workload == "requests_named" else "beside.npy")
    np.save(data, np.arange(30) % 7)
    argv = ["--plugin", "wl.py", "sweep", "--workload", workload, *OPTIONS]
    if workload == "requests_named":
        argv += ["--param", f"path={data.name}"]
    assert _main_in(tmp_path, argv) == 0
    kept = data.read_bytes()
    np.save(data, np.arange(30) % 5)
    line = assert_rejected(argv + ["--resume"], tmp_path, f"trace file '{data}' changed")
    assert line.startswith("semcache: error: --out 'st': ")
    data.write_bytes(kept)
    assert _main_in(tmp_path, argv + ["--resume"]) == 0


def _store(work, parts_by_part, codes=None):
    """A store of one fifo row per part: ``parts_by_part`` maps a part's name to its parts
    (label → hash), or to None for a part with no manifest; ``codes`` its rows' codes."""
    os.makedirs(work / "st", exist_ok=True)
    for i, (name, parts) in enumerate(parts_by_part.items()):
        code = (codes or {}).get(name) or (row_code(parts) if parts else code_id())
        manifest = None if parts is None else json.dumps(
            {"parts": parts, "codes": {row_code(parts): sorted(parts)}})
        sweep_store.write_part(str(work / "st"), name, [
            {"task_id": f"other-{i}", "workload": "clusters", "policy": "fifo", "code": code}],
            manifest)


def _raw_manifest(work, text: bytes, code=None):
    import pyarrow.parquet as pq

    _store(work, {"a": {SEMCACHE: code_id()}}, {"a": code})
    part = work / "st" / "part-a.parquet"
    table = pq.read_table(part)
    pq.write_table(table.replace_schema_metadata({sweep_store.MANIFEST: text}), part)


def _plugin_file(work):
    (work / "mine.py").write_text("x = 1\n")
    return f"plugin:{work / 'mine.py'}"


def _trace_file(work):
    np.save(work / "data.npy", np.arange(3))
    return f"trace:{work / 'data.npy'}"


OTHER = "0123456789ab"
# each hostile store: how to make it in the work folder, and words of the one line
HOSTILE = {
    "manifest not JSON": (lambda w: _raw_manifest(w, b"{not json"), "damaged code manifest"),
    "manifest not UTF-8": (lambda w: _raw_manifest(w, b"\xff\xfe"), "damaged code manifest"),
    "manifest a list": (lambda w: _raw_manifest(w, b"[1]"), "damaged code manifest"),
    "manifest without codes": (lambda w: _raw_manifest(w, b'{"parts": {}}'),
                               "damaged code manifest"),
    "row code not listed": (lambda w: _raw_manifest(
        w, json.dumps({"parts": {SEMCACHE: code_id()}, "codes": {}}).encode()),
        "is not listed with its parts"),
    "row code not its parts' hash": (lambda w: _raw_manifest(
        w, json.dumps({"parts": {SEMCACHE: code_id()}, "codes": {OTHER: [SEMCACHE]}}).encode(),
        OTHER), "is not the hash of its listed parts"),
    "unknown label": (lambda w: _raw_manifest(w, json.dumps(
        {"parts": {"weird:x": "1"}, "codes": {}}).encode()), "'weird:x' is not a label"),
    "no manifest, another version": (lambda w: _store(w, {"a": None}, {"a": OTHER}),
                                     f"another version of semcache (part 'part-a.parquet' "
                                     f"has code {OTHER}"),
    "another semcache": (lambda w: _store(w, {"a": {SEMCACHE: OTHER}}),
                         f"another version of semcache (code {OTHER}; this one is "
                         f"{code_id()})"),
    "plugin file changed": (lambda w: _store(w, {"a": {SEMCACHE: code_id(),
                                                      _plugin_file(w): "0" * 16}}),
                            "plugin file '{work}/mine.py' changed since the store's runs"),
    "plugin file gone": (lambda w: _store(w, {"a": {SEMCACHE: code_id(),
                                                   f"plugin:{w}/gone.py": "0" * 16}}),
                         "plugin file '{work}/gone.py', which the store's runs read, is gone"),
    "trace file changed": (lambda w: _store(w, {"a": {SEMCACHE: code_id(),
                                                     _trace_file(w): "0" * 16}}),
                           "trace file '{work}/data.npy' changed"),
    "code with no file": (lambda w: _store(w, {"a": {SEMCACHE: code_id(),
                                                    "nofile:policy 'nb'": None}}),
                          "policy 'nb', whose code has no file"),
    "two versions mixed": (lambda w: _store(w, {"a": {SEMCACHE: code_id(), _plugin_file(w):
                                                      "1" * 16},
                                                "b": {SEMCACHE: code_id(), _plugin_file(w):
                                                      "2" * 16}}),
                           "already mixes two versions of plugin file '{work}/mine.py' "
                           "(parts 'part-a.parquet' and 'part-b.parquet')"),
    "out is a file": (lambda w: (w / "st").write_text("x"), "is a file, not a sweep store"),
    "hash not text": (lambda w: _raw_manifest(w, json.dumps(
        {"parts": {SEMCACHE: 12}, "codes": {}}).encode()), "'semcache' is not a label"),
    "label of two lines": (lambda w: _raw_manifest(w, json.dumps(
        {"parts": {"plugin:/a\nb.py": "1"}, "codes": {}}).encode()), "damaged code manifest"),
    "manifest, no code column": (lambda w: _no_code_column(w), "have no code column"),
    "trace file now a FIFO": (lambda w: _store(w, {"a": {SEMCACHE: code_id(),
                                                        _fifo(w): "0" * 16}}),
                              "trace file '{work}/fifo', which the store's runs read, is "
                              "gone or not a regular file"),
    "hash of two lines": (lambda w: _raw_manifest(w, json.dumps(
        {"parts": {SEMCACHE: "a\nb"}, "codes": {}}).encode()), "'semcache' is not a label"),
    "no manifest, a code of two lines": (lambda w: _store(w, {"a": None}, {"a": "x\ny"}),
                                         "has code x\\ny and no manifest"),
    "part name of two lines": (lambda w: _bytes_part(w, b"", "part-a\nb.parquet"),
                               "cannot read 'part-a\\nb.parquet'"),
    "part not Parquet": (lambda w: _bytes_part(w, b"PAR1 half a part"), "cannot read"),
    "part empty": (lambda w: _bytes_part(w, b""), "cannot read"),
}


def _fifo(work):
    os.mkfifo(work / "fifo")  # hashing it would block for ever
    return f"trace:{work / 'fifo'}"


def _no_code_column(work):
    import pyarrow.parquet as pq

    _store(work, {"a": {SEMCACHE: code_id()}})
    part = work / "st" / "part-a.parquet"
    table = pq.read_table(part)
    pq.write_table(table.drop_columns(["code"]), part)


def _bytes_part(work, data: bytes, name="part-a.parquet"):
    (work / "st").mkdir()
    (work / "st" / name).write_bytes(data)


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_store_that_cannot_be_continued_is_one_line_and_left_as_it_was(tmp_path, case):
    make, words = HOSTILE[case]
    make(tmp_path)
    if (tmp_path / "st").is_dir():  # a killed writer's file: kept, as is everything
        (tmp_path / "st" / ".semcache-x.part.tmp").write_bytes(b"half")
    line = assert_rejected(SWEEP, tmp_path, words.format(work=tmp_path))
    assert "'st'" in line, line


def test_a_part_of_this_version_without_a_manifest_is_resumed(tmp_path):
    """Parts written before parts kept a manifest, by this code: semcache's sources alone."""
    _store(tmp_path, {"a": None})
    result = sweep(Grid("clusters", params={"steps": [40]}, policies=["fifo"],
                        capacities=[3]), str(tmp_path / "st"), workers=0, resume=True)
    assert (result.rows_written, result.rows_skipped) == (1, 0)
    assert {r["code"] for r in sweep_store.load_rows(str(tmp_path / "st"))} == {code_id()}


def test_a_resume_may_add_rows_that_depend_on_more(tmp_path, forget):
    """A store of semcache's code alone takes rows of a plugin's workload, then keeps it."""
    _store(tmp_path, {"a": {SEMCACHE: code_id()}})
    (tmp_path / "wl.py").write_text(FROM_FILE)
    np.save(tmp_path / "beside.npy", np.arange(30) % 7)
    plugins.load(str(tmp_path / "wl.py"))
    grid = Grid("requests_beside", policies=["fifo"], capacities=[3])
    assert sweep(grid, str(tmp_path / "st"), workers=0, resume=True).rows_written == 1
    labels = set().union(*(json.loads(text)["parts"] for _, _, text in
                           sweep_store.part_codes(str(tmp_path / "st"))))
    assert labels == {SEMCACHE, f"plugin:{tmp_path / 'wl.py'}",
                      f"trace:{tmp_path / 'beside.npy'}"}


@pytest.mark.parametrize("where", ["before it runs", "in its rows"])
def test_a_worker_that_sees_another_plugin_file_is_refused(tmp_path, forget, monkeypatch,
                                                           where):
    from simulator.experiments import sweep as sw

    (tmp_path / "wl.py").write_text(FROM_FILE)
    np.save(tmp_path / "beside.npy", np.arange(30) % 7)
    plugins.load(str(tmp_path / "wl.py"))
    label = f"plugin:{tmp_path / 'wl.py'}"
    run_chunk = sw.run_chunk

    def elsewhere(chunk):
        if where == "before it runs":
            return run_chunk(dict(chunk, code=dict(chunk["code"], **{label: "f" * 16})))
        rows, info = run_chunk(chunk)
        manifest = json.loads(info["manifest"])
        manifest["parts"][label] = "f" * 16
        return rows, dict(info, manifest=json.dumps(manifest))

    from simulator import runner

    runs = []
    real = runner.run
    monkeypatch.setattr(runner, "run", lambda *a, **k: runs.append(1) or real(*a, **k))
    monkeypatch.setattr(sw, "run_chunk", elsewhere)
    grid = Grid("requests_beside", policies=["fifo"], capacities=[3])
    with pytest.raises(InputError, match=f"worker .* has another plugin file "
                                         f"'{tmp_path / 'wl.py'}' than this sweep"):
        sweep(grid, str(tmp_path / "st"), workers=0)
    assert not (tmp_path / "st").exists()
    assert len(runs) == (0 if where == "before it runs" else 1)


def test_the_code_covers_the_files_behind_a_policy_and_nothing_for_semcache(tmp_path, forget):
    task = {"policy": "fifo", "workload": "clusters", "params": {"steps": 40}}
    assert sweep_code.task_labels(task) == {SEMCACHE}
    (tmp_path / "helper_33.py").write_text("import simulator\n\n\n@simulator.njit\n"
                                           "def first(n):\n    return 0\n")
    (tmp_path / "rules_33.py").write_text(
        "import simulator, helper_33\nfrom simulator.policies.base import empty_state\n\n\n"
        "@simulator.njit\ndef _victim(state, t, key, x, cache):\n"
        "    return helper_33.first(1)\n\n\n"
        "POLICY = simulator.Policy(name='via_helper', summary='s', init=lambda ctx: "
        "empty_state(), victim=_victim, modes=('paging',))\n")
    sys.path.insert(0, str(tmp_path))
    try:
        plugins.load(str(tmp_path / "rules_33.py"))
    finally:
        sys.path.remove(str(tmp_path))
    assert sweep_code.task_labels(dict(task, policy="via_helper")) == {
        SEMCACHE, f"plugin:{tmp_path / 'rules_33.py'}", f"plugin:{tmp_path / 'helper_33.py'}"}
    # an adversary and a target policy that the adversarial workload's parameters name
    (tmp_path / "nag_33.py").write_text(
        "from workloads.adversaries.builder import Adversary\n\n\ndef _start(params, rng):\n"
        "    return None, {}\n\n\nNAG = Adversary(name='nag_33', summary='s', "
        "mode='paging', start=_start)\n")
    plugins.load(str(tmp_path / "nag_33.py"))
    attack = dict(task, workload="adversarial",
                  params={"adversary": "nag_33", "target": "via_helper"})
    assert sweep_code.task_labels(attack) == {
        SEMCACHE, f"plugin:{tmp_path / 'nag_33.py'}", f"plugin:{tmp_path / 'rules_33.py'}",
        f"plugin:{tmp_path / 'helper_33.py'}"}
    assert sweep_code.named_origins([attack]) == [str(tmp_path / "nag_33.py"),
                                                  str(tmp_path / "rules_33.py")]
    scope = {}
    exec(textwrap.dedent(RULES).replace("first_full_slot", "in_a_cell"), scope)  # no file
    policies.register(scope["POLICY"])
    assert "nofile:policy 'in_a_cell'" in sweep_code.task_labels(dict(task, policy="in_a_cell"))


def test_only_data_files_read_by_this_thread_are_watched(tmp_path):
    import threading

    data, out = tmp_path / "data.bin", tmp_path / "out.bin"
    data.write_bytes(b"x")
    other = tmp_path / "other.bin"
    other.write_bytes(b"y")
    # a distribution's metadata in a source checkout (pip install -e . writes one there)
    # that importlib.metadata reads when a library looks up its entry points
    metadata = tmp_path / "semcache.egg-info" / "entry_points.txt"
    metadata.parent.mkdir()
    metadata.write_text("[console_scripts]\n")
    with file_reads.watching() as seen:
        metadata.read_text()
        data.read_bytes()
        out.write_bytes(b"z")  # written, not read
        open(sweep_code.__file__).close()  # code
        open("/proc/self/status").close()  # the system's
        reader = threading.Thread(target=other.read_bytes)
        reader.start()
        reader.join()
    assert file_reads.data_files(seen) == [os.path.realpath(data)]


def _one_row_store(path):
    row = {"task_id": "t", "policy": "fifo", "hit_rate": 0.5}
    sweep_store.write_part(str(path), "a", [row], '{"parts": {}}')
    return row


def test_a_store_reads_back_without_pandas(tmp_path, monkeypatch):
    row = _one_row_store(tmp_path / "st")
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` fails
    assert sweep_store.load_rows(str(tmp_path / "st")) == [row]
    assert sweep_store.load_results(str(tmp_path / "st")).schema.metadata is None
    with pytest.raises(InputError, match=r"^reading a sweep store as a DataFrame needs "
                                         r"pandas, which this install lacks: pip install"):
        sweep_store.load_frame(str(tmp_path / "st"))


def test_a_store_reads_as_a_frame_with_pandas(tmp_path):
    """pandas is a dependency: where it is installed, as the distribution asks."""
    pandas = pytest.importorskip("pandas")
    row = _one_row_store(tmp_path / "st")
    frame = sweep_store.load_frame(str(tmp_path / "st"))
    assert isinstance(frame, pandas.DataFrame) and frame.to_dict("records") == [row]
    assert sweep_store.load_results(str(tmp_path / "st")).to_pandas().equals(frame)
