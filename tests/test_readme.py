"""The Python examples of the README and of every docs page run as written, each on its own.

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
# Every page of the manual: the README and docs/, less what the build writes.
PAGES = [README] + sorted(
    p
    for p in (ROOT / "docs").rglob("*.md")
    if not {"_build", "_api", "_generated"} & set(p.relative_to(ROOT / "docs").parts)
)
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


BLOCKS = [(path, i, block) for path in PAGES for i, block in enumerate(python_blocks(path))]


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
    every = [block for path in PAGES for block in python_blocks(path)]
    assert len(every) >= 12
    assert python_blocks(README) and python_blocks(RULES)
    assert any("MaskablePPO" in block for block in every)
    extras = [extra_of(block) for block in every]
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


def test_the_readme_is_a_front_page_with_its_two_commands() -> None:
    """At most 250 lines, and its two set-up commands: one trains, one runs CI's test command."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    bash = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    setup = [line for block in bash for line in block.splitlines() if "python3 -m venv" in line]
    assert len(setup) == 2
    assert setup[0].endswith("pip install -e . && spar train")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = setup[1].rsplit("&& ", 1)[1]
    assert test_command == "python -m pytest -n auto" and f"\n{test_command}\n" in ci


def test_every_link_of_the_readme_and_the_pages_leads_to_a_file() -> None:
    """Relative links (README and docs pages) name files that exist, anchors aside."""
    broken = []
    for page in PAGES:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (page.parent / target.split("#", 1)[0]).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


def test_the_readmes_smoke_run_runs_as_written(tmp_path: Path, monkeypatch, capsys) -> None:
    """The README's ``spar train ppo_tiny`` line: the shipped smoke run, its 4 updates."""
    import shlex

    from spar_apps.cli import main

    text = README.read_text(encoding="utf-8")
    (line,) = [line for line in text.splitlines() if line.startswith("spar train ppo_tiny")]
    words, comment = shlex.split(line.split("#", 1)[0]), line.split("#", 1)[1]
    assert words == ["spar", "train", "ppo_tiny"] and "4 small updates" in comment
    monkeypatch.chdir(tmp_path)
    assert main(words[1:]) == 0
    out = capsys.readouterr().out
    assert "tiny: evaluation after update 4" in out
    assert (tmp_path / "runs" / "tiny" / "checkpoints" / "update_000004.pt").is_file()
