"""The manual's ``spar record`` and ``spar replay`` examples print what it shows.

The commands are read from the page's bash blocks and run as written (through
the ``spar`` entry point, in a fresh interpreter); the first line they print
must be the page's JSON block, character for character. Cheap: 1000 random
hands record and replay in well under a second.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "export-and-play.md"
SPAR = [sys.executable, "-c", "import sys; from spar_apps.cli import main; sys.exit(main())"]


def section(title: str) -> str:
    """The page's text under the ``## `spar <title>``` heading, up to the next heading."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(f"## `spar {title}`")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def spar(args: list[str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SPAR, *args], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120
    )


def command(line: str) -> tuple[list[str], str | None]:
    """A page's command line ``spar ARGS [> FILE]`` as (ARGS, FILE)."""
    words = shlex.split(line.split("#", 1)[0])
    assert words[0] == "spar", line
    if ">" in words:
        at = words.index(">")
        return words[1:at], words[at + 1]
    return words[1:], None


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Run the page's ``spar record`` line; return the directory and the file it wrote."""
    where = tmp_path_factory.mktemp("readme_record")
    args, out = command(blocks(section("record"), "bash")[0].splitlines()[0])
    assert out is not None, "the page's spar record example writes a file"
    done = spar(args, where)
    assert done.returncode == 0, done.stderr
    (where / out).write_text(done.stdout, encoding="utf-8")
    return where, out


def test_spar_record_prints_the_readme_record(recorded: tuple[Path, str]) -> None:
    where, out = recorded
    first = (where / out).read_text(encoding="utf-8").splitlines()[0]
    shown = blocks(section("record"), "json")[0].strip()
    assert first == shown, f"the page shows\n{shown}\nbut spar record prints\n{first}"
    assert json.loads(first)["variant"] == "sipa"


def test_records_do_not_depend_on_batch(recorded: tuple[Path, str], tmp_path: Path) -> None:
    """As the page says: ``--batch`` changes the speed only."""
    where, out = recorded
    args, _ = command(blocks(section("record"), "bash")[0].splitlines()[0])
    done = spar([*args, "--batch", "64"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (where / out).read_text(encoding="utf-8")


def test_spar_replay_prints_the_readme_result(recorded: tuple[Path, str]) -> None:
    where, out = recorded
    args, _ = command(blocks(section("replay"), "bash")[0].splitlines()[0])
    assert args == ["replay", out]
    done = spar(args, where)
    assert done.returncode == 0, done.stderr
    shown = blocks(section("replay"), "json")[0].strip()
    assert done.stdout.splitlines()[0] == shown


def test_spar_replay_prints_the_readme_error(tmp_path: Path) -> None:
    line = blocks(section("replay"), "bash")[1].strip()
    record, rest = re.fullmatch(r"echo '(.*)' \| spar (.*)", line).groups()
    done = spar(shlex.split(rest), tmp_path, stdin=record + "\n")
    assert done.returncode == 1
    assert done.stdout.strip() == blocks(section("replay"), "json")[1].strip()


def test_record_error_is_exported_and_raised_by_replay() -> None:
    import spar_env
    from spar_env import RecordError
    from spar_env.records import RecordError as RecordsRecordError

    assert RecordError is RecordsRecordError and issubclass(RecordError, ValueError)
    assert "RecordError" in spar_env.__all__
    line = blocks(section("replay"), "bash")[1].strip()
    record = json.loads(re.fullmatch(r"echo '(.*)' \| spar .*", line).group(1))
    with pytest.raises(RecordError, match="duplicated card: 6H"):
        spar_env.replay(record)
