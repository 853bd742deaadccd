"""Every ``--json`` of ``spar``, and the JSON files of a run, are strict JSON: a figure that
does not exist (the interval of one match) is ``null``, never the bare ``NaN`` that jq,
JavaScript and Go refuse (issue #58, defect 7)."""

from __future__ import annotations

import argparse
import doctest
import json
import math
from pathlib import Path

import numpy as np
import pytest

from spar_apps.cli import build_parser
from spar_env import strict_json
from tests.helpers.cli import cli


def strict_loads(text: str) -> object:
    """``json.loads`` as a strict reader does it: ``NaN`` and ``Infinity`` are errors."""

    def refuse(word: str) -> None:
        raise ValueError(f"not JSON: {word}")

    return json.loads(text, parse_constant=refuse)


def test_non_finite_numbers_are_null_and_numpy_is_plain() -> None:
    value = {
        "a": float("nan"),
        "b": [np.float32(np.inf), np.int64(3)],
        "c": np.array([1.5, -np.inf]),
    }
    assert strict_loads(strict_json.dumps(value)) == {"a": None, "b": [None, 3], "c": [1.5, None]}
    assert strict_json.finite((1.0, float("-inf"))) == [1.0, None]
    assert doctest.testmod(strict_json).failed == 0


# Tiny runs of every subcommand with --json: a new --json must be added here (the test
# below looks for them in the parser), so none can print NaN unseen.
JSON_RUNS = {
    "bench": [("bench", "heuristic", "random", "--matches", "1", "--json"),
              ("bench", "heuristic", "random", "--deals", "1", "--json")],
    "equity": [("equity", "random", "--deals", "1", "--set", "end=stones:3", "--json")],
    "exploit": [("exploit", "random", "--players", "2", "--updates", "1", "--deals", "1",
                 "--json")],
    "league show": [("league", "show", "LEAGUE", "--json")],
    "speed": [("speed", "--batch", "1", "--seconds", "0.01", "--json")],
    "review": [("review", "RECORDS", "--worlds", "1", "--json")],  # one draw: no spread, null
}  # fmt: skip


def _json_commands() -> set[str]:
    """The subcommands (and league's actions) that take --json."""
    found = set()

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        for action in parser._actions:
            if "--json" in action.option_strings:
                found.add(name)
            if isinstance(action, argparse._SubParsersAction):
                for sub, subparser in action.choices.items():
                    walk(subparser, f"{name} {sub}".strip())

    walk(build_parser(), "")
    return found


def test_every_json_option_is_run_here() -> None:
    assert _json_commands() == set(JSON_RUNS)


@pytest.mark.parametrize(
    "argv", [argv for runs in JSON_RUNS.values() for argv in runs], ids=lambda a: " ".join(a[:2])
)
def test_every_json_output_is_strict_json(
    argv: tuple[str, ...], tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    if "LEAGUE" in argv:  # one match of one deal: its interval does not exist
        assert cli(capsys, "league", "add", "lg", "heuristic", "random")[0] == 0
        assert cli(capsys, "league", "play", "lg", "--deals", "2", "--match", "2")[0] == 0
        argv = tuple("lg" if a == "LEAGUE" else a for a in argv)
    if "RECORDS" in argv:  # a hand to review
        assert cli(capsys, "record", "--players", "2", "--hands", "1", "--out", "g.jsonl")[0] == 0
        argv = tuple("g.jsonl" if a == "RECORDS" else a for a in argv)
    status, out, err = cli(capsys, *argv)
    assert status == 0, err
    texts = out.splitlines() if argv[0] in ("speed", "review") else [out]  # JSON lines
    for text in texts:
        strict_loads(text)
    for path in tmp_path.glob("runs/*/*.json"):  # exploit.json, the run's own result
        strict_loads(path.read_text())
    if argv[0] == "exploit":
        assert list(tmp_path.glob("runs/*/exploit.json"))


def test_one_match_has_no_interval_and_says_null(capsys) -> None:
    status, out, _ = cli(capsys, "bench", "heuristic", "random", "--matches", "1", "--json")
    figures = strict_loads(out)
    assert status == 0
    first = figures["agents"][0]
    assert first["match_ci95_halfwidth"] is None and first["match_ci95"] == [None, None]
    assert math.isfinite(first["match_share"])
