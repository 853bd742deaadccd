"""A hostile ``league.json`` is refused in one line: every count in it has its flag's bound, and
the file's size and nesting are bounded before it is read (issue #58, defect 6)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from spar_env.limits import MAX_ENTRANTS, MAX_GAMES
from tests.helpers.cli import cli, one_line


@pytest.fixture
def league(tmp_path: Path, capsys) -> Path:
    """A league of two entrants with one match played and one planned."""
    folder = tmp_path / "lg"
    assert cli(capsys, "league", "add", folder, "heuristic", "random")[0] == 0
    assert cli(capsys, "league", "play", folder, "--deals", "2", "--match", "2")[0] == 0
    data = json.loads((folder / "league.json").read_text())
    data["planned"] = [{**data["played"][0], "index": 1, "seed": _seed(data["seed"], 1)}]
    for key in ("margin_sum", "margin_sumsq", "payoff_sum"):
        del data["planned"][0][key]
    (folder / "league.json").write_text(json.dumps(data))
    assert cli(capsys, "league", "show", folder)[0] == 0
    return folder


def _seed(seed: int, index: int) -> int:
    import numpy as np

    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def _damage(folder: Path, change: Callable[[dict], object]) -> None:
    path = folder / "league.json"
    changed = change(json.loads(path.read_text()))
    path.write_text(changed if isinstance(changed, str) else json.dumps(changed))


def _deals(part: str, deals: int) -> Callable[[dict], dict]:
    return lambda d: {**d, part: [{**d[part][0], "deals": deals}]}


@pytest.mark.parametrize(
    ("change", "names"),
    [
        (_deals("planned", 10**12), ("match 1's deals", f"{MAX_GAMES:,}")),  # memory without end
        (_deals("played", 10**30), ("match 0's deals", f"{MAX_GAMES:,}")),  # OverflowError
        (lambda d: "[" * 100_000 + "]" * 100_000, ("nested more than",)),  # RecursionError
        (lambda d: {**d, "game": {**d["game"], "options": {"end": "target:" + "9" * 30}}},
         ("at most 1,000",)),
        (lambda d: {**d, "entrants": [f"pimc:seed={k}" for k in range(MAX_ENTRANTS + 1)],
                    "played": [], "planned": []}, ("entrants", f"{MAX_ENTRANTS:,}")),
    ],
    ids=["planned-deals", "played-deals", "deep", "far-end", "entrants"],
)  # fmt: skip
@pytest.mark.parametrize("action", ["show", "play"])
def test_a_hostile_league_file_is_refused_in_one_line(
    league: Path, capsys, change: Callable[[dict], object], names: tuple[str, ...], action: str
) -> None:
    _damage(league, change)
    argv = ("league", action, league) + (("--deals", "2") if action == "play" else ())
    status, _, err = cli(capsys, *argv)
    one_line(status, err, "league.json", *names)


def test_a_league_file_past_its_size_is_refused_unread(
    league: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("spar_train.league.store.MAX_LEAGUE_BYTES", 100)
    status, _, err = cli(capsys, "league", "show", league)
    one_line(status, err, "league.json", "larger than any league file")


def test_adding_past_the_entrants_bound_is_refused(
    league: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("spar_train.league.ladder.MAX_ENTRANTS", 3)
    assert cli(capsys, "league", "add", league, "low")[0] == 0
    status, _, err = cli(capsys, "league", "add", league, "high", "heuristic")  # one is in
    one_line(status, err, "entrants", "at most 3")
