"""Every benchmark script runs on the plain install, or says in its docstring which extra it
needs (``Needs the ``web`` extra``): the modules each script imports (its own lines, at any
depth, and those of the benchmark modules it imports) are checked against the extras that
bring them. A benchmark that imported the tests' modules needed the ``dev`` extra unsaid."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
# a module outside the plain install -> the extra that brings it
EXTRA_OF = {
    "pytest": "dev", "hypothesis": "dev", "sb3_contrib": "dev", "pexpect": "dev",
    "playwright": "dev", "httpx": "dev", "open_spiel": "bench", "pyspiel": "bench",
    "rlcard": "bench", "pygame": "bench", "ray": "ray", "websockets": "web", "starlette": "web",
    "uvicorn": "web", "tianshou": "tianshou", "spar_apps.web": "web", "spar_train.distributed": "ray",
}  # fmt: skip
PLAIN = {
    "numpy", "gymnasium", "pettingzoo", "torch", "tensorboard", "rich", "numba", "matplotlib",
    "tomli_w", "scipy", "onnxruntime", "onnx", "spar_env", "spar_agents", "spar_train",
    "spar_apps", "helpers",  # tests/helpers: the checkout's plain modules
}  # fmt: skip


def imported(path: Path, seen: set[Path] | None = None) -> set[str]:
    """Every module ``path`` imports, with the benchmark modules it imports, followed."""
    seen = set() if seen is None else seen
    seen.add(path)
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    for name in list(names):
        local = BENCHMARKS / f"{name.split('.')[0]}.py"
        if local.exists() and local not in seen:
            names |= imported(local, seen)
    return names


def needed(names: set[str]) -> set[str]:
    """The extras ``names`` need; a module that is none of the known ones fails the test."""
    extras, unknown = set(), set()
    for name in names:
        top = name.split(".")[0]
        match = [e for m, e in EXTRA_OF.items() if name == m or name.startswith(m + ".")]
        if match:
            extras |= set(match)
        elif top.startswith("test_") or top == "conftest":
            extras.add("dev")  # the tests' own modules
        elif not (top in PLAIN or top in sys.stdlib_module_names or (BENCHMARKS / f"{top}.py").exists()):  # fmt: skip
            unknown.add(name)
    assert not unknown, f"modules of no known extra: {sorted(unknown)}"
    return extras


@pytest.mark.parametrize("script", sorted(BENCHMARKS.glob("*.py")), ids=lambda p: p.name)
def test_a_benchmark_runs_on_the_plain_install_or_names_its_extra(script: Path) -> None:
    doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or ""
    said = set(re.findall(r"``(\w+)`` extra", doc))
    missing = needed(imported(script)) - said
    assert not missing, f"{script.name} needs the {sorted(missing)} extra without saying so"


def test_the_search_benchmark_imports_no_test_module() -> None:
    names = imported(BENCHMARKS / "search_speed.py")
    assert not {n for n in names if n.split(".")[0].startswith("test_")}, names
