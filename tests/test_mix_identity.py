"""A game-mix run's identity is its mix, not the single game of ``[game]``: it resumes, its
end-of-run bench hint runs as printed, and an edited mix is refused naming the change.

The mix holds neither the base config's game (``ppo_tiny``: ``spar`` with 2 players) nor
4-player ``spar``, so nothing may fall back on them.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from helpers.cli import spar

from spar_train.config import load_config
from spar_train.games import game_mix, mix_games

MIX = 'game.mix=[{variant="jeu_de_carte",players=2},{variant="sipa",players=3}]'


@pytest.fixture(scope="module")
def mix_run(tmp_path_factory) -> tuple[Path, str]:
    """``spar train ppo_tiny`` on the mix (4 updates), and what it printed."""
    where = tmp_path_factory.mktemp("mix")
    done = spar("train", "ppo_tiny", "--name", "ok3", "--set", MIX, "--set", "eval.deals=20",
                cwd=where, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return where, done.stdout


def test_a_mix_run_without_the_base_game_resumes_and_trains_on(mix_run) -> None:
    where, _ = mix_run
    done = spar("train", "--resume", "runs/ok3", "--set", "run.updates=6", cwd=where, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "evaluation after update 6" in done.stdout
    assert (where / "runs" / "ok3" / "checkpoints" / "update_000006.pt").is_file()


def test_the_bench_hint_of_a_two_player_mix_runs_as_printed(mix_run) -> None:
    where, said = mix_run
    hint = re.search(r"^bench:\s+(spar bench .*)$", said, re.MULTILINE)
    assert hint, said
    argv = shlex.split(hint.group(1))
    assert argv[:3] == ["spar", "bench", "ppo:runs/ok3"] and argv[3:5] == ["heuristic", "--deals"]
    done = spar(*argv[1:], "--json", cwd=where, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout)
    assert (figures["variant"], figures["players"]) == ("jeu_de_carte", 2)  # the mix's first game
    assert "as ppo:runs/ok3 was made for" in done.stderr


def test_an_edited_mix_is_refused_naming_the_change(mix_run, tmp_path) -> None:
    import shutil

    where, _ = mix_run
    copy = tmp_path / "runs" / "edited"
    shutil.copytree(where / "runs" / "ok3", copy)
    (copy / ".lock").unlink(missing_ok=True)
    config = copy / "config.toml"
    text = config.read_text()
    assert text.count('variant = "sipa"') == 1
    config.write_text(text.replace("players = 3", "players = 4"))
    done = spar("train", "--resume", str(copy), cwd=tmp_path)
    assert done.returncode != 0
    err = done.stderr
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "game.mix[1] was {" in err and "players = 3" in err and "players = 4" in err, err


def test_the_single_game_is_the_default_of_each_mix_entry() -> None:
    config = load_config(None, ['game.variant="sipa"', "game.players=3",
                                "game.options={ace_of_spades=true}",
                                'game.mix=[{weight=2.0},{players=4,options={ace_of_spades=false}},'
                                '{variant="spar",players=2}]'])  # fmt: skip
    games = [(g.rules.variant, g.rules.players, g.rules.ace_of_spades, g.weight)
             for g in mix_games(config)]  # fmt: skip
    assert games == [("sipa", 3, True, 2.0), ("sipa", 4, False, 1.0), ("spar", 2, True, 1.0)]


def test_a_mix_plays_its_home_game_when_none_is_named() -> None:
    with_spar4 = load_config(None, ['game.mix=[{variant="sipa",players=3},{players=4}]'])
    without = load_config(None, [MIX])
    home, other = game_mix(with_spar4).home, game_mix(without).home
    assert (home.variant, home.players) == ("spar", 4)
    assert (other.variant, other.players) == ("jeu_de_carte", 2)
