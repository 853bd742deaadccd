"""What the package ships, by name, and the game that ``spar bench``/``spar play`` take from a bot.

The wheel itself (a fresh venv, no source) is tried by ``.ci/wheel``; here the
editable install must find the same package data through importlib.resources.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_export import tiny_run

from spar_agents import make_agent, shipped
from spar_agents.export.bot import SHIPPED_BOT, OnnxAgent
from spar_agents.registry.spec import lineup_game, spec_rules
from spar_apps.cli import main
from spar_env.rules import make_rules
from spar_train import config as configs

ROOT = Path(__file__).resolve().parents[1]
SPAR = str(Path(sys.executable).with_name("spar"))  # the console script of this environment


def test_the_shipped_folders_are_the_package_data() -> None:
    assert shipped.bot_names() == sorted(p.stem for p in (ROOT / "checkpoints").glob("*.onnx"))
    assert configs.config_names() == sorted(p.stem for p in (ROOT / "configs").glob("*.toml"))
    assert shipped.bot_path("spar4") == SHIPPED_BOT == ROOT / "checkpoints" / "spar4.onnx"
    assert shipped.bot_card("spar4")["bot"] == "checkpoints/spar4.onnx"
    assert configs.config_path("ppo_tiny.toml") == ROOT / "configs" / "ppo_tiny.toml"


def test_a_shipped_bot_by_name_and_by_path_is_the_same_bot() -> None:
    rules = make_rules("spar")
    by_name = make_agent("onnx:spar4", rules)
    by_path = make_agent(f"onnx:{ROOT / 'checkpoints' / 'spar4.onnx'}", rules)
    assert isinstance(by_name, OnnxAgent) and by_name.meta == by_path.meta


def test_an_unknown_shipped_name_lists_the_shipped_ones(tmp_path: Path) -> None:
    with pytest.raises(
        ValueError,
        match="no shipped bot named 'spar9'; the shipped bots: exit2, exit4, match, spar2, spar4, universal",
    ):
        shipped.bot_path("spar9")
    with pytest.raises(ValueError, match="spar9: no such bot file"):
        make_agent("onnx:spar9", make_rules("spar"))
    with pytest.raises(ValueError, match="ppo_tiny"):
        configs.config_path("ppo_huge")


def test_a_file_of_that_name_wins_over_the_shipped_one(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ppo_tiny").write_text("algorithm = 'cfr'\n")
    assert configs.resolve_config("ppo_tiny") == Path("ppo_tiny")
    assert configs.resolve_config("ppo_tiny.toml") == configs.config_path("ppo_tiny")
    assert shipped.resolve_bot("dir/spar4") == Path("dir/spar4")


def test_spar_train_lists_the_shipped_configs(capsys) -> None:
    assert main(["train", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == configs.config_names()
    assert any(line.startswith("ppo_tiny ") and "tiny PPO run" in line for line in lines)


def test_spar_train_takes_a_shipped_config_by_name(tmp_path: Path, capsys) -> None:
    argv = ["train", "cfr_micro", "--runs-dir", str(tmp_path), "--set", "solver.iterations=20"]
    assert main(argv) == 0
    assert (tmp_path / "cfr_micro" / "config.toml").is_file()
    assert "micro, cfr" in capsys.readouterr().out


# ----- the game from the first learned agent --------------------------------------------
def test_the_game_of_each_learned_spec(tmp_path: Path) -> None:
    two = make_rules("spar", players=2)
    run = tiny_run(tmp_path, two)
    assert spec_rules(f"ppo:{run}") == two
    assert spec_rules("onnx:spar4") == make_rules("spar")
    assert spec_rules("heuristic") is None and spec_rules("ppo:path=" + str(run)) == two
    assert lineup_game(["random", f"ppo:{run}", "onnx:spar4"]) == (f"ppo:{run}", two)
    assert lineup_game(["random", "pimc:worlds=4"]) is None
    with pytest.raises(ValueError, match="no such checkpoint file or run folder"):
        spec_rules(f"ppo:{tmp_path / 'nothing'}")


def test_spar_bench_takes_the_game_of_a_2_player_run(tmp_path: Path, capsys) -> None:
    run = tiny_run(tmp_path, make_rules("spar", players=2))
    assert main(["bench", f"ppo:{run}", "random", "--deals", "20", "--json"]) == 0
    out, err = capsys.readouterr()
    assert err.strip() == (
        f"spar bench: the game is spar with 2 players, as ppo:{run} was made for "
        "(--variant and --players choose another)"
    )
    assert '"players": 2' in out


def test_given_options_win_and_a_conflict_is_the_clear_error(tmp_path: Path, capsys) -> None:
    run = tiny_run(tmp_path, make_rules("spar", players=2))
    assert main(["bench", f"ppo:{run}", "random", "--players", "4", "--deals", "4"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("spar bench: error: ") and "\n" not in err
    assert "trained for spar with 2 players" in err and "this game is spar with 4 players" in err
    argv = ["bench", f"ppo:{run}", "random", "--set", "last_two=bonus", "--deals", "4"]
    assert main(argv) == 2  # --set goes on top of the bot's game, which then differs
    assert "spar with 2 players (last_two=bonus)" in capsys.readouterr().err


def test_spar_play_takes_the_game_of_its_opponent(tmp_path: Path) -> None:
    run = tiny_run(tmp_path, make_rules("spar", players=2))
    done = subprocess.run(
        [SPAR, "play", "--opponents", f"ppo:{run}", "--seed", "3"],
        input="q\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"the game is spar with 2 players, as ppo:{run} was made for" in done.stdout
    assert "final scores: you 0 · seat 1 0\n" in done.stdout  # two seats: you and the bot


def test_one_version_and_a_license() -> None:
    import tomllib
    from importlib.metadata import metadata, version

    import spar_env

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    assert version("spar-rl") == spar_env.__version__  # read from spar_env.__version__
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert metadata("spar-rl")["License-Expression"] == "MIT"


def test_the_match_bot_was_trained_by_its_shipped_config() -> None:
    """checkpoints/match.json's run config is configs/ppo_match.toml's, but for the run's name
    (the card's command names it), so `spar train ppo_match` remakes the bot."""
    import dataclasses

    from spar_train.config import drop_retired, load_config
    from spar_train.sections import RENAMED, Config

    card = shipped.bot_card("match")
    trained = card["trained"]["config"]
    drop_retired(trained)  # warmstart.games: it did nothing, so the file need not hold it
    for old, new in RENAMED.items():  # a key's older name, in the card as the run wrote it
        (section, was), now = old.split("."), new.split(".")[1]
        if was in trained.get(section, {}):
            trained[section][now] = trained[section].pop(was)
    config = dataclasses.asdict(load_config(configs.config_path("ppo_match")))
    config["run"]["name"] = trained["run"]["name"]
    defaults = Config().to_dict()
    for section, values in trained.items():
        if not isinstance(values, dict):
            assert config[section] == values, section
            continue
        assert {k: config[section][k] for k in values} == values, section
        newer = set(config[section]) - set(values)  # keys added since: at their defaults
        assert {k: config[section][k] for k in newer} == {k: defaults[section][k] for k in newer}
    assert card["trained"]["command"].startswith("spar train ppo_match --name match_b ")
