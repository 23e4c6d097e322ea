"""The front pages a newcomer meets: a short README whose first screen leads to the
researcher's path, and an API reference (docs/api/) that covers every public name of
``simulator``, ``workloads`` and ``theory`` (their ``__all__``)."""

import importlib
import inspect
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
SCREEN = 40  # lines a terminal or a repository page shows before the reader scrolls


def test_the_readme_is_short():
    assert len(README) <= 300, f"README.md has {len(README)} lines; move detail into docs/"


def test_the_first_screen_leads_to_the_researchers_path():
    heading = README.index("## The researcher's path")
    assert any("(#the-researchers-path)" in line for line in README[:SCREEN]), \
        "the first screen of README.md has no link to the researcher's path"
    steps = [line for line in README[heading:] if line.startswith("**")]
    assert [s.split("**")[1].split(".")[0] for s in steps[:5]] == ["1", "2", "3", "4", "5"]


def test_the_install_says_what_make_demo_leaves_out_and_how_to_add_it():
    from workloads.data.text_embed import INSTALL_HINT

    install = "\n".join(README[README.index("## Install"):README.index("## Quick start")])
    assert "no torch" in install and "`semcache: compiling fifo (semantic)… " in install
    for command in ("pip install torch==2.13.0", "pip install -e '.[text]'"):
        assert command in install.replace("\n", " ") and command in INSTALL_HINT


def _directives() -> list:
    """``(target, members or None)`` of every ``::: target`` in docs/api/."""
    found = []
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"^::: (\S+)\n((?:    .*\n)*)", text, re.M):
            members = re.search(r"members: \[(.*)\]", match.group(2))
            found.append((match.group(1), None if members is None else
                          [m.strip() for m in members.group(1).split(",")]))
    return found


def _resolve(dotted: str):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(dotted)


def _has_docstring(obj) -> bool:
    own = (inspect.ismodule(obj) or inspect.isclass(obj) or inspect.isroutine(obj))
    return own and bool(obj.__doc__ and obj.__doc__.strip())


def _documented() -> list:
    """The objects the reference renders: each target, and the members it lists, or for a
    module without a list what its ``__all__`` (else its public names) holds with a
    docstring (the site leaves out what has none: ``show_if_no_docstring: false`` in
    mkdocs.yml)."""
    objects = []
    for target, members in _directives():
        obj = _resolve(target)
        objects.append(obj)
        if members is not None:
            objects += [getattr(obj, name) for name in members]
        elif inspect.ismodule(obj):
            names = getattr(obj, "__all__", None) or [n for n in vars(obj) if n[0] != "_"]
            objects += [member for member in (getattr(obj, name) for name in names)
                        if _has_docstring(member)]
    return objects


@pytest.mark.parametrize("package", ["simulator", "workloads", "theory"])
def test_the_api_reference_covers_every_public_name(package):
    module = importlib.import_module(package)
    assert module.__all__, f"{package} declares no public names"
    documented = _documented()
    missing = [name for name in module.__all__
               if not any(getattr(module, name) is obj for obj in documented)]
    assert not missing, f"docs/api/ does not render {package}: {', '.join(missing)}"


def test_a_name_left_out_of_the_reference_would_be_seen(monkeypatch):
    import theory

    monkeypatch.setattr(theory, "__all__", [*theory.__all__, "unlisted"], raising=False)
    monkeypatch.setattr(theory, "unlisted", lambda: None, raising=False)  # no docstring
    with pytest.raises(AssertionError, match="unlisted"):
        test_the_api_reference_covers_every_public_name("theory")


def _front_door() -> tuple:
    """What ``simulator/__init__.py`` declares: ``(imports, table)``, each ``{name: (module,
    whether the name is that module)}``; the imports are its type-checking block (what the
    API reference reads), the table what its ``__getattr__`` loads on first use."""
    import ast

    tree = ast.parse((ROOT / "simulator" / "__init__.py").read_text(encoding="utf-8"))
    imports, table = {}, {}
    for node in tree.body:
        if isinstance(node, ast.If):
            for stmt in node.body:
                for alias in stmt.names:
                    if stmt.module == "simulator":  # from simulator import policies
                        imports[alias.name] = (f"simulator.{alias.name}", True)
                    else:
                        imports[alias.name] = (stmt.module, False)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            is_module = node.targets[0].id == "_MODULES"
            table.update({key.value: (value.value, is_module)
                          for key, value in zip(node.value.keys, node.value.values)})
    return imports, table


def test_the_front_door_declares_each_name_once_for_readers_and_for_loading():
    import simulator

    imports, table = _front_door()
    # the names handed on from a floor above are documented on their own pages: no import
    handed_on = ("workloads", "check_policy")
    assert imports == {name: held for name, held in table.items() if name not in handed_on}, \
        "simulator/__init__.py: its imports and its table disagree"
    assert sorted(table) == sorted(simulator.__all__)
    for name, (module, is_module) in table.items():
        held = importlib.import_module(module)
        assert getattr(simulator, name) is (held if is_module else getattr(held, name))


def test_importing_the_module_stream_run_first_leaves_the_function_in_front():
    """``simulator.stream_run`` is the function even where the module of that name was
    imported before the name was asked for (which binds the module on the package)."""
    import subprocess
    import sys

    code = ("import simulator.stream_run, types, simulator\n"
            "print(isinstance(simulator.stream_run, types.FunctionType))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.stdout.strip() == "True", done.stderr
