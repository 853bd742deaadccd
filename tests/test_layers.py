"""The import graph of the packages: no module imports another that imports it back (directly
or through a chain), and nothing below the command line imports it.

Every import counts, at the top of a module or inside a function: a lazy import is a
dependency all the same. ``from package import name`` is an edge to ``package.name`` when that
is a module, else to the package.
"""

from __future__ import annotations

import ast

from spar_env.core.compile_cache import project_modules

CLI = "spar_env.cli"


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


def test_nothing_below_the_command_line_imports_it() -> None:
    below = {
        module: sorted(e for e in edges if e == CLI or e.startswith(CLI + "."))
        for module, edges in _graph().items()
        if not (module == CLI or module.startswith(CLI + "."))
    }
    assert {module: cli for module, cli in below.items() if cli} == {}
