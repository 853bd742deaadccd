"""Hostile and careless input to ``spar`` and to the Python API behind it.

Every bad argument, file or line must give one line on stderr that names it,
with a non-zero exit status (2 for bad arguments, 1 when ``spar replay`` finds
a broken record), and never a traceback, a hang or a silent success. Most cases
call :func:`spar_apps.cli.main` in-process; the closed stdout and the would-be
hangs run the installed ``spar`` console script in real subprocesses, with a
timeout.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import spar_env
from spar_apps.cli import main
from spar_env import make_rules

SPAR = Path(sys.executable).parent / "spar"
TIMEOUT = 60  # seconds; every case here takes about one
SIPA_RECORD = (
    '{"variant": "sipa", "players": 3, "dealer": 0, '
    '"hands": [["QC", "QD", "10D", "9D", "8D"], ["9C", "JD", "7D", "QH", "KS"], '
    '["KC", "7C", "7H", "QS", "10S"]], '
    '"plays": ["10S", "KS", "10D", "7D", "8D", "KC", "9D", "7H", "JD", "QH", "QD", "7C", "9C", '
    '"QC", "QS"]}'
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``spar argv`` in-process: the exit status, stdout and stderr."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def spar(*argv: str, **kwargs) -> subprocess.CompletedProcess[str]:
    """The installed ``spar`` in a real subprocess."""
    return subprocess.run(
        [SPAR, *argv], capture_output=True, text=True, check=False, timeout=TIMEOUT, **kwargs
    )


def assert_one_line_error(status: int, err: str, *names: str, code: int = 2) -> None:
    """Exit ``code``, and one stderr line that is no traceback and names every one of ``names``."""
    assert status == code, err
    assert len(err.splitlines()) == 1 and err.endswith("\n"), err
    assert "Traceback" not in err and "Error:" not in err, err
    for name in names:
        assert name in err, (name, err)


@pytest.fixture
def no_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the tournament and the recorder fail if started: checks must come before them."""

    def started(*args, **kwargs):
        raise AssertionError("the run started before the arguments were checked")

    monkeypatch.setattr("spar_train.tournament.run_tournament", started)
    monkeypatch.setattr("spar_apps.cli.record.record_hands", started)


# ----- spar replay ---------------------------------------------------------------------------
def replay_file(capsys, path: Path, data: bytes) -> tuple[int, list[dict], str]:
    path.write_bytes(data)
    status, out, err = run(capsys, "replay", str(path))
    return status, [json.loads(line) for line in out.splitlines()], err


def test_replay_deeply_nested_json(capsys, tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    status, results, err = replay_file(capsys, path, b"[" * 2000 + b"]" * 2000 + b"\n")
    assert results == [{"error": "line 1: not a record: the JSON is nested too deeply"}]
    assert_one_line_error(status, err, str(path), "line 1", code=1)


def test_replay_deeply_nested_values_inside_a_record() -> None:
    deep: object = 1
    for _ in range(900):  # json.loads reads this; repr() of it would overflow the stack
        deep = [deep]
    record = json.loads(SIPA_RECORD)
    for field, value in [("result", {"payoffs": deep}), ("options", {"ranks": deep})]:
        with pytest.raises(spar_env.RecordError, match=f"^{field} is nested more than"):
            spar_env.replay({**record, field: value})
    with pytest.raises(spar_env.RecordError, match=r"^plays\[0\] must be a card"):
        spar_env.replay({**record, "plays": [deep] * 15})


def test_replay_of_a_file_reads_undecodable_lines_one_by_one_as_stdin_does(
    capsys, monkeypatch, tmp_path: Path
) -> None:
    data = b"\n".join([SIPA_RECORD.encode(), b'{"variant": "sp\xffar"}', SIPA_RECORD.encode()])
    path = tmp_path / "mixed.jsonl"
    status, results, err = replay_file(capsys, path, data + b"\n")
    assert [sorted(r) for r in results] == [sorted(results[0]), ["error"], sorted(results[0])]
    assert "winner" in results[0] and results[0] == results[2]
    assert results[1]["error"].startswith("line 2: not UTF-8")
    assert_one_line_error(status, err, str(path), "1 of 3 records", "line 2", code=1)

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    from_stdin = run(capsys, "replay", "-")
    assert from_stdin[0] == 1 and [json.loads(x) for x in from_stdin[1].splitlines()] == results
    assert_one_line_error(from_stdin[0], from_stdin[2], "stdin", "line 2", code=1)


def test_replay_of_a_null_line(capsys, tmp_path: Path) -> None:
    path = tmp_path / "null.jsonl"
    status, results, err = replay_file(capsys, path, b"null\n")
    assert results == [{"error": "line 1: a record must be a JSON object; got null"}]
    assert_one_line_error(status, err, str(path), "line 1", code=1)


def test_replay_of_a_directory(capsys, tmp_path: Path) -> None:
    status, out, err = run(capsys, "replay", str(tmp_path))
    assert out == ""
    assert_one_line_error(status, err, str(tmp_path), "cannot read")


# ----- spar speed ----------------------------------------------------------------------------
@pytest.mark.parametrize("seconds", ["-1", "0", "x"])
def test_speed_refuses_seconds(capsys, seconds: str) -> None:
    status, out, err = run(capsys, "speed", "--batch", "1", "--seconds", seconds)
    assert out == ""
    assert_one_line_error(status, err, "--seconds", "above 0" if seconds != "x" else "'x'")


@pytest.mark.parametrize("seconds", ["nan", "inf"])
def test_speed_refuses_seconds_that_would_never_end(seconds: str) -> None:
    done = spar("speed", "--batch", "1", "--seconds", seconds)
    assert done.stdout == ""
    assert_one_line_error(done.returncode, done.stderr, "--seconds", "finite", seconds)


# ----- output paths of spar bench and spar record, checked before the run ---------------------
BENCH = ("bench", "random", "heuristic", "--deals", "2")
RECORD = ("record", "--hands", "2")


@pytest.mark.usefixtures("no_run")
@pytest.mark.parametrize(
    ("command", "option"), [(BENCH, "--csv"), (BENCH, "--plot"), (RECORD, "--out")]
)
def test_an_output_path_that_is_a_directory(capsys, tmp_path: Path, command, option) -> None:
    status, out, err = run(capsys, *command, option, str(tmp_path))
    assert_one_line_error(status, err, option, str(tmp_path), "is a directory")
    assert list(tmp_path.parent.glob(f"{tmp_path.name}.*")) == []  # no DIR.png beside it


@pytest.mark.usefixtures("no_run")
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
@pytest.mark.parametrize(
    "argv", [(*BENCH, "--plot", "/proc/x.png"), (*BENCH, "--csv", "/proc/x.csv"),
             (*RECORD, "--out", "/proc/x.jsonl")],
)  # fmt: skip
def test_an_output_path_where_no_file_can_be_made(capsys, argv) -> None:
    status, out, err = run(capsys, *argv)
    assert_one_line_error(status, err, argv[-2], argv[-1], "cannot create a file in /proc")


@pytest.mark.usefixtures("no_run")
@pytest.mark.parametrize("name", ["chart.jpeg", "chart", "chart.png.txt"])
def test_a_plot_suffix_is_checked_before_the_run(capsys, tmp_path: Path, name: str) -> None:
    status, _, err = run(capsys, *BENCH, "--plot", str(tmp_path / name))
    assert_one_line_error(status, err, "--plot", name, ".png, .svg or .pdf")
    assert list(tmp_path.iterdir()) == []


def test_bench_into_a_closed_stdout_still_writes_its_files(tmp_path: Path) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader has gone, as after `| head -2`
    csv, plot = tmp_path / "c.csv", tmp_path / "p.png"
    try:
        done = subprocess.run(
            [SPAR, *BENCH, "--csv", csv, "--plot", plot], stdout=write, stderr=subprocess.PIPE,
            text=True, check=False, timeout=TIMEOUT,
        )  # fmt: skip
    finally:
        os.close(write)
    assert done.stderr == "" and done.returncode == 1  # quiet; 1: not all output was written
    assert csv.read_text().startswith("variant,") and plot.read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.csv", "p.png"]


# ----- messages that named Python internals --------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "names", "not_said"),
    [
        (("bench", "heuristic:nosuchopt=1", "random"), ("nosuchopt", "exchange"), "keyword"),
        (("bench", "random:", "heuristic"), ("'random:'", "key=value"), None),
        (("record", "--set", "variant=sipa"), ("--set variant", "--variant sipa"), "multiple"),
        (("record", "--set", "hand_size=abc"), ("--set hand_size", "whole number"), "literal"),
        (("record", "--seed", "-1"), ("--seed", "at least 0"), "expected"),
        (("bench", "random", "heuristic", "--seed", "-1"), ("--seed", "at least 0"), None),
        (("speed", "--batch", "0"), ("--batch", "at least 1"), None),
    ],
)
def test_messages_name_the_argument_and_what_is_allowed(capsys, argv, names, not_said) -> None:
    status, out, err = run(capsys, *argv)
    assert out == ""
    assert_one_line_error(status, err, *names)
    assert not_said is None or not_said not in err


def test_make_rules_names_a_field_of_the_wrong_type() -> None:
    with pytest.raises(ValueError, match=r"^players must be a whole number .*'4' \(a str\)"):
        make_rules(players="4")
    with pytest.raises(ValueError, match="^suits must be a sequence"):
        make_rules(suits=5)


def test_the_gym_env_names_bad_opponents() -> None:
    with pytest.raises(ValueError, match="^opponents must be an agent spec"):
        gym.make("spar_env/Spar-v0", opponents=42)
    with pytest.raises(ValueError, match=r"^opponents\[1\] must be"):
        gym.make("spar_env/Spar-v0", opponents=["random", 4.5, "random"])


@pytest.mark.parametrize("num_envs", [-1, 0, 2.5])
def test_the_vector_env_names_a_bad_num_envs(num_envs) -> None:
    with pytest.raises(ValueError, match=f"^num_envs must be a whole number .*{num_envs}"):
        gym.make_vec("spar_env/Spar-v0", num_envs=num_envs, vectorization_mode="vector_entry_point")


def test_replay_of_none_names_the_record() -> None:
    with pytest.raises(ValueError, match="^a record must be a JSON object; got null$"):
        spar_env.replay(None)  # type: ignore[arg-type]


# ----- the help ------------------------------------------------------------------------------
@pytest.mark.parametrize("command", [(), ("record",), ("replay",), ("speed",), ("bench",)])
def test_help_is_plain_text(capsys, command) -> None:
    status, out, _ = run(capsys, *command, "--help")
    assert status == 0
    for markup in ("``", ":mod:", ":func:", ":class:", ":data:", "::\n"):
        assert markup not in out, (markup, out)


def test_the_top_level_help_points_to_the_rules(capsys) -> None:
    assert "docs/rules.md" in run(capsys, "--help")[1]


def test_bench_help_lists_the_agents_and_the_spec_syntax(capsys) -> None:
    out = " ".join(run(capsys, "bench", "--help")[1].split())
    assert ":key=value,..." in out
    for name in ("random", "high", "low", "heuristic exchange=True", "pimc worlds=32"):
        assert f" {name}" in out, name


def test_record_help_shows_the_defaults(capsys) -> None:
    out = " ".join(run(capsys, "record", "--help")[1].split())
    for default in ("(default: spar)", "(default: 1000)", "(default: 0)", "(default: 1024)"):
        assert default in out, default


# ----- spar record --batch -------------------------------------------------------------------
def test_records_do_not_depend_on_the_batch(capsys) -> None:
    argv = ("record", "--variant", "essilfy", "--players", "3", "--hands", "1100", "--seed", "4",
            "--set", "weak_hand_exchange=true")  # fmt: skip
    outputs = {batch: run(capsys, *argv, "--batch", batch)[1] for batch in ("7", "1024", "3000")}
    assert len(outputs["7"].splitlines()) == 1100
    assert outputs["7"] == outputs["1024"] == outputs["3000"]


def test_a_command_stopped_by_ctrl_c_or_a_kill_says_so_in_one_line(capsys, monkeypatch) -> None:
    """A command with no stop line of its own (here spar bench) ended in a KeyboardInterrupt
    traceback on Ctrl-C, and silently on a kill (SIGTERM); now both give one line, status 130."""
    import signal

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    def killed(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("the kill did not stop the command")

    for stop in (interrupted, killed):
        monkeypatch.setattr("spar_train.tournament.run_tournament", stop)
        status, out, err = run(capsys, "bench", "heuristic", "random", "--deals", "10")
        assert_one_line_error(status, err, "spar bench: stopped", code=130)
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # put back after the command
