"""``spar speed`` and :mod:`spar_env.speed` on tiny budgets: every mode runs and counts steps."""

from __future__ import annotations

import json

import pytest

from spar_apps.cli import main
from spar_env import make_rules
from spar_env.speed import MODES, measure


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_plays_and_counts(mode: str) -> None:
    rules = make_rules("sipa", players=3)
    batch = 1 if mode == "aec" else 16
    result = measure(mode, rules, batch, seconds=0.2, seed=0)
    assert result.hands > 0
    assert result.agent_steps >= result.env_steps > 0
    if mode == "core":
        # Every hand of 3 players and 5 cards is 15 card plays.
        assert result.agent_steps >= 15 * result.hands


def test_core_counts_whole_hands_exactly() -> None:
    rules = make_rules("micro")
    result = measure("core", rules, 8, seconds=0.1)
    # micro: 2 players x 2 cards; the hands still running count their cards played so far.
    assert 4 * result.hands <= result.agent_steps < 4 * result.hands + 4 * 8


def test_cli_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["speed", "--seconds", "0.1", "--batch", "1", "32", "--json", "--variant", "mini"])
    assert code == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["batch"] for x in lines] == [1, 32]
    assert all(x["mode"] == "core" and x["agent_steps_per_second"] > 0 for x in lines)


def test_cli_refuses_bad_batches(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["speed", "--mode", "aec", "--batch", "2", "--seconds", "0.1"]) == 2
    assert "one game" in capsys.readouterr().err
    assert main(["speed", "--batch", "0", "--seconds", "0.1"]) == 2
