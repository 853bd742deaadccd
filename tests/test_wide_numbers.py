"""Numbers wider than their place, typed or asked for: ``spar review --scores`` and ``spar
equity --scores`` of 20 digits or of more than Python's 4,300 (one line, exit 2, never an
``OverflowError``), ``--set KEY=`` a number past 4,300 digits (one line naming the key, not
Python's message), and ``GET /api/rules?players=`` of 4,301 digits (a 400 that says what is
wrong, never a 500)."""

from __future__ import annotations

import json

import pytest
from helpers.cli import cli, one_line
from starlette.testclient import TestClient

from spar_apps.web import Limits, Lobby, create_app
from spar_env.limits import MAX_SCORE

# A two-player hand whose record the review reads (seat 0 leads the 6 of spades).
RECORD = {
    "variant": "spar", "players": 2, "dealer": 1,
    "hands": [["6S", "AC", "KC", "QC", "JC"], ["7S", "AD", "KD", "QD", "JD"]],
    "plays": ["6S", "7S", "AD", "AC", "KD", "KC", "QD", "QC", "JD", "JC"],
}  # fmt: skip
HUGE = "9" * 4400  # past int()'s 4,300 digits
WIDE = ["99999999999999999999", str(MAX_SCORE + 1), HUGE, "-1"]


@pytest.mark.parametrize("score", WIDE)
def test_review_refuses_a_score_too_wide_in_one_line(capsys, tmp_path, score: str) -> None:
    games = tmp_path / "games.jsonl"
    games.write_text(json.dumps(RECORD) + "\n")
    status, _, err = cli(capsys, "review", games, f"--scores={score},0")
    one_line(status, err, "--scores", f"{MAX_SCORE:,}")
    assert len(err) < 200, err  # the 4,400 digits are not echoed


@pytest.mark.parametrize("score", WIDE)
def test_equity_refuses_a_score_too_wide_in_one_line(capsys, score: str) -> None:
    status, _, err = cli(capsys, "equity", "--players", "2", f"--scores={score},0",
                         "--dealer", "0")  # fmt: skip
    one_line(status, err, "--scores", f"{MAX_SCORE:,}")
    assert len(err) < 200, err


def test_the_widest_score_allowed_is_read(capsys) -> None:
    from spar_apps.cli.arguments import whole_numbers

    assert whole_numbers(f"{MAX_SCORE}, 0,+3", "--scores", MAX_SCORE) == [MAX_SCORE, 0, 3]
    with pytest.raises(ValueError, match="separated by commas"):
        whole_numbers("1,,2", "--scores", MAX_SCORE)


@pytest.mark.parametrize(
    "argv",
    [["rules", "--set", f"players={HUGE}"], ["rules", "--set", f"players=-{HUGE}"],
     ["train", "ppo_tiny", "--set", f"run.updates={HUGE}"]],
    ids=["rules", "rules-negative", "train"],
)  # fmt: skip
def test_a_set_value_past_python_s_digits_names_its_key(capsys, tmp_path, monkeypatch,
                                                        argv) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    key = argv[-1].partition("=")[0]
    status, _, err = cli(capsys, *argv)
    one_line(status, err, f"--set {key}", "far too large")
    assert len(err) < 200 and "set_int_max_str_digits" not in err, err


@pytest.fixture
def web() -> TestClient:
    calm = Limits(game_burst=1e6, game_rate=1e6, new_burst=1e6)
    app = create_app(Lobby([], ["heuristic"]), calm, seed=0)
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


@pytest.mark.parametrize("players", ["9" * 4301, "9" * 10, "0" * 5000 + "9" * 4301])
def test_the_rules_of_a_table_too_wide_are_a_400_that_says_so(web: TestClient, players) -> None:
    answer = web.get("/api/rules", params={"players": players})
    assert answer.status_code == 400, answer.text
    assert "players" in answer.json()["error"] and len(answer.text) < 200


def test_a_count_with_leading_zeros_is_still_a_count(web: TestClient) -> None:
    answer = web.get("/api/rules", params={"players": "0" * 5000 + "3"})
    assert answer.status_code == 200, answer.text
    assert answer.json() == web.get("/api/rules", params={"players": "3"}).json()
