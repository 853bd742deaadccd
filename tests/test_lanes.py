"""The test lanes (tests/helpers/lanes.py): the slow list names tests that exist, and the
tests that touch Gymnasium or Ray are found from their code, helpers and parameters."""

from __future__ import annotations

import ast
from pathlib import Path

import helpers.lanes as lanes
import pytest
from helpers.lanes import SLOW, TESTS, imports_gym_or_ray, is_slow, touches_gym_or_ray

ROOT = TESTS.parent


def _tests_of(path: Path) -> set[str]:
    """The names of the test functions and classes at the top of a test module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.ClassDef)
        and node.name.startswith(("test_", "Test"))
    }


@pytest.mark.parametrize("listed", sorted(SLOW))
def test_every_slow_entry_names_a_test_that_exists(listed: str) -> None:
    module, _, test = listed.partition("::")
    test = test.partition("[")[0]  # one case of a test: the test exists
    path = ROOT / module
    assert path.is_file() and path.parent == TESTS, f"{listed}: no such test module"
    assert not test or test in _tests_of(path), f"{listed}: no such test in {module}"
    assert SLOW[listed].strip(), f"{listed}: say where its time goes"


def test_a_slow_entry_covers_its_parameters_and_nothing_beside_it() -> None:
    listed = next(name for name in SLOW if "::" in name)
    assert is_slow(listed) and is_slow(f"{listed}[a-b]")
    assert not is_slow(f"{listed}_too") and not is_slow(f"{listed}_too[a]")
    assert not is_slow("tests/test_rules.py::test_anything")


def test_modules_that_import_gymnasium_ray_or_pettingzoo_are_touched_whole() -> None:
    for name in ("test_env_gym", "test_env_vector", "test_env_aec", "test_ray", "test_rllib"):
        assert imports_gym_or_ray(TESTS / f"{name}.py"), name
    assert not imports_gym_or_ray(TESTS / "test_rules.py")


def test_a_test_is_touched_through_the_names_it_uses_and_its_parameters(
    tmp_path: Path, monkeypatch
) -> None:
    helper = tmp_path / "helpers" / "envs.py"
    helper.parent.mkdir()
    helper.write_text("import spar_env.envs as envs\n\ndef make():\n    return envs.SparEnv()\n")
    module = tmp_path / "test_probe.py"
    module.write_text(
        "from helpers.envs import make\n"
        "from spar_env.envs.batch import GameBatch\n"
        "FLAGS = ['--ray']\n\n"
        "def build():\n    return make()\n\n"
        "def test_uses_a_helper():\n    build()\n\n"
        "def test_uses_a_constant():\n    assert FLAGS\n\n"
        "def test_plain():\n    assert 1 + 1 == 2\n\n"
        "def test_the_batch_of_the_engine():\n    GameBatch\n"
    )
    monkeypatch.setattr(lanes, "TESTS", tmp_path)  # the probe's own tests/ folder
    assert touches_gym_or_ray(module, "test_uses_a_helper", [], {})
    assert touches_gym_or_ray(module, "test_uses_a_constant", [], {})
    assert not touches_gym_or_ray(module, "test_plain", [], {})
    assert not touches_gym_or_ray(module, "test_the_batch_of_the_engine", [], {})  # no Gymnasium
    assert touches_gym_or_ray(module, "test_plain", [], {"block": "import gymnasium"})


def test_the_manuals_examples_are_judged_one_by_one() -> None:
    readme = TESTS / "test_readme.py"
    name = "test_example_runs_in_a_fresh_interpreter"
    gym = {"block": 'import gymnasium as gym\nimport spar_env\ngym.make("spar_env/Spar-v0")\n'}
    rules = {"block": 'from spar_env import make_rules\nprint(make_rules("spar"))\n'}
    assert touches_gym_or_ray(readme, name, ["tmp_path"], gym)
    assert not touches_gym_or_ray(readme, name, ["tmp_path"], rules)
