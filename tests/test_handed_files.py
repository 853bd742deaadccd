"""A folder somebody hands us is data: its lock never writes through a link or over a file the
toolkit did not make, and the agents its files name never import code unless the user says
they trust it (``--trust-code``)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from helpers.cli import cli, one_line

from spar_env.lockfile import LockFileError, LockHeld, lock_holder, take_lock

PRECIOUS = "precious\n"
EVIL = 'open("PWNED", "w").write("x")\nclass X:\n    def __init__(self, rules):\n        pass\n'


@pytest.fixture
def evil(tmp_path: Path, monkeypatch, request) -> str:
    """A module in the current folder that leaves a ``PWNED`` file when imported: its name."""
    name = "evil_" + re.sub(r"\W", "_", request.node.name)
    (tmp_path / f"{name}.py").write_text(EVIL)
    monkeypatch.chdir(tmp_path)
    yield name
    sys.modules.pop(name, None)


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_text(PRECIOUS)
    return victim


# ----- S1: the locks ---------------------------------------------------------------------
@pytest.mark.parametrize("plant", ["symlink", "link"])  # os.link: a hard link
def test_a_league_lock_planted_as_a_link_is_refused_and_its_target_kept(
    tmp_path: Path, capsys, plant: str
) -> None:
    victim, folder = _victim(tmp_path), tmp_path / "lg"
    folder.mkdir()
    getattr(os, plant)(victim, folder / "league.lock")
    status, _, err = cli(capsys, "league", "add", folder, "random", "low")
    one_line(status, err, "league.lock")
    assert victim.read_text() == PRECIOUS
    assert not (folder / "league.json").exists()


def test_a_run_lock_planted_as_a_link_is_refused_on_resume(run_copy: Path, capsys) -> None:
    victim = _victim(run_copy.parent.parent)
    os.symlink(victim, run_copy / ".lock")
    status, _, err = cli(capsys, "train", "--resume", run_copy, "--set", "run.updates=3")
    one_line(status, err, ".lock", "symbolic link")
    assert victim.read_text() == PRECIOUS


def test_a_new_run_into_a_folder_with_a_planted_lock_is_refused(tmp_path: Path, capsys,
                                                                monkeypatch) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    victim = _victim(tmp_path)
    (tmp_path / "runs" / "t").mkdir(parents=True)
    os.symlink(victim, tmp_path / "runs" / "t" / ".lock")
    status, _, err = cli(capsys, "train", "ppo_tiny", "--name", "t")
    one_line(status, err, ".lock")
    assert victim.read_text() == PRECIOUS


def test_a_server_state_folder_with_a_planted_lock_is_refused(tmp_path: Path) -> None:
    from spar_apps.web.saved import GameFolder

    victim = _victim(tmp_path)
    os.symlink(victim, tmp_path / ".lock")
    with pytest.raises(ValueError, match="symbolic link"):
        GameFolder(tmp_path)
    assert victim.read_text() == PRECIOUS


@pytest.mark.parametrize(
    "content, why",
    [(b"precious data\n", "process id"), (b"1" * 40, "process id"), (None, "regular file")],
)
def test_a_lock_path_holding_something_else_is_never_truncated(tmp_path: Path, content, why):
    lock = tmp_path / "x.lock"
    if content is None:
        os.mkfifo(lock)
    else:
        lock.write_bytes(content)
    with pytest.raises(LockFileError, match=why):
        take_lock(lock)
    if content is not None:
        assert lock.read_bytes() == content


def test_a_lock_of_ours_is_taken_again_and_names_its_holder(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    lock.write_text("12345\n")  # a stale lock: its holder died
    fd = take_lock(lock)
    try:
        assert lock.read_text() == f"{os.getpid()}\n"
        with pytest.raises(LockHeld) as held:  # another process is refused, told who holds it
            _take_in_child(lock)
        assert held.value.holder == str(os.getpid())
    finally:
        os.close(fd)


def _take_in_child(lock: Path) -> None:
    """Take ``lock`` in a child process; raise :class:`LockHeld` as the child saw it."""
    import subprocess

    code = ("import sys; from spar_env.lockfile import take_lock, LockHeld\n"
            "try: take_lock(sys.argv[1])\n"
            "except LockHeld as e: print(e.holder); sys.exit(3)")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code, str(lock)], capture_output=True, text=True)
    if done.returncode == 3:
        raise LockHeld(lock, done.stdout.strip())
    assert done.returncode == 0, done.stderr


# ----- S2: code named by a file -----------------------------------------------------------
def _league_with(capsys, folder: Path, entrant: str) -> None:
    assert cli(capsys, "league", "add", folder, "random", "low", "high")[0] == 0
    path = folder / "league.json"
    data = json.loads(path.read_text())
    data["entrants"].append(entrant)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("nested", [False, True])
def test_league_show_never_imports_an_entrant_s_code(tmp_path: Path, capsys, evil: str,
                                                     nested: bool) -> None:  # fmt: skip
    entrant = f"search:policy=py:{evil}:X" if nested else f"py:{evil}:X"
    _league_with(capsys, tmp_path / "lg", entrant)
    status, out, err = cli(capsys, "league", "show", tmp_path / "lg")
    assert status == 0, err
    assert "runs code" in out
    status, out, _ = cli(capsys, "league", "show", tmp_path / "lg", "--json")
    assert json.loads(out)["entrants"][-1]["loads"] is None
    assert not (tmp_path / "PWNED").exists()


def test_league_play_skips_code_unless_trusted(tmp_path: Path, capsys, evil: str) -> None:
    folder = tmp_path / "lg"
    _league_with(capsys, folder, f"py:{evil}:X")
    status, _, err = cli(capsys, "league", "play", folder, "--deals", 8, "--match", 4)
    assert status == 0, err
    assert f"skipping py:{evil}:X" in err and "--trust-code" in err
    assert not (tmp_path / "PWNED").exists()
    cli(capsys, "league", "play", folder, "--deals", 4, "--match", 4, "--trust-code")
    assert (tmp_path / "PWNED").exists()  # the user said they trust it: it was imported


def _resume_with_code(run_copy: Path, entrant: str) -> None:
    config = run_copy / "config.toml"
    text = config.read_text()
    assert "opponents = [" in text
    config.write_text(text.replace("opponents = [", f'opponents = ["{entrant}", ', 1))


@pytest.mark.parametrize("nested", [False, True])
def test_resume_refuses_code_named_by_the_run_s_config(run_copy: Path, capsys, evil: str,
                                                       nested: bool) -> None:  # fmt: skip
    entrant = f"search:policy=py:{evil}:X" if nested else f"py:{evil}:X"
    _resume_with_code(run_copy, entrant)
    status, _, err = cli(capsys, "train", "--resume", run_copy, "--set", "run.updates=3")
    one_line(status, err, "config.toml", "eval.opponents[0]", "--trust-code")
    assert not Path("PWNED").exists()


def test_resume_with_trust_code_imports_it(run_copy: Path, capsys, evil: str) -> None:
    _resume_with_code(run_copy, f"py:{evil}:X")
    cli(capsys, "train", "--resume", run_copy, "--set", "run.updates=2", "--trust-code")
    assert Path("PWNED").exists()


def test_exploit_resume_refuses_code_named_by_the_run_s_config(tmp_path: Path, capsys,
                                                               evil: str) -> None:  # fmt: skip
    from spar_env import __version__
    from spar_train.config import dump_config
    from spar_train.exploit import exploit_config

    run = tmp_path / "runs" / "x"
    config = exploit_config(f"py:{evil}:X", "spar", 2, updates=1)
    run.mkdir(parents=True)
    (run / "config.toml").write_text(dump_config(config, __version__))
    status, _, err = cli(capsys, "exploit", "--resume", run)
    assert status == 2 and "Traceback" not in err, err
    assert "config.toml" in err.splitlines()[-1] and "--trust-code" in err.splitlines()[-1]
    assert not (tmp_path / "PWNED").exists()


def test_lock_holder_names_the_process_or_none(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    assert lock_holder(lock) is None  # no lock at all
    lock.write_text("12345\n")  # a stale lock: its holder died
    assert lock_holder(lock) is None


def test_a_config_file_naming_code_is_refused_unless_typed_or_trusted(tmp_path: Path, capsys,
                                                                      evil: str) -> None:  # fmt: skip
    from helpers.cli import TINY

    from spar_train.config import ConfigError, load_config

    spec = f"py:{evil}:X"
    handed = tmp_path / "handed.toml"
    handed.write_text(TINY.read_text().replace("[eval]\n", f'[eval]\nopponents = ["{spec}"]\n'))
    status, _, err = cli(capsys, "train", handed, "--name", "h")
    one_line(status, err, "handed.toml", "eval.opponents[0]", "--trust-code")
    with pytest.raises(ConfigError, match="--trust-code"):
        load_config(handed)
    # typed again on the command line, or trusted: the user's own choice
    assert load_config(handed, [f'eval.opponents=["{spec}"]']).eval.opponents == [spec]
    assert load_config(handed, trust_code=True).eval.opponents[0] == spec
    assert not (tmp_path / "PWNED").exists()  # loading a config builds no agent
    assert not (tmp_path / "runs").exists()
