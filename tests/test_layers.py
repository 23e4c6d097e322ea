"""The structure a reviewer checks: floors, no import circle, no oversized module, no
private reach, no issue number and no dead code.

The code stands on four floors, and a folder says which (README, "Layout"; the last test
holds that table to this file): the core (``simulator/`` but its ``cli/``,
``experiments/`` and ``testing/``), ``workloads/``, ``theory/`` and the application
(``simulator/cli/``, ``simulator/experiments/`` and ``simulator/testing/``, the two user
kits, whose property tests need ``theory.opt``).  A module's floor is its deepest folder
in ``FOLDERS``.  Each imports only from floors below it; the one exception is the front
door, ``simulator/__init__.py``, which hands on the workload registry and the contract
kit's ``check_policy``, each loaded on first use.  Imports are read from the sources
(module level and inside functions alike, and the module names of the front door's tables,
whose names are all loaded on first use).
"""

import ast
import functools
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("simulator", "workloads", "theory")
FLOORS = {"core": 0, "workloads": 1, "theory": 2, "application": 3}
FRONT_DOOR = "simulator"
LAZY_TABLES = ("_NAMES", "_MODULES")  # the front door's names, by the module each comes from
MAX_LINES = 400
# a compiled unit stays one file: the fast engine's step functions and the slot bodies numba
# clones with them (simulator/engine/fast.py)
CAPS = {"simulator.engine.fast": 500}


def _modules() -> dict:
    """Dotted module name -> path, for every source file of the three packages."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()


# folder -> its floor; a module stands on the floor of the deepest folder holding it
FOLDERS = {"simulator": "core", "workloads": "workloads", "theory": "theory",
           "simulator/cli": "application", "simulator/experiments": "application",
           "simulator/testing": "application"}
APPLICATION = tuple(f.replace("/", ".") for f, fl in FOLDERS.items()
                    if fl == "application")
# what the front door hands on from the floors above, imported only when asked for
HANDED_ON = ("workloads", "simulator.testing.contract")


def floor(module: str) -> str:
    path = MODULES[module].relative_to(ROOT).parent.as_posix()
    while path not in FOLDERS:
        path = path.rpartition("/")[0]
    return FOLDERS[path]


def imports(module: str) -> set:
    """The modules of this project that ``module`` imports, anywhere in its source."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                     for alias in node.names]
        elif module == FRONT_DOOR and isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id in LAZY_TABLES
                for target in node.targets):
            names = [value.value for value in node.value.values]  # loaded on first use
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.add(name)
    return found


@functools.cache
def graph() -> dict:
    """Each module's project imports; built on first use, not at collection (every xdist
    worker collects this file, one runs it)."""
    return {m: imports(m) for m in MODULES}


def test_each_floor_imports_only_from_the_floors_below():
    wrong = [(m, i) for m, deps in graph().items() for i in deps
             if FLOORS[floor(i)] > FLOORS[floor(m)]
             and not (m == FRONT_DOOR and i in HANDED_ON)]
    assert not wrong, "imports from a floor above: " + ", ".join(f"{m} -> {i}" for m, i in wrong)


def test_the_front_door_hands_on_the_workloads_only_when_asked():
    tree = ast.parse(MODULES[FRONT_DOOR].read_text(encoding="utf-8"))
    top = {alias.name for node in tree.body if isinstance(node, ast.Import)
           for alias in node.names}
    top |= {node.module for node in tree.body if isinstance(node, ast.ImportFrom)}
    assert not top & set(HANDED_ON)  # imported inside __getattr__, never at load time
    assert {"workloads", "simulator.testing.contract"} <= graph()[FRONT_DOOR]


def test_no_import_circle():
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph()[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                circles.append(sorted(part))

    for v in sorted(graph()):
        if v not in index:
            visit(v)
    assert not circles, f"import circles: {circles}"


def test_no_module_is_oversized():
    sizes = {m: p.read_text(encoding="utf-8").count("\n") for m, p in MODULES.items()}
    assert not {m: n for m, n in sizes.items() if n > CAPS.get(m, MAX_LINES)}


def test_a_circle_or_a_climb_would_be_seen():
    """The checks can fail: the reading finds the imports it must."""
    assert "simulator.live_run" in graph()["simulator.runner"]
    assert "simulator.engine.fast" in graph()["simulator.live_run"]
    assert "workloads" in graph()["simulator"]  # the front door's lazy hand-on
    assert floor("simulator.cli.run") == "application" and floor("simulator.trace") == "core"
    # the test kit stands on the application floor because it needs OPT
    assert "theory.opt" in graph()["simulator.testing.assertions"]
    assert floor("simulator.testing.strategies") == "application"
    assert floor("simulator.testing.contract.semantic") == "application"
    assert floor("simulator.engine.fast") == "core" and floor("workloads.data.events") == \
        "workloads"


def _private_uses(path: pathlib.Path) -> list:
    """``name._attr`` where ``name`` was bound by an import: another module's private."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases, foreign = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                name = (alias.asname or alias.name).split(".")[0]
                source = alias.name if isinstance(node, ast.Import) else node.module or ""
                aliases.add(name)
                if not getattr(node, "level", 0) and source.split(".")[0] not in OWN:
                    foreign.add(name)
    found = [f"{path.relative_to(ROOT)}:{node.lineno} {node.value.id}.{node.attr}"
             for node in ast.walk(tree)
             if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
             and node.value.id in aliases and _private(node.attr)]
    # a subclass of another library's class: ``self._x`` could be one of the base's privates
    # (a subclass of one of ours, a run of one mode, may use its base's underscored
    # members: they are the family's own interface, written beside it)
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        if any(_root_name(base) in foreign and ast.unparse(base) not in STATELESS_BASES
               for base in cls.bases):
            found += [f"{path.relative_to(ROOT)}:{node.lineno} self.{node.attr} in {cls.name}"
                      for node in ast.walk(cls)
                      if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                      and node.value.id == "self" and _private(node.attr)]
    return found


OWN = ("simulator", "workloads", "theory")  # this project's packages
# bases that keep no members of their own: a subclass's ``self._x`` can only be its own
STATELESS_BASES = {"abc.ABC", "ABC"}


def _private(attr: str) -> bool:
    return attr.startswith("_") and not attr.startswith("__")


def _root_name(node) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def test_no_module_reaches_into_another_modules_privates():
    """Dependencies are used as documented (no ``simpy``'s ``Environment._queue``), and our
    own modules talk through public names."""
    found = [use for path in MODULES.values() for use in _private_uses(path)]
    assert not found, found


# "issue 18", "issues 3 and 4", "(#12)": the code and the docs say what, not which issue
ISSUE_NUMBER = re.compile(r"\bissues? #?\d+|\(#\d+\)", re.IGNORECASE)


def _prose_files() -> list:
    """Every file a reader meets: the sources, the tests (but this one, which shows the
    pattern), the docs and the notebooks."""
    files = {*MODULES.values(), *(ROOT / "tests").rglob("*.py"), ROOT / "README.md",
             *(ROOT / "docs").rglob("*.md"), *(ROOT / "notebooks").glob("*.ipynb"),
             *(ROOT / "notebooks").glob("*.md")}
    return sorted(files - {pathlib.Path(__file__).resolve()})


def test_no_issue_numbers_in_code_or_docs():
    found = [f"{p.relative_to(ROOT)}:{n}: {line.strip()[:80]}"
             for p in _prose_files()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if ISSUE_NUMBER.search(line)]
    assert not found, found


def test_an_issue_number_would_be_seen():
    for text in ("checked first (issue 18).", "Issues 3 and 4", "see #12 (#12)"):
        assert ISSUE_NUMBER.search(text), text
    for text in ("an issue with sizes", "the tissue 5", "issued 3 times"):
        assert not ISSUE_NUMBER.search(text), text


def _vulture(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "vulture", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_no_dead_code():
    """vulture over the packages and the tests, with pyproject.toml's [tool.vulture]: the
    names it must not report are listed there, each with the caller that uses it."""
    found = _vulture()
    assert found.returncode == 0 and not found.stdout, found.stdout + found.stderr


def test_dead_code_would_be_seen(tmp_path):
    (tmp_path / "m.py").write_text("def used():\n    return 1\n\n\ndef unused():\n"
                                   "    return 2\n\n\nused()\n")
    found = _vulture("m.py", "--min-confidence", "60", cwd=tmp_path)
    assert found.returncode == 3 and "unused function 'unused'" in found.stdout


# the workplace keeps its data in ../shared beside the checkout; a user has no such folder
WORKPLACE = re.compile(r"""\.\./shared|shared/data|["']shared["']""")


def test_only_the_dataset_declarations_know_the_workplace_folder():
    """tests/helpers/datasets.py is the one place that looks beside the checkout; code, notebooks
    and every other test reach data through the data home."""
    allowed = {ROOT / "tests" / "helpers" / "datasets.py", pathlib.Path(__file__).resolve()}
    files = [*MODULES.values(), *(ROOT / "tests").rglob("*.py"),
             *(ROOT / "notebooks").glob("*.ipynb")]
    found = [f"{p.relative_to(ROOT)}:{n}" for p in files if p not in allowed
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if WORKPLACE.search(line)]
    assert not found, found
    assert WORKPLACE.search('ROOT.parent / "shared" / "data"')


def test_the_readmes_layout_names_the_floors_held_here():
    """README's "Layout" table: one row per floor, the application's row naming every
    package this file puts on that floor, and the core's excepting them."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = text[text.index("## Layout"):]
    rows = {m.group(1): m.group(2) for m in
            re.finditer(r"^\| (core|workloads|theory|application) \| ([^|]+) \|", layout,
                        flags=re.M)}
    assert sorted(rows) == sorted(FLOORS)
    for package in APPLICATION:
        folder = package.replace(".", "/")
        assert f"`{folder}/`" in rows["application"], package
        assert f"`{folder.split('/', 1)[1]}/`" in rows["core"], package
