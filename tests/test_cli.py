"""The ``spar`` command line: help, version, ``record``, ``replay`` and the ``--set`` value parser.

Most tests call :func:`spar_apps.cli.main` in-process; one runs the installed
``spar`` console script in real subprocesses, piping ``record`` into ``replay``.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from spar_apps.cli import main
from spar_apps.cli.overrides import parse_overrides, ruleset_overrides
from spar_env import __version__
from spar_env.rules import make_rules
from spar_env.values import parse_value

SPAR = Path(sys.executable).parent / "spar"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    """``main(argv)``: the exit status, the stdout lines and stderr."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


# ----- the entry point -----------------------------------------------------------------------
def test_no_subcommand_prints_help(capsys) -> None:
    status, out, _ = run(capsys)
    text = "\n".join(out)
    assert status == 0
    assert "usage: spar" in text and "record" in text and "replay" in text


def test_help_and_version(capsys) -> None:
    status, out, _ = run(capsys, "--help")
    assert status == 0 and "replay" in "\n".join(out)
    status, out, _ = run(capsys, "--version")
    assert status == 0 and out == [f"spar {__version__}"]


def test_unknown_subcommand_is_a_usage_error(capsys) -> None:
    status, out, err = run(capsys, "fly")
    assert status == 2 and out == [] and "invalid choice" in err


# ----- spar record ---------------------------------------------------------------------------
def test_record_writes_deterministic_json_lines(capsys) -> None:
    argv = ("record", "--variant", "sipa", "--players", "3", "--hands", "12", "--seed", "5")
    status, out, err = run(capsys, *argv)
    assert status == 0 and err == ""
    records = [json.loads(line) for line in out]
    assert len(records) == 12
    assert {(r["variant"], r["players"]) for r in records} == {("sipa", 3)}
    assert all(len(r["plays"]) == 15 for r in records)
    assert run(capsys, *argv)[1] == out
    assert run(capsys, *argv[:-1], "6")[1] != out


def test_record_applies_overrides(capsys) -> None:
    status, out, _ = run(
        capsys, "record", "--variant", "essilfy", "--hands", "3",
        "--set", "last_two=bonus", "--set", "weak_hand_exchange=true",
        "--set", "end=stones:30", "--set", "deal_pattern=2,3",
    )  # fmt: skip
    assert status == 0
    record = json.loads(out[0])
    assert record["options"] == {
        "last_two": "bonus",
        "weak_hand_exchange": True,
        "end": "stones:30",
        "deal_pattern": [2, 3],
    }
    assert "exchanges" in record and "stock" in record


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--set", "last_two"], ["key=value", "'last_two'"]),
        (["--set", "=3"], ["key=value"]),
        (["--set", "last_two=double"], ["last_two", "'double'"]),
        (["--set", "trumps=H"], ["unknown option 'trumps'"]),
        (["--set", "deal_pattern=4,4"], ["deal_pattern"]),
        (["--players", "8"], ["at most 7 players"]),
        (["--set", "hand_size=true"], ["hand_size must be a positive whole number"]),
    ],
)
def test_record_refuses_bad_overrides_in_one_line(capsys, args, words) -> None:
    status, out, err = run(capsys, "record", "--hands", "2", *args)
    assert status == 2 and out == []
    assert err.startswith("spar record: error: ") and err.count("\n") == 1
    assert all(word in err for word in words), err


@pytest.mark.parametrize("args", [["--hands", "0"], ["--hands", "x"], ["--variant", "whist"]])
def test_record_refuses_bad_arguments(capsys, args) -> None:
    status, out, err = run(capsys, "record", *args)
    assert status == 2 and out == [] and "error" in err


def test_record_to_a_file(capsys, tmp_path: Path) -> None:
    target = tmp_path / "games.jsonl"
    status, out, _ = run(capsys, "record", "--hands", "7", "--seed", "1", "--out", str(target))
    assert status == 0 and out == []
    assert [p.name for p in tmp_path.iterdir()] == ["games.jsonl"]  # no temporary file left
    lines = target.read_text().splitlines()
    assert lines == run(capsys, "record", "--hands", "7", "--seed", "1")[1]


def test_record_to_a_missing_directory(capsys, tmp_path: Path) -> None:
    status, _, err = run(capsys, "record", "--hands", "1", "--out", str(tmp_path / "no" / "g"))
    assert status == 2 and "cannot write" in err


# ----- spar replay ---------------------------------------------------------------------------
def write_records(capsys, path: Path, *args: str) -> list[str]:
    lines = run(capsys, "record", *args)[1]
    path.write_text("\n".join(lines) + "\n")
    return lines


def test_replay_prints_each_result(capsys, tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    lines = write_records(capsys, games, "--variant", "jeu_de_carte", "--hands", "9")
    status, out, err = run(capsys, "replay", str(games))
    assert status == 0 and err == ""
    assert len(out) == 9
    for line, result in zip(lines, map(json.loads, out), strict=True):
        claimed = json.loads(line)["result"]
        assert {k: result[k] for k in claimed} == claimed
        assert result["face_down"] == json.loads(line)["face_down"]


def test_replay_reports_broken_lines_and_fails(capsys, tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    lines = write_records(capsys, games, "--hands", "3", "--seed", "2")
    broken = json.loads(lines[1])
    broken["plays"][0] = "AS"  # not in the 35-card deck
    games.write_text("\n".join([lines[0], "", json.dumps(broken), "{oops", lines[2]]) + "\n")
    status, out, _ = run(capsys, "replay", str(games))
    assert status == 1
    assert len(out) == 4
    results = [json.loads(line) for line in out]
    assert "winner" in results[0] and "winner" in results[3]
    assert results[1] == {"error": results[1]["error"]}
    assert results[1]["error"].startswith("line 3: plays[0]") and "AS" in results[1]["error"]
    assert results[2]["error"].startswith("line 4: not JSON")


def test_replay_reads_stdin(capsys, monkeypatch, tmp_path: Path) -> None:
    lines = write_records(capsys, tmp_path / "g.jsonl", "--variant", "mini", "--hands", "4")
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n\n"))
    status, out, _ = run(capsys, "replay", "-")
    assert status == 0 and len(out) == 4


def test_replay_of_a_missing_file(capsys, tmp_path: Path) -> None:
    status, out, err = run(capsys, "replay", str(tmp_path / "none.jsonl"))
    assert status == 2 and out == [] and "cannot read" in err


# ----- the installed console script ----------------------------------------------------------
def test_console_script_record_pipe_replay() -> None:
    record = subprocess.run(
        [SPAR, "record", "--variant", "sipa", "--players", "3", "--hands", "40", "--seed", "0"],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert record.returncode == 0, record.stderr
    lines = record.stdout.splitlines()
    assert len(lines) == 40

    replay = subprocess.run(
        [SPAR, "replay", "-"], input=record.stdout, capture_output=True, text=True,
        check=False, timeout=120,
    )  # fmt: skip
    assert replay.returncode == 0, replay.stderr
    results = [json.loads(line) for line in replay.stdout.splitlines()]
    assert [r["winner"] for r in results] == [json.loads(x)["result"]["winner"] for x in lines]

    tampered = json.loads(lines[0])
    tampered["result"]["points"] += 1
    bad = subprocess.run(
        [SPAR, "replay", "-"], input="\n".join([json.dumps(tampered), *lines[1:]]),
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 1
    assert "error" in json.loads(bad.stdout.splitlines()[0])

    usage = subprocess.run(
        [SPAR, "record", "--set", "nonsense"], capture_output=True, text=True, check=False,
        timeout=120,
    )  # fmt: skip
    assert usage.returncode == 2 and usage.stdout == ""
    assert usage.stderr.count("\n") == 1 and "Traceback" not in usage.stderr


# ----- the --set value parser (spar_env.values: the CLI, the registry, the configs) ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("true", True),
        ("False", False),
        ("none", None),
        ("7", 7),
        ("-1", -1),
        ("3,2", (3, 2)),
        ("5,", (5,)),
        ("A,K,Q", ("A", "K", "Q")),
        ("stones:30", "stones:30"),
        ("bonus", "bonus"),
        ("1e-3", 0.001),
        ("010", 10),
        ("[128, 128]", [128, 128]),
        ('"a,b"', "a,b"),
        ("{ self = 0.5 }", {"self": 0.5}),
        ("2024-01-02", "2024-01-02"),
    ],
)
def test_parse_value(text: str, value: object) -> None:
    assert parse_value(text) == value
    assert type(parse_value(text)) is type(value)


def test_overrides_build_a_ruleset() -> None:
    assert parse_overrides(["a=1", "b=x", "a=2"]) == {"a": 2, "b": "x"}
    overrides = ruleset_overrides(["hand_size=5", "deal_pattern=5", "suits=C,D,H", "players=3"])
    assert overrides["deal_pattern"] == (5,) and overrides["suits"] == ("C", "D", "H")
    rules = make_rules("spar", **overrides)
    assert rules.deal_pattern == (5,) and rules.deck_size == 27 and rules.players == 3
    with pytest.raises(ValueError, match="key=value"):
        parse_overrides(["novalue"])
