"""Folders and files named on the command line: a league that is not there is refused with
nothing made, and an empty path is refused by every command instead of being read as the
current folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.cli import cli, one_line


@pytest.mark.parametrize("action", ["play", "show"])
def test_a_league_that_is_not_there_is_refused_and_nothing_is_made(
    tmp_path: Path, capsys, monkeypatch, action: str
) -> None:
    monkeypatch.chdir(tmp_path)
    status, _, err = cli(capsys, "league", action, "typo/deep/er")
    one_line(status, err, "typo/deep/er: no league here")
    assert list(tmp_path.iterdir()) == []  # no typo/deep/er/league.lock


def test_a_folder_without_a_league_gets_no_lock(tmp_path: Path, capsys) -> None:
    status, _, err = cli(capsys, "league", "play", tmp_path)
    one_line(status, err, "no league here")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "argument"),
    [
        (["league", "add", "", "random", "low"], "LEAGUE"),
        (["league", "play", ""], "LEAGUE"),
        (["league", "show", ""], "LEAGUE"),
        (["league", "show", "lg", "--plot", ""], "--plot"),
        (["train", "ppo_tiny", "--resume", ""], "--resume"),
        (["train", "ppo_tiny", "--runs-dir", ""], "--runs-dir"),
        (["train", "ppo_tiny", "--league", ""], "--league"),
        (["exploit", "random", "--resume", ""], "--resume"),
        (["export", "", "--out", "bot.onnx"], "RUN"),
        (["export", "runs/x", "--out", ""], "--out"),
        (["record", "--out", ""], "--out"),
        (["bench", "random", "random", "--csv", ""], "--csv"),
        (["equity", "--plot", ""], "--plot"),
        (["exploit", "random", "--runs-dir", ""], "--runs-dir"),
        (["bench", "random", "random", "--plot", ""], "--plot"),
        (["play", "--record", ""], "--record"),
        (["serve", "--state", ""], "--state"),
    ],
    ids=lambda x: " ".join(x) if isinstance(x, list) else x,
)
def test_an_empty_path_is_refused_naming_the_argument(
    tmp_path: Path, capsys, monkeypatch, argv: list[str], argument: str
) -> None:
    monkeypatch.chdir(tmp_path)
    status, _, err = cli(capsys, *argv)
    one_line(status, err, argument, "must not be empty")
    assert list(tmp_path.iterdir()) == []  # no league, run or file in the current folder
