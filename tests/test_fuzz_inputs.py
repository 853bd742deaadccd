"""A fuzz pass over what a user types: every ``--set`` key of ``spar train`` and every numeric
flag of every ``spar`` subcommand, with values of every kind (the wrong type, out of range,
huge, negative, NaN, infinite, unicode, empty).

Each value must be refused at once, in one line naming the key or flag, or accepted as one
the run can use; never a traceback, and never a run that starts and fails later on a value
that could have been refused at once. Nothing trains or plays here:

- a config key goes through what ``spar train`` checks before it makes the run folder
  (:func:`spar_train.config.load_config` and the agents' preflight), and an accepted config
  must write and read back as its run folder's ``config.toml`` (a resume reads it);
- a flag goes through ``spar`` in-process, with the work the command would start (the
  tournament, the run, the table...) replaced by a stop, so that a value refused only once
  the work has begun is caught.

The keys are read from the config schema (:mod:`spar_train.sections`) and the flags from
the parser, so a new key or flag is fuzzed as soon as it exists. A numeric key or flag
must refuse the hostile numbers (negative, NaN, infinite, huge); ``ALLOWED`` lists the few
that may accept one, each with its reason.
"""

from __future__ import annotations

import argparse
import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

import pytest
from helpers.cli import TINY

from spar_apps.cli import build_parser, main
from spar_train.config import ConfigError, dump_config, from_dict, load_config
from spar_train.preflight import check_agents
from spar_train.sections import SECTIONS, SECTIONS_OF

HUGE_INT = str(2**64)
HOSTILE_NUMBERS = ["-1", "nan", "inf", "-inf", "1e308", "-1e308", HUGE_INT, f"-{HUGE_INT}"]
OTHER_VALUES = ["0", "1", "0.5", "true", '"é☃🂡"', '"x"', '""', "[1, 2]", "[]", "{a = 1}",
                "none", "1,2", '"' + "x" * 300 + '"', '"a\\u0000b"', '"\\u001b[2J"']  # fmt: skip
# Values of the keys whose type is a table or a list of tables, past the generic ones.
EXTRA_VALUES = {
    "pool.mix": ["{self = 1e308, heuristic = 1e308}", "{self = nan}", '{"é☃" = 1}',
                 "{self = -1}", '{"pimc:worlds=1e9" = 1}'],
    "game.mix": ['[{variant = "spar", players = 99}]', '[{variant = "spar", weight = -1}]',
                 '[{variant = "spar", weight = 1e308}, {variant = "sipa", weight = 1e308}]',
                 '[{variant = "spar", players = "all", weight = nan}]', '[{variant = "é"}]',
                 '[{variant = "spar", options = {deal_pattern = [1e308]}}]'],
    "game.options": ["{deal_pattern = [1e308]}", "{last_two = 1e308}", '{"é" = 1}',
                     "{ace_of_spades = nan}"],
    "model.hidden": ["[1e308]", "[-1]", "[0]", f"[{2**40}]", "[64, nan]"],
    "eval.opponents": ['["pimc:worlds=1e12"]', '["é☃"]', '["search:policy=é"]'],
}  # fmt: skip
# The algorithm, and the settings of its base config, that read each section.
BASES = {
    "ppo": [],
    "mccfr": ["algorithm=mccfr", "game.players=2"],
    "cfr": ["algorithm=cfr", 'game.variant="micro"', "game.players=2"],
}
# Numeric keys and flags that may accept a hostile number, and why (none so far).
ALLOWED: dict[str, str] = {
    # its seed only deals, and a fresh one carries 128 bits: 2^64 is a seed like another
    "play --seed": "up to 2^128 - 1",
}


def _algorithm_of(section: str) -> str:
    return next(a for a in BASES if section in SECTIONS_OF[a])


KEYS = [
    (s, f.name, get_type_hints(cls)[f.name]) for s, cls in SECTIONS.items() for f in fields(cls)
]


def _numeric(hint: Any) -> bool:
    return hint in (int, float)


def _hostile_inside(section: str, name: str, hint: Any) -> list[str]:
    """The hostile numbers inside a list of numbers or a table of them (``model.hidden``,
    ``pool.mix``): they must be refused as a number key's are."""
    origin, args = get_origin(hint), get_args(hint)
    if origin is list and _numeric(args[0]):
        return [f"[{v}]" for v in HOSTILE_NUMBERS]
    if origin is dict and _numeric(args[1]):
        default = getattr(SECTIONS[section](), name)
        entry = next(iter(default), "a")  # a name the table takes (pool.mix: "self")
        return [f"{{{entry} = {v}}}" for v in HOSTILE_NUMBERS]
    return []


@pytest.mark.parametrize(("section", "name", "hint"), KEYS, ids=[f"{s}.{n}" for s, n, _ in KEYS])
def test_every_config_key_refuses_at_once_or_runs(section: str, name: str, hint: Any) -> None:
    key = f"{section}.{name}"
    base = BASES[_algorithm_of(section)]
    inside = _hostile_inside(section, name, hint)
    values = HOSTILE_NUMBERS + OTHER_VALUES + EXTRA_VALUES.get(key, []) + inside
    wrong = []
    for value in values:
        try:
            config = load_config(TINY if not base else None, [*base, f"{key}={value}"])
            check_agents(config)
        except ConfigError as e:
            message = str(e)
            if "\n" in message or section not in message:
                wrong.append(f"{value}: a message that is not one line naming the key: {message}")
            continue
        except Exception as e:  # noqa: BLE001 - any other is a traceback at the command line
            wrong.append(f"{value}: {type(e).__name__}: {e}")
            continue
        hostile = (_numeric(hint) and value in HOSTILE_NUMBERS) or value in inside
        if hostile and key not in ALLOWED:
            wrong.append(f"{value}: accepted")
            continue
        try:  # the run writes its config, and a resume reads it back
            again = from_dict(tomllib.loads(dump_config(config, "0")))
        except Exception as e:  # noqa: BLE001
            wrong.append(f"{value}: accepted, but its config.toml does not read back: {e}")
            continue
        if again != config:
            wrong.append(f"{value}: accepted, but its config.toml reads back otherwise")
    assert not wrong, f"{key}:\n" + "\n".join(wrong)


# ----- the numeric flags of every subcommand ------------------------------------------------
class Started(Exception):
    """The command began its work: every check it makes before that has passed."""


def _start(*args: Any, **kwargs: Any) -> Any:
    raise Started


# What starts each command's work; replaced by _start.
WORK = [
    "spar_train.run",
    "spar_train.tournament.run_tournament",
    "spar_train.match.bench.run_match_bench",
    "spar_train.match.model.estimate_hand_model",
    "spar_train.league.add_entrants",
    "spar_train.league.play_league",
    "spar_train.exploit.run_exploit",
    "spar_apps.terminal.play_session",
    "spar_apps.web.create_app",
    "spar_agents.export.writer.export_checkpoint",
    "spar_apps.cli.record.record_hands",
    "spar_apps.cli.speed.measure",
    "spar_apps.cli.review._review_lines",
]
# Each command as it would run, but for the flag fuzzed (LEAGUE and RUN are filled in).
COMMANDS = {
    "train": ["train", "ppo_tiny"],
    "bench": ["bench", "heuristic", "random"],
    "equity": ["equity"],
    "league add": ["league", "add", "LEAGUE", "random", "low"],
    "league play": ["league", "play", "LEAGUE"],
    "exploit": ["exploit", "random", "--updates", "1"],
    "play": ["play"],
    "serve": ["serve"],
    "rules": ["rules"],
    "export": ["export", "RUN"],
    "record": ["record"],
    "speed": ["speed"],
    "review": ["review", "RECORDS"],
}
# Flags that need another to mean anything.
WITH = {("equity", "--dealer"): ["--scores", "0,0,0,0"], ("bench", "--chunk"): [],
        ("train", "--ray-timeout"): []}  # fmt: skip
FLAG_VALUES = HOSTILE_NUMBERS + ["0", "1", "1.5", "x", "é☃", "", "9" * 5000]


def _numeric_flags() -> list[tuple[str, str]]:
    """(command, flag) for every option whose type reads "1" as a number."""
    found = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])
            elif action.option_strings and action.type is not None:
                try:
                    number = isinstance(action.type("1"), int | float)
                except (argparse.ArgumentTypeError, ValueError, TypeError):
                    number = False
                if number:
                    found.append((" ".join(path), action.option_strings[0]))

    walk(build_parser(), [])
    return found


FLAGS = _numeric_flags()


@pytest.fixture(scope="module")
def places(tiny_run: Path, tmp_path_factory) -> dict[str, str]:
    league = tmp_path_factory.mktemp("league") / "lg"
    assert main(["league", "add", str(league), "random", "low", "--players", "2"]) == 0
    records = tmp_path_factory.mktemp("records") / "games.jsonl"
    assert main(["record", "--players", "2", "--hands", "1", "--out", str(records)]) == 0
    return {"LEAGUE": str(league), "RUN": str(tiny_run), "RECORDS": str(records)}


def test_every_command_with_numeric_flags_is_fuzzed() -> None:
    assert {command for command, _ in FLAGS} <= set(COMMANDS)
    assert len(FLAGS) >= 20


@pytest.mark.parametrize(("command", "flag"), FLAGS, ids=[f"{c} {f}" for c, f in FLAGS])
def test_every_numeric_flag_refuses_at_once_or_starts(
    command: str, flag: str, places: dict[str, str], capsys, monkeypatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    for target in WORK:
        monkeypatch.setattr(target, _start)
    argv = [places.get(word, word) for word in COMMANDS[command]]
    argv += WITH.get((command, flag), [])
    wrong = []
    for value in FLAG_VALUES:
        try:
            status = main([*argv, f"{flag}={value}"])
        except Started:
            status = None
        except Exception as e:  # noqa: BLE001 - a traceback at the command line
            capsys.readouterr()
            wrong.append(f"{value[:20]}: {type(e).__name__}: {e}")
            continue
        out, err = capsys.readouterr()
        if status not in (None, 0):
            if len(err.splitlines()) != 1 or "Traceback" in err:
                wrong.append(f"{value[:20]}: not one line: {err[:300]}")
            continue
        hostile = value in HOSTILE_NUMBERS or value in ("x", "é☃", "", "9" * 5000)
        if hostile and f"{command} {flag}" not in ALLOWED:
            wrong.append(f"{value[:20]}: accepted")
    assert not wrong, f"spar {command} {flag}:\n" + "\n".join(wrong)
