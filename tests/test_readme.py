"""The Python examples of the README and of docs/rules.md run as written, each on its own.

Every ```python block runs in a fresh interpreter (a subprocess of
``sys.executable``, in an empty directory), so a block that forgets an import
(``import spar_env`` registers the Gymnasium envs) fails here as it would for
a reader who pastes it. Blocks of ``>>>`` lines are run by ``python -m
doctest``; other blocks as scripts, which must exit with status 0. A block
that prints must print something, and a ``print(...)  # expected`` line must
print what its comment says.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RULES = ROOT / "docs" / "rules.md"
TIMEOUT = 240  # seconds per block; the MaskablePPO example takes about 10
# A block that opens with `# pip install -e ".[EXTRA]"` needs that extra; where its library is
# missing it is skipped. The rllib extra pins its own Gymnasium, so CI runs those blocks in a
# virtual environment of their own (.ci/rllib), with that extra alone, as a reader would.
EXTRA_LIBRARIES = {"rllib": "ray.rllib", "tianshou": "tianshou"}


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def extra_of(block: str) -> str | None:
    """The extra a block says it needs on its first line, if any."""
    found = re.match(r'# pip install -e "\.\[(\w+)\]"\n', block)
    return found and found[1]


BLOCKS = [
    (path, i, block) for path in (README, RULES) for i, block in enumerate(python_blocks(path))
]


def run_block(block: str, where: Path) -> subprocess.CompletedProcess[str]:
    """Run one block in a fresh interpreter in ``where``; doctest blocks through ``-m doctest``."""
    doctest_block = block.lstrip().startswith(">>>")
    script = where / ("example.txt" if doctest_block else "example.py")
    script.write_text(block, encoding="utf-8")
    cmd = [sys.executable, "-m", "doctest", "-o", "ELLIPSIS", script.name]
    if not doctest_block:
        cmd = [sys.executable, script.name]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}  # a shared machine
    return subprocess.run(
        cmd, cwd=where, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )


def test_the_docs_have_python_examples() -> None:
    assert len(python_blocks(README)) >= 6
    assert len(python_blocks(RULES)) >= 1
    assert any("MaskablePPO" in block for block in python_blocks(README))
    extras = [extra_of(block) for block in python_blocks(README)]
    assert extras.count("rllib") >= 3 and "tianshou" in extras
    assert set(extras) - {None} <= set(EXTRA_LIBRARIES)


@pytest.mark.parametrize(
    "path, block",
    [(path, block) for path, _, block in BLOCKS],
    ids=[f"{path.stem}-{extra_of(block) or 'block'}{i}" for path, i, block in BLOCKS],
)
def test_example_runs_in_a_fresh_interpreter(path: Path, block: str, tmp_path: Path) -> None:
    extra = extra_of(block)
    if extra:
        pytest.importorskip(EXTRA_LIBRARIES[extra], reason=f'needs pip install -e ".[{extra}]"')
    done = run_block(block, tmp_path)
    assert done.returncode == 0, (
        f"a {path.name} example failed:\n{block}\n--- stdout\n{done.stdout}\n--- stderr\n"
        f"{done.stderr}"
    )
    if "print(" in block and not block.lstrip().startswith(">>>"):
        assert done.stdout.strip(), f"this {path.name} example prints nothing:\n{block}"
    for expected in re.findall(r"^print\(.*\)\s+#\s*(\{.*\})\s*$", block, flags=re.M):
        assert expected in done.stdout, f"{path.name} says it prints {expected}; got {done.stdout}"


def test_a_block_that_lacks_its_import_fails(tmp_path: Path) -> None:
    """The runner really is fresh: ``gym.make`` without ``import spar_env`` fails there."""
    import spar_env  # noqa: F401  (registered in this process, not in the block's)

    block = 'import gymnasium as gym\ngym.make("spar_env/Spar-v0")\n'
    done = run_block(block, tmp_path)
    assert done.returncode != 0 and "NamespaceNotFound" in done.stderr


def test_a_failing_doctest_block_fails(tmp_path: Path) -> None:
    done = run_block(">>> 1 + 1\n3\n", tmp_path)
    assert done.returncode != 0


def test_the_rules_page_record_replays() -> None:
    """The game record shown in docs/rules.md replays to its own result."""
    from spar_env import replay

    text = RULES.read_text(encoding="utf-8")
    section = text.split("## Game records", 1)[1]
    record = json.loads(re.search(r"```json\n(.*?)```", section, flags=re.S).group(1))
    result = replay(record)
    assert {k: result[k] for k in record["result"]} == record["result"]
    assert result["winning_cards"][-1] == "6S" and result["points"] == 3


def test_the_readme_links_the_rules_page() -> None:
    text = README.read_text(encoding="utf-8")
    assert "(docs/rules.md)" in text and "RULES.md" not in text
