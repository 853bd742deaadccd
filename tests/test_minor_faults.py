"""The minor faults of issue #58, each said right: a unit named as typed, a version that is
``true``, a game mismatch that names what differs, two options that disagree, a full disk
(web moves, new games and ``spar play --record``), and the web's next-hand errors."""

from __future__ import annotations

import errno
import io
import json
import os
import time
from pathlib import Path

import pexpect
import pytest
from starlette.testclient import TestClient

from spar_agents import make_agent
from spar_agents.export.metadata import BotError
from spar_agents.ppo.checkpoint import CheckpointError, load_checkpoint
from spar_apps.web import Limits, Lobby, create_app
from spar_apps.web.saved import GameFolder
from spar_env.rules import make_rules
from tests.helpers.bots import bot_with
from tests.helpers.cli import SPAR, cli, default_sigint, one_line

CALM = Limits(game_burst=1e6, game_rate=1e6, new_burst=1e6)


# ----- units and versions --------------------------------------------------------------
@pytest.mark.parametrize("argv", [["league", "play", "lg", "--minutes", "x"],
                                  ["league", "play", "lg", "--minutes", "0"],
                                  ["exploit", "random", "--minutes", "nan"]])  # fmt: skip
def test_a_number_of_minutes_is_called_minutes(capsys, argv: list[str]) -> None:
    status, _, err = cli(capsys, *argv)
    one_line(status, err, "--minutes", "minutes")
    assert "seconds" not in err


def test_a_league_file_of_version_true_is_refused(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "lg"
    assert cli(capsys, "league", "add", folder, "random", "low")[0] == 0
    data = json.loads((folder / "league.json").read_text())
    (folder / "league.json").write_text(json.dumps({**data, "version": True}))
    status, _, err = cli(capsys, "league", "show", folder)
    one_line(status, err, "league.json", "version True")


def test_a_saved_web_game_of_version_true_is_set_aside(tmp_path: Path) -> None:
    folder = GameFolder(tmp_path)
    try:
        game_id = "A" * 24
        saved = {"version": 1, "id": game_id, "saved": time.time()}
        (tmp_path / "games" / f"{game_id}.json").write_text(json.dumps(saved))
        assert [data for data, _ in folder.games.load(3600, lambda data: data)] == [saved]
        (tmp_path / "games" / f"{game_id}.json").write_text(json.dumps({**saved, "version": True}))
        assert folder.games.load(3600, lambda data: data) == []
        assert (tmp_path / "games" / f"{game_id}.json.broken").exists()
    finally:
        folder.close()


def test_a_checkpoint_of_format_version_true_is_refused(tmp_path: Path) -> None:
    import torch

    file = tmp_path / "c.pt"
    buffer = io.BytesIO()
    torch.save({"format": "spar-rl checkpoint", "format_version": True}, buffer)
    file.write_bytes(buffer.getvalue())
    with pytest.raises(CheckpointError, match="format version True"):
        load_checkpoint(file)


# ----- messages that name what differs -------------------------------------------------
def test_a_bot_of_another_action_count_is_told_apart(tmp_path: Path) -> None:
    bot = bot_with(tmp_path / "bot.onnx", num_actions="37")
    with pytest.raises(BotError) as refused:
        make_agent(f"onnx:{bot}", make_rules("spar"))
    message = str(refused.value)
    trained, _, game = message.partition(", but this game is ")
    assert "num_actions 37" in trained and "num_actions 36" in game, message


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["record", "--hands", 1, "--players", 4, "--set", "players=3"], ["--players 4",
                                                                           "players=3"]),
        (["bench", "random", "low", "--deals", 2, "--players", 4, "--set", "players=3"],
         ["--players 4", "players=3"]),
        (["rules", "--players", 2, "--set", "players=3"], ["--players 2", "players=3"]),
        (["play", "--target", 5, "--set", "end=target:10"], ["--target 5", "end=target:10"]),
        (["play", "--no-c-notation", "--set", "c_notation=true"], ["--no-c-notation"]),
    ],
)  # fmt: skip
def test_an_option_and_a_set_that_disagree_are_refused(capsys, argv, names) -> None:
    status, _, err = cli(capsys, *argv)
    one_line(status, err, *names, "disagree")


def test_an_option_and_a_set_that_agree_are_one(capsys) -> None:
    status, out, err = cli(capsys, "rules", "--players", 3, "--set", "players=3")
    assert status == 0 and "3 players" in out, err


# ----- a full disk ---------------------------------------------------------------------
@pytest.fixture
def full_disk_app(tmp_path: Path, monkeypatch) -> TestClient:
    folder = GameFolder(tmp_path)

    def no_space(game_id: str, data: dict) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / f"{game_id}.json"))

    monkeypatch.setattr(folder.games, "save", no_space)
    app = create_app(Lobby(["random"], ["random"]), CALM, seed=0, folder=folder)
    yield TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)
    folder.close()


def test_a_web_game_that_cannot_be_saved_goes_on_and_says_so(full_disk_app: TestClient) -> None:
    c = full_disk_app
    made = c.post("/api/games", json={"variant": "spar", "players": 2, "opponents": "random"})
    assert made.status_code == 201, made.text  # it was made: say so, not 500
    view = made.json()
    assert "could not be saved" in view["warning"] and "No space left" in view["warning"]
    assert len(c.app.state.store) == 1  # the game answered for is the game kept
    moves = 0
    while legal := [h["card"] for h in view["hand"] if h["legal"]]:
        moved = c.post(f"/api/games/{view['game']}/move",
                       json={"move": legal[0], "turn": view["turn"]})  # fmt: skip
        assert moved.status_code == 200, moved.text  # the move was made: say so
        assert moved.json()["turn"] == view["turn"] + 1 and "could not be saved" in moved.text
        view, moves = moved.json(), moves + 1
    assert moves >= 1
    assert c.get(f"/api/games/{view['game']}").json()["turn"] == view["turn"]


def test_spar_play_names_the_record_file_it_cannot_write() -> None:
    child = pexpect.spawn(str(SPAR), ["play", "--opponents", "random", "--set", "end=one_hand",
                                      "--seed", "11", "--record", "/dev/full"],
                          encoding="utf-8", timeout=60, dimensions=(50, 120),
                          preexec_fn=default_sigint)  # fmt: skip
    child.logfile_read = seen = io.StringIO()
    for _ in range(12):
        if child.expect(["your card: ", pexpect.EOF]) == 1:
            break
        child.sendline("1")
    child.expect(pexpect.EOF)
    child.close()
    said = " ".join(seen.getvalue().split())  # the terminal wraps the line
    assert child.exitstatus == 1, said
    assert "spar play: error: /dev/full: cannot write the record" in said
    assert "No space left on device" in said and "Traceback" not in said


# ----- the web's next hand -------------------------------------------------------------
def test_next_hand_errors_speak_of_the_deal() -> None:
    app = create_app(Lobby(["random"], ["random"]), CALM, seed=0)
    c = TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)
    view = c.post("/api/games", json={"variant": "spar", "players": 2,
                                      "opponents": "random"}).json()  # fmt: skip
    game = view["game"]
    for body, words in (({}, "a deal of the next hand must give the table's turn"),
                        ({"turn": view["turn"] + 5}, "out of turn: this was for turn")):  # fmt: skip
        answer = c.post(f"/api/games/{game}/next", json=body)
        assert answer.status_code in (400, 409) and words in answer.json()["error"], answer.text
        assert "move" not in answer.json()["error"]
