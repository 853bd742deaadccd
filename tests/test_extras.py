"""A command whose optional dependency is missing says in one line which extra installs it.

The absence is faked in a subprocess: a ``sitecustomize`` on ``PYTHONPATH``
puts a finder first on ``sys.meta_path`` that refuses the blocked modules, as
an environment without them would. ``spar export`` needs no extra: onnx is a
core dependency, so a missing onnx is a broken install, and says so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_export import tiny_run

from spar_env.extras import EXTRA_OF, missing_module_message
from spar_env.rules import make_rules

SPAR = str(Path(sys.executable).with_name("spar"))
BLOCKER = """\
import importlib.abc, os, sys

BLOCKED = set(os.environ["SPAR_TEST_BLOCK"].split(","))


class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Blocker())
"""


def spar_without(blocked: str, tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``spar ARGV`` in a process where the modules ``blocked`` (comma-separated) are missing."""
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(site), "SPAR_TEST_BLOCK": blocked}
    env["OMP_NUM_THREADS"] = "1"
    return subprocess.run(
        [SPAR, *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180
    )


def one_line_error(done: subprocess.CompletedProcess[str], command: str) -> str:
    assert done.returncode in (1, 2), (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"spar {command}: error: "), done.stderr
    return lines[0]


def test_the_blocker_really_blocks(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(site), "SPAR_TEST_BLOCK": "ray"}
    done = subprocess.run(
        [sys.executable, "-c", "import ray"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 1 and "No module named 'ray'" in done.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ("bench", "random", "random", "--deals", "4", "--ray"),
        ("train", "ppo_tiny", "--ray", "--runs-dir", "runs"),
    ],
    ids=["bench", "train"],
)
def test_without_ray_the_ray_option_names_the_ray_extra(tmp_path: Path, argv) -> None:
    line = one_line_error(spar_without("ray", tmp_path, *argv), argv[0])
    assert 'pip install "spar-rl[ray]"' in line, line


def test_the_commands_run_without_any_extra(tmp_path: Path) -> None:
    blocked = ",".join(EXTRA_OF)
    done = spar_without(blocked, tmp_path, "bench", "onnx:spar4", "random", "--deals", "8")
    assert done.returncode == 0, done.stderr
    assert "onnx:spar4" in done.stdout


def test_without_onnx_export_says_the_install_is_broken(tmp_path: Path) -> None:
    run = tiny_run(tmp_path, make_rules("spar", players=2))
    done = spar_without("onnx", tmp_path, "export", str(run), "--out", "bot.onnx")
    line = one_line_error(done, "export")
    assert "onnx is not installed, and spar-rl needs it: reinstall spar-rl" in line


def test_every_extra_named_is_an_extra_of_the_package() -> None:
    import tomllib

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    extras = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]
    assert set(EXTRA_OF.values()) <= set(extras)
    error = ModuleNotFoundError("No module named 'pyspiel'", name="pyspiel")
    assert "openspiel extra" in missing_module_message(error)
