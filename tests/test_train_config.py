"""Run configs: the shipped files load, the default file is the built-in default, and every bad
key or value is refused before training with a message that names it."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

from spar_train.config import (
    Config,
    ConfigError,
    default_config_path,
    dump_config,
    from_dict,
    load_config,
)

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "configs").glob("*.toml"))


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_every_shipped_config_loads(path: Path) -> None:
    config = load_config(path)
    assert config.algorithm == path.stem.split("_")[0]
    assert config.run.name == path.stem.removeprefix("ppo_")


def test_the_default_config_file_is_the_built_in_default() -> None:
    path = default_config_path()
    assert path == ROOT / "configs" / "ppo_spar4.toml"
    assert load_config(path) == Config()
    listed = tomllib.loads(path.read_text())  # every key, with its value
    for section, values in Config().to_dict().items():
        if isinstance(values, dict):
            assert set(listed[section]) == set(values), section


def test_overrides_and_the_written_config_round_trip(tmp_path: Path) -> None:
    config = load_config(
        default_config_path(),
        ["ppo.lr=1e-3", "model.hidden=[64, 32]", "pool.mix.random=0.5", "run.name=mine"],
    )
    assert config.ppo.lr == 1e-3 and config.model.hidden == [64, 32]
    assert config.pool.mix["random"] == 0.5 and config.run.name == "mine"
    text = dump_config(config, "9.9.9")
    assert text.startswith('spar_rl_version = "9.9.9"')
    path = tmp_path / "config.toml"
    path.write_text(text)
    assert load_config(path) == config


def test_a_run_written_with_an_empty_mix_still_resumes(tmp_path: Path) -> None:
    """Runs saved before the empty mix was refused hold ``mix = []``: they resume as they were."""
    from spar_train.config import CONFIG_FILE, resume_config

    text = dump_config(Config(), "9.9.9")
    assert "mix = []" not in text  # only a used mix is written
    (tmp_path / CONFIG_FILE).write_text(text.replace("[game]\n", "[game]\nmix = []\n"))
    assert "mix = []" in (tmp_path / CONFIG_FILE).read_text()
    assert resume_config(tmp_path) == Config()


BAD = [
    (["nosuch.key=1"], "nosuch: unknown section"),
    (["ppo.lrr=1"], "ppo.lrr: unknown key; keys of [ppo]: lr, "),
    (["ppo.lr=abc"], "ppo.lr: expected a number, got 'abc'"),
    (["ppo.lr=-1"], "ppo.lr: must be positive; got -1.0"),
    (["ppo.lr=nan"], "ppo.lr: expected a finite number"),
    (["ppo.epochs=2.5"], "ppo.epochs: expected a whole number, got 2.5"),
    (["ppo.epochs=0"], "ppo.epochs: must be at least 1"),
    (["ppo.gamma=1.5"], "ppo.gamma: must be in (0, 1]"),
    (["ppo.clip=0"], "ppo.clip: must be in (0, 1)"),
    (["ppo.lr_schedule=cosine"], "ppo.lr_schedule: must be linear or constant"),
    (["model.hidden=[64, 0]"], "model.hidden: must be a list of positive layer widths"),
    (["model.hidden=64"], "model.hidden: expected a list, got 64"),
    (["model.privileged_critic=yes"], "model.privileged_critic: expected true or false"),
    (["run.updates=0", "warmstart.updates=0"], "run.updates: must be at least 1 (0 only for"),
    (["run.updates=0", "warmstart.imitate="], "run.updates: must be at least 1 (0 only for"),
    (["warmstart.epochs=0"], "warmstart.epochs: must be at least 1"),
    (["run.name=a/b"], "run.name: must be a folder name"),
    (["run.seed=-3"], "run.seed: must be a non-negative integer"),
    (["rollout.games=0"], "rollout.games: must be at least 1"),
    (["rollout.precision=float16"], "rollout.precision: must be one of auto, float32, bfloat16"),
    (["game.players=9"], "game: spar allows at most 7 players"),
    (["game.variant=nosuch"], "game: unknown variant 'nosuch'"),
    (["game.options.nosuch=1"], "game: unknown option 'nosuch' for spar"),
    (["game.mix=[]"], "game.mix: an empty mix names no game; remove the key"),
    (["pool.mix.nosuchagent=1"], "pool.mix.nosuchagent: unknown opponent"),
    (["pool.mix.self=-1"], "pool.mix.self: must be 0 or more"),
    (["pool.mix={ self = 0 }"], "pool.mix: must be shares that add up to more than 0"),
    (["eval.deals=1"], "eval.deals: must be at least 2"),
    (["eval.matches=-1"], "eval.matches: must be 0 (none) or more"),
    (["ppo.reward=points"], "ppo.reward: must be hand or match"),
    (["ppo.reward=match", "game.options.end=hands:3"], "ppo.reward: match needs a session to"),
    (["ppo.reward=match", "ppo.match_model=nobody"], "ppo.match_model: must be an agent spec"),
    (["warmstart.actor=nosuchbot"], "warmstart.actor: must be a shipped bot's name"),
    (["eval.opponents=['random', 'nobody']"], "eval.opponents[1]: must be an agent spec"),
    (["warmstart.imitate=nobody"], "warmstart.imitate: must be an agent spec"),
    (["algorithm=dqn"], "algorithm: must be one of ppo"),
    (["ppo=1"], "ppo: must be a table"),
    (["oops"], "--set 'oops': expected section.key=value"),
    (["solver.iterations=10"], "solver: algorithm 'ppo' has no [solver] section"),
    (["algorithm=cfr", "ppo.lr=1e-3"], "ppo: algorithm 'cfr' has no [ppo] section"),
    (["algorithm=cfr", "game.variant=mini"], "game.players: must be 2"),
    (["algorithm=cfr", "game.players=2", "solver.algorithm=cfr++"], "solver.algorithm: must be"),
    (["algorithm=lp", "game.players=2", "solver.iterations=3"], "algorithm 'lp' has no [solver]"),
    # search in the loop: one update's work bounded before any (spar_train.config_check)
    (["search.games=100000"], "search.games x rollout.hands x search.worlds: at most 65,536"),
    (["search.games=4096", "rollout.hands=2"], "search.games x rollout.hands x search.worlds"),
    (["search.temperature=1e-320"], "search.temperature: must be above 0: at least 1e-06"),
    (["search.temperature=1e-7"], "search.temperature: must be above 0: at least 1e-06"),
    (["search.worlds=1024", "search.candidates=1024"], "search.worlds x search.candidates: must"),
    (["search.games=64", "run.max_minutes=0.01"], "run.max_minutes: must be enough for one upd"),
]


@pytest.mark.parametrize(("overrides", "message"), BAD, ids=[b[0][0] for b in BAD])
def test_bad_configs_are_refused_naming_the_key(overrides: list[str], message: str) -> None:
    with pytest.raises(ConfigError) as e:
        load_config(None, overrides)
    assert message in str(e.value)
    assert "\n" not in str(e.value)


def test_search_s_bounds_let_the_largest_update_and_the_least_temperature_pass() -> None:
    widest = load_config(None, ["search.games=4096", "run.max_minutes=0"])  # 4096 x 16 worlds
    assert widest.search.games * widest.search.worlds == 65_536
    assert load_config(None, ["search.games=4", "search.temperature=1e-6"]).search.games == 4
    # the estimate of one update's search is shared among the rollout's workers
    alone = ["search.games=512", "search.worlds=16", "run.max_minutes=1"]  # ~1.4 min alone
    with pytest.raises(ConfigError, match="run.max_minutes"):
        load_config(None, alone)
    assert load_config(None, [*alone, "rollout.workers=8"]).rollout.workers == 8


def test_a_search_past_its_bounds_is_refused_by_spar_train_in_one_line(tmp_path, capsys,
                                                                       monkeypatch) -> None:  # fmt: skip
    from helpers.cli import cli, one_line

    monkeypatch.chdir(tmp_path)
    status, _, err = cli(capsys, "train", "ppo_tiny", "--set", "search.games=100000")
    one_line(status, err, "search.games", "65,536")
    assert not (tmp_path / "runs").exists()  # refused before any work


def test_unreadable_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="nope.toml: no such config file"):
        load_config(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[ppo\nlr = 1")
    with pytest.raises(ConfigError, match="bad.toml: not a valid TOML file"):
        load_config(bad)


def test_configs_are_frozen_data() -> None:
    config = from_dict({"ppo": {"lr": 1e-3}})
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.ppo.lr = 1.0  # type: ignore[misc]


def test_config_overrides_read_values_as_every_set_does() -> None:
    """One grammar (spar_env.values): a comma list is a list, none and True are words too."""
    config = load_config(None, ["model.hidden=64,32", "eval.opponents=random,heuristic",
                                "model.privileged_critic=False", "warmstart.imitate=random"])  # fmt: skip
    assert config.model.hidden == [64, 32] and config.eval.opponents == ["random", "heuristic"]
    assert config.model.privileged_critic is False and config.warmstart.imitate == "random"


def test_the_ppo_update_settings_have_one_home() -> None:
    """[ppo] takes the update's defaults from PPOSettings, and 0 means off in both."""
    from spar_agents.ppo.update import PPOSettings
    from spar_train.ppo.learn import ppo_settings

    assert ppo_settings(Config()) == PPOSettings()
    assert ppo_settings(load_config(default_config_path())) == PPOSettings()
    off = ppo_settings(load_config(None, ["ppo.value_clip=0", "ppo.target_kl=0"]))
    assert off.value_clip == 0 and off.target_kl == 0
    changed = ppo_settings(load_config(None, ["ppo.clip=0.1", "ppo.epochs=5"]))
    assert (changed.clip, changed.epochs) == (0.1, 5)


def test_the_retired_warmstart_games_is_refused_in_a_config_with_what_to_do(
    tmp_path: Path, capsys
) -> None:
    """warmstart.games was read by nothing (each imitation batch is rollout.games hands):
    setting it is refused in one line, on the command line and in a file, not ignored."""
    from tests.helpers.cli import TINY, cli, one_line

    said = "warmstart.games: retired, it never did anything: each imitation batch is " \
        "rollout.games hands"  # fmt: skip
    with pytest.raises(ConfigError, match=said):
        load_config(TINY, ["warmstart.games=64"])
    mine = tmp_path / "mine.toml"
    mine.write_text('[warmstart]\nimitate = "heuristic"\ngames = 4096\n')
    status, _, err = cli(capsys, "train", mine)
    one_line(status, err, said, "remove the key")
    assert not any("games" in line for path in CONFIGS for line in _warmstart_lines(path))


def test_a_run_folder_whose_config_holds_warmstart_games_still_resumes(
    run_copy: Path, capsys
) -> None:
    """Run folders written before it was retired hold ``games = 2048`` in [warmstart]."""
    from tests.helpers.cli import cli

    path = run_copy / "config.toml"
    text = path.read_text()
    if "games" not in "".join(_warmstart_lines(path)):
        path.write_text(text.replace("[warmstart]\n", "[warmstart]\ngames = 2048\n"))
    assert "games" in "".join(_warmstart_lines(path))
    status, out, err = cli(capsys, "train", "--resume", run_copy, "--set", "run.updates=3")
    assert status == 0 and "evaluation after update 3" in out, err


def _warmstart_lines(path: Path) -> list[str]:
    section, lines = None, []
    for line in path.read_text().splitlines():
        if line.startswith("["):
            section = line.strip()
        elif section == "[warmstart]":
            lines.append(line.split("#")[0])
    return lines
