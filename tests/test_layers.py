"""The floors of the house, and the import graph that keeps them: each package imports only
its own floor and those below it, and no module imports another that imports it back.

=========  ===============  ====================================================
floor      import name      may import (besides itself)
=========  ===============  ====================================================
engine     ``spar_env``     nothing of ours
agents     ``spar_agents``  the engine
runs       ``spar_train``   the engine, the agents
apps       ``spar_apps``    everything
=========  ===============  ====================================================

Every import counts, at the top of a module or inside a function: a lazy import is a
dependency all the same. ``from package import name`` is an edge to ``package.name`` when that
is a module, else to the package.
"""

from __future__ import annotations

import ast
import subprocess
import sys

from spar_env.core.compile_cache import project_modules, project_packages

FLOORS = ("spar_env", "spar_agents", "spar_train", "spar_apps")  # bottom to top


def _graph() -> dict[str, set[str]]:
    modules = project_modules()

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges |= {known(a.name) for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the package, up level - 1
                    up = package
                    for _ in range(node.level - 1):
                        up = up.rpartition(".")[0]
                    base = f"{up}.{base}" if base else up
                for a in node.names:
                    full = f"{base}.{a.name}"
                    edges.add(full if full in modules else known(base))
        graph[module] = edges - {None, module}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_checker_finds_a_loop_and_a_chain() -> None:
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_module_imports_one_that_imports_it_back() -> None:
    graph = _graph()
    assert len(graph) > 90 and "spar_env.core.kernel" in graph["spar_env.core.play"]
    assert _cycles(graph) == []


def _upward(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Each module's imports of a floor above its own."""

    def floor(module: str) -> int:
        return FLOORS.index(module.partition(".")[0])

    found = {m: sorted(e for e in edges if floor(e) > floor(m)) for m, edges in graph.items()}
    return {m: up for m, up in found.items() if up}


def test_the_checker_finds_an_upward_import() -> None:
    graph = {"spar_env.envs.x": {"spar_agents", "spar_env.core"}, "spar_agents.a": {"spar_env"},
             "spar_train.t": {"spar_apps.cli"}, "spar_apps.cli": {"spar_train.t"}}  # fmt: skip
    assert _upward(graph) == {"spar_env.envs.x": ["spar_agents"], "spar_train.t": ["spar_apps.cli"]}


def test_every_package_is_on_a_floor() -> None:
    assert set(project_packages()) == set(FLOORS)


def test_no_module_imports_a_floor_above_its_own() -> None:
    assert _upward(_graph()) == {}


def _imports_between(graph: dict[str, set[str]], a: str, b: str) -> dict[str, list[str]]:
    """The modules of package ``a`` that import modules of package ``b``, with what they import."""

    def inside(name: str, package: str) -> bool:
        return name == package or name.startswith(package + ".")

    return {m: sorted(e for e in edges if inside(e, b))
            for m, edges in graph.items() if inside(m, a) and any(inside(e, b) for e in edges)}  # fmt: skip


def test_the_web_and_the_terminal_share_the_table_not_each_other() -> None:
    """Both tables run on :mod:`spar_apps.table`; neither imports the other (the web read two
    private texts of the terminal's screen once)."""
    graph = _graph()
    assert _imports_between(graph, "spar_apps.web", "spar_apps.terminal") == {}
    assert _imports_between(graph, "spar_apps.terminal", "spar_apps.web") == {}
    for app in ("spar_apps.web", "spar_apps.terminal"):
        assert _imports_between(graph, app, "spar_apps.table")  # the table they share
    toy = {"spar_apps.web.view": {"spar_apps.terminal.screen", "spar_apps.table"}}
    assert _imports_between(toy, "spar_apps.web", "spar_apps.terminal") == {
        "spar_apps.web.view": ["spar_apps.terminal.screen"]
    }


def test_no_module_is_importable_under_a_second_name(tmp_path) -> None:
    """From a folder of the user's own that holds ``agents/`` and ``train.py``, importing every
    module of ours loads each under its one name: none of the folders' bare names."""
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("raise ImportError('the user agents')\n")
    (tmp_path / "train.py").write_text("raise ImportError('the user train')\n")
    modules = sorted(m for m in project_modules() if not m.startswith("spar_env.rllib"))
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        "ours = {'spar_env', 'spar_agents', 'spar_train', 'spar_apps'}\n"
        "bare = sorted(m for m in sys.modules if m.partition('.')[0] in {'agents', 'train', 'apps'})\n"
        "print(len([m for m in sys.modules if m.partition('.')[0] in ours]), bare)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    count, bare = done.stdout.split(" ", 1)
    assert int(count) >= len(modules) and bare.strip() == "[]"
